// Property-based fuzzing of the realtime WebSocket (test/helpers/fuzz/realtime.ts): each case a fresh
// session and a short script of client events, well-formed or mutated, then a sentinel that is always
// answered. Every error event must be the service's invalid_request_error with a message, no response
// may fail on the server, the socket stays open (an oversized frame's 1009 aside), nothing hangs.
// FUZZ_RUNS (cases in-process, default 200 here), FUZZ_SOCKET_RUNS (default half), FUZZ_SEED, FUZZ_MAX_STRING,
// FUZZ_REQUEST_MS (each wait's hang detector) and FUZZ_PROPERTY_MS tune a run, as in test/fuzz.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { createGateway } from '../src/index.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { fuzzSettings } from './helpers/fuzz/harness.ts';
import { socketSuites } from './helpers/modes.ts';
import {
  describeCase,
  inProcessClient,
  MAX_FRAME,
  type RealtimeCase,
  type RealtimeClient,
  realtimeCases,
  runRealtimeCase,
  socketClient,
} from './helpers/fuzz/realtime.ts';

const { runs: RUNS, socketRuns: SOCKET_RUNS, seed: SEED, plugins, timeout: TIMEOUT } = fuzzSettings(200);

async function run(runs: number, open: (rc: RealtimeCase) => RealtimeClient) {
  await fc.assert(
    fc.asyncProperty(realtimeCases, async (rc) => {
      try {
        await runRealtimeCase(open, rc);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n  case: ${describeCase(rc)}`);
      }
    }),
    {
      numRuns: runs,
      seed: SEED,
      plugins,
    },
  );
}

describe('realtime fuzz (in-process)', () => {
  const gateway = createGateway({ seed: 1, maxBodyBytes: MAX_FRAME });
  const mock = setupServer(...gateway.handlers);
  beforeAll(() => mock.listen({ onUnhandledRequest: 'error' } as never));
  afterAll(() => mock.close());

  it(
    'every client event gets its answer or the error event naming what to fix',
    async () => {
      await run(RUNS, inProcessClient);
      await expect.poll(() => gateway.activeStreams).toBe(0);
    },
    TIMEOUT,
  );
});

describe.runIf(socketSuites)('realtime fuzz (socket)', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli(['--seed', '1', '--max-body', String(MAX_FRAME)]);
  });
  afterAll(() => cli.stop());

  it(
    'every client event gets its answer or the error event naming what to fix',
    async () => {
      const wsRoot = cli.url.replace(/^http/, 'ws');
      await run(SOCKET_RUNS, (rc) => socketClient(wsRoot, rc));
      expect(cli.child.exitCode).toBeNull();
      await expect.poll(async () => (await (await fetch(`${cli.url}/__admin/requests?limit=1`)).json()).meta.activeStreams).toBe(0);
    },
    TIMEOUT,
  );
});
