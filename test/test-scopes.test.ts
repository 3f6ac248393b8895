// One gateway, many tests: requests sent with `x-mock-test-id` (the openai SDK's defaultHeaders) see
// their test's own fixtures, journal view, counters and scenario states, in-process and over a socket;
// requests without it see the shared state as before.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { realtimeTextTurn } from './helpers/realtime-turn.ts';
import { createGateway, type Fixture } from '../src/index.ts';
import Anthropic from '@anthropic-ai/sdk';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';

const ask = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content }] });
const textOf = (r: OpenAI.Chat.Completions.ChatCompletion) => r.choices[0].message.content;

/** Shared fixtures whose counters and states a test must not see another test move. */
const shared: Fixture[] = [
  { name: 'counting', match: { userMessage: 'count' }, sequence: [{ reply: { text: 'one' } }, { reply: { text: 'two' } }] },
  {
    name: 'pay',
    match: { userMessage: 'pay' },
    scenario: 'checkout',
    requiredScenarioState: 'Started',
    newScenarioState: 'paid',
    reply: { text: 'Paid.' },
  },
  {
    name: 'paid already',
    match: { userMessage: 'pay' },
    scenario: 'checkout',
    requiredScenarioState: 'paid',
    reply: { text: 'Already paid.' },
  },
];
const mine = (test: string): Fixture => ({
  name: `fixture of ${test}`,
  match: { userMessage: { contains: 'who' } },
  reply: { text: `I am ${test}.` },
});

