// Anthropic Message Batches through @anthropic-ai/sdk, in-process and over a socket: each result is what
// messages.create answers for the same params; list pages, cancel, delete, the limits, reset. And the
// 404/405 of a request no endpoint takes, in the caller's format, through each SDK's error classes.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ApiError, GoogleGenAI } from '@google/genai';
import { setupServer } from 'msw/node';
import https from 'node:https';
import { Readable } from 'node:stream';
import { createGateway, type GatewayOptions, type JournalEntry } from '../src/index.ts';
import { MAX_BATCH_JOURNAL_REQUESTS } from '../src/core/journal.ts';
import { BATCH_DISCOUNT } from '../src/core/prices.ts';
import { startServer } from '../src/server.ts';
import { modes, socket, socketSuites, strictListen, type Running } from './helpers/modes.ts';

const MODEL = 'claude-sonnet-5-5';
const weather = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const ask = (content: string) => [{ role: 'user' as const, content }];

type Params = Anthropic.MessageCreateParamsNonStreaming;
const REQUESTS: { custom_id: string; params: Params }[] = [
  { custom_id: 'plain', params: { model: MODEL, max_tokens: 200, messages: ask('Tell me about batches') } },
  {
    custom_id: 'tools',
    params: { model: MODEL, max_tokens: 200, messages: ask('Weather in Paris?'), tools: [weather], tool_choice: { type: 'any' } },
  },
  { custom_id: 'fixture', params: { model: MODEL, max_tokens: 200, messages: ask('pinned please') } },
  { custom_id: 'invalid', params: { model: MODEL, max_tokens: 0, messages: ask('no room') } },
  { custom_id: 'no-model', params: { model: 'claude-nope', max_tokens: 50, messages: ask('who?') } },
];
const fixtures = [{ name: 'pinned', match: { userMessage: 'pinned please' }, reply: { text: 'From a fixture.' } }];

/** What messages.create answers for `params`: the message, or the error body it throws. */
async function direct(client: Anthropic, params: Params): Promise<Anthropic.Messages.MessageBatchResult> {
  try {
    return { type: 'succeeded', message: await client.messages.create(params) };
  } catch (error) {
    if (!(error instanceof Anthropic.APIError)) throw error;
    return { type: 'errored', error: { ...(error.error as Anthropic.ErrorResponse), request_id: null } };
  }
}

async function results(client: Anthropic, id: string): Promise<Map<string, Anthropic.Messages.MessageBatchResult>> {
  const out = new Map<string, Anthropic.Messages.MessageBatchResult>();
  for await (const line of await client.messages.batches.results(id)) out.set(line.custom_id, line.result);
  return out;
}

/** The SDK's pattern: poll retrieve until the batch has ended. */
async function ended(client: Anthropic, id: string): Promise<{ batch: Anthropic.Messages.MessageBatch; polls: number }> {
  for (let polls = 1; polls <= 5; polls++) {
    const batch = await client.messages.batches.retrieve(id);
    if (batch.processing_status === 'ended') return { batch, polls };
  }
  throw new Error(`batch ${id} never ended`);
}

