// The stores that register themselves (core/stores.ts): bounds in count and bytes, owners and what each
// sees, and the registry's reset; then, through the SDKs, a test that fills every store the runtime
// holds, resets, and finds each empty, with another test's objects and the shared ones left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import OpenAI, { toFile } from 'openai';
import Anthropic, { toFile as toAnthropicFile } from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { createGateway, type Gateway } from '../src/index.ts';
import { declaredStores, defineStore, HeldStore, SHARED, StoreRegistry, type Owner } from '../src/core/stores.ts';
import { strictListen } from './helpers/modes.ts';

const bytes = (n: number) => new Uint8Array(n);
const cache = defineStore<Uint8Array>({ name: 'test.drop-oldest', title: 'test', maxCount: 3, maxBytes: 10, whenFull: 'drop-oldest' });
const files = defineStore<Uint8Array>({ name: 'test.refuse', title: 'test', maxCount: 2, maxBytes: 10, whenFull: 'refuse' });
const test = (key: string): Owner => ({ key, epoch: 0 });
/** Objects that expire at the second they hold. */
const expiring = defineStore<number>({
  name: 'test.expiring',
  title: 'test',
  maxCount: 2,
  maxBytes: 10,
  whenFull: 'refuse',
  expired: (at, now) => at <= now,
});

describe('HeldStore', () => {
  it('keeps a drop-oldest store within its bounds, oldest out first; an object bigger than the store is not kept', () => {
    const store = new HeldStore(cache, 10);
    for (const id of ['a', 'b', 'c']) expect(store.set(id, bytes(4), 4, SHARED)).toBe(true);
    expect([store.get('a', SHARED), store.size, store.bytes]).toEqual([undefined, 2, 8]);
    for (const id of ['d', 'e', 'f']) store.set(id, bytes(1), 1, SHARED);
    expect([store.size, store.get('c', SHARED)]).toEqual([3, undefined]);
    expect(store.set('big', bytes(11), 11, SHARED)).toBe(false);
    expect(store.size).toBe(3);
  });

  it("drops expired objects, every owner's, before a full refuse store refuses; unexpired ones still fill it", () => {
    let now = 100;
    const store = new HeldStore(
      expiring,
      10,
      () => true,
      () => now,
    );
    expect(store.set('a', 150, 4, test('one'))).toBe(true);
    expect(store.set('b', 200, 4, test('two'))).toBe(true);
    expect(store.fits(4)).toBe(false);
    expect(store.set('c', 300, 4, SHARED)).toBe(false);
    now = 150;
    // 'a' is past its time: it no longer counts, and goes to make room.
    expect(store.fits(4)).toBe(true);
    expect(store.set('c', 300, 4, SHARED)).toBe(true);
    expect([store.get('a', test('one')), store.size]).toEqual([undefined, 2]);
    // Still full of unexpired objects: refused, nothing dropped.
    expect(store.set('d', 400, 1, SHARED)).toBe(false);
    expect(store.size).toBe(2);
  });

  it('refuses, keeping everything it holds, when a refuse store is full by count or by bytes', () => {
    const store = new HeldStore(files, 10);
    expect(store.set('a', bytes(6), 6, SHARED)).toBe(true);
    expect(store.fits(5)).toBe(false);
    expect(store.set('b', bytes(5), 5, SHARED)).toBe(false);
    expect(store.set('b', bytes(4), 4, SHARED)).toBe(true);
    expect([store.fits(0), store.set('c', bytes(0), 0, SHARED)]).toEqual([false, false]);
    // Replacing an object counts its own bytes out first.
    expect(store.set('a', bytes(6), 6, SHARED)).toBe(true);
    expect([store.size, store.bytes]).toEqual([2, 10]);
  });

  it("gives a test its own objects and the shared ones, never another test's; the shared space sees all", () => {
    const store = new HeldStore(cache, 100);
    const [a, b] = [test('1:a'), test('2:b')];
    store.set('x', bytes(1), 1, a);
    store.set('x', bytes(2), 2, b);
    store.set('s', bytes(3), 3, SHARED);
    expect(store.get('x', a)?.length).toBe(1);
    expect(store.get('x', b)?.length).toBe(2);
    expect([...store.visible(a)].map(([id, v]) => `${id}${v.length}`)).toEqual(['x1', 's3']);
    expect([...store.visible(SHARED)].map(([id]) => id)).toEqual(['x', 'x', 's']);
    expect(store.get('x', SHARED)).toBeDefined();
    expect(store.view(b).delete('s')).toBe(true);
    expect(store.view(a).delete('nope')).toBe(false);
    store.dropOwner(a.key);
    expect([store.get('x', a), store.get('x', b)?.length, store.size]).toEqual([undefined, 2, 1]);
  });
});

