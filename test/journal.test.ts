// The journal's copy of each answer (bounded), its timing, and the control plane's live feed of it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { createGateway } from '../src/index.ts';
import { CAPTURE_LIMIT, captureBytes, Journal, readable, type JournalEntry } from '../src/core/journal.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { parseSse } from '../src/pipeline/framing.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

describe('the journal keeps what was answered (in-process)', () => {
  const gateway = createGateway();
  const server = setupServer(...gateway.handlers);
  beforeAll(() => strictListen(server));
  afterEach(() => gateway.reset());
  afterAll(() => server.close());
  const client = () => new OpenAI({ apiKey: 'sk-test', baseURL: 'https://api.openai.com/v1', maxRetries: 0 });

  it('keeps a JSON body as sent, with its headers and duration', async () => {
    const reply = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
    const [entry] = gateway.requests();
    expect(JSON.parse(entry.response!.body!)).toEqual(JSON.parse(JSON.stringify(reply)));
    expect(entry.response!.headers['content-type']).toBe('application/json');
    expect(entry.response!.truncated).toBeUndefined();
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    expect(entry.startedAt).toBeGreaterThan(1.7e12);
  });

  it('keeps a stream as its events, in order, once written', async () => {
    const stream = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    const [entry] = gateway.requests();
    await expect.poll(() => entry.outcome).toBe('completed');
    const events = parseSse(entry.response!.body!).map((e) => e.data);
    expect(events).toHaveLength(entry.eventsSent);
    expect(events.at(-1)).toBe('[DONE]');
    const captured = events
      .slice(0, -1)
      .map((data) => JSON.parse(data).choices[0]?.delta.content ?? '')
      .join('');
    expect(captured).toBe(text);
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
  });

  it(`cuts a body longer than ${CAPTURE_LIMIT} bytes and says so`, async () => {
    gateway.use({ match: { userMessage: 'long' }, reply: { text: 'word '.repeat(20_000) } });
    await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'long' }] });
    const [entry] = gateway.requests();
    expect(entry.response!.body).toHaveLength(CAPTURE_LIMIT);
    expect(entry.response!.truncated).toBe(true);
  });

  /** The raw text of a streamed chat reply to `content`, `headers` added. */
  async function streamText(content: string, headers: Record<string, string> = {}) {
    const res = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true }),
    });
    return res.text();
  }

  it('keeps a stream read while it plays, then the rest of it, byte for byte', async () => {
    const playing = streamText('Hello', { 'x-mock-latency': 'ttft=40,tps=200,jitter=0' });
    await expect.poll(() => gateway.requests()[0]?.eventsSent ?? 0).toBeGreaterThan(1);
    const early = gateway.requests()[0].response!.body!;
    const text = await playing;
    const [entry] = gateway.requests();
    expect(entry.outcome).toBe('completed');
    expect(early.length).toBeGreaterThan(0);
    expect(text.startsWith(early)).toBe(true);
    expect(entry.response!.body).toBe(text);
    expect(entry.response!.truncated).toBeUndefined();
  });

  it('shows the whole stream on an entry taken while it played, once it has finished', async () => {
    const playing = streamText('Hello', { 'x-mock-latency': 'ttft=30,tps=200,jitter=0' });
    await expect.poll(() => gateway.requests()[0]?.eventsSent ?? 0).toBeGreaterThan(1);
    const [held] = gateway.requests();
    const text = await playing;
    await expect.poll(() => held.outcome).toBe('completed');
    expect(held.response!.body).toBe(text);
  });

  it('shows the body on an entry taken before the answer was ready', async () => {
    // Long enough to be kept as bytes; the delay holds the answer back while the entry is taken.
    gateway.use({ match: { userMessage: 'slow' }, reply: { text: 'word '.repeat(5_000) } });
    const pending = fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'x-mock-latency': 'ttft=200,tps=1000000,jitter=0' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow' }] }),
    });
    await expect.poll(() => gateway.requests().length).toBe(1);
    const [held] = gateway.requests();
    expect(held.response).toBeUndefined();
    const text = await (await pending).text();
    expect(text.length).toBeGreaterThan(CAPTURE_LIMIT / 3);
    expect(held.response!.body).toBe(text);
  });

  it(`cuts a stream past ${CAPTURE_LIMIT} bytes at the start of a character`, async () => {
    // Two-byte characters after the 6-byte `data: ` and the JSON around them: a cut lands anywhere.
    gateway.use({ match: { userMessage: 'accents' }, reply: { text: 'é'.repeat(40_000) } });
    const text = await streamText('accents');
    const [entry] = gateway.requests();
    const body = entry.response!.body!;
    expect(entry.response!.truncated).toBe(true);
    expect(body).not.toContain('\uFFFD');
    expect(text.startsWith(body)).toBe(true);
    const bytes = new TextEncoder().encode(body).byteLength;
    expect(bytes).toBeLessThanOrEqual(CAPTURE_LIMIT);
    expect(bytes).toBeGreaterThan(CAPTURE_LIMIT - 2);
  });

  it(`cuts a body written whole past ${CAPTURE_LIMIT} bytes, like a stream`, async () => {
    gateway.use({ match: { userMessage: 'emoji' }, reply: { text: '🙂'.repeat(30_000) } });
    await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'emoji' }] });
    const [entry] = gateway.requests();
    const body = entry.response!.body!;
    expect(entry.response!.truncated).toBe(true);
    expect(body).not.toContain('\uFFFD');
    const bytes = new TextEncoder().encode(body).byteLength;
    expect(bytes).toBeLessThanOrEqual(CAPTURE_LIMIT);
    expect(bytes).toBeGreaterThan(CAPTURE_LIMIT - 4);
  });

  it('keeps the error body of a refused request', async () => {
    await expect(new OpenAI({ apiKey: 'sk-nope', baseURL: 'https://api.openai.com/v1', maxRetries: 0 }).models.list()).rejects.toThrow(
      /401/,
    );
    const [entry] = gateway.requests();
    expect(entry.status).toBe(401);
    expect(JSON.parse(entry.response!.body!).error.code).toBe('invalid_api_key');
  });
});

