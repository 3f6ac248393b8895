// Long unbroken strings, the tokenizer's worst case, over a real socket: a 1 MB run of one letter,
// 1 MB of base64 and 300 KB of CJK without spaces, in each format's endpoints. Each is answered (or
// refused with the vendor's 400), while another client's requests keep being served. Nothing here is
// timed: the proof is order (another client, on its own connection, reads the big request's journal
// entry with its body in and its reply not ready: see helpers/ordering.ts) and that every answer
// arrives at all. A generous abort is only a hang detector. Each case has its own server, so one that hangs cannot spoil the next.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { checkAnswer, type Answer } from './helpers/fuzz/verdict.ts';
import { HANG_MS, servedMeanwhile } from './helpers/ordering.ts';

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
  { name: 'OpenAI chat', path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-test' }, body: (t) => ({ model: 'gpt-4.1', messages: [{ role: 'user', content: t }], max_tokens: 16 }) },
  { name: 'Anthropic message', path: '/v1/messages', headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' }, body: (t) => ({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: t }] }) },
  { name: 'Gemini countTokens', path: '/v1beta/models/gemini-2.5-flash:countTokens', headers: { 'x-goog-api-key': 'sk-test' }, body: (t) => ({ contents: [{ role: 'user', parts: [{ text: t }] }] }) },
  { name: 'OpenAI embeddings', path: '/v1/embeddings', headers: { authorization: 'Bearer sk-test' }, body: (t) => ({ model: 'text-embedding-3-small', input: t }) },
];

describe.runIf(socketSuites)('hardening: long unbroken strings (socket)', () => {
  let cli: Spawned | undefined;
  afterEach(() => {
    // SIGKILL: a server stuck in a busy loop never runs its SIGTERM handler.
    cli?.child.kill('SIGKILL');
    cli = undefined;
  });

  for (const [inputName, make] of inputs) {
    for (const route of routes) {
      it(`${route.name} with ${inputName}: answered or refused, other clients served while it is processed`, async () => {
        cli = await spawnCli();
        const body = JSON.stringify(route.body(make()));
        const { big: res, witnessed, reads, before, statuses } = await servedMeanwhile(cli.url, route.path, route.headers, body);
        const outcome = res instanceof Error ? `no answer (${res.message})` : `${res.status}`;
        console.log(`${route.name}, ${inputName} (${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB body): ${outcome}; while it was pending the other client found it in progress ${witnessed} times in ${reads} journal reads, and had ${before} small answers`);
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
      }, HANG_MS * 2);
    }
  }
});

// Requests within every documented field rule whose cost grew without bound (seconds of work and
// hundreds of MB of reply): the vendors cap them, and so does the emulator, with the vendor's 400.
describe.runIf(socketSuites)('hardening: vendor caps on batch sizes (socket)', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(' ');
  const cases: [string, string, Record<string, string>, unknown, string][] = [
    ['rerank with 1001 documents (Cohere caps at 1000)', '/v2/rerank', { authorization: 'Bearer sk-test' }, { model: 'rerank-v3.5', query: 'q', documents: Array.from({ length: 1001 }, (_, i) => `doc ${i}`) }, 'documents'],
    ['embeddings over 300,000 tokens in all (OpenAI caps a request)', '/v1/embeddings', { authorization: 'Bearer sk-test' }, { model: 'text-embedding-3-small', input: Array.from({ length: 100 }, (_, i) => `${i} ${words(4000)}`) }, 'max 300000 tokens per request'],
    ['Gemini batchEmbedContents with 101 requests (Google caps a batch at 100)', '/v1beta/models/gemini-embedding-001:batchEmbedContents', { 'x-goog-api-key': 'sk-test' }, { requests: Array.from({ length: 101 }, () => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hi' }] } })) }, 'at most 100 requests'],
  ];
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  it.each(cases)('refuses %s', async (_name, path, headers, body, says) => {
    const res = await fetch(`${cli.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(says);
    checkAnswer({ method: 'POST', path, headers, aim: path }, answer);
  });
});

// Found by bench:fuzz (seed 1036113013): a schema whose size bound is a string ("maxItems":
// "Infinity", "maxLength": "1e9") escapes the cap on synthesized values (core/synthesize/json.ts
// capped only numeric bounds), so json-schema-faker ran until the heap was exhausted (4 GB) and the
// server died. Such a bound is now refused with a 400.
describe.runIf(socketSuites)('hardening: schema bounds given as strings (socket)', () => {
  let cli: Spawned | undefined;
  afterEach(() => {
    cli?.child.kill('SIGKILL');
    cli = undefined;
  });
  const cases: [string, string, Record<string, string>, unknown][] = [
    ['an OpenAI json_schema with maxItems "Infinity"', '/v1/chat/completions', { authorization: 'Bearer sk-test' }, { model: 'gpt-4o', messages: [{ role: 'user', content: 'json' }], response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 'Infinity' } } } }],
    ['an Anthropic tool with maxLength "1e9"', '/v1/messages', { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' }, { model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { s: { type: 'string', minLength: 5, maxLength: '1e9' } }, required: ['s'] } }], tool_choice: { type: 'any' } }],
  ];
  for (const [name, path, headers, body] of cases) {
    it(`answers ${name} (a 400, or a value within bounds), and keeps running`, async () => {
      cli = await spawnCli();
      const res = await fetch(`${cli.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(HANG_MS) });
      expect([200, 400]).toContain(res.status);
      expect((await fetch(`${cli.url}/__admin/health`)).status).toBe(200);
      expect(cli.child.exitCode).toBeNull();
    }, HANG_MS * 2);
  }
});
