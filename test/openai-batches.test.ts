// OpenAI's Batch API through the openai SDK, in-process and over a socket: each line's answer is what
// the endpoint answers the same request directly (chat and embeddings lines compared line for line),
// the lifecycle follows the gateway's clock (advanceClock) or a client's polls, cancel and expiry keep
// what was done, the input file's faults fail the batch as the service does, tests sharing a server
// never see each other's batches, and a hostile file is refused with nothing held.
import { beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { heldModes, withHeld, withoutNulls, type Held } from './helpers/gateways.ts';
import { assertSchema, compileSchemas } from './helpers/openapi.ts';
import { BATCH_DISCOUNT } from '../src/core/prices.ts';
import { seenMeanwhile } from './helpers/ordering.ts';
import { startServer } from '../src/server.ts';
import { createGateway } from '../src/index.ts';
import { loadFixtureDir } from '../src/fixtures/load.ts';
import { setupServer } from 'msw/node';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { socketSuites } from './helpers/modes.ts';
import { runtimeOf } from '../src/gateway.ts';
import { declaredStores } from '../src/core/stores.ts';

type Line = { custom_id: string; method: 'POST'; url: string; body: Record<string, unknown> };
interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: Record<string, unknown> } | null;
  error: { code: string; message: string } | null;
}

const jsonl = (lines: readonly unknown[]) => Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
const chatLine = (custom_id: string, body: Record<string, unknown>): Line => ({
  custom_id,
  method: 'POST',
  url: '/v1/chat/completions',
  body,
});
const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
});
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

async function upload(openai: OpenAI, lines: readonly unknown[] | Buffer, name = 'batch.jsonl') {
  return openai.files.create({ file: await toFile(Buffer.isBuffer(lines) ? lines : jsonl(lines), name), purpose: 'batch' });
}

async function linesOf(openai: OpenAI, fileId: string | null | undefined): Promise<OutputLine[]> {
  if (!fileId) return [];
  const text = await (await openai.files.content(fileId)).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutputLine);
}

/** What the endpoint answers `body` directly: its JSON, or its error body, and the status. */
async function direct(openai: OpenAI, path: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  try {
    return { status: 200, body: await openai.post(path.replace(/^\/v1/, ''), { body }) };
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status!, body: { error: error.error } };
  }
}

const CHAT: Line[] = [
  chatLine('plain', ask('Tell me about batches')),
  chatLine('fixture', ask('pinned please')),
  chatLine('tools', {
    ...ask('Weather in Paris?'),
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ],
    tool_choice: 'required',
  }),
  chatLine('invalid', ask('no room', { max_tokens: -1 })),
  chatLine('no-model', { ...ask('who?'), model: 'gpt-nope' }),
  chatLine('fault', ask('break this line')),
];
const EMBED: Line[] = ['first text', 'second text', 'third text'].map((input, i) => ({
  custom_id: `e${i}`,
  method: 'POST',
  url: '/v1/embeddings',
  body: { model: 'text-embedding-3-small', input, encoding_format: 'float' },
}));
const fixtures = [
  { name: 'pinned', match: { userMessage: 'pinned please' }, reply: { text: 'From a fixture.' } },
  { name: 'broken', match: { userMessage: 'break this line' }, fault: { type: 'CONNECTION_RESET_BY_PEER' as const } },
];

const statusOf = async (gw: Held, openai: OpenAI, id: string, advance?: number) => {
  if (advance !== undefined) gw.gateway.advanceClock(advance);
  return openai.batches.retrieve(id);
};

beforeAll(() => compileSchemas('Batch'));

