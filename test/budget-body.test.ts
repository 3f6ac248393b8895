// Costly bodies are bounded (issue 28): a body is checked for depth, keys and values before it is
// parsed, a big one is parsed in pieces, a big reply is written in pieces, long unbroken strings (the
// tokenizer's worst case) are answered, and batch sizes are capped where the vendors cap them, so one
// client's huge request never stops the others being served. Proved by counts and by ordering, never by
// time. (Costly schemas: budget-schema.test.ts; uploads and images: budget-media.test.ts.)
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { checkAnswer, type Answer } from './helpers/fuzz/verdict.ts';
import { HANG_MS, seenMeanwhile } from './helpers/ordering.ts';
import { MAX_DEPTH, MAX_KEYS, MAX_VALUES, parseInPieces, scanJson, stringifyInPieces, type JsonPieces } from '../src/pipeline/pieces.ts';
import { GatewayError } from '../src/core/errors.ts';

const refusal = (text: string) =>
  scanJson(text).then(
    () => undefined,
    (e: unknown) => (e instanceof GatewayError ? e.message : `not a GatewayError: ${String(e)}`),
  );

async function joined(out: string | JsonPieces): Promise<{ text: string; pieces: number }> {
  if (typeof out === 'string') return { text: out, pieces: 1 };
  let text = out.head;
  let pieces = 1;
  for await (const piece of out.rest) {
    text += piece;
    pieces++;
  }
  return { text, pieces };
}

describe('the pre-parse scan and the piecewise parse and reply', () => {
  it(`refuses nesting past ${MAX_DEPTH} levels, and takes ${MAX_DEPTH}`, async () => {
    const nest = (n: number) => `{"a":${'['.repeat(n - 1)}1${']'.repeat(n - 1)}}`;
    expect(await refusal(nest(MAX_DEPTH))).toBeUndefined();
    expect(await refusal(nest(MAX_DEPTH + 1))).toBe(`The request body nests deeper than ${MAX_DEPTH} levels.`);
    const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    expect(await refusal(objects(MAX_DEPTH))).toBeUndefined();
    expect(await refusal(objects(MAX_DEPTH + 1))).toContain(`deeper than ${MAX_DEPTH}`);
  });

  it(`refuses an object with more than ${MAX_KEYS} keys, and takes ${MAX_KEYS}`, async () => {
    const keys = (n: number) => `{"m":{${Array.from({ length: n }, (_, i) => `"k${i}":"a:b,c"`).join(',')}}}`;
    expect(await refusal(keys(MAX_KEYS - 1))).toBeUndefined();
    expect(await refusal(keys(MAX_KEYS))).toBeUndefined();
    expect(await refusal(keys(MAX_KEYS + 1))).toBe(
      `An object in the request body has more than ${MAX_KEYS} keys; the limit is ${MAX_KEYS} keys per object.`,
    );
  });

  it(`refuses more than ${MAX_VALUES} values, and takes ${MAX_VALUES}`, async () => {
    // The root object and its array are two values; the rest are numbers (and strings with commas in them).
    const values = (n: number) =>
      `{"v":[${'"x,y",'.repeat(10)}${Array(n - 12)
        .fill(0)
        .join(',')}]}`;
    expect(await refusal(values(MAX_VALUES))).toBeUndefined();
    expect(await refusal(values(MAX_VALUES + 1))).toBe(
      `The request body holds more than ${MAX_VALUES} JSON values; the limit is ${MAX_VALUES} values per request.`,
    );
    // Empty containers are values too; an empty body holds one.
    expect(await refusal(`{"v":[${'[],'.repeat(MAX_VALUES - 3)}{}]}`)).toBeUndefined();
    expect(await refusal(`{"v":[${'[],'.repeat(MAX_VALUES - 2)}{}]}`)).toContain(`more than ${MAX_VALUES}`);
  });

  it('parses a big body in pieces to what JSON.parse makes of it, and refuses what JSON.parse refuses', async () => {
    const body = {
      model: 'text-embedding-3-large',
      input: Array.from({ length: 2048 }, (_, i) => Array.from({ length: 146 }, (_, j) => (i * 146 + j) % 199_000)),
      long: `é😀"\\\n\u0001${'ab\\"cd\u00e9 '.repeat(200_000)}`,
      ['__proto__']: { polluted: true },
      nested: { a: [{ b: 'x'.repeat(300_000) }, null, true, -1.5e-7] },
    };
    const text = JSON.stringify(body, null, 1);
    const big = await scanJson(text, 1000);
    expect(big.size).toBeGreaterThan(2);
    const parsed = await parseInPieces(text, big, 1000);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    for (const bad of [text.slice(0, -1), `${text.slice(0, -1)},}`, text.replace('"model"', '"model" 1')]) {
      await expect(scanJson(bad, 1000).then((b) => parseInPieces(bad, b, 1000))).rejects.toThrow('could not parse the JSON body');
    }
  });

  it('writes a big reply in many pieces, the same bytes as one JSON.stringify; a small one as one string', async () => {
    const reply = {
      object: 'list',
      data: Array.from({ length: 512 }, (_, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from({ length: 1024 }, (_, j) => Math.sin(index * 1024 + j)),
      })),
      model: 'text-embedding-3-large',
      usage: { prompt_tokens: 5, total_tokens: 5, when: new Date(0), skipped: undefined },
    };
    const out = stringifyInPieces(reply);
    expect(typeof out).toBe('object');
    const { text, pieces } = await joined(out);
    expect(text).toBe(JSON.stringify(reply));
    expect(pieces).toBeGreaterThan(50);
    const small = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25] }], usage: { x: undefined } };
    expect(stringifyInPieces(small)).toBe(JSON.stringify(small));
  });
});