describe('the journal bounded in bytes, every field', () => {
  const MIB8 = 8 * 1024 * 1024;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`https://api.openai.com${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers },
      body,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
  /** An entry as the control plane would send it: every field, as JSON. */
  const size = (entry: JournalEntry) => JSON.stringify(entry).length;
  /** Generously above what one entry may hold: its body's 64 KiB, its answer's 64 KiB, 16 KiB of headers, the rest small. */
  const ENTRY_BOUND = 150 * 1024;

  it('keeps an 8 MiB unknown key, an 8 MiB model id, a huge header and path cut, each entry within its bound', async () => {
    const gateway = createGateway();
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const key = 'k'.repeat(MIB8);
      const unknownKey = await post(
        '/v1/chat/completions',
        `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"${key}":1}`,
      );
      expect(unknownKey.status).toBe(200);
      // Recorded before it is known: the 404 still leaves only a cut of it.
      const model = await post('/v1/embeddings', JSON.stringify({ model: `m${'m'.repeat(MIB8)}`, input: 'x' }));
      expect(model.status).toBe(404);
      const header = await post('/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }), {
        'x-client-note': 'h'.repeat(1024 * 1024),
        ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-extra-${i}`, 'e'.repeat(1000)])),
      });
      expect(header.status).toBe(200);
      // msw takes URLs of at most 8 KiB; the standalone server's headers, the path among them, at most 16 KiB.
      const path = await fetch(`https://api.openai.com/v1/models/${'p'.repeat(4000)}?q=${'q'.repeat(4000)}`, {
        headers: { authorization: 'Bearer sk-test' },
      });
      expect(path.status).toBe(404);
      const entries = gateway.requests();
      expect(entries).toHaveLength(4);
      for (const entry of entries) expect(size(entry), entry.path.slice(0, 30)).toBeLessThan(ENTRY_BOUND);
      const [chat, embedding, headed, listed] = entries;
      expect(Object.keys(chat.body as object).find((k) => k.startsWith('kkk'))).toMatch(/^k{2048}… \[8386560 more characters\]$/);
      expect(embedding.model).toMatch(/^m{1024}… \[8387585 more characters\]$/);
      expect(headed.headers['…']).toMatch(/^\d+ more headers$/);
      expect(listed.path).toMatch(/^\/v1\/models\/p+… \[\d+ more characters\]$/);
      expect(listed.query.length).toBeLessThan(1100);
    } finally {
      server.close();
    }
  });

  it('frees what reset drops: no entry outlives it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const gateway = createGateway();
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      for (let i = 0; i < 3; i++) await post('/v1/embeddings', JSON.stringify({ model: `${'m'.repeat(1024 * 1024)}${i}`, input: 'x' }));
      const refs = gateway.requests().map((entry) => new WeakRef(entry));
      expect(refs).toHaveLength(3);
      gateway.reset();
      // A WeakRef holds its target until the job that made it ends.
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      expect(refs.map((ref) => ref.deref())).toEqual([undefined, undefined, undefined]);
    } finally {
      server.close();
    }
  });
});

