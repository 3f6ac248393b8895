// model-gateway-mock/vitest: the in-process gateway wired into a vitest test file (Node, jsdom, happy-dom):
// msw listens before all tests, per-test fixtures go in with use(), reset() after each, close after all.
// A request nothing answers is refused in the process (never sent on, credentials and all) and fails the
// test that made it; in strict mode a request no fixture matched fails it with the near-miss report.
// With `url`, the gateway is a standalone server shared by many test files: each test gets its own
// test id, sent on its requests to that server, and its own fixtures and journal there (remote.ts).
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { createGateway } from './index.ts';
import type { Gateway, GatewayOptions } from './api.ts';
import { nearMissReport } from './pipeline/decide.ts';
import type { Fixture, NearMiss } from './types/fixtures.ts';
import { closed, failedRequests, listenFailing } from './vitest-unhandled.ts';
import { setupRemoteGateway } from './vitest-remote.ts';
import type { RemoteGateway, RemoteGatewayOptions, UnhandledMode } from './types/vitest.ts';

export type { RemoteGateway, RemoteGatewayOptions } from './types/vitest.ts';

export interface VitestGatewayOptions extends GatewayOptions {
  /** Fixtures put in force with `use()` before each test (`reset()` removes them after it). */
  use?: Fixture[];
  /** A request no handler takes: 'error' (default) fails the test, 'warn' prints, 'bypass' lets it reach the network. */
  onUnhandledRequest?: UnhandledMode;
  /** Your own msw handlers, served before the gateway's (e.g. your backend's routes). */
  handlers?: RequestHandler[];
}

export interface VitestGateway extends Gateway {
  /** The msw server, for `server.use(...)` of your own per-test handlers. */
  readonly server: ReturnType<typeof setupServer>;
}

/**
 * Call at the top of a test file (or in a setupFiles module); returns the gateway, live for the whole file.
 * @example
 * const gateway = setupGateway({ use: [{ reply: { text: 'Hello!' } }] });
 * it('greets', async () => {
 *   const r = await new OpenAI({ apiKey: 'sk-test' }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 *   expect(r.choices[0].message.content).toBe('Hello!');
 *   expect(gateway.requests()).toHaveLength(1);
 * });
 */
export function setupGateway(options?: VitestGatewayOptions): VitestGateway;
/**
 * With `url`: a standalone server shared by many test files and workers. Each test gets its own test id
 * (from its file and name, made unique), sent as `x-mock-test-id` on every request to that server; its
 * `use` fixtures go in under that id, and its state there is reset after it. Operations are async.
 * @example
 * const gateway = setupGateway({ url: 'http://127.0.0.1:4010', use: [{ reply: { text: 'Hello!' } }] });
 * it('greets', async () => {
 *   const r = await new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:4010/v1' }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 *   expect(r.choices[0].message.content).toBe('Hello!');
 *   expect(await gateway.requests()).toHaveLength(1);
 * });
 */
export function setupGateway(options: RemoteGatewayOptions): RemoteGateway;
export function setupGateway(options: VitestGatewayOptions | RemoteGatewayOptions = {}): VitestGateway | RemoteGateway {
  if ('url' in options) return setupRemoteGateway(options);
  const { use, onUnhandledRequest = 'error', handlers = [], ...gatewayOptions } = options;
  const gateway = createGateway(gatewayOptions);
  const server = setupServer(...handlers, ...gateway.handlers);
  let listening: { failures(): string[] } | undefined;
  beforeAll(() => {
    listening = listenFailing(server, onUnhandledRequest);
  });
  beforeEach(() => {
    if (use?.length) gateway.use(...use);
  });
  afterEach(() => {
    const failures = listening?.failures() ?? [];
    // In strict mode a request no fixture matched was answered 404 with the report; fail the test with it too.
    // nearMiss needs no body or answer: the summaries (an embeddings request may name a fixture and miss too).
    for (const e of gatewayOptions.strict ? gateway.requestSummaries() : []) {
      if ('nearMiss' in e) failures.push(`${e.method} ${e.path}: ${nearMissReport(e.nearMiss as NearMiss | undefined)}`);
    }
    server.resetHandlers();
    gateway.reset();
    const failed = failedRequests(failures);
    if (failed) throw failed;
  });
  afterAll(() => closed(server));
  return Object.defineProperty(gateway, 'server', { value: server, enumerable: true }) as VitestGateway;
}
