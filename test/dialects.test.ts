// What lies under every door applies to the dialects' paths unchanged (Azure OpenAI and OpenRouter
// here): rate limits and quotas in the dialect's own 429 and 402, per-test state, stream faults, cost
// and the journal, and record and replay (recorded through a cloud's path, replayed on it and on the
// direct path). In-process; the dialects' own suites run both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import OpenAI, { AzureOpenAI, APIError, RateLimitError } from 'openai';
import { createGateway, type Fixture, type Gateway } from '../src/index.ts';
import { startServer } from '../src/server.ts';
import { parseSse } from '../src/pipeline/framing.ts';
import { strictListen, retriesWork } from './helpers/modes.ts';

const ROOT = 'https://gateway.test';
const ask = (content: string) => [{ role: 'user' as const, content }];
const azure = (apiKey = 'sk-test', defaultHeaders: Record<string, string> = {}) =>
  new AzureOpenAI({ endpoint: ROOT, apiKey, apiVersion: '2024-10-21', deployment: 'gpt-4o-mini', maxRetries: 0, defaultHeaders });
const openrouter = (apiKey = 'sk-test') => new OpenAI({ baseURL: `${ROOT}/api/v1`, apiKey, maxRetries: 0 });

describe('under the dialects, the same machinery', () => {
  let gateway: Gateway;
  let server: ReturnType<typeof setupServer>;
  beforeAll(() => {
    gateway = createGateway({ origin: ROOT });
    server = setupServer(...gateway.handlers);
    strictListen(server);
  });
  afterAll(() => server.close());

  it.runIf(retriesWork)("rate limits: a token's rpm refuses in each dialect's own 429", async () => {
    const { token } = gateway.tokens.issue({ rpm: 1 });
    await azure(token).chat.completions.create({ model: 'x', messages: ask('one') });
    const limited = await azure(token)
      .chat.completions.create({ model: 'x', messages: ask('two') })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as APIError).code).toBe('429');
    expect((limited as APIError).headers!.get('retry-after')).toMatch(/^\d+$/);
    const { token: other } = gateway.tokens.issue({ rpm: 1 });
    await openrouter(other).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('one') });
    const routed = await openrouter(other)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('two') })
      .catch((e: unknown) => e);
    expect(routed).toBeInstanceOf(RateLimitError);
    expect((routed as APIError).code).toBe(429);
  });

  it("a spent quota is OpenRouter's 402 (out of credits)", async () => {
    const { token } = gateway.tokens.issue({ quota: 1 });
    await openrouter(token).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('one') });
    const spent = await openrouter(token)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('two') })
      .catch((e: unknown) => e);
    expect((spent as APIError).status).toBe(402);
    expect((spent as APIError).code).toBe(402);
  });

  it("per-test state: a test's fixtures answer its requests on a cloud's path, and its journal shows the door", async () => {
    const test = gateway.forTest('azure-test-1');
    test.use({ match: { userMessage: 'Only for this test' }, reply: { text: 'Scoped answer.' } } satisfies Fixture);
    const own = await azure('sk-test', { 'x-mock-test-id': 'azure-test-1' }).chat.completions.create({
      model: 'x',
      messages: ask('Only for this test'),
    });
    expect(own.choices[0].message.content).toBe('Scoped answer.');
    const stranger = await azure().chat.completions.create({ model: 'x', messages: ask('Only for this test') });
    expect(stranger.choices[0].message.content).not.toBe('Scoped answer.');
    expect(test.requests().map((e) => [e.dialect, e.path])).toEqual([['azure', '/openai/deployments/gpt-4o-mini/chat/completions']]);
    expect(gateway.requests({ dialect: 'azure', test: 'azure-test-1' })).toHaveLength(1);
    expect(gateway.requests({ dialect: '' }).every((e) => e.dialect === undefined)).toBe(true);
  });

  it('faults: an error part-way through an Azure stream is raised by the SDK after the chunks before it', async () => {
    const stream = await azure().chat.completions.create(
      { model: 'x', messages: ask('Stream then fail'), stream: true },
      { headers: { 'x-mock-fault': 'STREAM_ERROR,after=3,status=500' } },
    );
    let chunks = 0;
    const failed = await (async () => {
      for await (const _ of stream) chunks++;
    })().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(APIError);
    // The prompt-filter chunk Azure sends first, then the three before the fault.
    expect(chunks).toBe(4);
    expect(gateway.requests().at(-1)).toMatchObject({ dialect: 'azure', fault: 'STREAM_ERROR' });
  });

  it('cost: a request through a cloud is priced and counted like a direct one', async () => {
    gateway.reset();
    const viaAzure = await azure().chat.completions.create({ model: 'x', messages: ask('Price me') });
    const direct = await new OpenAI({ baseURL: `${ROOT}/v1`, apiKey: 'sk-test', maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('Price me'),
    });
    expect(viaAzure.usage).toEqual(direct.usage);
    const [a, d] = gateway.requests();
    expect(a.costUsd).toBeGreaterThan(0);
    expect(a.costUsd).toBe(d.costUsd);
    expect(gateway.costs().total.requests).toBe(2);
  });
});

describe('record and replay through a cloud', () => {
  it("records through Azure's path from an Azure upstream, and replays on it and on the direct path", async () => {
    const upstream = await startServer({ port: 0, seed: 7 });
    const dir = mkdtempSync(join(tmpdir(), 'mgm-azure-record-'));
    const recorder = createGateway({ origin: ROOT, record: { dir, upstreams: { default: upstream.url } } });
    let server = setupServer(...recorder.handlers);
    strictListen(server);
    let recorded: string;
    try {
      const answer = await azure().chat.completions.create({ model: 'x', messages: ask('Record me through Azure') });
      recorded = answer.choices[0].message.content!;
      // The upstream's Azure answer passed through as it came.
      expect((answer as unknown as { prompt_filter_results: unknown[] }).prompt_filter_results).toHaveLength(1);
    } finally {
      server.close();
      await upstream.close();
    }
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const fixture = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as Fixture;
    // Recorded under the endpoint the Azure path reaches, so it replays on either door.
    expect(fixture.match).toMatchObject({ format: 'openai', endpoint: '/v1/chat/completions', model: 'gpt-4o-mini' });
    expect(files[0]).toMatch(/^openai-chat-completions-gpt-4o-mini-/);

    const replayer = createGateway({ origin: ROOT, strict: true, fixtures: [fixture] });
    server = setupServer(...replayer.handlers);
    strictListen(server);
    try {
      const again = await azure().chat.completions.create({ model: 'x', messages: ask('Record me through Azure') });
      expect(again.choices[0].message.content).toBe(recorded);
      const direct = await new OpenAI({ baseURL: `${ROOT}/v1`, apiKey: 'sk-test', maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: ask('Record me through Azure'),
      });
      expect(direct.choices[0].message.content).toBe(recorded);
      expect(replayer.requests().map((e) => e.fixture)).toEqual([fixture.name, fixture.name]);
    } finally {
      server.close();
    }
  });
});

describe('recording a router', () => {
  it("keeps an SSE comment (OpenRouter's ': OPENROUTER PROCESSING') out of a recorded stream's events", () => {
    expect(parseSse(': OPENROUTER PROCESSING\n\ndata: {"a":1}\n\n: keep-alive\n\ndata: [DONE]\n\n')).toEqual([
      { data: '{"a":1}' },
      { data: '[DONE]' },
    ]);
  });
});
