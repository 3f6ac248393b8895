// Can one request wedge the server? (issue 28) Each case of the issue runs against a fresh built CLI
// while a probe on its own connection asks for /__admin/health every 20 ms; the table shows the
// worst wait the probe saw (its slowest answer, sent while the case was running), the emulator's own
// worst event-loop delay (read from inside it, see bench/emulator.ts), the case's total time, its
// answer, and the emulator's peak RSS (VmHWM). Cases whose fix is not merged yet show big waits: the
// script reports, it does not judge. Last, the costliest HTTP case is sent again and the emulator
// stopped with SIGTERM once its body is on the wire: the time to exit.
// Issue 37's slow readers follow: clients that never read (50 streams, 60 big JSON replies, 5
// realtime sessions, a record-mode stream), each case's peak RSS beside the bound the docs state
// (idle + connections × the high-water mark and a chunk + what one request holds); then 60 clients
// that do read a 9 MB stream, and SIGTERM with 50 unread streams held.
// Usage: npm run bench:wedge [-- --only pattern,32mib]   (names: the first word of each case, lower case)
import { request as httpRequest, Agent, createServer, type IncomingMessage, type ClientRequest } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import WebSocket from 'ws';
import { startEmulator, type Emulator } from './emulator.ts';

const { values } = parseArgs({ options: { only: { type: 'string' }, 'limit-s': { type: 'string', default: '180' } } });
const only = values.only?.split(',');
/** A case still unanswered after this long is written down as such and its emulator killed. */
const LIMIT_MS = Number(values['limit-s']) * 1000;

/** `work`, or `fallback` once `ms` have passed (then `onTimeout` runs). */
function within<T>(work: Promise<T>, ms: number, fallback: T, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve(fallback);
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const auth = { authorization: 'Bearer sk-test' };

/** One POST; resolves with the status (or the error) once the answer is read to its end. */
function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer | string,
  agent?: Agent,
): { flushed: Promise<void>; done: Promise<string> } {
  let flushed!: () => void;
  const sent = new Promise<void>((resolve) => (flushed = resolve));
  const done = new Promise<string>((resolve) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const req = httpRequest(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength), ...headers } },
      (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => (size += c.byteLength));
        res.once('end', () =>
          resolve(`${res.statusCode} (${size < 1e6 ? `${(size / 1e3).toFixed(1)} KB` : `${(size / 1e6).toFixed(0)} MB`})`),
        );
        res.once('error', (e) => resolve(`error: ${e.message}`));
      },
    );
    req.once('error', (e) => resolve(`error: ${e.message}`));
    req.end(bytes, () => flushed());
  });
  return { flushed: sent, done };
}

/** A multipart body: text fields and files. */
function multipart(
  fields: Record<string, string>,
  files: { name: string; filename: string; type: string; bytes: Buffer }[],
): { body: Buffer; type: string } {
  const boundary = 'wedge-bench-boundary';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\ncontent-type: ${f.type}\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

// PNG by hand: a chunk is length, type, data, CRC-32 of type and data.
const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.byteLength, 0);
  head.write(type, 4, 'latin1');
  let c = 0xffffffff;
  for (const b of [...head.subarray(4), ...data]) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE((c ^ 0xffffffff) >>> 0, 0);
  return Buffer.concat([head, data, tail]);
}
function png(width: number, height: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** zlib data that inflates to `bytes` zero bytes, made a MiB at a time (about 1 MB for 1 GiB). */
function zerosDeflated(bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const z = createDeflate({ level: 9 });
    z.on('data', (c: Buffer) => out.push(c))
      .once('end', () => resolve(Buffer.concat(out)))
      .once('error', reject);
    const mib = Buffer.alloc(1024 * 1024);
    let left = bytes;
    const pump = () => {
      while (left > 0) {
        left -= mib.byteLength;
        if (!z.write(mib)) return void z.once('drain', pump);
      }
      z.end();
    };
    pump();
  });
}