describe.each(heldModes)('OpenAI batches ($name)', (mode) => {
  const ctx = withHeld(mode, { fixtures });

  it('answers each line as the endpoint answers the same request (chat and embeddings, line for line), through its lifecycle on the clock', async () => {
    const openai = ctx.gw.openai('batch-lines');
    const expected = new Map<string, { status: number; body: unknown }>();
    for (const line of [...CHAT.filter((l) => l.custom_id !== 'fault'), ...EMBED])
      expected.set(line.custom_id, await direct(openai, line.url, line.body));
    const before = ctx.gw.gateway.forTest('batch-lines').costs().total.costUsd;

    const chatFile = await upload(openai, CHAT);
    const embedFile = await upload(openai, EMBED);
    const chat = await openai.batches.create({
      input_file_id: chatFile.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    });
    const embed = await openai.batches.create({ input_file_id: embedFile.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    expect(chat).toMatchObject({
      object: 'batch',
      endpoint: '/v1/chat/completions',
      status: 'validating',
      input_file_id: chatFile.id,
      completion_window: '24h',
      request_counts: { total: 0, completed: 0, failed: 0 },
      output_file_id: null,
      metadata: { job: 'nightly' },
      expires_at: chat.created_at + 86400,
    });
    expect(chat.id).toMatch(/^batch_[0-9a-f]{32}$/);
    assertSchema('Batch', withoutNulls(chat));

    // The lifecycle on the gateway's clock: a second validating, a second in progress, a second finalizing.
    const inProgress = await statusOf(ctx.gw, openai, chat.id, 1);
    expect(inProgress).toMatchObject({
      status: 'in_progress',
      in_progress_at: chat.created_at + 1,
      request_counts: { total: 6, completed: 3, failed: 3 },
    });
    expect(await statusOf(ctx.gw, openai, chat.id, 1)).toMatchObject({
      status: 'finalizing',
      finalizing_at: chat.created_at + 2,
      output_file_id: null,
    });
    const done = await statusOf(ctx.gw, openai, chat.id, 1);
    expect(done).toMatchObject({
      status: 'completed',
      completed_at: chat.created_at + 3,
      request_counts: { total: 6, completed: 3, failed: 3 },
    });
    assertSchema('Batch', withoutNulls(done));
    expect((await openai.batches.retrieve(embed.id)).status).toBe('completed');

    const output = await linesOf(openai, done.output_file_id);
    const errors = await linesOf(openai, done.error_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(['plain', 'fixture', 'tools']);
    expect(errors.map((l) => l.custom_id)).toEqual(['invalid', 'no-model', 'fault']);
    for (const line of [...output, ...errors].filter((l) => l.custom_id !== 'fault')) {
      const want = expected.get(line.custom_id)!;
      expect(line.response, line.custom_id).toMatchObject({ status_code: want.status, body: want.body });
      expect(line.id).toMatch(/^batch_req_[0-9a-f]{32}$/);
      expect(line.error).toBeNull();
    }
    expect((output[1].response!.body as unknown as OpenAI.ChatCompletion).choices[0].message.content).toBe('From a fixture.');
    // A connection fault breaks the line's request: the service reports its 500.
    expect(errors[2].response).toMatchObject({ status_code: 500, body: { error: { type: 'server_error' } } });
    const vectors = await linesOf(openai, (await openai.batches.retrieve(embed.id)).output_file_id);
    expect(vectors.map((l) => l.response!.body)).toEqual(EMBED.map((l) => expected.get(l.custom_id)!.body));

    const file = await openai.files.retrieve(done.output_file_id!);
    expect(file).toMatchObject({
      purpose: 'batch_output',
      filename: `batch_${chat.id.slice(6)}_output.jsonl`,
      created_at: chat.created_at + 3,
    });
    // Billed at the batch discount: half of what the same requests cost directly.
    const entry = (await ctx.gw.gateway.forTest('batch-lines').requests({ path: '/v1/batches', method: 'POST' }))[0];
    const spent = ctx.gw.gateway.forTest('batch-lines').costs().total.costUsd - before;
    expect(entry.batch?.requests.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'errored', 'errored', 'errored']);
    expect(entry.costUsd).toBeGreaterThan(0);
    expect(entry.usage?.inputTokens).toBe(done.usage!.input_tokens);
    expect(spent).toBeGreaterThan(0);
    ctx.gw.gateway.reset();
  });

  it('moves a batch on a stage each time a client polls it, under the fixed clock', async () => {
    const openai = ctx.gw.openai('batch-polls');
    const batch = await openai.batches.create({
      input_file_id: (await upload(openai, CHAT.slice(0, 2))).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const seen = [batch.status];
    for (let polls = 0; seen.at(-1) !== 'completed' && polls < 10; polls++) seen.push((await openai.batches.retrieve(batch.id)).status);
    expect(seen).toEqual(['validating', 'validating', 'in_progress', 'finalizing', 'completed']);
    // List shows each batch as it stands (newest first), without moving it on.
    const other = await openai.batches.create({
      input_file_id: (await upload(openai, CHAT.slice(0, 1))).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const listed = [];
    for await (const b of openai.batches.list({ limit: 1 })) listed.push([b.id, b.status]);
    expect(listed).toEqual([
      [other.id, 'validating'],
      [batch.id, 'completed'],
    ]);
    ctx.gw.gateway.reset();
  });

  it('keeps what was done when a batch is cancelled or expires: the rest are error lines saying why', async () => {
    const openai = ctx.gw.openai('batch-ends');
    const file = await upload(openai, CHAT.slice(0, 2));
    const early = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(await openai.batches.cancel(early.id)).toMatchObject({ status: 'cancelling', cancelling_at: early.created_at });
    // A second cancelling, as polls see it.
    expect((await openai.batches.retrieve(early.id)).status).toBe('cancelling');
    const cancelled = await openai.batches.retrieve(early.id);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      cancelled_at: early.created_at + 1,
      output_file_id: null,
      request_counts: { total: 2, completed: 0, failed: 2 },
    });
    expect((await linesOf(openai, cancelled.error_file_id)).map((l) => [l.custom_id, l.response, l.error?.code])).toEqual([
      ['plain', null, 'batch_cancelled'],
      ['fixture', null, 'batch_cancelled'],
    ]);
    expect((await failure(openai.batches.cancel(early.id))).message).toContain("Cannot cancel a batch with status 'cancelled'");

    // Each line takes 50000 s by its latency: the first finishes inside the 24-hour window, the second does not.
    const slow = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${ctx.gw.root}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-mock-test-id': 'batch-ends', 'x-mock-latency': 'ttft=50000000,tps=1000000' },
    });
    const late = await slow.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await statusOf(ctx.gw, openai, late.id, 50001)).request_counts).toEqual({ total: 2, completed: 1, failed: 0 });
    const expired = await statusOf(ctx.gw, openai, late.id, 86400 - 50001);
    expect(expired).toMatchObject({
      status: 'expired',
      expired_at: late.created_at + 86400,
      request_counts: { total: 2, completed: 1, failed: 1 },
    });
    expect((await linesOf(openai, expired.output_file_id)).map((l) => l.custom_id)).toEqual(['plain']);
    expect((await linesOf(openai, expired.error_file_id)).map((l) => l.error?.code)).toEqual(['batch_expired']);
    ctx.gw.gateway.reset();
  });

  it('fails a batch whose file the service would refuse, listing why, and refuses what create itself refuses', async () => {
    const openai = ctx.gw.openai('batch-refused');
    const create = async (lines: readonly unknown[] | Buffer) =>
      openai.batches.create({
        input_file_id: (await upload(openai, lines)).id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
    const failedWith = async (lines: readonly unknown[] | Buffer) => {
      const b = await create(lines);
      const after = await statusOf(ctx.gw, openai, b.id, 1);
      expect(after).toMatchObject({
        status: 'failed',
        failed_at: b.created_at + 1,
        output_file_id: null,
        error_file_id: null,
        in_progress_at: null,
      });
      return after.errors!.data!;
    };
    expect(await failedWith([chatLine('a', ask('hi')), { ...EMBED[0], custom_id: 'b' }])).toEqual([
      { code: 'url_mismatch', line: 2, param: 'url', message: 'The URL provided for this request does not match the batch endpoint.' },
    ]);
    expect((await failedWith(Buffer.from(`${JSON.stringify(chatLine('a', ask('hi')))}\n{not json\n`)))[0]).toMatchObject({
      code: 'invalid_json_line',
      line: 2,
    });
    expect((await failedWith([chatLine('same', ask('a')), chatLine('same', ask('b'))]))[0]).toMatchObject({
      code: 'duplicate_custom_id',
      line: 2,
    });
    expect((await failedWith(Buffer.from('\n\n')))[0]).toMatchObject({ code: 'empty_file' });
    expect((await failedWith([{ custom_id: 'x', url: '/v1/chat/completions', body: {} }]))[0]).toMatchObject({ param: 'method' });
    // A line asking for a stream is answered as a refused request.
    const streamed = await create([chatLine('s', ask('hi', { stream: true }))]);
    const [line] = await linesOf(openai, (await statusOf(ctx.gw, openai, streamed.id, 3)).error_file_id);
    expect(line.response).toMatchObject({ status_code: 400, body: { error: { param: 'stream' } } });

    const notBatch = await openai.files.create({ file: await toFile(jsonl(CHAT), 'x.jsonl'), purpose: 'user_data' });
    const wrongPurpose = await failure(
      openai.batches.create({ input_file_id: notBatch.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(wrongPurpose).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrongPurpose.error).toMatchObject({ param: 'input_file_id' });
    expect(
      await failure(openai.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' })),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const window = await failure(
      openai.batches.create({ input_file_id: notBatch.id, endpoint: '/v1/chat/completions', completion_window: '48h' as never }),
    );
    expect(window.error).toMatchObject({ param: 'completion_window', code: 'invalid_value' });
    expect(await failure(openai.batches.retrieve('batch_nope'))).toBeInstanceOf(OpenAI.NotFoundError);
    ctx.gw.gateway.reset();
  });

  it("keeps two tests' files and batches apart on one server; a test's reset drops its own", async () => {
    const a = ctx.gw.openai('batches-a');
    const b = ctx.gw.openai('batches-b');
    const ofA = await a.batches.create({
      input_file_id: (await upload(a, CHAT.slice(0, 1))).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const ofB = await b.batches.create({
      input_file_id: (await upload(b, CHAT.slice(0, 1))).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    ctx.gw.gateway.advanceClock(3);
    const doneA = await a.batches.retrieve(ofA.id);
    expect((await a.batches.list()).data.map((x) => x.id)).toEqual([ofA.id]);
    expect((await b.batches.list()).data.map((x) => x.id)).toEqual([ofB.id]);
    expect(await failure(b.batches.retrieve(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failure(b.files.content(doneA.output_file_id!))).toBeInstanceOf(OpenAI.NotFoundError);
    // A batch's output file is its test's, whoever first reads it finished.
    expect((await a.files.list()).data.map((f) => f.purpose).sort()).toEqual(['batch', 'batch_output']);
    ctx.gw.gateway.forTest('batches-a').reset();
    expect((await a.batches.list()).data).toEqual([]);
    expect((await a.files.list()).data).toEqual([]);
    expect((await b.batches.retrieve(ofB.id)).status).toBe('completed');
    ctx.gw.gateway.reset();
  });

  it('refuses a hostile file with nothing held: a million lines fail the batch by their count, a line of 100 MB never gets in', async () => {
    const openai = ctx.gw.openai('batch-hostile');
    const million = Buffer.from('{}\n'.repeat(1_000_000));
    const batch = await openai.batches.create({
      input_file_id: (await upload(openai, million)).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const failed = await statusOf(ctx.gw, openai, batch.id, 1);
    expect(failed.errors!.data).toEqual([expect.objectContaining({ code: 'too_many_tasks', line: null })]);
    const held = ctx.gw.gateway
      .forTest('batch-hostile')
      .resources()
      .find((s) => s.name === 'openai.batches')!;
    expect(held.bytes).toBeLessThan(4096);
    const entry = (await ctx.gw.gateway.forTest('batch-hostile').requests({ path: '/v1/batches', method: 'POST' }))[0];
    expect(entry.batch).toBeUndefined();
    // 100 MB: past the body limit as one file (in-process: over a socket the client may see the
    // connection close before it reads the 413), past the file ceiling as an Upload.
    if (mode.name === 'in-process') {
      const big = await failure(
        openai.files.create({ file: await toFile(Buffer.alloc(100 * 1024 * 1024, 0x20), 'big.jsonl'), purpose: 'batch' }),
      );
      expect(big.status).toBe(413);
    }
    const parts = await failure(
      openai.uploads.create({ filename: 'big.jsonl', purpose: 'batch', bytes: 100 * 1024 * 1024, mime_type: 'application/jsonl' }),
    );
    expect(parts.status).toBe(413);
    const files = ctx.gw.gateway
      .forTest('batch-hostile')
      .resources()
      .find((s) => s.name === 'openai.files')!;
    expect(files.count).toBe(1);

    // The batch store full (its bytes taken by one object counted at nearly the whole ceiling): the
    // service's 400 at creation, nothing else lost, and room again once it is gone.
    const stores = runtimeOf(ctx.gw.gateway).stores;
    const store = stores.of(declaredStores().find((k) => k.name === 'openai.batches')!);
    expect(store.set('batch_filler', {}, store.maxBytes - store.bytes - 100, stores.owner(''))).toBe(true);
    const input = await upload(openai, CHAT.slice(0, 1));
    const full = await failure(
      openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(full).toBeInstanceOf(OpenAI.BadRequestError);
    expect(full.message).toContain('Too many batches are held');
    store.delete('batch_filler', stores.owner(''));
    expect((await openai.batches.list()).data.map((b) => b.id)).toEqual([batch.id]);
    expect(
      (await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).status,
    ).toBe('validating');
    ctx.gw.gateway.reset();
  });
});

describe.runIf(socketSuites)('an OpenAI batch of 10000 lines over a socket', () => {
  it('answers other clients while its lines are answered, a slice at a time', async () => {
    const server = await startServer({ port: 0 });
    try {
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const lines = Array.from({ length: 10_000 }, (_, i) => chatLine(`l${i}`, ask(`Question number ${i}?`, { max_tokens: 20 })));
      const file = await upload(openai, lines);
      const body = JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const result = await seenMeanwhile(server.url, '/v1/batches', { authorization: 'Bearer sk-test' }, body);
      if (result.big instanceof Error) throw result.big;
      expect(result.big.status).toBe(200);
      expect(result.witnessed).toBeGreaterThan(0);
      expect(result.statuses.every((s) => s === 200)).toBe(true);
      // One line more than the gateway runs: failed by its count, nothing answered.
      const over = await upload(openai, [...lines, chatLine('one-more', ask('x'))]);
      const refused = await openai.batches.create({ input_file_id: over.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      server.gateway.advanceClock(1);
      expect((await openai.batches.retrieve(refused.id)).errors!.data![0].code).toBe('too_many_tasks');
    } finally {
      await server.close();
    }
  });
});

// The batch discount is the one Anthropic's batches use too.
it('prices batch lines at the shared batch discount', () => expect(BATCH_DISCOUNT).toBe(0.5));

describe('record and replay', () => {
  it('records a moderation as one recording and replays it; answers files and batches itself, a batch line from what was recorded', async () => {
    const upstream = await startServer({ port: 0, seed: 7 });
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-resources-'));
    const recording = createGateway({ origin: 'https://gateway.test', record: { dir, upstreams: { default: upstream.url } } });
    const server = setupServer(...recording.handlers);
    // The upstream is on 127.0.0.1: requests to it pass msw by.
    server.listen({ onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass' } as never);
    try {
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'https://gateway.test/v1', maxRetries: 0 });
      const direct = new OpenAI({ apiKey: 'sk-test', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
      const texts = ['first words to judge', 'second words to judge'];
      const moderated = await openai.moderations.create({ input: texts });
      expect(moderated).toEqual(await direct.moderations.create({ input: texts }));
      const chat = await openai.chat.completions.create(
        ask('Recorded once, then batched') as OpenAI.ChatCompletionCreateParamsNonStreaming,
      );
      expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(2);

      // Files and batches are the gateway's own, recording or not; a batch line is never forwarded.
      const lines = [chatLine('recorded', ask('Recorded once, then batched')), chatLine('new', ask('Never recorded'))];
      const runBatch = async (gateway: { advanceClock(s: number): number }) => {
        const batch = await openai.batches.create({
          input_file_id: (await upload(openai, lines)).id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
        });
        gateway.advanceClock(3);
        const done = await openai.batches.retrieve(batch.id);
        return [...(await linesOf(openai, done.output_file_id)), ...(await linesOf(openai, done.error_file_id))];
      };
      const recorded = await runBatch(recording);
      expect(recorded.map((l) => [l.custom_id, l.response!.status_code])).toEqual([
        ['recorded', 500],
        ['new', 500],
      ]);
      expect(JSON.stringify(recorded[0].response!.body)).toContain('records single requests, not batch lines');
      expect(upstream.gateway.requests().map((e) => e.path)).toEqual(['/v1/moderations', '/v1/moderations', '/v1/chat/completions']);

      // Replayed, the recordings answer the batch's lines as they answer the requests one by one.
      const replay = createGateway({ origin: 'https://gateway.test', fixtures: loadFixtureDir(dir), strict: true });
      server.use(...replay.handlers);
      expect(await openai.moderations.create({ input: texts })).toEqual(moderated);
      expect((await failure(openai.moderations.create({ input: [texts[0]] }))).status).toBe(404);
      const replayed = await runBatch(replay);
      expect(replayed.map((l) => [l.custom_id, l.response!.status_code])).toEqual([
        ['recorded', 200],
        ['new', 404],
      ]);
      expect(replayed[0].response!.body).toEqual(chat);
    } finally {
      server.close();
      await upstream.close();
    }
  });
});
