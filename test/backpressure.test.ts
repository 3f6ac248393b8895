// The way out (issue 37): every byte the server sends waits for the reader. A stream's events are made
// as the writer takes them, production stops while the reader's buffer is over the high-water mark,
// a reader that takes nothing for the reader timeout is dropped, and a big reply is made in slices with
// other clients served between them. Proved by counted events and bytes, and by order: never by time.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setupServer } from 'msw/node';
import { HttpHandler } from 'msw';
import { request as httpRequest, createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import express from 'express';
import WebSocket from 'ws';
import { createGateway, type Gateway } from '../src/index.ts';
import { endpoints, runtimeOf } from '../src/gateway.ts';
import { runEndpoint } from '../src/pipeline/endpoint.ts';
import { inboundOf } from '../src/adapters/upgrade.ts';
import { HIGH_WATER_BYTES } from '../src/pipeline/playback.ts';
import { LazyArray, stringifyInPieces } from '../src/pipeline/pieces.ts';
import { adminRouter, MAX_FEED_FOLLOWERS } from '../src/control/admin.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import type { SocketSink } from '../src/pipeline/exchange.ts';
import { REALTIME_LIMITS } from '../src/formats/openai/realtime.ts';
import type { Fixture } from '../src/types/fixtures.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { HANG_MS, seenMeanwhile } from './helpers/ordering.ts';

/** Lets the event loop run `count` times over (I/O and immediates included): room for a producer that does not wait to run on. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** About 44,000 events, 12 MB of SSE: far more than any buffer on the way holds. */
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(4000);
const FIXTURES: Fixture[] = [{ match: { userMessage: 'long' }, reply: { text: LONG } }];
const AUTH = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const streamBody = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true, ...extra });

/** The SSE events of `text`, each with its blank line. */
const sseEvents = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((e) => `${e}\n\n`);

/** The gateway's own Response to `request`, from its msw handlers (what msw hands the client), without msw's transport. */
async function handled(gateway: Gateway, request: Request): Promise<Response> {
  for (const handler of gateway.handlers) {
    if (!(handler instanceof HttpHandler)) continue;
    const result = await (handler as { run(args: { request: Request; requestId: string }): Promise<{ response?: Response } | null> }).run({
      request: request.clone(),
      requestId: 'backpressure',
    });
    if (result?.response) return result.response;
  }
  throw new Error(`no handler took ${request.method} ${request.url}`);
}

const chatRequest = (body: string, headers: Record<string, string> = {}) =>
  new Request('https://api.openai.com/v1/chat/completions', { method: 'POST', headers: { ...AUTH, ...headers }, body });

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>, first: Uint8Array[] = []): Promise<string> {
  const chunks = [...first];
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

describe('a stream waits for its reader (in-process)', () => {
  it('makes events only as far as the high-water mark while its reader is paused, then the same bytes as read at once', async () => {
    const gateway = createGateway({ fixtures: FIXTURES });
    const whole = await (await handled(gateway, chatRequest(streamBody('long')))).text();
    const events = sseEvents(whole);
    expect(events.length).toBeGreaterThan(40_000);

    const reader = (await handled(gateway, chatRequest(streamBody('long')))).body!.getReader();
    const first = await reader.read();
    await turns(100);
    const entry = gateway.requests().at(-1)!;
    const made = entry.eventsSent;
    expect(entry.outcome).toBe('streaming');
    // The queue (the high-water mark), the chunk the reader took, and one chunk made as it drained.
    expect(Buffer.byteLength(events.slice(0, made).join(''))).toBeLessThanOrEqual(3 * HIGH_WATER_BYTES + 1024);
    await turns(100);
    expect(gateway.requests().at(-1)!.eventsSent).toBe(made);

    const text = await readAll(reader, [first.value!]);
    expect(text).toBe(whole);
    expect(gateway.requests().at(-1)).toMatchObject({ outcome: 'completed', eventsSent: events.length });
    expect(gateway.activeStreams).toBe(0);
  });

  it('drops a reader that takes nothing for the reader timeout: its stream errors, the entry is aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const gateway = createGateway({ fixtures: FIXTURES, readerTimeoutMs: 5000 });
      const reader = (await handled(gateway, chatRequest(streamBody('long')))).body!.getReader();
      await reader.read();
      await turns(50);
      const made = gateway.requests().at(-1)!.eventsSent;
      await vi.advanceTimersByTimeAsync(4999);
      expect(gateway.requests().at(-1)!.outcome).toBe('streaming');
      await vi.advanceTimersByTimeAsync(1);
      expect(gateway.requests().at(-1)).toMatchObject({ outcome: 'aborted', eventsSent: made });
      expect(gateway.activeStreams).toBe(0);
      // What was queued is dropped with the stream: the reader learns why.
      await expect(readAll(reader)).rejects.toThrow(/the reader took nothing for 5000 ms/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never drops a reader that keeps reading, however slowly, nor one with readerTimeoutMs 0', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (const readerTimeoutMs of [5000, 0]) {
        const gateway = createGateway({ fixtures: FIXTURES, readerTimeoutMs });
        const reader = (await handled(gateway, chatRequest(streamBody('long')))).body!.getReader();
        let reads = 0;
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          // A chunk every 4 s (or a minute with no limit): never 5 s without taking anything.
          if (++reads % 20 === 0) await vi.advanceTimersByTimeAsync(readerTimeoutMs ? 4000 : 60_000);
        }
        expect(gateway.requests().at(-1)!.outcome).toBe('completed');
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a readerTimeoutMs that no timer can hold', () => {
    expect(() => createGateway({ readerTimeoutMs: 2 ** 31 })).toThrow(
      /readerTimeoutMs: expected whole milliseconds from 0 \(never\) to 2147483647/,
    );
    expect(() => createGateway({ readerTimeoutMs: -1 })).toThrow(/readerTimeoutMs/);
  });
});

