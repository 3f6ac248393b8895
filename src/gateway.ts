// The gateway's wiring: the endpoint list, and the Gateway object over a Runtime (its operations are
// the ones the standalone server's /__admin routes call). Not a public module: the entry points
// publish the types of api.ts, and the Runtime behind a gateway is reached through runtimeOf().
import type { HttpHandler, WebSocketHandler } from 'msw';
import { readable, type JournalEntry } from './core/journal.ts';
import type { Fixture } from './fixtures/types.ts';
import type { validateFixtures } from './fixtures/validate.ts';
import { openaiEndpoints } from './formats/openai/routes.ts';
import { anthropicEndpoints } from './formats/anthropic/routes.ts';
import { geminiEndpoints } from './formats/gemini/routes.ts';
import { Runtime, type GatewayOptions } from './runtime.ts';
import type { EndpointSpec } from './pipeline/call.ts';
import type { Gateway, RequestFilter, RequestSummary } from './api.ts';

export type { Gateway, RequestFilter } from './api.ts';

/** Every endpoint of every format; both transports serve exactly these. Where two share a path, the first that accepts a request serves it. */
export const endpoints: readonly EndpointSpec[] = [...anthropicEndpoints, ...geminiEndpoints, ...openaiEndpoints];

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
function heldRequests(runtime: Runtime, filter: RequestFilter): JournalEntry[] {
  return runtime.journal.held().filter((e) => matches(e, filter));
}

const PREVIEW_CHARS = 120;

/** The last text in a value: a string, the last text of an array, or of an object's text/content/parts/input. */
function lastText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      const text = lastText(value[i]);
      if (text) return text;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return lastText(o.text ?? o.content ?? o.parts ?? o.input);
  }
  return undefined;
}

/** A glimpse of what was asked: the last text of the messages, input, contents, prompt or query. */
function previewOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const text = lastText(b.messages ?? b.input ?? b.contents ?? b.prompt ?? b.query);
  return text && (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);
}

// Each entry's preview, worked out once per body (a live view asks for every entry several times a second).
const previews = new WeakMap<JournalEntry, { body: unknown; preview: string | undefined }>();

/** An entry without its headers and bodies, with a preview of the prompt. */
function summaryOf(entry: JournalEntry): RequestSummary {
  const { headers: _h, body, response: _r, ...summary } = entry;
  let known = previews.get(entry);
  if (!known || known.body !== body) previews.set(entry, (known = { body, preview: previewOf(body) }));
  return { ...summary, preview: known.preview };
}

// The live state behind each gateway, out of the published types: internal modules reach it with runtimeOf().
const runtimes = new WeakMap<Gateway, Runtime>();

/** The Runtime behind a gateway this package built (for the standalone server, and tests of internals). */
export function runtimeOf(gateway: Gateway): Runtime {
  const runtime = runtimes.get(gateway);
  if (!runtime) throw new TypeError('model-gateway-mock: not a gateway made by createGateway() or startServer().');
  return runtime;
}

/** What a gateway is built with: both weigh on start-up, and the standalone server needs neither until used. */
export interface GatewayParts {
  /** Builds the msw handlers for a runtime and origin (adapters/msw.ts); called on first use. */
  handlers: (runtime: Runtime, origin: string) => (HttpHandler | WebSocketHandler)[];
  /** Checks fixtures against the schema (fixtures/validate.ts, with ajv). */
  validate: typeof validateFixtures;
}

/** The gateway over a new runtime (createGateway() and startServer() each give it their parts). */
export function buildGateway(options: GatewayOptions, { handlers: handlersOf, validate: validateFixtures }: GatewayParts): Gateway {
  const runtime = new Runtime({ ...options, fixtures: options.fixtures && validateFixtures(options.fixtures, 'createGateway({fixtures})') });
  const origin = options.origin?.replace(/\/+$/, '') ?? '*';
  const add = (source: string, fixtures: Fixture[]) => runtime.fixtures.use(...validateFixtures(fixtures, source)).map((e) => e.id);
  let handlers: (HttpHandler | WebSocketHandler)[] | undefined;
  const gateway: Gateway = {
    get handlers() {
      return (handlers ??= handlersOf(runtime, origin));
    },
    use: (...fixtures) => add('gateway.use()', fixtures),
    requests(filter = {}, limit) {
      const held = heldRequests(runtime, filter);
      return readable(limit === undefined ? held : held.slice(Math.max(0, held.length - limit)));
    },
    countRequests: (filter = {}) => heldRequests(runtime, filter).length,
    request(seq) {
      const entry = runtime.journal.held().find((e) => e.seq === seq);
      return entry && readable([entry])[0];
    },
    requestSummaries: () => runtime.journal.held().map(summaryOf),
    clearRequests: () => runtime.journal.clear(),
    get journalSize() {
      return runtime.journal.capacity;
    },
    get journalGeneration() {
      return runtime.journal.generation;
    },
    reset() {
      runtime.journal.clear();
      runtime.fixtures.reset();
      runtime.tokens.resetUse();
      runtime.stored.clear();
      runtime.files.clear();
      runtime.batches.clear();
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
    models: () => runtime.catalogue.list(),
    get activeStreams() {
      return runtime.activeStreams;
    },
  };
  runtimes.set(gateway, runtime);
  return gateway;
}
