// createGateway(): the emulator as msw handlers plus the control plane a test needs, in-process.
// The standalone server's /__admin routes call exactly these operations.
import type { HttpHandler, WebSocketHandler } from 'msw';
import { readable, type JournalEntry } from './core/journal.ts';
import type { Fixture } from './fixtures/types.ts';
import type { FixtureEntry } from './fixtures/match.ts';
import type { validateFixtures } from './fixtures/validate.ts';
import type { IssuedToken, TokenScope } from './auth/keys.ts';
import { openaiEndpoints } from './formats/openai/routes.ts';
import { anthropicEndpoints } from './formats/anthropic/routes.ts';
import { geminiEndpoints } from './formats/gemini/routes.ts';
import { Runtime, type GatewayOptions } from './runtime.ts';
import type { Call, EndpointSpec } from './pipeline/call.ts';
import type { Outbound } from './pipeline/exchange.ts';
import { isForward, type Forward } from './pipeline/decide.ts';
import { GatewayError } from './core/errors.ts';

/** Every endpoint of every format; both transports serve exactly these. Where two share a path, the first that accepts a request serves it. */
export const endpoints: readonly EndpointSpec[] = [...anthropicEndpoints, ...geminiEndpoints, ...openaiEndpoints].map(acceptingUnrecognized);

/**
 * Top-level request parameters a format does not know (a newer SDK's) are accepted, as gateways pass
 * them on: the request is answered without them, and they are named in the journal entry and in
 * `x-mock-warning`. With strictParams they get the vendor's own 400, as the format refused them.
 */
function acceptingUnrecognized(spec: EndpointSpec): EndpointSpec {
  const warned = (call: Call, out: Outbound | Forward): Outbound | Forward => {
    if (call.entry.warnings && !isForward(out)) out.headers['x-mock-warning'] = call.entry.warnings.join(', ');
    return out;
  };
  const handle = async (call: Call): Promise<Outbound | Forward> => {
    try {
      return warned(call, await spec.handle(call));
    } catch (error) {
      const names = error instanceof GatewayError ? error.unrecognized : undefined;
      if (!names || call.runtime.strictParams || call.entry.warnings || !isRecord(call.body)) throw error;
      // Once: the body without them (a copy: the journal keeps what was sent).
      call.entry.warnings = names.map((name) => `unrecognized request argument "${name}"`);
      const body = Object.fromEntries(Object.entries(call.body).filter(([name]) => !names.includes(name)));
      return warned(call, await spec.handle({ ...call, body }));
    }
  };
  return { ...spec, handle };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Which journal entries to return; every field given must match. */
export interface RequestFilter {
  method?: string;
  path?: string;
  model?: string;
  format?: string;
  status?: number;
  fixture?: string;
  /** Only requests no fixture answered (true), or only those one did (false). */
  unmatched?: boolean;
}

export interface Gateway {
  /**
   * msw handlers: `setupServer(...gateway.handlers)` or `setupWorker(...gateway.handlers)`. The HTTP
   * endpoints, then the WebSocket ones (`/v1/realtime`, through msw's `ws.link`, for clients that use
   * the global WebSocket).
   */
  readonly handlers: (HttpHandler | WebSocketHandler)[];
  /** Adds fixtures that take precedence over all earlier ones until `reset()`; returns their ids. */
  use(...fixtures: Fixture[]): string[];
  /** The requests received so far, oldest first (bounded by `journalSize`), optionally filtered. */
  requests(filter?: RequestFilter): JournalEntry[];
  /** Clears the journal, run-time fixtures, scenarios, token use, stored responses and image files; revives `once` fixtures. */
  reset(): void;
  readonly fixtures: {
    list(): FixtureEntry[];
    add(...fixtures: Fixture[]): string[];
    remove(id: string): boolean;
  };
  readonly scenarios: {
    list(): { name: string; state: string; possibleStates: string[] }[];
    set(name: string, state: string): void;
    reset(): void;
  };
  readonly tokens: {
    list(): IssuedToken[];
    /** Issues a token (generated when `token` is not given), optionally scoped to models and a request quota. */
    issue(scope?: TokenScope & { token?: string }): IssuedToken;
    revoke(token: string): boolean;
  };
  /** Streams still being written (useful to see that aborted streams stop). */
  readonly activeStreams: number;
  /** @internal the live state, for the standalone server. */
  readonly runtime: Runtime;
}

function matches(entry: JournalEntry, f: RequestFilter): boolean {
  return (
    (f.method === undefined || entry.method === f.method.toUpperCase()) &&
    (f.path === undefined || entry.path === f.path) &&
    (f.model === undefined || entry.model === f.model) &&
    (f.format === undefined || entry.format === f.format) &&
    (f.status === undefined || entry.status === f.status) &&
    (f.fixture === undefined || entry.fixture === f.fixture) &&
    (f.unmatched === undefined || (entry.fixture === undefined) === f.unmatched)
  );
}

/** The journal's entries that pass `filter`, as held (bodies not decoded): readers decode only what they hand out. */
export function heldRequests(runtime: Runtime, filter: RequestFilter): JournalEntry[] {
  return runtime.journal.held().filter((e) => matches(e, filter));
}

/** What a gateway is built with: both weigh on start-up, and the standalone server needs neither until used. */
export interface GatewayParts {
  /** Builds the msw handlers for a runtime and origin (adapters/msw.ts); called on first use. */
  handlers: (runtime: Runtime, origin: string) => (HttpHandler | WebSocketHandler)[];
  /** Checks fixtures against the schema (fixtures/validate.ts, with ajv). */
  validate: typeof validateFixtures;
}

/** The gateway over a new runtime. */
export function buildGateway(options: GatewayOptions, { handlers: handlersOf, validate: validateFixtures }: GatewayParts): Gateway {
  const runtime = new Runtime({ ...options, fixtures: options.fixtures && validateFixtures(options.fixtures, 'createGateway({fixtures})') });
  const origin = options.origin?.replace(/\/+$/, '') ?? '*';
  const add = (source: string, fixtures: Fixture[]) => runtime.fixtures.use(...validateFixtures(fixtures, source)).map((e) => e.id);
  let handlers: (HttpHandler | WebSocketHandler)[] | undefined;
  return {
    get handlers() {
      return (handlers ??= handlersOf(runtime, origin));
    },
    use: (...fixtures) => add('gateway.use()', fixtures),
    requests: (filter = {}) => readable(heldRequests(runtime, filter)),
    reset() {
      runtime.journal.clear();
      runtime.fixtures.reset();
      runtime.tokens.resetUse();
      runtime.stored.clear();
      runtime.files.clear();
    },
    fixtures: {
      list: () => runtime.fixtures.list(),
      add: (...fixtures) => add('gateway.fixtures.add()', fixtures),
      remove: (id) => runtime.fixtures.remove(id),
    },
    scenarios: {
      list: () => runtime.fixtures.scenarios(),
      set: (name, state) => runtime.fixtures.setScenario(name, state),
      reset: () => runtime.fixtures.resetScenarios(),
    },
    tokens: {
      list: () => runtime.tokens.list(),
      issue: (scope) => runtime.tokens.issue(scope),
      revoke: (token) => runtime.tokens.revoke(token),
    },
    get activeStreams() {
      return runtime.activeStreams;
    },
    runtime,
  };
}