describe.runIf(socketSuites)('big requests over a socket do not hold up other clients', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  const auth = { authorization: 'Bearer sk-test' };
  const chatWith = (metadata: string) => `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"metadata":${metadata}}`;

  /** The big request's answer, once another client was answered between the server reading its body and answering it. */
  async function answeredAfterOthers(path: string, body: string): Promise<{ status: number; text: string }> {
    const { big, witnessed, statuses } = await seenMeanwhile(cli.url, path, auth, body);
    expect(big, 'the big request got no answer').not.toBeInstanceOf(Error);
    expect([...new Set(statuses)]).toEqual([200]);
    // A server busy with the big request from the end of its body to its answer answers no one in between.
    expect(witnessed).toBeGreaterThan(0);
    return big as { status: number; text: string };
  }

  it.each([
    ['20 MB of nested arrays', () => chatWith(`${'['.repeat(10_000_000)}${']'.repeat(10_000_000)}`), `deeper than ${MAX_DEPTH} levels`],
    ['20 MB of nested objects', () => chatWith(`${'{"a":'.repeat(4_000_000)}1${'}'.repeat(4_000_000)}`), `deeper than ${MAX_DEPTH} levels`],
    [
      'a million keys in one object',
      () => chatWith(`{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',')}}`),
      `more than ${MAX_KEYS} keys`,
    ],
    ['eight million values', () => chatWith(`[${'0,'.repeat(8_000_000)}0]`), `more than ${MAX_VALUES} JSON values`],
  ])('refuses %s with the vendor 400 naming the limit, serving others meanwhile', async (_, make, limit) => {
    const body = make();
    expect(Buffer.byteLength(body)).toBeLessThan(32 * 1024 * 1024);
    const result = await answeredAfterOthers('/v1/chat/completions', body);
    expect(result.status).toBe(400);
    const error = JSON.parse(result.text).error;
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain(limit);
  });

  it('refuses a body nested deeper than 128 levels, and the journal stays readable', async () => {
    const nested = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(5000)}1${']'.repeat(5000)}}`;
    const res = await fetch(`${cli.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: nested,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('deeper than 128');
    expect((await fetch(`${cli.url}/__admin/requests`)).status).toBe(200);
  });

  it('answers a 32 MiB chat body over the context window with its 400, serving others meanwhile', async () => {
    const content = 'lorem ipsum dolor sit amet, ünïcode 😀 '.repeat(780_000);
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
    expect(Buffer.byteLength(body)).toBeGreaterThan(31 * 1024 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(32 * 1024 * 1024);
    const result = await answeredAfterOthers('/v1/chat/completions', body);
    expect(result.status).toBe(400);
    expect(JSON.parse(result.text).error.code).toBe('context_length_exceeded');
    // The journal keeps the body's size and a short copy of it.
    const journal = await (await fetch(`${cli.url}/__admin/requests?path=/v1/chat/completions`)).json();
    const entry = journal.requests.findLast((r: { bodyBytes?: number }) => (r.bodyBytes ?? 0) > 1e6);
    expect(entry.bodyBytes).toBe(Buffer.byteLength(body));
    expect(entry.truncated).toBe(true);
  });

  it('answers 2048 inputs to text-embedding-3-large (134 MB of JSON), serving others meanwhile', async () => {
    const texts = Array.from({ length: 2048 }, (_, i) => `input ${i} about cats, dogs and the weather`);
    const result = await answeredAfterOthers(
      '/v1/embeddings',
      JSON.stringify({ model: 'text-embedding-3-large', input: texts, encoding_format: 'float' }),
    );
    expect(result.status).toBe(200);
    const data = (JSON.parse(result.text) as { data: { index: number; embedding: number[] }[] }).data;
    expect(data).toHaveLength(2048);
    expect(data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    for (const d of data) expect(d.embedding).toHaveLength(3072);
    const norm = Math.hypot(...data[2047].embedding);
    expect(norm).toBeCloseTo(1, 5);
    // The same vectors as asked one at a time, through the SDK.
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const one = await client.embeddings.create({ model: 'text-embedding-3-large', input: texts[2047], encoding_format: 'float' });
    expect(data[2047].embedding).toEqual(one.data[0].embedding);
  });

  it('writes a big reply as many HTTP chunks, a small one whole with its length', async () => {
    // Raw HTTP, to see the framing: each chunk the server wrote is one `size\r\n…\r\n` frame.
    const raw = (body: string) =>
      new Promise<Buffer>((resolve, reject) => {
        const { port } = new URL(cli.url);
        const socket = net.connect(Number(port), '127.0.0.1');
        const chunks: Buffer[] = [];
        socket
          .on('data', (c) => chunks.push(c))
          .once('end', () => resolve(Buffer.concat(chunks)))
          .once('error', reject);
        socket.write(
          `POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-test\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
    const input = Array.from({ length: 256 }, (_, i) => `text ${i}`);
    const response = await raw(JSON.stringify({ model: 'text-embedding-3-large', input }));
    const split = response.indexOf('\r\n\r\n');
    const head = response.subarray(0, split).toString();
    expect(head).toMatch(/transfer-encoding: chunked/i);
    let frames = 0;
    const parts: Buffer[] = [];
    for (let at = split + 4; ; ) {
      const line = response.indexOf('\r\n', at);
      const size = parseInt(response.subarray(at, line).toString(), 16);
      if (size === 0) break;
      parts.push(response.subarray(line + 2, line + 2 + size));
      frames++;
      at = line + 2 + size + 2;
    }
    expect(frames).toBeGreaterThan(10);
    const reply = JSON.parse(Buffer.concat(parts).toString());
    expect(reply.data).toHaveLength(256);
    // Bytes as the whole reply would have them: parsed and serialized again, the same text.
    expect(Buffer.concat(parts).toString()).toBe(JSON.stringify(reply));
    const small = (await raw(JSON.stringify({ model: 'text-embedding-3-small', input: 'one' }))).toString();
    expect(small).toMatch(/content-length: \d+/i);
    expect(small).not.toMatch(/transfer-encoding/i);
  });

  // Requests within every documented field rule whose cost grew without bound (seconds of work and
  // hundreds of MB of reply): the vendors cap them, and so does the emulator, with the vendor's 400.
  describe('vendor caps on batch sizes', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(' ');
    const cases: [string, string, Record<string, string>, unknown, string][] = [
      [
        'rerank with 1001 documents (Cohere caps at 1000)',
        '/v2/rerank',
        { authorization: 'Bearer sk-test' },
        { model: 'rerank-v3.5', query: 'q', documents: Array.from({ length: 1001 }, (_, i) => `doc ${i}`) },
        'documents',
      ],
      [
        'embeddings over 300,000 tokens in all (OpenAI caps a request)',
        '/v1/embeddings',
        { authorization: 'Bearer sk-test' },
        { model: 'text-embedding-3-small', input: Array.from({ length: 100 }, (_, i) => `${i} ${words(4000)}`) },
        'max 300000 tokens per request',
      ],
      [
        'Gemini batchEmbedContents with 101 requests (Google caps a batch at 100)',
        '/v1beta/models/gemini-embedding-001:batchEmbedContents',
        { 'x-goog-api-key': 'sk-test' },
        { requests: Array.from({ length: 101 }, () => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hi' }] } })) },
        'at most 100 requests',
      ],
    ];

    it.each(cases)('refuses %s', async (_name, path, headers, body, says) => {
      const res = await fetch(`${cli.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(says);
      checkAnswer({ method: 'POST', path, headers, aim: path }, answer);
    });
  });
});

// Long unbroken strings, the tokenizer's worst case: a 1 MB run of one letter, 1 MB of base64 and
// 300 KB of CJK without spaces, in each format's endpoints. Each is answered (or refused with the
// vendor's 400), while another client's requests keep being served: another client, on its own
// connection, reads the big request's journal entry with its body in and its reply not ready (see
// helpers/ordering.ts), and every answer arrives at all. A generous abort is only a hang detector.
// Each case has its own server, so one that hangs cannot spoil the next.

// A fixed pseudo-random source, so the base64 input is the same on every run.
const seeded = (n: number) => {
  let x = 0x2545f491;
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
};

const CJK = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生';
const inputs: [string, () => string][] = [
  ['1 MB of "x"', () => 'x'.repeat(1_000_000)],
  ['1 MB of base64', () => seeded(750_000).toString('base64')],
  ['300 KB of CJK without spaces', () => Array.from({ length: 100_000 }, (_, i) => CJK[(i * 7919) % CJK.length]).join('')],
];

interface Route {
  name: string;
  path: string;
  headers: Record<string, string>;
  body(text: string): unknown;
}

const routes: Route[] = [
  {
    name: 'OpenAI chat',
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-test' },
    body: (t) => ({ model: 'gpt-4.1', messages: [{ role: 'user', content: t }], max_tokens: 16 }),
  },
  {
    name: 'Anthropic message',
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
    body: (t) => ({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: t }] }),
  },
  {
    name: 'Gemini countTokens',
    path: '/v1beta/models/gemini-2.5-flash:countTokens',
    headers: { 'x-goog-api-key': 'sk-test' },
    body: (t) => ({ contents: [{ role: 'user', parts: [{ text: t }] }] }),
  },
  {
    name: 'OpenAI embeddings',
    path: '/v1/embeddings',
    headers: { authorization: 'Bearer sk-test' },
    body: (t) => ({ model: 'text-embedding-3-small', input: t }),
  },
];

