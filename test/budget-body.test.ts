// Big bodies and big replies (issue 28): a body is checked for depth, keys and values before it is
// parsed, a big one is parsed in pieces, and a big reply is written in pieces, so one client's huge
// request never stops the others being served. Proved by counts and by ordering, never by time.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { servedMeanwhile } from './helpers/ordering.ts';
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
    expect(await refusal(keys(MAX_KEYS + 1))).toBe(`An object in the request body has more than ${MAX_KEYS} keys; the limit is ${MAX_KEYS} keys per object.`);
  });

  it(`refuses more than ${MAX_VALUES} values, and takes ${MAX_VALUES}`, async () => {
    // The root object and its array are two values; the rest are numbers (and strings with commas in them).
    const values = (n: number) => `{"v":[${'"x,y",'.repeat(10)}${Array(n - 12).fill(0).join(',')}]}`;
    expect(await refusal(values(MAX_VALUES))).toBeUndefined();
    expect(await refusal(values(MAX_VALUES + 1))).toBe(`The request body holds more than ${MAX_VALUES} JSON values; the limit is ${MAX_VALUES} values per request.`);
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
      data: Array.from({ length: 512 }, (_, index) => ({ object: 'embedding', index, embedding: Array.from({ length: 1024 }, (_, j) => Math.sin(index * 1024 + j)) })),
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
    const { big, witnessed, statuses } = await servedMeanwhile(cli.url, path, auth, body);
    expect(big, 'the big request got no answer').not.toBeInstanceOf(Error);
    expect([...new Set(statuses)]).toEqual([200]);
    // A server busy with the big request from the end of its body to its answer answers no one in between.
    expect(witnessed).toBeGreaterThan(0);
    return big as { status: number; text: string };
  }

  it.each([
    ['20 MB of nested arrays', () => chatWith(`${'['.repeat(10_000_000)}${']'.repeat(10_000_000)}`), `deeper than ${MAX_DEPTH} levels`],
    ['20 MB of nested objects', () => chatWith(`${'{"a":'.repeat(4_000_000)}1${'}'.repeat(4_000_000)}`), `deeper than ${MAX_DEPTH} levels`],
    ['a million keys in one object', () => chatWith(`{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',')}}`), `more than ${MAX_KEYS} keys`],
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
    const result = await answeredAfterOthers('/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-large', input: texts, encoding_format: 'float' }));
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
        socket.on('data', (c) => chunks.push(c)).once('end', () => resolve(Buffer.concat(chunks))).once('error', reject);
        socket.write(`POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-test\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
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
});