describe.each(modes)('Message Batches ($name)', (mode) => {
  let gw: Running;
  let client: Anthropic;
  beforeAll(async () => {
    gw = await mode.start({ fixtures });
    client = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
  });
  afterAll(() => gw.stop());

  it("answers each request exactly as messages.create does: messages, tool calls, a fixture's reply, and errors", async () => {
    const created = await client.messages.batches.create({ requests: REQUESTS });
    expect(created).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      results_url: null,
      ended_at: null,
      cancel_initiated_at: null,
    });
    expect(created.id).toMatch(/^msgbatch_01[A-Za-z0-9]{22}$/);
    expect(created.request_counts).toEqual({ processing: 5, succeeded: 0, errored: 0, canceled: 0, expired: 0 });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(24 * 3600 * 1000);

    const { batch, polls } = await ended(client, created.id);
    expect(polls).toBe(1);
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 3, errored: 2, canceled: 0, expired: 0 });
    expect(batch.results_url).toMatch(new RegExp(`/v1/messages/batches/${created.id}/results$`));

    const got = await results(client, created.id);
    expect([...got.keys()]).toEqual(REQUESTS.map((r) => r.custom_id));
    for (const { custom_id, params } of REQUESTS) expect(got.get(custom_id), custom_id).toEqual(await direct(client, params));
    // What the comparison covered: a text reply, a tool call, the fixture's text, a 400 and a 404.
    const message = (id: string) => (got.get(id) as Anthropic.Messages.MessageBatchSucceededResult).message;
    expect(message('tools').content[0].type).toBe('tool_use');
    expect(message('fixture').content).toEqual([{ type: 'text', text: 'From a fixture.', citations: null }]);
    const error = (id: string) => (got.get(id) as Anthropic.Messages.MessageBatchErroredResult).error.error;
    expect(error('invalid')).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('max_tokens') });
    expect(error('no-model')).toEqual({ type: 'not_found_error', message: 'model: claude-nope' });
  });

  it('lists batches newest first, page by page with for await', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.messages.batches.create({ requests: [REQUESTS[0]] })).id);
    const page = await client.messages.batches.list({ limit: 2 });
    expect(page.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    expect([page.first_id, page.last_id]).toEqual([ids[2], ids[1]]);
    // Listed is read: processing has ended.
    expect(page.data.every((b) => b.processing_status === 'ended')).toBe(true);
    const all: string[] = [];
    for await (const b of client.messages.batches.list({ limit: 2 })) all.push(b.id);
    expect(all.slice(0, 3)).toEqual([...ids].reverse());
    expect(new Set(all).size).toBe(all.length);
    await expect(client.messages.batches.list({ after_id: 'msgbatch_nope' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("no message batch with id 'msgbatch_nope'"),
    });
  });

  it('cancels a batch before processing ends: canceling, then ended with every request canceled', async () => {
    const { id } = await client.messages.batches.create({ requests: REQUESTS.slice(0, 2) });
    const canceling = await client.messages.batches.cancel(id);
    expect(canceling.processing_status).toBe('canceling');
    expect(canceling.cancel_initiated_at).not.toBeNull();
    const { batch } = await ended(client, id);
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 0, canceled: 2, expired: 0 });
    expect([...(await results(client, id)).values()]).toEqual([{ type: 'canceled' }, { type: 'canceled' }]);
    // Ended: a second cancel changes nothing.
    expect(await client.messages.batches.cancel(id)).toEqual(batch);
  });

  it('deletes a batch; then it is not found', async () => {
    const { id } = await client.messages.batches.create({ requests: [REQUESTS[0]] });
    expect(await client.messages.batches.delete(id)).toEqual({ id, type: 'message_batch_deleted' });
    const gone = await client.messages.batches.retrieve(id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(Anthropic.NotFoundError);
    expect((gone as APIError).type).toBe('not_found_error');
  });

  it('refuses a malformed batch, too many requests and a repeated custom_id with a 400 naming the field and the limit', async () => {
    const refuse = (requests: unknown) =>
      client.messages.batches.create({ requests } as Anthropic.Messages.BatchCreateParams).then(
        () => undefined as never,
        (e: unknown) => e as APIError,
      );
    const many = Array.from({ length: 10_001 }, (_, i) => ({ custom_id: `r${i}`, params: REQUESTS[0].params }));
    const tooMany = await refuse(many);
    expect(tooMany).toBeInstanceOf(Anthropic.BadRequestError);
    expect(tooMany.type).toBe('invalid_request_error');
    expect(tooMany.message).toMatch(/requests: A batch may hold at most 10000 requests .* this one has 10001/);
    expect((await refuse([REQUESTS[0], REQUESTS[0]])).message).toContain("requests.1.custom_id: Duplicate custom_id 'plain'");
    expect((await refuse([])).message).toContain('requests: List should have at least 1 item');
    expect((await refuse([{ custom_id: 'x' }])).message).toContain('requests.0.params: Field required');
    // A streamed request in a batch is not refused whole: it is an errored result.
    const { id } = await client.messages.batches.create({
      requests: [{ custom_id: 's', params: { ...REQUESTS[0].params, stream: true } as unknown as Params }],
    });
    expect((await ended(client, id)).batch.request_counts.errored).toBe(1);
    const [streamed] = (await results(client, id)).values();
    expect((streamed as Anthropic.Messages.MessageBatchErroredResult).error.error.message).toContain(
      'stream: Batch requests cannot be streamed',
    );
  });
});

