// Property-based fuzzing of the Gemini Live socket: each case a fresh session and a short script of
// messages, well-formed or not (malformed setups, messages before setup, a second setup, wrong types,
// unknown fields, text that is no JSON), then a sentinel turn. The service answers a bad message by
// closing the socket: every close must be 1007 or 1008 with a reason that says what to fix (never
// 1011, never a dropped connection); a session that stays open answers the sentinel; and after every
// case the server opens the next session. FUZZ_RUNS tunes the count, FUZZ_SEED the seed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import WebSocket from 'ws';
import { setupServer } from 'msw/node';
import { startServer, type RunningServer } from '../src/server.ts';
import { createGateway } from '../src/index.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const MODEL = 'models/gemini-2.5-flash-native-audio-preview-12-2025';
const PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=sk-test';

const anyJson = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.object({ maxDepth: 1, maxKeys: 2 }),
);
const pcm = Buffer.alloc(3200).toString('base64');

const goodSetup = fc.record(
  {
    model: fc.constant(MODEL),
    generationConfig: fc.record({ responseModalities: fc.constantFrom(['TEXT'], ['AUDIO']) }),
    realtimeInputConfig: fc.constantFrom({}, { automaticActivityDetection: { disabled: true } }),
    inputAudioTranscription: fc.constant({}),
    sessionResumption: fc.constant({}),
  },
  { requiredKeys: ['model', 'generationConfig'] },
);
/** A setup with one field replaced by anything, or an unknown field, or the model wrong. */
const badSetup = fc.oneof(
  fc
    .tuple(
      goodSetup,
      fc.constantFrom('model', 'generationConfig', 'tools', 'realtimeInputConfig', 'systemInstruction', 'sessionResumption'),
      anyJson,
    )
    .map(([s, k, v]) => ({ ...s, [k]: v })),
  goodSetup.map((s) => ({ ...s, bogusField: 1 })),
  goodSetup.map((s) => ({ ...s, model: 'models/no-such-model' })),
  goodSetup.map((s) => ({ ...s, generationConfig: { responseModalities: ['TEXT', 'AUDIO'] } })),
);
const message = fc.oneof(
  fc.constant({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'hello' }] }], turnComplete: true } }),
  fc.constant({ realtimeInput: { text: 'hi' } }),
  fc.constant({ realtimeInput: { audio: { data: pcm, mimeType: 'audio/pcm;rate=16000' } } }),
  fc.constant({ realtimeInput: { activityStart: {} } }),
  fc.constant({ realtimeInput: { activityEnd: {} } }),
  fc.constant({ toolResponse: { functionResponses: [{ id: 'x', name: 'f', response: {} }] } }),
  fc.constant({ setup: { model: MODEL } }),
  fc.tuple(fc.constantFrom('clientContent', 'realtimeInput', 'toolResponse', 'setup', 'nonsense'), anyJson).map(([k, v]) => ({ [k]: v })),
  fc.tuple(fc.constantFrom('turns', 'turnComplete', 'audio', 'text', 'functionResponses', 'mediaChunks'), anyJson).map(([k, v]) => ({
    [k === 'turns' || k === 'turnComplete' ? 'clientContent' : k === 'functionResponses' ? 'toolResponse' : 'realtimeInput']: { [k]: v },
  })),
  fc.string({ maxLength: 12 }),
  // Out of order and the wrong way round: a server's messages sent by the client, two kinds in one
  // message, a turn left open, a tool response to a call never made, JSON that is no object.
  fc.constantFrom<unknown>(
    { setupComplete: {} },
    { serverContent: { turnComplete: true } },
    { toolCallCancellation: { ids: ['x'] } },
    { clientContent: { turns: [{ role: 'user', parts: [{ text: 'a' }] }] }, realtimeInput: { text: 'b' } },
    { realtimeInput: { text: 'both', audio: { data: pcm, mimeType: 'audio/pcm;rate=16000' } } },
    { clientContent: { turns: [{ role: 'model', parts: [{ text: 'I said' }] }], turnComplete: false } },
    { toolResponse: { functionResponses: [{ id: 'never-called', name: 'nope', response: { x: 1 } }] } },
    { realtimeInput: { activityEnd: {} } },
    {},
    [],
    42,
    null,
  ),
);
const cases = fc.record({
  setup: fc.oneof(
    { weight: 2, arbitrary: goodSetup.map((s) => ({ setup: s })) },
    badSetup.map((s) => ({ setup: s })),
    message,
  ),
  then: fc.array(message, { maxLength: 4 }),
});

interface Sock {
  send(text: string): void;
  close(): void;
  on(listener: { message(text: string): void; close(code: number, reason: string): void }): void;
}