// msw 2 hands a mocked body to fetch's reader as that reader pulls; msw 3's interceptor reads a mocked
// body ahead of it (and, when the client closes with data unread, undici asserts): the bound through
// fetch itself is msw 2's, the gateway's own is proved at the handler above for both.
describe.runIf(process.env.GATEWAY_TEST_MSW_MAJOR === '2')('a stream through fetch and msw 2', () => {
  const gateway = createGateway({ fixtures: FIXTURES });
  const server = setupServer(...gateway.handlers);
  beforeAll(() => strictListen(server));
  afterAll(() => server.close());

  it('makes no more than a few high-water marks of events for a fetch whose body is not read', async () => {
    const res = await fetch(chatRequest(streamBody('long')));
    const reader = res.body!.getReader();
    const first = await reader.read();
    await turns(100);
    const { outcome, eventsSent: made } = gateway.requests().at(-1)!;
    expect(outcome).toBe('streaming');
    const text = await readAll(reader, [first.value!]);
    const events = sseEvents(text);
    // Ours, msw's copy and fetch's own queue: each at most a high-water mark, and a chunk in flight.
    expect(Buffer.byteLength(events.slice(0, made).join(''))).toBeLessThanOrEqual(4 * HIGH_WATER_BYTES + 1024);
    expect(events.at(-1)).toBe('data: [DONE]\n\n');
  });
});