describe('a captured body kept as bytes', () => {
  const entryWith = (journal: Journal) =>
    journal.record({
      seq: 0,
      requestId: 'r',
      method: 'POST',
      path: '/',
      query: '',
      headers: {},
      status: 200,
      stream: true,
      outcome: 'streaming',
      eventsSent: 0,
      response: { headers: {} },
    } as JournalEntry);

  it('is cut before a character the limit falls inside, never leaving half of one', () => {
    const journal = new Journal(10);
    const entry = entryWith(journal);
    // 'a' then two-byte characters: byte CAPTURE_LIMIT (even) is the second byte of an 'é'.
    captureBytes(entry.response!, new TextEncoder().encode(`a${'é'.repeat(CAPTURE_LIMIT)}`));
    const [read] = readable(journal.held());
    expect(read.response!.truncated).toBe(true);
    expect(read.response!.body).toBe(`a${'é'.repeat((CAPTURE_LIMIT - 2) / 2)}`);
  });

  it('is the same object, with only its public fields, once read', () => {
    const journal = new Journal(10);
    const entry = entryWith(journal);
    captureBytes(entry.response!, new TextEncoder().encode('data: 1\n\n'));
    captureBytes(entry.response!, new TextEncoder().encode('data: 2\n\n'));
    const [read] = readable(journal.held());
    expect(read.response).toStrictEqual({ headers: {}, body: 'data: 1\n\ndata: 2\n\n' });
    expect(JSON.parse(JSON.stringify(read.response))).toEqual({ headers: {}, body: 'data: 1\n\ndata: 2\n\n' });
  });
});

describe.runIf(socketSuites)('the live journal feed and one entry over the control plane', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli(['--latency', 'ttft=20,tps=100,jitter=0']);
  });
  afterAll(() => cli?.stop());

  /** Reads `GET /__admin/requests/stream` until `until` holds for the events seen. */
  async function follow(until: (events: { event: string; data: unknown }[]) => boolean, act: () => Promise<unknown>) {
    const controller = new AbortController();
    const res = await fetch(`${cli.url}/__admin/requests/stream`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const events: { event: string; data: unknown }[] = [];
    let buffer = '';
    let acted = false;
    try {
      while (!until(events)) {
        if (!acted) {
          acted = true;
          void act();
        }
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        // The events complete so far (a keep-alive comment has no event name); the rest waits for more.
        const end = buffer.lastIndexOf('\n\n');
        if (end < 0) continue;
        for (const { event, data } of parseSse(buffer.slice(0, end))) if (event) events.push({ event, data: JSON.parse(data) });
        buffer = buffer.slice(end + 2);
      }
    } finally {
      controller.abort();
    }
    return events;
  }

  it('sends each new request, then its progress, without headers or bodies', async () => {
    const sdk = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    type Summary = {
      seq: number;
      model: string;
      outcome: string;
      eventsSent: number;
      durationMs?: number;
      body?: unknown;
      headers?: unknown;
    };
    const summaries = (events: { event: string; data: unknown }[]) =>
      events.filter((e) => e.event === 'entries').flatMap((e) => e.data as Summary[]);
    const events = await follow(
      (seen) => summaries(seen).some((s) => s.model === 'gpt-5' && s.outcome === 'completed' && s.durationMs !== undefined),
      async () => {
        const stream = await sdk.chat.completions.create({
          model: 'gpt-5',
          messages: [{ role: 'user', content: 'Follow me' }],
          stream: true,
        });
        for await (const _ of stream) void _;
      },
    );
    const mine = summaries(events).filter((s) => s.model === 'gpt-5');
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine[0].outcome).toBe('streaming');
    expect(mine.every((s) => s.body === undefined && s.headers === undefined)).toBe(true);

    const entry = (await (await fetch(`${cli.url}/__admin/requests/${mine[0].seq}`)).json()) as {
      body: { messages: unknown[] };
      response: { body: string };
    };
    expect(entry.body.messages).toEqual([{ role: 'user', content: 'Follow me' }]);
    expect(entry.response.body).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('says when the journal is cleared', async () => {
    const events = await follow(
      (seen) => seen.some((e) => e.event === 'reset'),
      () => fetch(`${cli.url}/__admin/requests`, { method: 'DELETE', headers: { 'content-type': 'application/json' } }),
    );
    expect(events.at(-1)!.event).toBe('reset');
  });

  it('answers 404 for an entry the journal does not hold', async () => {
    const res = await fetch(`${cli.url}/__admin/requests/999999`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/No request #999999/);
  });
});