async function runCase(open: () => Promise<Sock>, c: { setup: unknown; then: unknown[] }) {
  const sock = await open();
  const got: Record<string, unknown>[] = [];
  let closed: { code: number; reason: string } | undefined;
  const settled = new Promise<void>((resolve) => {
    sock.on({
      message: (text) => {
        got.push(JSON.parse(text));
        if (got.some((m) => (m.serverContent as { turnComplete?: boolean })?.turnComplete || m.toolCall)) resolve();
      },
      close: (code, reason) => {
        closed = { code, reason };
        resolve();
      },
    });
  });
  const text = (m: unknown) => (typeof m === 'string' ? m : JSON.stringify(m));
  for (const m of [c.setup, ...c.then]) sock.send(text(m));
  // The sentinel: a session still open answers it.
  sock.send(JSON.stringify({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'sentinel' }] }], turnComplete: true } }));
  await settled;
  sock.close();
  if (closed) {
    expect([1007, 1008], JSON.stringify(closed)).toContain(closed.code);
    expect(closed.reason.length).toBeGreaterThan(10);
  } else expect(Object.keys(got[0])).toEqual(['setupComplete']);
}

function nodeSocket(url: string) {
  return () =>
    new Promise<Sock>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('error', reject);
      ws.once('open', () =>
        resolve({
          send: (t) => ws.send(t),
          close: () => ws.close(),
          on: (l) => {
            ws.on('message', (d) => l.message(String(d)));
            ws.on('close', (code, reason) => l.close(code, String(reason)));
          },
        }),
      );
    });
}

function webSocket(url: string) {
  return () =>
    new Promise<Sock>((resolve, reject) => {
      const ws = new globalThis.WebSocket(url);
      ws.binaryType = 'arraybuffer';
      ws.onerror = () => reject(new Error('socket error'));
      ws.onopen = () =>
        resolve({
          send: (t) => ws.send(t),
          close: () => ws.close(),
          on: (l) => {
            ws.onmessage = (e) => l.message(typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data as ArrayBuffer));
            ws.onclose = (e) => l.close(e.code, e.reason);
          },
        });
    });
}

async function fuzz(open: () => Promise<Sock>) {
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      try {
        await runCase(open, c);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n  case: ${JSON.stringify(c).slice(0, 400)}`);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
}

describe('Gemini Live fuzz (socket)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 1 });
  });
  afterAll(() => server.close());
  it('every bad message closes the session with 1007 or 1008 and what to fix; every good session answers; the server stays up', async () => {
    await fuzz(nodeSocket(`${server.url.replace('http', 'ws')}${PATH}`));
    await expect.poll(() => server.gateway.activeStreams).toBe(0);
    // Every session gave its place under the ceiling back.
    await expect.poll(() => server.gateway.sockets.open).toBe(0);
  }, 300_000);
});

describe('Gemini Live: out-of-order and wrong-way messages, one by one', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 1 });
  });
  afterAll(() => server.close());
  // After a good setup: what the service closes with (1007 and what to fix), or `answered` when it goes on.
  const table: [unknown, string | RegExp][] = [
    [{ setupComplete: {} }, 'Invalid JSON payload received. Unknown name "setupComplete": Cannot find field.'],
    [{ serverContent: { turnComplete: true } }, 'Invalid JSON payload received. Unknown name "serverContent": Cannot find field.'],
    [{ toolCallCancellation: { ids: ['x'] } }, 'Invalid JSON payload received. Unknown name "toolCallCancellation": Cannot find field.'],
    [
      { clientContent: { turns: [] }, realtimeInput: { text: 'b' } },
      /^Request contains an invalid argument: a message holds exactly one of/,
    ],
    [{}, /^Request contains an invalid argument: a message holds exactly one of/],
    [{ realtimeInput: { activityEnd: {} } }, 'Explicit activity control is not supported when automatic activity detection is enabled.'],
    [{ setup: { model: MODEL } }, /setup/],
    [[], /^Invalid JSON payload received\. A message must be a JSON object/],
    [42, /^Invalid JSON payload received\. A message must be a JSON object/],
    [null, /^Invalid JSON payload received\. A message must be a JSON object/],
    // A response to a call never made is taken and ignored; the turn after it is answered.
    [{ toolResponse: { functionResponses: [{ id: 'never-called', name: 'nope', response: { x: 1 } }] } }, 'answered'],
  ];
  it.each(table)('%j', async (message, expected) => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}${PATH}`);
    await new Promise((r) => ws.once('open', r));
    const outcome = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.on('message', (d) => String(d).includes('turnComplete') && resolve({ code: 0, reason: 'answered' }));
      ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
    });
    for (const m of [{ setup: { model: MODEL, generationConfig: { responseModalities: ['TEXT'] } } }, message]) ws.send(JSON.stringify(m));
    ws.send(JSON.stringify({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'sentinel' }] }], turnComplete: true } }));
    const { code, reason } = await outcome;
    ws.close();
    expect(reason).toMatch(expected);
    expect(code).toBe(expected === 'answered' ? 0 : 1007);
    // The server opens the next session.
    const next = new WebSocket(`${server.url.replace('http', 'ws')}${PATH}`);
    await new Promise((r) => next.once('open', r));
    next.close();
  });
});

describe('Gemini Live fuzz (in-process)', () => {
  const gateway = createGateway({ seed: 1 });
  const mock = setupServer(...gateway.handlers);
  beforeAll(() => mock.listen({ onUnhandledRequest: 'error' } as never));
  afterAll(() => mock.close());
  it('the same over msw', async () => {
    await fuzz(webSocket(`wss://generativelanguage.googleapis.com${PATH}`));
    await expect.poll(() => gateway.activeStreams).toBe(0);
    await expect.poll(() => gateway.sockets.open).toBe(0);
  }, 300_000);
});
