// In-process use: msw handlers, per-test fixtures with use(), the journal, reset(); run under msw 3 and msw 2.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as msw from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { createGateway } from '../src/index.ts';
import { retriesWork, strictListen } from './helpers/modes.ts';

const gateway = createGateway({ tokens: ['sk-inproc'] });
const server = setupServer(...gateway.handlers);
// In-process tests aim at a closed port on loopback: should interception ever fail, nothing leaves the machine.
const BASE = 'http://127.0.0.1:2/v1';
let client: OpenAI;
const ask = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content }] });

beforeAll(() => {
  strictListen(server);
  // The SDK keeps the fetch it finds when constructed: build clients after msw has patched it.
  client = new OpenAI({ apiKey: 'sk-inproc', baseURL: BASE, maxRetries: 0 });
});
afterEach(() => gateway.reset());
afterAll(() => server.close());

describe('in-process gateway', () => {
  it(`runs on msw ${process.env.GATEWAY_TEST_MSW_MAJOR}`, () => {
    // msw 2 still exports graphql from its root; msw 3 moved it to msw/graphql.
    expect('graphql' in msw ? '2' : '3').toBe(process.env.GATEWAY_TEST_MSW_MAJOR);
  });

  it('answers the SDK with the configured token only', async () => {
    const reply = await client.chat.completions.create(ask('hello'));
    expect(reply.object).toBe('chat.completion');
    const other = new OpenAI({ apiKey: 'sk-test', baseURL: BASE, maxRetries: 0 });
    await expect(other.chat.completions.create(ask('hello'))).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('pins a reply with use(), matched on the user message, until reset()', async () => {
    gateway.use({ name: 'greeting', match: { userMessage: { contains: 'weather' } }, reply: { text: 'Sunny, 21 °C.' } });
    const pinned = await client.chat.completions.create(ask('What is the weather in Lisbon?'));
    expect(pinned.choices[0].message.content).toBe('Sunny, 21 °C.');
    expect(pinned.usage!.completion_tokens).toBeGreaterThan(0);
    const other = await client.chat.completions.create(ask('Something else'));
    expect(other.choices[0].message.content).not.toBe('Sunny, 21 °C.');
    expect(gateway.requests().map((r) => r.fixture)).toEqual(['greeting', undefined]);
    gateway.reset();
    const after = await client.chat.completions.create(ask('What is the weather in Lisbon?'));
    expect(after.choices[0].message.content).not.toBe('Sunny, 21 °C.');
  });

  it('streams a pinned reply token by token', async () => {
    gateway.use({ reply: { text: 'One two three four.' } });
    const stream = await client.chat.completions.create({ ...ask('count'), stream: true });
    const deltas: string[] = [];
    for await (const c of stream) if (c.choices[0]?.delta.content) deltas.push(c.choices[0].delta.content);
    expect(deltas).toEqual(['One', ' two', ' three', ' four', '.']);
  });

  it('serves a once fixture one time, and the latest use() first', async () => {
    gateway.use({ reply: { text: 'always' } });
    gateway.use({ once: true, reply: { text: 'first time only' } });
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await client.chat.completions.create(ask('x'))).choices[0].message.content);
    expect(texts).toEqual(['first time only', 'always', 'always']);
  });

  it.runIf(retriesWork)('answers a fixture error in OpenAI shape, and the SDK retries 500s as in production', async () => {
    gateway.use({ error: { status: 500, message: 'upstream exploded' } });
    const retrying = new OpenAI({ apiKey: 'sk-inproc', baseURL: BASE, maxRetries: 2, timeout: 60_000 });
    const error = await retrying.chat.completions.create(ask('boom')).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.message).toContain('upstream exploded');
    expect(error.type).toBe('server_error');
    expect(gateway.requests().filter((r) => r.status === 500)).toHaveLength(3);
  });

  it('lets a fixture error say x-should-retry: false, which the SDK obeys (the msw 2 workaround)', async () => {
    gateway.use({ error: { status: 503, message: 'down for a bit', headers: { 'x-should-retry': 'false' } } });
    const retrying = new OpenAI({ apiKey: 'sk-inproc', baseURL: BASE, maxRetries: 2, timeout: 60_000 });
    const error = await retrying.chat.completions.create(ask('boom')).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(503);
    expect(gateway.requests()).toHaveLength(1);
  });

  it('intercepts only the given origin when one is set', async () => {
    const scoped = createGateway({ origin: 'http://127.0.0.2:2' });
    expect(scoped.handlers.length).toBeGreaterThan(0);
    server.use(...scoped.handlers);
    const c = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.2:2/v1', maxRetries: 0 });
    expect((await c.chat.completions.create(ask('scoped'))).object).toBe('chat.completion');
    const elsewhere = new OpenAI({ apiKey: 'sk-inproc', baseURL: 'http://127.0.0.3:2/v1', maxRetries: 0 });
    await elsewhere.chat.completions.create(ask('not scoped'));
    expect(scoped.requests().map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(gateway.requests()).toHaveLength(1);
    server.resetHandlers();
  });
});