interface Case {
  name: string;
  /** Runs the case; resolves with its answer once it is complete. `flushed` is called once its body is sent. */
  run(url: string, flushed: () => void): Promise<string>;
  /** Whether it is one HTTP request (the SIGTERM case picks among those). */
  http: boolean;
  /** Builds what the case sends, before anything is measured. */
  prepare?(): void | Promise<void>;
  /** The emulator's flags for this case. */
  args?: string[];
  /** The peak RSS the docs promise for this case (MiB), from the emulator's RSS once warm. */
  bound?(idleMiB: number): number;
  /** Warms what the case uses beyond a chat request (its modules load), before the idle RSS is read. */
  warm?(url: string): Promise<void>;
}

const chat = (metadata: string) => `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"metadata":${metadata}}`;
const postCase = (name: string, path: string, body: () => Buffer | string, headers: Record<string, string> = auth): Case => {
  let bytes: Buffer | undefined;
  return {
    name,
    http: true,
    // Built before the probe starts: building a big body stalls this process, not the emulator.
    prepare: () => void (bytes ??= Buffer.from(body())),
    run(url, flushed) {
      const sent = post(`${url}${path}`, headers, (bytes ??= Buffer.from(body())));
      void sent.flushed.then(flushed);
      return sent.done;
    },
  };
};

function fanOut(levels: number): unknown {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels - 1; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs[`d${levels - 1}`] = { type: 'string' };
  return { $ref: '#/$defs/d0', $defs: defs };
}
const jsonSchemaChat = (schema: unknown) =>
  JSON.stringify({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'json please' }],
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
  });

async function buildCases(): Promise<Case[]> {
  const bomb = png(64, 64, await zerosDeflated(1024 * 1024 * 1024));
  // A 4096×4096 RGBA image of one colour: each row a filter byte and 16 KiB of pixels.
  const row = Buffer.alloc(1 + 4096 * 4, 0x7f);
  row[0] = 0;
  const big = png(4096, 4096, deflateSync(Buffer.concat(Array.from({ length: 4096 }, () => row))));
  const bombForm = multipart({ model: 'gpt-image-1', prompt: 'make it blue' }, [
    { name: 'image', filename: 'bomb.png', type: 'image/png', bytes: bomb },
  ]);
  const sixteen = multipart(
    { model: 'gpt-image-1', prompt: 'combine them' },
    Array.from({ length: 16 }, (_, i) => ({ name: 'image[]', filename: `big${i}.png`, type: 'image/png', bytes: big })),
  );
  const chat32 = JSON.stringify({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'lorem ipsum dolor sit amet, ünïcode 😀 '.repeat(780_000) }],
  });
  return [
    postCase(`$defs fan-out schema (18 levels, ${(jsonSchemaChat(fanOut(18)).length / 1e3).toFixed(1)} KB)`, '/v1/chat/completions', () =>
      jsonSchemaChat(fanOut(18)),
    ),
    postCase('pattern ^((a{999}){999}){999}$ schema', '/v1/chat/completions', () =>
      jsonSchemaChat({
        type: 'object',
        properties: { s: { type: 'string', pattern: '^((a{999}){999}){999}$' } },
        required: ['s'],
        additionalProperties: false,
      }),
    ),
    postCase('20 MB of nested arrays', '/v1/chat/completions', () => chat(`${'['.repeat(10_000_000)}${']'.repeat(10_000_000)}`)),
    postCase('million keys in one object', '/v1/chat/completions', () =>
      chat(`{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',')}}`),
    ),
    postCase('2048 inputs to text-embedding-3-large (float)', '/v1/embeddings', () =>
      JSON.stringify({
        model: 'text-embedding-3-large',
        encoding_format: 'float',
        input: Array.from({ length: 2048 }, (_, i) => `input ${i} about cats, dogs and the weather`),
      }),
    ),
    postCase(
      `1 MB PNG inflating to 1 GiB, header 64×64 (images.edit, ${(bomb.byteLength / 1e6).toFixed(2)} MB)`,
      '/v1/images/edits',
      () => bombForm.body,
      { ...auth, 'content-type': bombForm.type },
    ),
    postCase(
      `sixteen 4096×4096 PNGs as image[] (${(sixteen.body.byteLength / 1e6).toFixed(1)} MB)`,
      '/v1/images/edits',
      () => sixteen.body,
      { ...auth, 'content-type': sixteen.type },
    ),
    postCase(`32 MiB chat body (${(Buffer.byteLength(chat32) / 2 ** 20).toFixed(1)} MiB)`, '/v1/chat/completions', () => chat32),
    {
      name: '2,000 response.create on one realtime socket',
      http: false,
      run: (url, flushed) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: auth });
          let done = 0;
          let errors = 0;
          const finish = (how: string) => {
            socket.terminate();
            resolve(`${how}: ${done} response.done, ${errors} error events`);
          };
          socket.once('open', () => {
            for (let i = 0; i < 2000; i++) socket.send(JSON.stringify({ type: 'response.create' }));
            flushed();
          });
          socket.on('message', (data) => {
            const type = (JSON.parse(String(data)) as { type: string }).type;
            if (type === 'response.done') done++;
            if (type === 'error') errors++;
            if (done + errors >= 2000) finish('all answered');
          });
          socket.once('close', (code) => finish(`closed ${code}`));
          socket.once('error', (e) => finish(`error ${e.message}`));
        }),
    },
    ...slowReaders(),
  ];
}