describe.runIf(socketSuites)('long unbroken strings (socket)', () => {
  let cli: Spawned | undefined;
  afterEach(() => {
    // SIGKILL: a server stuck in a busy loop never runs its SIGTERM handler.
    cli?.child.kill('SIGKILL');
    cli = undefined;
  });

  for (const [inputName, make] of inputs) {
    for (const route of routes) {
      it(
        `${route.name} with ${inputName}: answered or refused, other clients served while it is processed`,
        async () => {
          cli = await spawnCli();
          const body = JSON.stringify(route.body(make()));
          const { big: res, witnessed, reads, before, statuses } = await seenMeanwhile(cli.url, route.path, route.headers, body);
          const outcome = res instanceof Error ? `no answer (${res.message})` : `${res.status}`;
          console.log(
            `${route.name}, ${inputName} (${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB body): ${outcome}; while it was pending the other client found it in progress ${witnessed} times in ${reads} journal reads, and had ${before} small answers`,
          );
          expect(res, 'the big request got no answer (a hang, or a dropped connection)').not.toBeInstanceOf(Error);
          const answer = res as Answer;
          expect([200, 400]).toContain(answer.status);
          // The vendor's own error body (or a valid reply), as the fuzz suite checks it.
          checkAnswer({ method: 'POST', path: route.path, headers: route.headers, aim: route.name }, answer);
          expect([...new Set(statuses)]).toEqual([200]);
          // Served in between: another client read the big request's entry with its body in and its
          // reply not ready (a server busy with it from end to end answers no one in between).
          expect(witnessed).toBeGreaterThan(0);
          expect(cli.child.exitCode).toBeNull();
        },
        HANG_MS * 2,
      );
    }
  }
});