describe('StoreRegistry', () => {
  it('makes a store per kind on first use, and a clear empties them all; an owner named before it keeps nothing after', () => {
    const live = new Set(['1:a']);
    const registry = new StoreRegistry({ storeBytes: 5 }, (key) => live.has(key));
    const stored = defineStore<number>({
      name: 'test.settings',
      title: 'test',
      maxCount: 9,
      maxBytes: (s) => s.storeBytes,
      whenFull: 'refuse',
    });
    expect(registry.of(stored)).toBe(registry.of(stored));
    expect(registry.of(stored).maxBytes).toBe(5);
    const before = registry.owner('1:a');
    registry.of(stored).set('k', 1, 1, before);
    registry.of(files).set('k', bytes(1), 1, registry.owner(''));
    registry.clear();
    expect(registry.all().map((s) => s.size)).toEqual([0, 0]);
    // Work that finished after the reset leaves nothing behind; a test reset since is no owner either.
    expect(registry.of(stored).set('late', 1, 1, before)).toBe(false);
    live.delete('1:a');
    expect(registry.of(stored).set('late', 1, 1, registry.owner('1:a'))).toBe(false);
    expect(registry.of(stored).set('ok', 1, 1, registry.owner(''))).toBe(true);
  });

  it('refuses a kind declared twice', () => {
    expect(() => defineStore({ name: 'test.refuse', title: 'again', maxCount: 1, maxBytes: 1, whenFull: 'refuse' })).toThrow(
      /declared twice/,
    );
  });
});

/** Every store the gateway declares, less the ones this file declares for its unit tests. */
const gatewayStores = () => declaredStores().filter((k) => !k.name.startsWith('test.'));

/** Puts an object in every store the gateway has, through the SDKs, as `test` (or shared, without one). */
async function fillEveryStore(test?: string): Promise<void> {
  const defaultHeaders = test === undefined ? undefined : { 'x-mock-test-id': test };
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0, defaultHeaders });
  const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0, defaultHeaders });
  const ask = [{ role: 'user' as const, content: 'Keep this.' }];
  await openai.chat.completions.create({ model: 'gpt-4o-mini', store: true, messages: ask });
  await openai.files.create({ file: await toFile(Buffer.from('kept bytes'), 'kept.txt'), purpose: 'user_data' });
  await openai.uploads.create({ filename: 'parts.txt', purpose: 'user_data', bytes: 10, mime_type: 'text/plain' });
  const line = { custom_id: 'one', method: 'POST', url: '/v1/moderations', body: { input: 'Keep this batch.' } };
  const input = await openai.files.create({ file: await toFile(Buffer.from(`${JSON.stringify(line)}\n`), 'in.jsonl'), purpose: 'batch' });
  await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/moderations', completion_window: '24h' });
  await openai.responses.create({ model: 'gpt-4o-mini', input: 'Keep this too.' });
  await openai.vectorStores.create({ name: 'kept' });
  await openai.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Keep this conversation.' }] });
  await openai.images.generate({ model: 'dall-e-2', prompt: 'a kept picture', response_format: 'url', size: '256x256' });
  await anthropic.beta.files.upload({ file: await toAnthropicFile(Buffer.from('kept'), 'kept.txt') });
  await anthropic.messages.batches.create({
    requests: [{ custom_id: 'one', params: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: ask } }],
  });
  const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: 'http://127.0.0.1:2', headers: defaultHeaders } });
  await google.files.upload({ file: new Blob(['kept'], { type: 'text/plain' }) });
  await google.batches.create({ model: 'gemini-2.5-flash', src: [{ contents: 'Keep this batch.' }] });
  await google.caches.create({ model: 'gemini-2.5-flash', config: { contents: 'A long cached manual. '.repeat(400) } });
  const system = [{ type: 'text' as const, text: 'A long cached preamble. '.repeat(400), cache_control: { type: 'ephemeral' as const } }];
  await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, system, messages: ask });
}

const counts = (report: { name: string; count: number }[]) => Object.fromEntries(report.map((s) => [s.name, s.count]));

describe('every store, through the SDKs', () => {
  let gateway: Gateway;
  const server = setupServer();
  beforeAll(() => {
    gateway = createGateway();
    server.use(...gateway.handlers);
    strictListen(server);
  });
  afterAll(() => server.close());

  it("a test fills every store the runtime holds; its reset empties each, leaving another test's and the shared objects", async () => {
    await fillEveryStore('filler');
    await fillEveryStore('neighbour');
    await fillEveryStore();
    const names = gatewayStores().map((k) => k.name);
    expect(names).toContain('openai.stored');
    // Each store the gateway declares is filled (a new store makes this fail until fillEveryStore fills it).
    const mine = counts(gateway.forTest('filler').resources());
    for (const name of names) expect(mine[name], name).toBeGreaterThan(0);
    for (const name of names)
      expect(
        gateway
          .resources()
          .find((s) => s.name === name)!
          .objects.some((o) => o.test === 'filler'),
        name,
      ).toBe(true);

    gateway.forTest('filler').reset();
    for (const [name, count] of Object.entries(counts(gateway.forTest('filler').resources()))) expect(count, name).toBe(0);
    const after = gateway.resources();
    for (const name of names) {
      const objects = after.find((s) => s.name === name)!.objects;
      expect(
        objects.some((o) => o.test === 'filler'),
        name,
      ).toBe(false);
      expect(
        objects.some((o) => o.test === 'neighbour'),
        name,
      ).toBe(true);
      expect(
        objects.some((o) => o.test === undefined),
        name,
      ).toBe(true);
    }

    gateway.reset();
    for (const store of gateway.resources()) expect([store.name, store.count, store.bytes]).toEqual([store.name, 0, 0]);
  });
});