// --- issue 37: readers that stop ---

const MiB = 1024 * 1024;
/** What a bound allows beyond the connections (MiB): V8's young generation (the CLI keeps it at 32 MiB) and one request's work at a time. */
const WORK = 64;
/**
 * The bound the docs state (MiB): idle, twice what the connections hold (the CLI lets V8's old
 * generation double over its live data before a full collection, so as much garbage may wait), and WORK.
 */
const bound = (idle: number, connections: number, each: number) => idle + (2 * connections * each) / MiB + WORK;
/** The high-water mark of every carrier (src/pipeline/playback.ts): what one unread connection holds, and as much again being made. */
const HIGH_WATER = 64 * 1024;
/** The issue's streamed chat: a 243-byte request whose response_format asks for a 900,000-character string (36 MB of events). */
const bigString = JSON.stringify({
  model: 'gpt-4o',
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'x',
      schema: { type: 'object', properties: { s: { type: 'string', minLength: 900000 } }, required: ['s'], additionalProperties: false },
    },
  },
});
const logprobs = (stream: boolean) =>
  JSON.stringify({ model: 'gpt-4o', stream, n: 128, logprobs: true, top_logprobs: 20, messages: [{ role: 'user', content: 'hi' }] });

/** `count` POSTs whose answers are never read: resolves once each has its headers. */
async function unread(
  url: string,
  path: string,
  body: string,
  count: number,
): Promise<{ responses: IncomingMessage[]; requests: ClientRequest[] }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const requests: ClientRequest[] = [];
  const responses = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const req = httpRequest(
            `${url}${path}`,
            {
              method: 'POST',
              agent,
              headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
            },
            (res) => {
              res.pause();
              resolve(res);
            },
          );
          requests.push(req);
          req.once('error', reject);
          req.end(body);
        }),
    ),
  );
  return { responses, requests };
}

interface Summary {
  path: string;
  outcome: string;
  eventsSent: number;
}
const summaries = async (url: string) =>
  ((await (await fetch(`${url}/__admin/requests?limit=200`)).json()) as { requests: Summary[] }).requests;