describe('big replies are made as they are written', () => {
  it('serializes a LazyArray as JSON.stringify does, making its items only as far as the pieces taken', async () => {
    let made = 0;
    const items = new LazyArray(function* () {
      for (let i = 0; i < 20_000; i++) {
        made++;
        yield { i, word: 'x'.repeat(100), nested: [i, { deep: true }] };
      }
    });
    const value = { head: 'h', items, tail: [1, 2, 3] };
    const expected = JSON.stringify(value);
    made = 0;
    const pieces = stringifyInPieces(value, 64 * 1024, 256 * 1024);
    if (typeof pieces === 'string') throw new Error('expected pieces');
    // The head (256 Ki characters) and no more than the item that passed it.
    expect(made).toBeLessThanOrEqual(Math.ceil((256 * 1024) / 130) + 1);
    const rest = pieces.rest[Symbol.asyncIterator]();
    const second = await rest.next();
    expect(made).toBeLessThanOrEqual(Math.ceil((320 * 1024) / 130) + 2);
    let text = pieces.head + (second.value as string);
    for (let next = await rest.next(); !next.done; next = await rest.next()) text += next.value;
    expect(text).toBe(expected);
    expect(made).toBe(20_000);
  });

  it('writes n=128 with top_logprobs 20 (about 9 MB) in pieces, the same JSON the eager reply is', async () => {
    const gateway = createGateway();
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], n: 128, logprobs: true, top_logprobs: 20 });
    const res = await handled(gateway, chatRequest(body));
    // Written as it is made, a piece at a time.
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks.length).toBeGreaterThan(100);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.length).toBeGreaterThan(8_000_000);
    const reply = JSON.parse(text) as { choices: { logprobs: { content: { top_logprobs: unknown[] }[] } }[] };
    expect(reply.choices).toHaveLength(128);
    expect(reply.choices.every((c) => c.logprobs.content.length > 0 && c.logprobs.content[0].top_logprobs.length === 20)).toBe(true);
    // The stream's chunks carry the same entries, one per piece of text.
    const streamed = await (await handled(gateway, chatRequest(body.replace('"n":128', '"n":128,"stream":true')))).text();
    const entries = new Map<number, unknown[]>();
    for (const e of sseEvents(streamed)) {
      const data = e.slice(6, -2);
      if (data === '[DONE]') continue;
      const choice = (JSON.parse(data) as { choices: { index: number; logprobs: { content: unknown[] } | null }[] }).choices[0];
      if (choice?.logprobs) entries.set(choice.index, [...(entries.get(choice.index) ?? []), ...choice.logprobs.content]);
    }
    expect(reply.choices.map((c, i) => JSON.stringify(c.logprobs.content) === JSON.stringify(entries.get(i)))).not.toContain(false);
  });

  it('refuses too many log probabilities before the stream starts, with the 400', async () => {
    // Four choices of about 9000 tokens at 1 + 20 entries each: past the 500,000.
    const gateway = createGateway({ fixtures: FIXTURES });
    const body = streamBody('long', { n: 4, logprobs: true, top_logprobs: 20 });
    const res = await handled(gateway, chatRequest(body));
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/stopped computing log probabilities after 500000 entries/);
  });
});

/** A sink whose reader takes nothing until `drain()`: it counts what the session sent. */
function stalledSink() {
  let buffered = 0;
  let sent = 0;
  let largest = 0;
  const frames: string[] = [];
  let resume: (() => void) | undefined;
  const paused: boolean[] = [];
  const closes: (number | 'terminated')[] = [];
  const sink: SocketSink = {
    send(text) {
      buffered += text.length;
      sent += text.length;
      largest = Math.max(largest, text.length);
      frames.push(text);
    },
    buffered: () => buffered,
    whenDrained: (r) => void (resume = r),
    pauseReading: (p) => void paused.push(p),
    close: (code) => void closes.push(code),
    terminate: () => void closes.push('terminated'),
  };
  return {
    sink,
    frames,
    paused,
    closes,
    get sent() {
      return sent;
    },
    get largest() {
      return largest;
    },
    /** The reader takes everything held. */
    drain() {
      buffered = 0;
      const r = resume;
      resume = undefined;
      r?.();
    },
    get waiting() {
      return resume !== undefined;
    },
  };
}

