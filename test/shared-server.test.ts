// One standalone server, many tests: two vitest workers (forked, in parallel) run test files that use
// setupGateway({ url }) against the same server, each with a fixture that conflicts with the other's,
// each asserting its own reply and its own journal; the server keeps their states apart (x-mock-test-id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { runCases } from './helpers/child-vitest.ts';
import { socketSuites } from './helpers/modes.ts';

describe.runIf(socketSuites)('one standalone server shared by two vitest workers', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  for (const msw of ['3', '2']) {
    it(`keeps each worker's conflicting fixture and journal to itself, with msw ${msw}`, async () => {
      const results = await runCases(
        'test/cases/shared-server',
        { SHARED_GATEWAY_URL: cli.url, CASE_MSW: msw, CASE_RUN: `run under msw ${msw}` },
        ['--pool=forks', '--maxWorkers=2', 'worker-'],
      );
      for (const me of ['a', 'b']) {
        const outcome = results[`worker ${me} gets its own reply and its own journal`];
        expect(outcome?.failureMessages.join('\n')).toBe('');
        expect(outcome?.status).toBe('passed');
      }
      // Each test's state was dropped after it; both requests stay in the shared journal, each with its test id.
      const admin = async (path: string) => (await fetch(`${cli.url}/__admin${path}`)).json();
      expect((await admin('/tests')).tests).toEqual([]);
      expect((await admin('/fixtures')).fixtures).toEqual([]);
      const journal = (await admin('/requests')).requests as { headers: Record<string, string>; fixture: string }[];
      // Under msw 3 each worker also streams (see worker.ts).
      const each = msw === '3' ? 2 : 1;
      const mine = journal.slice(-2 * each).map((e) => [e.fixture, /worker-(a|b)\.case\.ts/.exec(e.headers['x-mock-test-id'])?.[1]]);
      expect(mine.sort()).toEqual([...Array(each).fill(['fixture of a', 'a']), ...Array(each).fill(['fixture of b', 'b'])]);
    });
  }
});

describe.runIf(socketSuites)('one standalone server holding two vitest workers’ files and batches', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  it("keeps each worker's files and batches to itself while both are held, and drops each with its test", async () => {
    const results = await runCases('test/cases/shared-server', { SHARED_GATEWAY_URL: cli.url }, [
      '--pool=forks',
      '--maxWorkers=2',
      'resources-',
    ]);
    for (const me of ['a', 'b']) {
      const outcome = results[`worker ${me} sees only its own files and batches`];
      expect(outcome?.failureMessages.join('\n')).toBe('');
      expect(outcome?.status).toBe('passed');
    }
    // Each test's reset (the helper's, after it) dropped its objects from every store.
    const { stores } = (await (await fetch(`${cli.url}/__admin/resources`)).json()) as { stores: { name: string; count: number }[] };
    expect(stores.filter((s) => s.count > 0)).toEqual([]);
  });
});

describe.runIf(socketSuites)('setupGateway({ url }) against a strict server', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli(['--strict']);
  });
  afterAll(() => cli.stop());

  it('fails the test whose request no fixture matched, with the near-miss report, and one that called an unserved host', async () => {
    const results = await runCases('test/cases/shared-server', { SHARED_GATEWAY_URL: cli.url }, ['strict.case.ts']);
    expect(results['answers from the use fixtures and from one added in the test'].failureMessages.join('\n')).toBe('');
    expect(results["does not see the previous test's fixture"].failureMessages.join('\n')).toBe('');
    const unmatched = results['asks something no fixture matches'];
    expect(unmatched.status).toBe('failed');
    expect(unmatched.failureMessages.join('\n')).toContain(
      'POST /v1/chat/completions: No fixture matched this request (strict mode). Nearest fixture: "weather"',
    );
    const unserved = results['calls a host no handler serves'];
    expect(unserved.status).toBe('failed');
    expect(unserved.failureMessages.join('\n')).toContain('GET http://127.0.0.1:2/not-an-endpoint: no handler answers this request');
    expect(await (await fetch(`${cli.url}/__admin/tests`)).json()).toEqual({ tests: [] });
  });
});

describe.runIf(socketSuites)('setupGateway({ url }) and a realtime WebSocket', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  for (const msw of ['3', '2']) {
    it(`lets the upgrade through, and the socket tagged with gateway.testId is answered from that test's fixture, with msw ${msw}`, async () => {
      const results = await runCases(
        'test/cases/shared-server',
        { SHARED_GATEWAY_URL: cli.url, CASE_MSW: msw, CASE_RUN: `run under msw ${msw}` },
        ['realtime.case.ts'],
      );
      const outcome = results['answers a realtime socket from the test fixture'];
      expect(outcome?.failureMessages.join('\n')).toBe('');
      expect(outcome?.status).toBe('passed');
      expect(await (await fetch(`${cli.url}/__admin/tests`)).json()).toEqual({ tests: [] });
    });
  }
});
