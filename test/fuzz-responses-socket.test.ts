// A small fuzz of the Responses socket: each case a fresh socket and a short script of client events,
// well-formed response.create events with one field set to a random JSON value or left out, random
// text, random JSON and other event types, then a sentinel response.create. Every client event gets
// exactly one answer, in order (a response's last event, or the error event), every error event is the
// service's invalid_request_error with its status and a message, no answer is a server error, and the
// socket stays open for the sentinel's response. FUZZ_RUNS (in-process cases, default 40 here),
// FUZZ_SOCKET_RUNS (default half) and FUZZ_SEED tune a run, as in test/fuzz.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { createGateway, type Gateway } from '../src/index.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { fuzzSettings } from './helpers/fuzz/harness.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';

const { runs: RUNS, socketRuns: SOCKET_RUNS, seed: SEED, plugins, timeout: TIMEOUT } = fuzzSettings(40);

type Ev = Record<string, any>;

const GOOD = { type: 'response.create', model: 'gpt-4.1', input: 'Hi there' };
const FIELDS = [
  'model',
  'input',
  'instructions',
  'temperature',
  'top_p',
  'max_output_tokens',
  'tools',
  'tool_choice',
  'text',
  'reasoning',
  'previous_response_id',
  'store',
  'metadata',
  'include',
  'truncation',
  'stream',
  'stream_id',
  'background',
  'parallel_tool_calls',
  'type',
];

/** One client frame as text. */
const clientEvent: fc.Arbitrary<string> = fc.oneof(
  // A good event with one field set to anything JSON can say.
  fc
    .record({ field: fc.constantFrom(...FIELDS), value: fc.jsonValue({ maxDepth: 3 }) })
    .map(({ field, value }) => JSON.stringify({ ...GOOD, [field]: value })),
  // A good event with one field left out.
  fc.constantFrom(...FIELDS).map((field) => JSON.stringify(Object.fromEntries(Object.entries(GOOD).filter(([k]) => k !== field)))),
  fc
    .constantFrom('response.steer', 'session.update', 'response.cancel', '', 'RESPONSE.CREATE')
    .map((type) => JSON.stringify({ ...GOOD, type })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
  fc.constant(JSON.stringify(GOOD)),
);

const cases = fc.array(clientEvent, { minLength: 1, maxLength: 5 });

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** Sends the script and the sentinel on a fresh socket; resolves with the answers once the sentinel's arrives. */
async function runCase(root: string, script: string[]): Promise<Ev[]> {
  const socket = new globalThis.WebSocket(`${root.replace(/^http/, 'ws')}/v1/responses`, {
    headers: { authorization: 'Bearer sk-test' },
  } as never);
  const events: Ev[] = [];
  const want = script.length + 1;
  try {
    return await new Promise<Ev[]>((resolve, reject) => {
      const hang = setTimeout(() => reject(new Error(`no answer to every event: ${events.map((e) => e.type).join(', ')}`)), 60_000);
      socket.addEventListener('message', (m) => {
        const event = JSON.parse(String(m.data)) as Ev;
        events.push(event);
        if (events.filter((e) => TERMINAL.has(e.type)).length === want) {
          clearTimeout(hang);
          resolve(events);
        }
      });
      socket.addEventListener('close', (e) =>
        reject(new Error(`closed ${e.code} ${e.reason} after: ${events.map((x) => x.type).join(', ')}`)),
      );
      socket.addEventListener('open', () => {
        for (const text of script) socket.send(text);
        socket.send(JSON.stringify({ ...GOOD, input: 'sentinel' }));
      });
    });
  } finally {
    socket.close();
  }
}

function judge(events: Ev[], script: string[]): void {
  const answers = events.filter((e) => TERMINAL.has(e.type));
  expect(answers).toHaveLength(script.length + 1);
  expect(answers.at(-1)!.type).toBe('response.completed');
  for (const e of events) {
    expect(typeof e.type).toBe('string');
    if (e.type !== 'error') continue;
    // An error event answers a client event (its status and the error), never a failure part-way.
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(500);
    expect(['invalid_request_error', 'not_found_error']).toContain(e.error.type);
    expect(e.error.message.length).toBeGreaterThan(10);
  }
}

async function run(root: string, gateway: Gateway, runs: number) {
  await fc.assert(
    fc.asyncProperty(cases, async (script) => {
      try {
        judge(await runCase(root, script), script);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n  script: ${JSON.stringify(script)}`);
      }
    }),
    { numRuns: runs, seed: SEED, plugins },
  );
  await expect.poll(() => gateway.activeStreams).toBe(0);
}

describe('Responses socket fuzz (in-process)', () => {
  const gateway = createGateway({ seed: 1 });
  const mock = setupServer(...gateway.handlers);
  beforeAll(() => strictListen(mock));
  afterAll(() => mock.close());

  it(
    'every client event gets its response or the error event naming what to fix, and the socket goes on',
    () => run('http://127.0.0.1:2', gateway, RUNS),
    TIMEOUT,
  );
});

describe.runIf(socketSuites)('Responses socket fuzz (socket)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 1 });
  });
  afterAll(() => server.close());

  it(
    'every client event gets its response or the error event naming what to fix, and the socket goes on',
    () => run(server.url, server.gateway, SOCKET_RUNS),
    TIMEOUT,
  );
});