describe('a realtime session waits for its reader', () => {
  async function openSession(gateway: Gateway, sink: SocketSink) {
    const spec = endpoints.find((e) => e.upgrade && e.path === '/v1/realtime')!;
    const headers = { authorization: 'Bearer sk-test', upgrade: 'websocket' };
    const inbound = inboundOf(
      'GET',
      new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime'),
      (name) => headers[name as keyof typeof headers],
      () => headers,
      new AbortController().signal,
    );
    const out = await runEndpoint(runtimeOf(gateway), spec, inbound, {});
    // A realtime session sends nothing down the pipeline.
    return out.socket!.open(sink, { answer: () => Promise.reject(new Error('unused')) });
  }

  it('holds at most the high-water mark and one event’s answer while its reader takes nothing, then answers every event in order', async () => {
    const gateway = createGateway();
    const held = stalledSink();
    const peer = await openSession(gateway, held.sink);
    const item = (i: number) =>
      JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${i} ${'word '.repeat(2000)}` }] },
      });
    for (let i = 0; i < 300; i++) peer.receive(item(i));
    await turns(50);
    // Each item is echoed twice (added, done): about 20 KB an event.
    expect(held.sent).toBeLessThanOrEqual(HIGH_WATER_BYTES + 2 * held.largest);
    expect(held.paused).toEqual([true]);
    expect(held.waiting).toBe(true);
    for (let rounds = 0; held.waiting && rounds < 1000; rounds++) {
      const before = held.sent;
      held.drain();
      await turns(5);
      expect(held.sent - before).toBeLessThanOrEqual(HIGH_WATER_BYTES + 2 * held.largest);
    }
    const added = held.frames
      .map((f) => JSON.parse(f) as { type: string; item?: { content: { text: string }[] } })
      .filter((e) => e.type === 'conversation.item.added');
    expect(added.map((e) => Number.parseInt(e.item!.content[0].text, 10))).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(held.paused.at(-1)).toBe(false);
    peer.closed();
  });

  it('closes a session whose reader took nothing for the reader timeout with 1008 reader_timeout, and one sent past its byte limit', async () => {
    const gateway = createGateway({ readerTimeoutMs: 30_000 });
    const held = stalledSink();
    const peer = await openSession(gateway, held.sink);
    // Faked once the session is open: only the reader timeout's timer is left to move.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const item = JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'word '.repeat(20_000) }] },
      });
      for (let i = 0; i < 5; i++) peer.receive(item);
      await turns(20);
      expect(held.waiting).toBe(true);
      await vi.advanceTimersByTimeAsync(29_999);
      expect(held.closes).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(held.closes).toEqual([1008, 'terminated']);
      expect(gateway.requests().at(-1)!.outcome).toBe('aborted');
    } finally {
      vi.useRealTimers();
    }

    const limit = REALTIME_LIMITS.serverBytes;
    REALTIME_LIMITS.serverBytes = 100_000;
    try {
      const gateway = createGateway();
      const sent: string[] = [];
      const closes: number[] = [];
      const peer = await openSession(gateway, {
        send: (text) => void sent.push(text),
        buffered: () => 0,
        whenDrained: (resume) => resume(),
        pauseReading: () => {},
        close: (code) => void closes.push(code),
        terminate: () => {},
      });
      const item = JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'word '.repeat(2000) }] },
      });
      for (let i = 0; i < 20; i++) peer.receive(item);
      await turns(20);
      const last = JSON.parse(sent.at(-1)!) as { type: string; error: { code: string; message: string } };
      expect(last).toMatchObject({ type: 'error', error: { code: 'session_byte_limit' } });
      expect(last.error.message).toMatch(/sent more than 100000 bytes/);
      expect(closes).toEqual([1008]);
    } finally {
      REALTIME_LIMITS.serverBytes = limit;
    }
  });

  it('plays a response only as far as the reader takes it: audio deltas wait, then arrive in full', async () => {
    const gateway = createGateway();
    const held = stalledSink();
    const peer = await openSession(gateway, held.sink);
    peer.receive(JSON.stringify({ type: 'response.create', response: { instructions: 'Talk at length about the sea.' } }));
    await turns(100);
    const types = () => held.frames.map((f) => (JSON.parse(f) as { type: string }).type);
    expect(types()).not.toContain('response.done');
    expect(held.sent).toBeLessThanOrEqual(2 * HIGH_WATER_BYTES + held.largest);
    for (let rounds = 0; !types().includes('response.done') && rounds < 1000; rounds++) {
      held.drain();
      await turns(5);
    }
    expect(types().filter((t) => t === 'response.output_audio.delta').length).toBeGreaterThan(3);
    expect(types().at(-1)).toBe('rate_limits.updated');
    peer.closed();
  });
});

/** A socket whose reader takes nothing: everything written stays in its buffer; `written` counts what was handed to it. */
class StalledSocket extends Duplex {
  written = 0;
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, _callback: () => void): void {
    // Never called back: the writable side's buffer grows, as a socket's does when its reader stops.
    this.written += chunk.byteLength;
  }
}

describe('the live feed waits for its followers', () => {
  /** A GET of `path` on the control plane, its response on a socket whose reader takes nothing. */
  function follow(app: express.Express, path: string) {
    const socket = new StalledSocket();
    const req = new IncomingMessage(socket as never);
    req.method = 'GET';
    req.url = path;
    req.headers = { host: 'localhost' };
    const res = new ServerResponse(req);
    res.assignSocket(socket as never);
    app(req as never, res as never);
    return { socket, res };
  }

  it('sends a follower that reads nothing no more than the high-water mark and one tick, drops it at the reader timeout, and takes at most 64 followers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const gateway = createGateway({ journalSize: 200 });
      const app = express();
      app.use('/__admin', adminRouter(gateway, '0', { readerTimeoutMs: 10_000 }));
      const journal = runtimeOf(gateway).journal;
      let n = 0;
      /** A finished request in the journal, its summary some hundreds of bytes. */
      const answered = () =>
        journal.record({
          seq: 0,
          requestId: `req_${++n}`,
          method: 'POST',
          path: '/v1/chat/completions',
          query: '',
          headers: {},
          body: { model: 'gpt-4o', messages: [{ role: 'user', content: `question ${n} ${'about the weather '.repeat(5)}` }] },
          format: 'openai',
          status: 200,
          stream: false,
          outcome: 'completed',
          eventsSent: 0,
          durationMs: 1,
        });
      const { res } = follow(app, '/__admin/requests/stream');
      let largestTick = 0;
      for (let round = 0; round < 40; round++) {
        for (let i = 0; i < 50; i++) answered();
        const before = res.writableLength;
        await vi.advanceTimersByTimeAsync(250);
        largestTick = Math.max(largestTick, res.writableLength - before);
      }
      // 2000 requests followed: without back-pressure every summary would wait in the buffer (about 600 KB).
      expect(largestTick).toBeGreaterThan(0);
      expect(res.writableLength).toBeLessThanOrEqual(64 * 1024 + largestTick);
      expect(res.destroyed).toBe(false);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(res.destroyed).toBe(true);

      const many = Array.from({ length: MAX_FEED_FOLLOWERS }, () => follow(app, '/__admin/requests/stream'));
      expect(many.every((f) => f.res.statusCode === 200)).toBe(true);
      const refused = follow(app, '/__admin/requests/stream');
      expect(refused.res.statusCode).toBe(503);
      // One leaves: another may follow.
      many[0].res.destroy();
      await vi.advanceTimersByTimeAsync(0);
      expect(follow(app, '/__admin/requests/stream').res.statusCode).toBe(200);
      for (const f of many) f.res.destroy();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** The most the kernel may hold of one loopback connection: the sender's and the receiver's socket buffers at their largest. */
function kernelBytes(): number {
  const max = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/)[2]);
  try {
    return max('/proc/sys/net/ipv4/tcp_wmem') + max('/proc/sys/net/ipv4/tcp_rmem');
  } catch {
    return 64 * 1024 * 1024;
  }
}

/** The newest journal entry on `path`, read over its own connection. */
async function entryOf(url: string, path: string) {
  const { requests } = (await (await fetch(`${url}/__admin/requests?limit=20`)).json()) as {
    requests: { path: string; outcome: string; eventsSent: number; status: number }[];
  };
  return requests.findLast((e) => e.path === path);
}

/** Reads the entry until its stream's progress stops moving (`still` reads in a row, each a round trip to the server): production paused, or done. */
async function settled(url: string, path: string, still = 20) {
  let last = -1;
  let same = 0;
  for (;;) {
    const entry = (await entryOf(url, path))!;
    if (entry.outcome !== 'streaming') return entry;
    same = entry.eventsSent === last ? same + 1 : 0;
    last = entry.eventsSent;
    if (same >= still) return entry;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Five times LONG: 60 MB of SSE, more than a loopback connection's socket buffers hold. */
const BIG = LONG.repeat(5);
/** Sixty times LONG: about 2.6 million events, 700 MB of SSE, never all of it made here. */
const HUGE = LONG.repeat(60);

describe.runIf(socketSuites)('over a socket', () => {
  let cli: Spawned;
  let dropping: Spawned;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-backpressure-'));
    writeFileSync(
      join(dir, 'fixtures.json'),
      JSON.stringify([
        ...FIXTURES,
        { match: { userMessage: 'big' }, reply: { text: BIG } },
        { match: { userMessage: 'huge' }, reply: { text: HUGE } },
      ]),
    );
    [cli, dropping] = await Promise.all([spawnCli(['--fixtures', dir]), spawnCli(['--fixtures', dir, '--reader-timeout', '300'])]);
  }, HANG_MS);
  afterAll(() => Promise.all([cli?.stop(), dropping?.stop()]));

  /** A streamed chat whose response the client does not read until `read()`. */
  function unread(url: string, content: string) {
    let res!: IncomingMessage;
    const started = new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: AUTH }, (r) => {
        res = r;
        r.pause();
        resolve();
      });
      req.once('error', reject);
      req.end(streamBody(content));
    });
    return {
      started,
      /** Reads the rest: its bytes and events, and how it ended. */
      read: () =>
        new Promise<{ bytes: number; events: number; tail: string; how: string }>((resolve) => {
          let bytes = 0;
          let events = 0;
          let tail = '';
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.byteLength;
            // Events end in a blank line; one may end across two chunks.
            const text = (tail.endsWith('\n') ? '\n' : '') + chunk.toString('latin1');
            events += text.split('\n\n').length - 1;
            tail = (tail + text).slice(-64);
          });
          res.once('end', () => resolve({ bytes, events, tail, how: 'end' }));
          res.once('error', (e) => resolve({ bytes, events, tail, how: e.message }));
          res.once('close', () => resolve({ bytes, events, tail, how: 'close' }));
          res.resume();
        }),
    };
  }

  it(
    'stops making a stream its reader does not read: what was made fits the socket buffers and the high-water mark',
    async () => {
      const stream = unread(cli.url, 'big');
      await stream.started;
      const paused = await settled(cli.url, '/v1/chat/completions');
      expect(paused.outcome).toBe('streaming');
      const made = paused.eventsSent;
      const whole = await stream.read();
      expect(whole.tail).toContain('data: [DONE]');
      const perEvent = whole.bytes / whole.events;
      expect(made * perEvent).toBeLessThanOrEqual(kernelBytes() + 3 * HIGH_WATER_BYTES);
      expect(made).toBeLessThan(whole.events);
      expect((await entryOf(cli.url, '/v1/chat/completions'))!).toMatchObject({ outcome: 'completed', eventsSent: whole.events });
    },
    HANG_MS,
  );

  it(
    'drops a reader that takes nothing for --reader-timeout: the connection closes, the entry is aborted',
    async () => {
      const stream = unread(dropping.url, 'huge');
      await stream.started;
      // Nothing is read until the server has given up on the reader.
      for (let entry = await entryOf(dropping.url, '/v1/chat/completions'); entry?.outcome === 'streaming'; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        entry = await entryOf(dropping.url, '/v1/chat/completions');
      }
      const entry = (await entryOf(dropping.url, '/v1/chat/completions'))!;
      expect(entry.outcome).toBe('aborted');
      const got = await stream.read();
      expect(got.tail).not.toContain('[DONE]');
      expect(got.how).not.toBe('end');
    },
    HANG_MS,
  );

  it(
    'takes a client that half-closes its side during a delayed stream as gone, as real servers do (production stops)',
    async () => {
      const text = await new Promise<string>((resolve, reject) => {
        const body = streamBody('half-closed', { max_tokens: 8 });
        const socket = connect(Number(new URL(cli.url).port), '127.0.0.1', () => {
          socket.write(
            `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer sk-test\r\ncontent-type: application/json\r\nx-mock-latency: ttft=60000,tps=100\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          socket.end();
        });
        let got = '';
        socket.on('data', (d) => (got += d));
        socket.once('close', () => resolve(got));
        socket.once('error', reject);
      });
      // The connection closed long before the first token was due (a minute), with no event sent.
      expect(text).not.toContain('data: ');
      let entry = await entryOf(cli.url, '/v1/chat/completions');
      while (entry?.outcome !== 'aborted') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        entry = await entryOf(cli.url, '/v1/chat/completions');
      }
      expect(entry).toMatchObject({ outcome: 'aborted', eventsSent: 0 });
    },
    HANG_MS,
  );

  it(
    'serves other clients while it makes a 9 MB stream (n=128, top_logprobs 20) for a reader that keeps up',
    async () => {
      const body = streamBody('hi', { n: 128, logprobs: true, top_logprobs: 20, model: 'gpt-4o' });
      const result = await seenMeanwhile(
        cli.url,
        '/v1/chat/completions',
        AUTH,
        body,
        3,
        (e) => e.status === 200 && e.outcome === 'streaming' && e.eventsSent > 0,
      );
      if (result.big instanceof Error) throw result.big;
      expect(result.big.status).toBe(200);
      expect(result.big.text.length).toBeGreaterThan(8_000_000);
      // The other client read the entry part-way made: the stream was made in slices, others served between.
      expect(result.witnessed).toBeGreaterThan(0);
      expect(result.statuses.every((s) => s === 200)).toBe(true);
    },
    HANG_MS,
  );

  it(
    'holds a realtime session’s frames while its reader takes nothing, and reads no more of the client meanwhile',
    async () => {
      const ws = new WebSocket(`${cli.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
        headers: { authorization: 'Bearer sk-test' },
      });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.pause();
      const count = 2000;
      // Each echoed twice (added, done): 80 MB of answers to 40 MB of events.
      const text = 'word '.repeat(4000);
      for (let i = 0; i < count; i++)
        ws.send(
          JSON.stringify({
            type: 'conversation.item.create',
            item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${i} ${text}` }] },
          }),
        );
      const held = await settled(cli.url, '/v1/realtime');
      expect(held.outcome).toBe('streaming');
      expect(held.eventsSent * 2 * text.length).toBeLessThanOrEqual(2 * kernelBytes() + 2 * HIGH_WATER_BYTES);
      expect(held.eventsSent).toBeLessThan(2 * count);
      const added = await new Promise<number>((resolve) => {
        let n = 0;
        ws.on('message', (data) => {
          if (String(data).startsWith('{"type":"conversation.item.added"') && ++n === count) resolve(n);
        });
        ws.resume();
      });
      expect(added).toBe(count);
      ws.close();
    },
    HANG_MS,
  );
});