describe('Message Batches: bounds and reset (in-process)', () => {
  const gateway = createGateway({ fixtures: [{ match: { userMessage: 'long please' }, reply: { text: 'long '.repeat(2000) } }] });
  let server: ReturnType<typeof setupServer>;
  let client: Anthropic;
  beforeAll(() => {
    server = setupServer(...gateway.handlers);
    strictListen(server);
    // After listen: the SDK takes the global fetch (which msw patches) when it is made.
    client = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('stops a batch whose results would pass the ceiling, and holds at most 100 batches (the oldest dropped)', async () => {
    // 2,000 replies of 10,000 characters: more than 16 MiB of results.
    const long = Array.from({ length: 2000 }, (_, i) => ({
      custom_id: `r${i}`,
      params: { model: MODEL, max_tokens: 4096, messages: ask('long please') },
    }));
    const refused = await client.messages.batches.create({ requests: long }).then(
      () => undefined as never,
      (e: unknown) => e as APIError,
    );
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused.message).toMatch(/results would hold more than 16 MiB .*stopped at request \d+ of 2000/);
    const stoppedAt = Number(/stopped at request (\d+)/.exec(refused.message)![1]);
    expect(stoppedAt).toBeLessThan(2000);

    const first = (await client.messages.batches.create({ requests: [REQUESTS[0]] })).id;
    for (let i = 0; i < 100; i++) await client.messages.batches.create({ requests: [REQUESTS[0]] });
    expect(await client.messages.batches.retrieve(first).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    const page = await client.messages.batches.list({ limit: 1000 });
    expect(page.data).toHaveLength(100);
  });

  it('expires every request of a batch first read after its expires_at (the real clock, Date set forward)', async () => {
    const real = createGateway({ clock: 'real' });
    const local = setupServer(...real.handlers);
    server.close();
    strictListen(local);
    try {
      const own = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
      const created = await own.messages.batches.create({ requests: REQUESTS.slice(0, 2) });
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.parse(created.expires_at) + 1000);
      const { batch } = await ended(own, created.id);
      expect(batch.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 2 });
      expect(batch.ended_at).toBe(new Date(Math.floor(Date.parse(created.expires_at) / 1000 + 1) * 1000).toISOString());
      expect([...(await results(own, created.id)).values()]).toEqual([{ type: 'expired' }, { type: 'expired' }]);
    } finally {
      vi.useRealTimers();
      local.close();
      strictListen(server);
    }
  });

  it('reset clears the batches', async () => {
    const { id } = await client.messages.batches.create({ requests: [REQUESTS[0]] });
    gateway.reset();
    expect(await client.messages.batches.retrieve(id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect((await client.messages.batches.list()).data).toEqual([]);
  });
});

describe.runIf(socketSuites)('Message Batches: the event loop (socket)', () => {
  let gw: Running;
  beforeAll(async () => {
    gw = await socket.start({ fixtures: [{ match: { userMessage: 'long please' }, reply: { text: 'long '.repeat(2000) } }] });
  });
  afterAll(() => gw.stop());

  it("serves another client's requests while a big batch is being answered", async () => {
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    const long = Array.from({ length: 1500 }, (_, i) => ({
      custom_id: `r${i}`,
      params: { model: MODEL, max_tokens: 4096, messages: ask('long please') },
    }));
    const order: string[] = [];
    const batch = client.messages.batches.create({ requests: long }).then(() => order.push('batch'));
    // The journal shows the batch's parsed body once the server has gone on to answer its requests: from
    // then on, the server answers anyone only between the batch's slices of work.
    while (!(await gw.requests()).some((e) => e.path === '/v1/messages/batches' && e.body !== undefined)) order.push('poll');
    await client.messages.create(REQUESTS[0].params).then(() => order.push('small'));
    await batch;
    expect(order.filter((o) => o !== 'poll')).toEqual(['small', 'batch']);
  });
});

/** An in-process gateway with its own msw server, and an Anthropic client on it. */
function inProcessGateway(options: GatewayOptions) {
  const gateway = createGateway(options);
  const server = setupServer(...gateway.handlers);
  strictListen(server);
  const client = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
  return { gateway, client, close: () => server.close() };
}

/** The journal entry of the last batch created. */
const batchEntry = (gateway: ReturnType<typeof createGateway>): JournalEntry =>
  gateway.requests().findLast((e) => e.method === 'POST' && e.path === '/v1/messages/batches')!;

describe("Message Batches: tokens, cost and fixtures on the batch's journal entry (in-process)", () => {
  // Twenty requests, each its own prompt.
  const twenty = Array.from({ length: 20 }, (_, i) => ({
    custom_id: `r${i}`,
    params: { model: MODEL, max_tokens: 60, messages: ask(`Question number ${i} about batches`) },
  }));

  it("charges the batch its requests' tokens against the token's tpm: the next request sees them spent", async () => {
    const wide = inProcessGateway({ rateLimits: { tpm: 1_000_000 } });
    let spent: number;
    try {
      await wide.client.messages.batches.create({ requests: twenty });
      const usage = batchEntry(wide.gateway).usage!;
      spent = usage.inputTokens + usage.outputTokens;
      // Every request's tokens: more than any one of them could have.
      expect(usage.inputTokens).toBeGreaterThan(20 * 5);
      const { data: reply, response } = await wide.client.messages.create(REQUESTS[0].params).withResponse();
      const own = reply.usage.input_tokens + reply.usage.output_tokens;
      expect(response.headers.get('anthropic-ratelimit-tokens-remaining')).toBe(String(1_000_000 - spent - own));
    } finally {
      wide.close();
    }
    // A tpm the batch spends whole: the batch is admitted (its window was empty), the next request is not.
    const narrow = inProcessGateway({ rateLimits: { tpm: spent } });
    try {
      await narrow.client.messages.batches.create({ requests: twenty });
      const refused = await narrow.client.messages.create(REQUESTS[0].params).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
      expect((refused as APIError).message).toContain(`Limit ${spent}, Used ${spent}`);
    } finally {
      narrow.close();
    }
  });

  it('prices the batch at half the price of the same requests made one by one, in the journal and in gateway.costs()', async () => {
    const { gateway, client, close } = inProcessGateway({});
    try {
      await client.messages.batches.create({ requests: twenty });
      const batch = batchEntry(gateway);
      expect(batch.costUsd).toBeGreaterThan(0);
      expect(gateway.costs().total.costUsd).toBeCloseTo(batch.costUsd!, 12);
      for (const { params } of twenty) await client.messages.create(params);
      const single = gateway.requests().filter((e) => e.path === '/v1/messages');
      expect(single).toHaveLength(20);
      const sum = (key: 'inputTokens' | 'outputTokens') => single.reduce((n, e) => n + e.usage![key], 0);
      expect(batch.usage).toMatchObject({ inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens') });
      const oneByOne = single.reduce((n, e) => n + e.costUsd!, 0);
      expect(BATCH_DISCOUNT).toBe(0.5);
      expect(batch.costUsd).toBeCloseTo(oneByOne * BATCH_DISCOUNT, 12);
      // The totals: the batch at its discount, then the twenty at their full price.
      expect(gateway.costs().total.costUsd).toBeCloseTo(oneByOne * 1.5, 12);
      expect(gateway.costs().total.inputTokens).toBe(2 * sum('inputTokens'));
    } finally {
      close();
    }
  });

  it("lists each request's fixture or strict mode's near miss on the batch's entry, bounded, the first near miss wherever it is", async () => {
    const { gateway, client, close } = inProcessGateway({ strict: true, fixtures });
    try {
      const hit = { custom_id: 'hit', params: { model: MODEL, max_tokens: 50, messages: ask('pinned please') } };
      const miss = (i: number) => ({ custom_id: `miss${i}`, params: { model: MODEL, max_tokens: 50, messages: ask('pinned, please?') } });
      await client.messages.batches.create({ requests: [hit, miss(0)] });
      const entry = batchEntry(gateway);
      expect(entry.batch).toEqual({
        requests: [
          { custom_id: 'hit', status: 'succeeded', model: MODEL, fixture: 'pinned' },
          { custom_id: 'miss0', status: 'errored', model: MODEL, nearMiss: expect.objectContaining({ name: 'pinned' }) },
        ],
        more: 0,
      });
      // On the entry itself too, where strict mode's checks (the vitest helper, the console) look.
      expect(entry.nearMiss).toMatchObject({ name: 'pinned' });
      expect(entry.fixture).toBeUndefined();

      // Past the bound: the list stops, the rest is counted, and a near miss there still shows.
      const many = [...Array.from({ length: MAX_BATCH_JOURNAL_REQUESTS }, (_, i) => ({ ...hit, custom_id: `hit${i}` })), miss(1)];
      await client.messages.batches.create({ requests: many });
      const bounded = batchEntry(gateway);
      expect(bounded.batch!.requests).toHaveLength(MAX_BATCH_JOURNAL_REQUESTS);
      expect(bounded.batch!.more).toBe(1);
      expect(bounded.batch!.requests.every((r) => r.fixture === 'pinned')).toBe(true);
      expect(bounded.nearMiss).toMatchObject({ name: 'pinned' });
    } finally {
      close();
    }
  });
});

/** fetch over node:https trusting `ca` (a generated certificate), for an SDK's `fetch` option. */
function fetchTrusting(ca: string): typeof fetch {
  return (input, init) =>
    new Promise((resolve, reject) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers = Object.fromEntries(new Headers(init?.headers));
      const req = https.request(url, { method: init?.method ?? 'GET', headers, ca }, (res) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, String(value));
        resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers: out }));
      });
      req.on('error', reject);
      req.end(init?.body as string | undefined);
    });
}

