// setupGateway({ url }): the vitest helper pointed at a standalone server that many test files and
// workers share. Each test gets its own test id; msw intercepts the test's requests to that server's
// origin and sends them on unchanged but for the `x-mock-test-id` header (so every HTTP client, SDK or
// not, is covered and the test does nothing; a WebSocket upgrade passes untouched and the test sets the
// header on its socket from `testId`); the server keeps that test's fixtures, counters and journal
// apart (scope.ts), and the test's state there is reset after it.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { bypass, http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import type { JournalEntry } from './types/journal.ts';
import type { HeldStoreReport } from './types/resources.ts';
import type { RequestFilter } from './api.ts';
import type { Fixture, NearMiss } from './types/fixtures.ts';
import { nearMissReport } from './pipeline/decide.ts';
import { MAX_TEST_ID_CHARS, TEST_ID_HEADER } from './scope.ts';
import { closed, failedRequests, listenFailing } from './vitest-unhandled.ts';
import type { RemoteGatewayOptions, RemoteGateway } from './types/vitest.ts';

/** What vitest's context tells of a test: its name, its suites', its file's. */
interface TaskLike {
  name: string;
  suite?: TaskLike;
  file?: { name: string };
}

/** Characters kept of a test's own name and file in its id; the rest of MAX_TEST_ID_CHARS is the unique tail. */
const READABLE_CHARS = MAX_TEST_ID_CHARS - 12;

/**
 * A test id for the running test: its file and name (a person reading the journal sees which test),
 * then 8 random hex digits, so the same test in another run, worker or retry never shares state. The
 * server takes printable ASCII: other characters are percent-encoded.
 * @example testIdFor({ name: 'greets', file: { name: 'chat.test.ts' } }) // 'chat.test.ts > greets #' and 8 hex digits
 */
function testIdFor(task: TaskLike): string {
  const names: string[] = [];
  for (let t: TaskLike | undefined = task; t; t = t.suite) if (t.name && t.name !== t.file?.name) names.unshift(t.name);
  const readable = [task.file?.name, ...names]
    .filter(Boolean)
    .join(' > ')
    .replace(/[^\x20-\x7e]/gu, (c) => encodeURIComponent(c));
  const unique = globalThis.crypto.randomUUID().slice(0, 8);
  return `${readable.slice(0, READABLE_CHARS)} #${unique}`;
}

/** Filter fields as query parameters. */
function queryOf(filter: Record<string, unknown>, extra: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filter, ...extra })) if (v !== undefined) params.set(k, String(v));
  return params.toString();
}

/**
 * `setupGateway({ url })`: the running test's side of a shared standalone server, hooked into the test
 * file's lifecycle (listen before all, the test's id before each, its reset after each).
 * @example
 * const gateway = setupRemoteGateway({ url: 'http://127.0.0.1:4010' });
 * it('greets', async () => {
 *   await gateway.use({ reply: { text: 'Hello!' } });
 *   const openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:4010/v1' });
 *   const r = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 *   expect(r.choices[0].message.content).toBe('Hello!');
 *   expect(await gateway.requests()).toHaveLength(1);
 * });
 */
export function setupRemoteGateway(options: RemoteGatewayOptions): RemoteGateway {
  const { use, onUnhandledRequest = 'error', handlers = [], adminToken } = options;
  const root = options.url.replace(/\/+$/, '');
  const origin = new URL(root).origin;
  let current: string | undefined;

  // The test's requests to the server: sent on as they are, with the test id (bypass: msw lets it out).
  // A WebSocket upgrade cannot be sent again through fetch (undici refuses it, and msw would answer
  // 500): it goes through untouched, and the test tags its socket with `testId` itself.
  const tagging = http.all(`${origin}/*`, ({ request }) => {
    if (current === undefined || request.headers.has('upgrade')) return passthrough();
    const headers = new Headers(request.headers);
    headers.set(TEST_ID_HEADER, current);
    return fetch(bypass(request, { headers }));
  });
  const server = setupServer(...handlers, tagging);

  /** One control-plane call, never intercepted; fails with the server's own message. */
  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (adminToken) headers['x-admin-token'] = adminToken;
    const res = await fetch(
      bypass(`${root}/__admin${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await res.text();
    if (!res.ok) throw new Error(`model-gateway-mock at ${root}: ${method} /__admin${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  }
  const testId = () => {
    if (current === undefined)
      throw new Error(
        'model-gateway-mock: setupGateway({ url }) acts for the running test: call it inside a test (or its beforeEach/afterEach).',
      );
    return encodeURIComponent(current);
  };
  const add = async (fixtures: Fixture[]) => {
    // A predicate is a function: it cannot travel to another process.
    if (fixtures.some((f) => f.match?.predicate))
      throw new Error(
        'model-gateway-mock: a fixture with match.predicate runs in-process only; setupGateway({ url }) sends fixtures as JSON.',
      );
    return (await admin<{ ids: string[] }>('POST', `/fixtures?test=${testId()}`, fixtures)).ids;
  };
  const requests = async (filter: Omit<RequestFilter, 'test'> = {}, limit?: number) =>
    (await admin<{ requests: JournalEntry[] }>('GET', `/requests?${queryOf(filter, { test: current, limit: limit?.toString() })}`))
      .requests;
  let listening: { failures(): string[] } | undefined;

  beforeAll(() => {
    listening = listenFailing(server, onUnhandledRequest);
  });
  beforeEach(async (context) => {
    // One test at a time per file: msw cannot tell which of two concurrent tests sent a request.
    if (current !== undefined)
      throw new Error(
        `model-gateway-mock: setupGateway({ url }) runs a file's tests one at a time; "${current}" is still running (no it.concurrent).`,
      );
    current = testIdFor(context.task as TaskLike);
    if (use?.length) await add(use);
  });
  afterEach(async () => {
    const failures = listening?.failures() ?? [];
    try {
      testId();
      // A strict server answered a request no fixture matched with the report: fail the test with it too.
      for (const e of await requests({ unmatched: true }))
        if (e.nearMiss) failures.push(`${e.method} ${e.path}: ${nearMissReport(e.nearMiss as NearMiss)}`);
      await admin('POST', `/reset?test=${testId()}`);
    } finally {
      current = undefined;
      server.resetHandlers();
    }
    const failed = failedRequests(failures);
    if (failed) throw failed;
  });
  afterAll(() => closed(server));

  return {
    url: root,
    server,
    get testId() {
      return current;
    },
    use: (...fixtures) => add(fixtures),
    requests: async (filter, limit) => {
      testId();
      return requests(filter, limit);
    },
    countRequests: async (filter = {}) => {
      testId();
      return (await admin<{ count: number }>('GET', `/requests/count?${queryOf(filter, { test: current })}`)).count;
    },
    scenarios: {
      list: async () =>
        (await admin<{ scenarios: { name: string; state: string; possibleStates: string[] }[] }>('GET', `/scenarios?test=${testId()}`))
          .scenarios,
      set: async (name, state) => void (await admin('PUT', `/scenarios/${encodeURIComponent(name)}/state?test=${testId()}`, { state })),
      reset: async () => void (await admin('POST', `/scenarios/reset?test=${testId()}`)),
    },
    resources: async () => (await admin<{ stores: HeldStoreReport[] }>('GET', `/resources?test=${testId()}`)).stores,
    reset: async () => void (await admin('POST', `/reset?test=${testId()}`)),
  };
}