describe.runIf(socketSuites)('record mode over a socket', () => {
  // Past what the sockets on the way may hold (see kernelBytes), so a proxy that read ahead would finish it unread.
  const TOTAL = 128 * 1024 * 1024;
  let upstream: Server;
  let cli: Spawned;
  /** What the stand-in upstream wrote, and whether it has finished. */
  const sent = { bytes: 0, waiting: false, finished: false };
  beforeAll(async () => {
    const line = Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(4000) } }] })}\n\n`);
    upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (sent.bytes < TOTAL) {
          sent.bytes += line.byteLength;
          if (!res.write(line)) {
            sent.waiting = true;
            return void res.once('drain', () => {
              sent.waiting = false;
              pump();
            });
          }
        }
        res.end(() => (sent.finished = true));
      };
      pump();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as { port: number };
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-'));
    cli = await spawnCli(['--record', dir, '--upstream', `http://127.0.0.1:${port}`]);
  }, HANG_MS);
  afterAll(async () => {
    await cli?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it(
    'reads the upstream no faster than the client reads the answer',
    async () => {
      let res!: IncomingMessage;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${cli.url}/v1/chat/completions`, { method: 'POST', headers: AUTH }, (r) => {
          res = r;
          r.pause();
          resolve();
        });
        req.once('error', reject);
        req.end(streamBody('proxied'));
      });
      // The client reads nothing until the upstream has waited on its socket through 50 round trips to
      // the emulator (each a turn of its event loop, a chance to read on), or, read ahead, has written it all.
      let last = -1;
      for (let same = 0; !sent.finished && same < 50; ) {
        same = sent.waiting && sent.bytes === last ? same + 1 : 0;
        last = sent.bytes;
        await (await fetch(`${cli.url}/__admin/health`)).text();
      }
      expect(sent.finished).toBe(false);
      // Now it reads: by the time the upstream has written its last byte, the client has read all but what
      // the sockets on the way (upstream to emulator, emulator to client) and the high-water marks hold.
      let read = 0;
      let readWhenUpstreamDone = -1;
      await new Promise<void>((resolve) => {
        res.on('data', (chunk: Buffer) => {
          read += chunk.byteLength;
          if (sent.finished && readWhenUpstreamDone < 0) readWhenUpstreamDone = read;
        });
        res.once('end', resolve);
        res.resume();
      });
      expect(read).toBe(sent.bytes);
      expect(readWhenUpstreamDone).toBeGreaterThanOrEqual(sent.bytes - 2 * kernelBytes() - 8 * HIGH_WATER_BYTES - 4 * 1024 * 1024);
    },
    HANG_MS,
  );
});
