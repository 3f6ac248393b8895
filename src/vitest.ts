// model-gateway-mock/vitest: the in-process gateway wired into a vitest test file (Node, jsdom, happy-dom):
// msw listens before all tests, per-test fixtures go in with use(), reset() after each, close after all.
// A request nothing answers fails the test that made it, with msw's message or the near-miss report.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { createGateway } from './index.ts';
import type { Gateway, GatewayOptions } from './api.ts';
import { nearMissReport } from './pipeline/decide.ts';
import type { Fixture } from './fixtures/types.ts';
import type { NearMiss } from './fixtures/match.ts';

export interface VitestGatewayOptions extends GatewayOptions {
  /** Fixtures put in force with `use()` before each test (`reset()` removes them after it). */
  use?: Fixture[];
  /** A request no handler takes: 'error' (default) fails the test, 'warn' prints, 'bypass' lets it reach the network. */
  onUnhandledRequest?: 'error' | 'warn' | 'bypass';
  /** Your own msw handlers, served before the gateway's (e.g. your backend's routes). */
  handlers?: RequestHandler[];
}

export interface VitestGateway extends Gateway {
  /** The msw server, for `server.use(...)` of your own per-test handlers. */
  readonly server: ReturnType<typeof setupServer>;
}

/** What msw 2 (request, print) and msw 3 ({ frame, defaults }) hand an unhandled-request callback. */
function unhandledOf(args: unknown[]): { what: string; error(): void; warn(): void } {
  const [first, second] = args as [Record<string, unknown>, Record<string, () => void> | undefined];
  if (first instanceof Request) return { what: `${first.method} ${first.url}`, error: () => second?.error(), warn: () => second?.warning() };
  const { frame, defaults } = first as { frame: { protocol: string; data: { request?: Request } }; defaults: Record<string, () => void> };
  const request = frame.data.request;
  return { what: request ? `${request.method} ${request.url}` : `a ${frame.protocol} connection`, error: () => defaults.error(), warn: () => defaults.warn() };
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
export function setupGateway(options: VitestGatewayOptions = {}): VitestGateway {
  const { use, onUnhandledRequest = 'error', handlers = [], ...gatewayOptions } = options;
  const gateway = createGateway(gatewayOptions);
  const server = setupServer(...handlers, ...gateway.handlers);
  const unhandled: string[] = [];
  const onUnhandled = (...args: unknown[]) => {
    if (onUnhandledRequest === 'bypass') return;
    const u = unhandledOf(args);
    if (onUnhandledRequest === 'warn') return u.warn();
    unhandled.push(u.what);
    u.error();
  };
  beforeAll(() => {
    // msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame; each ignores the other.
    server.listen({ onUnhandledRequest: onUnhandled, onUnhandledFrame: onUnhandled } as never);
  });
  beforeEach(() => {
    if (use?.length) gateway.use(...use);
  });
  afterEach(() => {
    const failures = unhandled.splice(0).map((what) => `${what}: no handler answers this request (model-gateway-mock serves its endpoints only; add an msw handler for it).`);
    // In strict mode a request no fixture matched was answered 404 with the report; fail the test with it too.
    // nearMiss needs no body or answer: the summaries (an embeddings request may name a fixture and miss too).
    for (const e of gatewayOptions.strict ? gateway.requestSummaries() : []) {
      if ('nearMiss' in e) failures.push(`${e.method} ${e.path}: ${nearMissReport(e.nearMiss as NearMiss | undefined)}`);
    }
    server.resetHandlers();
    gateway.reset();
    if (failures.length) throw new Error(`model-gateway-mock: ${failures.length} unhandled request(s)\n${failures.join('\n')}`);
  });
  afterAll(() => server.close());
  return Object.defineProperty(gateway, 'server', { value: server, enumerable: true }) as VitestGateway;
}