describe.runIf(socketSuites)('URLs handed back over TLS (startServer({ tls: true }))', () => {
  it("a batch's results_url and an image's url say https, and the SDK reads the results from it", async () => {
    const server = await startServer({ port: 0, tls: true });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0, fetch: fetchTrusting(server.cert!) });
      const { id } = await client.messages.batches.create({ requests: REQUESTS.slice(0, 2) });
      const { batch } = await ended(client, id);
      expect(batch.results_url).toBe(`${server.url}/v1/messages/batches/${id}/results`);
      // The SDK fetches results from results_url.
      expect([...(await results(client, id)).keys()]).toEqual(['plain', 'tools']);
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0, fetch: fetchTrusting(server.cert!) });
      const image = await openai.images.generate({ model: 'dall-e-2', prompt: 'A lighthouse', size: '256x256' });
      expect(image.data![0].url).toMatch(new RegExp(`^${server.url}/v1/images/files/img-\\w+\\.png$`));
    } finally {
      await server.close();
    }
  });
});

describe('a request no endpoint takes, in-process on an explicit origin', () => {
  it('gets the 404 in the format of its path, key or not', async () => {
    const server = setupServer(...createGateway({ origin: 'https://gateway.test' }).handlers);
    strictListen(server);
    try {
      const res = await fetch('https://gateway.test/v1alpha/tunedModels');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 404, message: 'Invalid URL (GET /v1alpha/tunedModels)', status: 'NOT_FOUND' } });
    } finally {
      server.close();
    }
  });
});