/** Reads the journal until the total of events sent stops moving for `still` reads (each a round trip: the emulator had that many turns to go on). */
async function settled(url: string, path: string, still = 25): Promise<Summary[]> {
  let last = -1;
  for (let same = 0; ; ) {
    const entries = (await summaries(url)).filter((e) => e.path === path);
    const total = entries.reduce((n, e) => n + e.eventsSent, 0);
    same = total === last ? same + 1 : 0;
    last = total;
    if (same >= still || entries.every((e) => e.outcome !== 'streaming')) return entries;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function slowReaders(): Case[] {
  return [
    {
      name: '50 unread streams of a 900,000-character response_format string (36 MB of events each)',
      http: false,
      // Each: the high-water mark, a chunk made, and its reply (the 0.9 MB string, its JSON and its first 32 Ki characters' tokens); one being synthesized.
      bound: (idle) => bound(idle, 50, 2 * HIGH_WATER + 2.5 * MiB),
      run: async (url) => {
        const { responses } = await unread(url, '/v1/chat/completions', bigString, 50);
        const entries = await settled(url, '/v1/chat/completions');
        for (const res of responses) res.destroy();
        const streaming = entries.filter((e) => e.outcome === 'streaming');
        return `${streaming.length} held part-way, ${Math.round(entries.reduce((n, e) => n + e.eventsSent, 0) / entries.length)} events made each of ~163,000`;
      },
    },
    {
      name: '60 unread n=128 top_logprobs 20 JSON replies (9 MB each)',
      http: false,
      // Each: its pieces' high-water mark and a piece, the head (1 MiB) and the reply it is made from.
      bound: (idle) => bound(idle, 60, 2 * HIGH_WATER + 2 * MiB),
      run: async (url) => {
        const { responses } = await unread(url, '/v1/chat/completions', logprobs(false), 60);
        // The emulator has had 25 round trips of nothing to do.
        await settled(url, '/v1/chat/completions');
        for (const res of responses) res.destroy();
        return '60 held';
      },
    },
    {
      name: '5 unread realtime sessions sending response.create every 60 ms for 10 s',
      http: false,
      // Each: the high-water mark, a chunk, and one response: its events (2.3 MB of frames), their stamped frames again, its speech as PCM.
      bound: (idle) => bound(idle, 5, 2 * HIGH_WATER + 6 * MiB),
      // One session answered in full: the realtime handlers, ws and the speech synthesizer load.
      warm: (url) =>
        new Promise<void>((resolve) => {
          const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: auth });
          socket.once('open', () => socket.send(JSON.stringify({ type: 'response.create' })));
          socket.on('message', (data) => {
            if (String(data).includes('"response.done"')) socket.close();
          });
          socket.once('close', () => resolve());
          socket.once('error', () => resolve());
        }),
      run: (url) =>
        new Promise<string>((resolve) => {
          const sockets = Array.from(
            { length: 5 },
            () => new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: auth }),
          );
          let sent = 0;
          for (const socket of sockets) {
            socket.once('open', () => socket.pause());
            socket.on('error', () => {});
          }
          const timer = setInterval(() => {
            for (const socket of sockets)
              if (socket.readyState === WebSocket.OPEN) {
                socket.send(JSON.stringify({ type: 'response.create' }));
                sent++;
              }
          }, 60);
          setTimeout(async () => {
            clearInterval(timer);
            const entries = (await summaries(url)).filter((e) => e.path === '/v1/realtime');
            for (const socket of sockets) socket.terminate();
            resolve(
              `${sent} response.create sent, ${entries.reduce((n, e) => n + e.eventsSent, 0)} server events made for readers that took none`,
            );
          }, 10_000);
        }),
    },
    (() => {
      let upstreamUrl = '';
      const sent = { bytes: 0, waiting: false, finished: false };
      const TOTAL = 400 * 1024 * 1024;
      return {
        name: 'an unread record-mode stream (the upstream sends 400 MB)',
        http: false,
        // The high-water marks of both sides, and what the recorder keeps (--record-max-bytes, 8 MiB).
        bound: (idle: number) => bound(idle, 1, 4 * HIGH_WATER + 8 * MiB),
        async prepare() {
          if (upstreamUrl) return;
          const line = Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(4000) } }] })}\n\n`);
          const upstream = createServer(async (req, res) => {
            let body = '';
            for await (const chunk of req) body += chunk;
            // The warm-up's chat is forwarded too: a small answer.
            if (!body.includes('record me')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
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
            res.once('close', () => (sent.waiting = false));
            pump();
          });
          await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
          upstream.unref();
          upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
          this.args = ['--record', mkdtempSync(join(tmpdir(), 'wedge-record-')), '--upstream', upstreamUrl];
        },
        async run(url: string) {
          Object.assign(sent, { bytes: 0, waiting: false, finished: false });
          const { responses } = await unread(
            url,
            '/v1/chat/completions',
            JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'record me' }] }),
            1,
          );
          let last = -1;
          for (let same = 0; !sent.finished && same < 50; ) {
            same = sent.waiting && sent.bytes === last ? same + 1 : 0;
            last = sent.bytes;
            await (await fetch(`${url}/__admin/health`)).text();
          }
          const how = sent.finished
            ? `the upstream wrote all ${TOTAL / MiB} MB unread`
            : `the upstream held at ${(sent.bytes / MiB).toFixed(1)} MB of ${TOTAL / MiB}`;
          responses[0].destroy();
          return how;
        },
      } as Case;
    })(),
    {
      name: '60 clients reading an n=128 top_logprobs 20 stream (11 MB each)',
      http: false,
      run: async (url) => {
        const results = await Promise.all(Array.from({ length: 60 }, () => post(`${url}/v1/chat/completions`, auth, logprobs(true)).done));
        return `${results.filter((r) => r.startsWith('200')).length} of 60 read to the end`;
      },
    },
  ];
}

/** Asks for health every 20 ms on its own connection while `busy` runs: the slowest answer, in ms. */
async function probed<T>(url: string, busy: () => Promise<T>): Promise<{ result: T; worst: number; probes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const health = () =>
    new Promise<void>((resolve) => {
      const req = httpRequest(`${url}/__admin/health`, { agent }, (res) => res.resume().once('end', resolve));
      req.once('error', () => resolve());
      req.end();
    });
  await health();
  let running = true;
  let worst = 0;
  let probes = 0;
  const loop = (async () => {
    while (running) {
      const sent = performance.now();
      await health();
      worst = Math.max(worst, performance.now() - sent);
      probes++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await busy();
  running = false;
  await loop;
  agent.destroy();
  return { result, worst, probes };
}

/** Peak resident memory in MiB (Linux VmHWM); 0 once the process is gone. */
function peakRss(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function warm(emulator: Emulator): Promise<void> {
  // The first API request loads the tokenizer and faker: done before, so the case is the only cost.
  await post(
    `${emulator.url}/v1/chat/completions`,
    auth,
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'warm up' }] }),
  ).done;
  await emulator.loopStats();
}

interface Row {
  name: string;
  status: string;
  worst: number;
  loopMax: number | undefined;
  total: number;
  rss: number;
  /** The peak RSS the docs promise, if the case has one. */
  bound?: number;
  http: boolean;
  run: Case['run'];
}

const ms = (n: number | undefined) => (n === undefined ? '—' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

const rows: Row[] = [];
const cases = (await buildCases()).filter((c) => !only || only.some((o) => c.name.toLowerCase().startsWith(o.toLowerCase())));
for (const c of cases) {
  await c.prepare?.();
  const emulator = await startEmulator(c.args);
  let timedOut = false;
  try {
    await warm(emulator);
    await c.warm?.(emulator.url);
    const idle = emulator.rss();
    const started = performance.now();
    let rss = 0;
    const { result, worst } = await probed(emulator.url, () =>
      within(
        c.run(emulator.url, () => {}),
        LIMIT_MS,
        `no answer within ${LIMIT_MS / 1000} s`,
        () => {
          timedOut = true;
          rss = peakRss(emulator.child.pid!);
          emulator.child.kill('SIGKILL');
        },
      ),
    );
    const total = performance.now() - started;
    if (!timedOut && emulator.child.exitCode === null) rss = peakRss(emulator.child.pid!);
    // The monitor records a stall when its timer next fires: let it fire before asking.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stats = timedOut ? null : await emulator.loopStats();
    const alive = emulator.child.exitCode === null || timedOut;
    const row = {
      name: c.name,
      status: alive ? result : `${result}; the emulator died (${emulator.child.exitCode ?? emulator.child.signalCode})`,
      worst,
      loopMax: stats?.max,
      total,
      rss,
      bound: c.bound?.(idle),
      http: c.http,
      run: c.run,
    };
    rows.push(row);
    console.error(
      `${c.name}: ${row.status}, worst wait ${ms(worst)}, loop max ${ms(stats?.max)}, total ${ms(total)}, peak RSS ${row.rss.toFixed(0)} MiB${row.bound ? ` (bound ${row.bound.toFixed(0)} MiB)` : ''}`,
    );
  } finally {
    // A killed emulator has exited already (stop() would wait for an exit that came and went).
    if (!timedOut) await emulator.stop();
  }
}

// SIGTERM during the costliest HTTP case: the time from the signal to the process's exit.
const costliest = rows.filter((r) => r.http).sort((a, b) => b.total - a.total)[0];
let sigterm: string | undefined;
if (costliest) {
  const emulator = await startEmulator();
  await warm(emulator);
  let signalled = 0;
  const exited = new Promise<number>((resolve) => emulator.child.once('exit', () => resolve(performance.now())));
  const answer = costliest.run(emulator.url, () => {
    signalled = performance.now();
    emulator.child.kill('SIGTERM');
  });
  const exitAt = await within(exited, LIMIT_MS, 0, () => emulator.child.kill('SIGKILL'));
  const answered = await within(answer, 10_000, 'nothing', () => {});
  sigterm = exitAt
    ? `${costliest.name}: exited ${ms(exitAt - signalled)} after SIGTERM (sent once the body was on the wire); the client saw ${answered}`
    : `${costliest.name}: still running ${LIMIT_MS / 1000} s after SIGTERM (killed)`;
  console.error(sigterm);
}

// SIGTERM with 50 unread streams held (issue 37: 2 GiB of unread events once took 2.28 s to stop).
let heldSigterm: string | undefined;
if (!only || only.some((o) => 'sigterm'.startsWith(o.toLowerCase()))) {
  const emulator = await startEmulator();
  await warm(emulator);
  const { responses } = await unread(emulator.url, '/v1/chat/completions', bigString, 50);
  await settled(emulator.url, '/v1/chat/completions');
  const rss = emulator.rss();
  const exited = new Promise<number>((resolve) => emulator.child.once('exit', () => resolve(performance.now())));
  const signalled = performance.now();
  emulator.child.kill('SIGTERM');
  const exitAt = await within(exited, LIMIT_MS, 0, () => emulator.child.kill('SIGKILL'));
  for (const res of responses) res.destroy();
  heldSigterm = exitAt
    ? `exited ${ms(exitAt - signalled)} after SIGTERM with 50 unread streams held (RSS ${rss.toFixed(0)} MiB then)`
    : `still running ${LIMIT_MS / 1000} s after SIGTERM with 50 unread streams held (killed)`;
  console.error(heldSigterm);
}

console.log(
  `\n${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}\n`,
);
console.log('| case | answer | worst health wait | event-loop max (in the emulator) | total | peak RSS | bound (docs) |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.status} | ${ms(r.worst)} | ${ms(r.loopMax)} | ${ms(r.total)} | ${r.rss.toFixed(0)} MiB | ${r.bound ? `${r.bound.toFixed(0)} MiB` : ''} |`,
  );
if (sigterm) console.log(`\nSIGTERM during the costliest request (${sigterm})`);
if (heldSigterm) console.log(`\nSIGTERM ${heldSigterm}`);