describe('test scopes in-process', () => {
  const gateway = createGateway({ fixtures: shared });
  const server = setupServer(...gateway.handlers);
  const BASE = 'http://127.0.0.1:2/v1';
  let a: OpenAI;
  let b: OpenAI;
  let plain: OpenAI;
  beforeAll(() => {
    strictListen(server);
    // The SDK keeps the fetch it finds when constructed: clients are built after msw patched it.
    const client = (headers?: Record<string, string>) =>
      new OpenAI({ apiKey: 'sk-test', baseURL: BASE, maxRetries: 0, defaultHeaders: headers });
    a = client({ 'x-mock-test-id': 'test a' });
    b = client({ 'x-mock-test-id': 'test b' });
    plain = client();
  });
  afterEach(() => gateway.reset());
  afterAll(() => server.close());

  it("sums each test's cost on its own (every token's), and its reset starts it at zero", async () => {
    const spend = async (client: OpenAI, content: string) =>
      (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).usage!;
    const first = await spend(a, 'count');
    const second = await spend(a, 'and more');
    const other = await spend(b, 'count');
    await spend(plain, 'count');
    const totals = (test: string) => gateway.forTest(test).costs().total;
    expect(totals('test a')).toMatchObject({
      requests: 2,
      inputTokens: first.prompt_tokens + second.prompt_tokens,
      outputTokens: first.completion_tokens + second.completion_tokens,
      unpriced: 0,
    });
    expect(totals('test b')).toMatchObject({ requests: 1, inputTokens: other.prompt_tokens, outputTokens: other.completion_tokens });
    // Each test's USD is the sum of its journal entries' (the token's totals hold all four requests).
    const entries = (test: string) =>
      gateway
        .forTest(test)
        .requests()
        .reduce((sum, e) => sum + e.costUsd!, 0);
    expect(totals('test a').costUsd).toBeGreaterThan(0);
    expect(totals('test a').costUsd).toBeCloseTo(entries('test a'), 12);
    expect(totals('test b').costUsd).toBeCloseTo(entries('test b'), 12);
    expect(gateway.costs().total.requests).toBe(4);
    expect(gateway.forTest('test a').costs().test).toBe('test a');
    gateway.forTest('test a').reset();
    expect(totals('test a').requests).toBe(0);
    expect(totals('test b').requests).toBe(1);
    // A test never seen has spent nothing (and reading does not make its state).
    expect(totals('never seen')).toMatchObject({ requests: 0, costUsd: 0 });
    expect(gateway.tests()).toEqual(['test b']);
  });

  it("lists each test's stored chat completions and the shared ones, never another test's; without a test id, every one", async () => {
    const store = (client: OpenAI, content: string) =>
      client.chat.completions.create({ model: 'gpt-4o-mini', store: true, messages: [{ role: 'user', content }] });
    const ofA = await store(a, 'keep a');
    const ofB = await store(b, 'keep b');
    const shared = await store(plain, 'keep shared');
    const ids = async (client: OpenAI) => (await client.chat.completions.list()).data.map((c) => c.id);
    expect(await ids(a)).toEqual([ofA.id, shared.id]);
    expect(await ids(b)).toEqual([ofB.id, shared.id]);
    expect(await ids(plain)).toEqual([ofA.id, ofB.id, shared.id]);
    // By id too: another test's completion is not found; the shared one and its own are.
    expect(await b.chat.completions.retrieve(ofA.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await b.chat.completions.retrieve(shared.id)).id).toBe(shared.id);
    expect((await plain.chat.completions.retrieve(ofA.id)).id).toBe(ofA.id);
    // The same request stored by two tests is two objects of one id: each test keeps its own.
    const twiceA = await store(a, 'same in both');
    const twiceB = await store(b, 'same in both');
    expect(twiceB.id).toBe(twiceA.id);
    await b.chat.completions.delete(twiceB.id);
    expect((await a.chat.completions.retrieve(twiceA.id)).id).toBe(twiceA.id);
    // A test's reset drops its completions, and no one else's.
    gateway.forTest('test a').reset();
    expect(await ids(plain)).toEqual([ofB.id, shared.id]);
  });

  it('answers each test from its own fixture, and a request without a test id from the shared state', async () => {
    gateway.forTest('test a').use(mine('a'));
    gateway.forTest('test b').use(mine('b'));
    expect(textOf(await a.chat.completions.create(ask('who are you?')))).toBe('I am a.');
    expect(textOf(await b.chat.completions.create(ask('who are you?')))).toBe('I am b.');
    const synthesized = textOf(await plain.chat.completions.create(ask('who are you?')));
    expect(synthesized).not.toMatch(/^I am/);
    // Each test's journal view holds its own request only; the shared journal holds all three.
    expect(
      gateway
        .forTest('test a')
        .requests()
        .map((e) => e.fixture),
    ).toEqual(['fixture of a']);
    expect(gateway.requests({ test: 'test b' }).map((e) => e.fixture)).toEqual(['fixture of b']);
    expect(gateway.requests()).toHaveLength(3);
    expect(gateway.requestSummaries().map((s) => s.test)).toEqual(['test a', 'test b', undefined]);
    // The test's fixtures are listed with their test, its own first in its view.
    expect(
      gateway
        .forTest('test a')
        .fixtures.list()
        .map((e) => e.test),
    ).toEqual(['test a', undefined, undefined, undefined]);
    expect(
      gateway.fixtures
        .list()
        .filter((e) => e.test)
        .map((e) => e.fixture.name),
    ).toEqual(['fixture of a', 'fixture of b']);
    expect(gateway.tests()).toEqual(['test a', 'test b']);
  });

  it("counts each test's uses of a shared sequence and moves its own scenario state", async () => {
    expect(textOf(await a.chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await a.chat.completions.create(ask('count')))).toBe('two');
    expect(textOf(await b.chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await plain.chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await a.chat.completions.create(ask('pay')))).toBe('Paid.');
    expect(textOf(await a.chat.completions.create(ask('pay')))).toBe('Already paid.');
    expect(textOf(await b.chat.completions.create(ask('pay')))).toBe('Paid.');
    expect(gateway.forTest('test a').scenarios.list()[0].state).toBe('paid');
    expect(gateway.scenarios.list()[0].state).toBe('Started');
    expect(
      gateway
        .forTest('test a')
        .fixtures.list()
        .find((e) => e.fixture.name === 'counting')?.uses,
    ).toBe(2);
    expect(gateway.fixtures.list().find((e) => e.fixture.name === 'counting')?.uses).toBe(1);
  });

  it("drops one test's fixtures, counters, states and journal view with that test's reset, and no other's", async () => {
    gateway.forTest('test a').use(mine('a'));
    gateway.forTest('test b').use(mine('b'));
    await a.chat.completions.create(ask('count'));
    await b.chat.completions.create(ask('count'));
    gateway.forTest('test a').reset();
    expect(gateway.forTest('test a').requests()).toEqual([]);
    expect(textOf(await a.chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await a.chat.completions.create(ask('who are you?')))).not.toBe('I am a.');
    expect(textOf(await b.chat.completions.create(ask('count')))).toBe('two');
    expect(textOf(await b.chat.completions.create(ask('who are you?')))).toBe('I am b.');
    expect(gateway.forTest('test b').requests()).toHaveLength(3);
    // The shared journal still has every request.
    expect(gateway.requests()).toHaveLength(6);
  });

  it('keeps at most 256 tests, dropping the least recently used', async () => {
    for (let i = 0; i <= 256; i++) gateway.forTest(`t${i}`).use(mine(`t${i}`));
    const tests = gateway.tests();
    expect(tests).toHaveLength(256);
    expect(tests[0]).toBe('t1');
    expect(tests.at(-1)).toBe('t256');
    expect(gateway.fixtures.list().some((e) => e.test === 't0')).toBe(false);
    // Using a test keeps it: t1 is used, then one more test makes t2 the one dropped.
    gateway.forTest('t1').use(mine('t1 again'));
    gateway.forTest('t257').use(mine('t257'));
    expect(gateway.tests()).toContain('t1');
    expect(gateway.tests()).not.toContain('t2');
  });

  it('refuses a malformed test id with a 400 that says what a test id is', async () => {
    const long = new OpenAI({ apiKey: 'sk-test', baseURL: BASE, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': 'x'.repeat(257) } });
    const error = await long.chat.completions.create(ask('hi')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('a test id is 1 to 256 printable ASCII characters, got 257 characters');
    expect(() => gateway.forTest('')).toThrow(/got an empty one/);
    // An empty header is no test id: the shared state answers.
    gateway.use(mine('shared'));
    const empty = new OpenAI({ apiKey: 'sk-test', baseURL: BASE, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': ' ' } });
    expect(textOf(await empty.chat.completions.create(ask('who?')))).toBe('I am shared.');
    expect(gateway.tests()).toEqual([]);
  });
});

describe('per-client state (prompt cache, rate windows) per test', () => {
  const gateway = createGateway({ rateLimits: { rpm: 1 } });
  const server = setupServer(...gateway.handlers);
  const clients = (test?: string) => {
    const defaultHeaders = test ? { 'x-mock-test-id': test } : undefined;
    return {
      openai: new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0, defaultHeaders }),
      anthropic: new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0, defaultHeaders }),
    };
  };
  beforeAll(() => strictListen(server));
  afterEach(() => gateway.reset());
  afterAll(() => server.close());

  it("gives each test sharing a token its own rate window, restarted by that test's reset", async () => {
    const [a, b, none] = [clients('test a'), clients('test b'), clients()];
    await a.openai.chat.completions.create(ask('hi'));
    expect(await a.openai.chat.completions.create(ask('hi')).catch((e) => e)).toBeInstanceOf(OpenAI.RateLimitError);
    // The same token, another test (or none): another window.
    await b.openai.chat.completions.create(ask('hi'));
    await none.openai.chat.completions.create(ask('hi'));
    gateway.forTest('test a').reset();
    await a.openai.chat.completions.create(ask('hi'));
    expect(await b.openai.chat.completions.create(ask('hi')).catch((e) => e)).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("gives each test its own prompt cache, emptied by that test's reset", async () => {
    const unlimited = createGateway();
    server.use(...unlimited.handlers);
    const system = [
      { type: 'text' as const, text: 'You are a careful assistant. '.repeat(300), cache_control: { type: 'ephemeral' as const } },
    ];
    const ask = async (test: string) =>
      (
        await clients(test).anthropic.messages.create({
          model: 'claude-sonnet-4-5',
          max_tokens: 20,
          system,
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).usage;
    expect((await ask('test a')).cache_creation_input_tokens).toBeGreaterThan(1024);
    expect((await ask('test a')).cache_read_input_tokens).toBeGreaterThan(1024);
    // Test b has not written it: its first request writes its own.
    expect((await ask('test b')).cache_read_input_tokens).toBe(0);
    unlimited.forTest('test a').reset();
    expect((await ask('test a')).cache_read_input_tokens).toBe(0);
    expect((await ask('test b')).cache_read_input_tokens).toBeGreaterThan(1024);
    server.resetHandlers();
  });
});

describe.runIf(socketSuites)('test scopes over a socket', () => {
  let cli: Spawned;
  const admin = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${cli.url}/__admin${path}`, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const addFixtures = (test: string, fixtures: Fixture[]) =>
    admin(`/fixtures?test=${encodeURIComponent(test)}`, { method: 'POST', body: JSON.stringify(fixtures) });
  const client = (test?: string) =>
    new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${cli.url}/v1`,
      maxRetries: 0,
      defaultHeaders: test ? { 'x-mock-test-id': test } : undefined,
    });
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-scopes-'));
    writeFileSync(join(dir, 'shared.json'), JSON.stringify(shared));
    cli = await spawnCli(['--fixtures', dir]);
  });
  afterAll(() => cli.stop());

  it('GET /__admin/costs?test=<id>: what that test spent, apart from the token totals', async () => {
    const one = (await client('cost a').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).usage!;
    await client('cost b').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] });
    const mine = (await admin(`/costs?test=${encodeURIComponent('cost a')}`)).body as {
      test: string;
      total: { requests: number; inputTokens: number; outputTokens: number; costUsd: number };
    };
    expect(mine.test).toBe('cost a');
    expect(mine.total).toMatchObject({ requests: 1, inputTokens: one.prompt_tokens, outputTokens: one.completion_tokens });
    expect(mine.total.costUsd).toBeGreaterThan(0);
    expect(((await admin('/costs?test=cost%20b')).body.total as { requests: number }).requests).toBe(1);
    await admin('/reset?test=cost%20a', { method: 'POST' });
    expect(((await admin('/costs?test=cost%20a')).body.total as { requests: number }).requests).toBe(0);
    const bad = await admin(`/costs?test=${'x'.repeat(300)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('a test id is 1 to 256 printable ASCII characters');
    // The next test counts the shared journal from empty.
    await admin('/reset', { method: 'POST' });
  });

  it('puts fixtures in under a test id through /__admin, and filters the journal and the fixtures by test', async () => {
    expect((await addFixtures('a', [mine('a')])).status).toBe(201);
    expect((await addFixtures('b', [mine('b')])).status).toBe(201);
    expect(textOf(await client('a').chat.completions.create(ask('who?')))).toBe('I am a.');
    expect(textOf(await client('b').chat.completions.create(ask('who?')))).toBe('I am b.');
    expect(textOf(await client('a').chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await client('b').chat.completions.create(ask('count')))).toBe('one');
    expect(textOf(await client().chat.completions.create(ask('who?')))).not.toMatch(/^I am/);
    const ofA = (await admin('/requests?test=a')).body as { requests: { fixture: string }[]; meta: { total: number } };
    expect(ofA.requests.map((e) => e.fixture)).toEqual(['fixture of a', 'counting']);
    expect(ofA.meta.total).toBe(2);
    expect((await admin('/requests/count?test=b')).body.count).toBe(2);
    expect((await admin('/requests/count')).body.count).toBe(5);
    expect((await admin('/tests')).body.tests).toEqual(['a', 'b']);
    const fixturesOfB = (await admin('/fixtures?test=b')).body.fixtures as { test?: string; uses: number; fixture: Fixture }[];
    expect(fixturesOfB.map((e) => e.test ?? 'shared')).toEqual(['b', 'shared', 'shared', 'shared']);
    expect(fixturesOfB.find((e) => e.fixture.name === 'counting')?.uses).toBe(1);

    // b's reset drops b's state only.
    expect((await admin('/reset?test=b', { method: 'POST' })).body).toEqual({ reset: true });
    expect((await admin('/requests/count?test=b')).body.count).toBe(0);
    expect((await admin('/tests')).body.tests).toEqual(['a']);
    expect(textOf(await client('b').chat.completions.create(ask('who?')))).not.toBe('I am b.');
    expect(textOf(await client('a').chat.completions.create(ask('count')))).toBe('two');

    // A malformed test id is refused with what to fix.
    const bad = await admin(`/requests?test=${'x'.repeat(300)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('a test id is 1 to 256 printable ASCII characters, got 300 characters');
  });

  it("takes the test id on a WebSocket upgrade: the realtime session answers from that test's fixture", async () => {
    await addFixtures('ws test', [{ name: 'ws fixture', reply: { text: 'Hello from the ws test.' } }]);
    expect(await realtimeTextTurn(cli.url.replace('http', 'ws'), 'ws test')).toBe('Hello from the ws test.');
    const journal = (await admin(`/requests?test=${encodeURIComponent('ws test')}`)).body.requests as { path: string; fixture?: string }[];
    expect(journal.map((e) => [e.path, e.fixture])).toEqual([['/v1/realtime', 'ws fixture']]);
  });
});