describe.each(modes)('a request no endpoint takes, in the caller’s format ($name)', (mode) => {
  let gw: Running;
  beforeAll(async () => {
    gw = await mode.start();
  });
  afterAll(() => gw.stop());

  it("Anthropic's client: an unknown path is Anthropic's not_found_error, a wrong method its 405", async () => {
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    const unknown = await client.get('/v1/messages/nope/deeper').then(
      () => undefined as never,
      (e: unknown) => e as APIError,
    );
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect(unknown.type).toBe('not_found_error');
    expect(unknown.error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: 'Invalid URL (GET /v1/messages/nope/deeper)' },
    });
    // A path OpenAI also serves, asked with a method none serves.
    const wrong = await client.delete('/v1/models/claude-sonnet-5-5').then(
      () => undefined as never,
      (e: unknown) => e as APIError,
    );
    expect(wrong.status).toBe(405);
    expect(wrong.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it("Google's client under /v1beta and /v1alpha: Google's error body", async () => {
    for (const apiVersion of ['v1beta', 'v1alpha']) {
      const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root, apiVersion } });
      // File search stores are not emulated: their path is no endpoint's.
      const error = await ai.fileSearchStores.list().then(
        () => undefined as never,
        (e: unknown) => e as ApiError,
      );
      expect(error, apiVersion).toBeInstanceOf(ApiError);
      expect(error.status).toBe(404);
      expect(JSON.parse(error.message)).toEqual({
        error: { code: 404, message: `Invalid URL (GET /${apiVersion}/fileSearchStores)`, status: 'NOT_FOUND' },
      });
    }
  });

  it("OpenAI's client: OpenAI's error body, as before", async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const error = await client.fineTuning.jobs.list().then(
      () => undefined as never,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', message: 'Invalid URL (GET /v1/fine_tuning/jobs)' });
  });
});
