// The gateway's wiring: the endpoint list, and the Gateway object over a Runtime (its operations are
// the ones the standalone server's /__admin routes call). Not a public module: the entry points
// publish the types of api.ts, and the Runtime behind a gateway is reached through runtimeOf().
import type { HttpHandler, WebSocketHandler } from 'msw';
import { readable, type JournalEntry } from './core/journal.ts';
import { maskedHeaders } from './auth/keys.ts';
import type { Fixture } from './types/fixtures.ts';
import type { validateFixtures } from './fixtures/validate.ts';
import { openaiEndpoints } from './formats/openai/routes.ts';
import { anthropicEndpoints } from './formats/anthropic/routes.ts';
import { geminiEndpoints } from './formats/gemini/routes.ts';
import { vertexEndpoints } from './formats/vertex/routes.ts';
import { azureEndpoints } from './formats/azure/routes.ts';
import { openrouterEndpoints } from './formats/openrouter/routes.ts';
import { bedrockEndpoints } from './formats/bedrock/routes.ts';
import { Runtime } from './runtime.ts';
import type { EndpointSpec } from './pipeline/call.ts';
import type { Gateway, GatewayOptions, GatewayTest, RequestFilter, RequestSummary } from './api.ts';
import { checkTestId, entryTestId, inView, ownerTest } from './scope.ts';
import { declaredStores } from './core/stores.ts';
import type { HeldObject, HeldStoreReport } from './types/resources.ts';
import { FixtureScope } from './fixtures/match.ts';
import { noSpend } from './core/spending.ts';
import { clockProblem, LATEST_CLOCK_SECONDS } from './core/clock.ts';

/**
 * Every endpoint of every format, and the dialects' mounts of them (a cloud's or a router's paths);
 * both transports serve exactly these, routed by pipeline/routes.ts (the order here decides nothing).
 */
export const endpoints: readonly EndpointSpec[] = [
  ...anthropicEndpoints,
  ...geminiEndpoints,
  ...openaiEndpoints,
  ...azureEndpoints,
  ...openrouterEndpoints,
  ...bedrockEndpoints,
  ...vertexEndpoints,
];

function matches(entry: JournalEntry, f: RequestFilter): boolean {
  return (
    (f.method === undefined || entry.method === f.method.toUpperCase()) &&
    (f.path === undefined || entry.path === f.path) &&
    (f.model === undefined || entry.model === f.model) &&
    (f.format === undefined || entry.format === f.format) &&
    (f.dialect === undefined || (entry.dialect ?? '') === f.dialect) &&
    (f.status === undefined || entry.status === f.status) &&
    (f.fixture === undefined || entry.fixture === f.fixture) &&
    (f.unmatched === undefined || (entry.fixture === undefined) === f.unmatched)
  );
}

// Entries whose request headers are masked: the journal keeps them as received, and masks them when an
// entry is first handed out (most entries never are; masking every request's cost a copy each).
const masked = new WeakSet<JournalEntry>();

/** `entries` as they are handed out: bodies decoded, credentials in the request headers masked. */
function handedOut(entries: JournalEntry[]): JournalEntry[] {
  for (const entry of readable(entries)) {
    if (masked.has(entry)) continue;
    entry.headers = maskedHeaders(entry.headers);
    masked.add(entry);
  }
  return entries;
}

/** The journal's entries that pass `filter`, as held (bodies not decoded): readers decode only what they hand out. */
function heldRequests(runtime: Runtime, filter: RequestFilter): JournalEntry[] {
  if (filter.test === undefined) return runtime.journal.held().filter((e) => matches(e, filter));
  // A test never seen (or reset, or dropped past the ceiling) has no requests.
  const scope = runtime.testScopes.peek(checkTestId(filter.test, 'test'));
  return scope ? runtime.journal.held().filter((e) => inView(e, scope) && matches(e, filter)) : [];
}

/** The journal's entries that pass `filter`, decoded; with `limit`, the newest `limit` of them. */
function requestsOf(runtime: Runtime, filter: RequestFilter, limit: number | undefined): JournalEntry[] {
  const held = heldRequests(runtime, filter);
  return handedOut(limit === undefined ? held : held.slice(Math.max(0, held.length - limit)));
}

/** Every store's objects (every kind declared, made or not), or with `test` that test's own. */
function resourcesOf(runtime: Runtime, test?: string): HeldStoreReport[] {
  const own = test === undefined ? undefined : (runtime.testScopes.peek(checkTestId(test, 'test'))?.ownerKey ?? null);
  return declaredStores().map((kind) => {
    const store = runtime.stores.of(kind);
    const objects: HeldObject[] = [];
    let bytes = 0;
    for (const item of store.report()) {
      if (own !== undefined && item.owner !== own) continue;
      const by = ownerTest(item.owner);
      objects.push({ id: item.id, ...(by !== undefined && { test: by }), bytes: item.bytes, facts: item.facts });
      bytes += item.bytes;
    }
    const { name, title, maxCount, whenFull } = kind;
    return { name, title, count: objects.length, bytes, maxCount, maxBytes: store.maxBytes, whenFull, objects };
  });
}

/** One test's side of the gateway (see scope.ts): reading never makes a test's scope, changing it does. */
function testView(runtime: Runtime, id: string, add: (source: string, fixtures: Fixture[], scope: FixtureScope) => string[]): GatewayTest {
  checkTestId(id, 'test');
  const scopes = runtime.testScopes;
  const own = () => scopes.get(id).fixtures;
  // What the test would see, unmade: its counters and states start empty (only read, never asked to
  // answer, so its generation, 0, keys nothing).
  const seen = () => scopes.peek(id)?.fixtures ?? new FixtureScope(id, 0);
  return {
    id,
    use: (...fixtures) => add(`forTest(${JSON.stringify(id)}).use()`, fixtures, own()),
    requests: (filter = {}, limit) => requestsOf(runtime, { ...filter, test: id }, limit),
    countRequests: (filter = {}) => heldRequests(runtime, { ...filter, test: id }).length,
    clearRequests() {
      const scope = scopes.peek(id);
      if (scope) scope.view = {};
    },
    reset: () => void scopes.drop(id),
    resources: () => resourcesOf(runtime, id),
    costs: () => ({ test: id, total: { ...(scopes.peek(id)?.costs ?? noSpend()) } }),
    fixtures: {
      list: () => runtime.fixtures.list(seen()),
      add: (...fixtures) => add(`forTest(${JSON.stringify(id)}).fixtures.add()`, fixtures, own()),
      remove: (fixtureId) => runtime.fixtures.remove(fixtureId, seen()),
    },
    scenarios: {
      list: () => runtime.fixtures.scenarios(seen()),
      set: (name, state) => runtime.fixtures.setScenario(name, state, own()),
      reset: () => runtime.fixtures.resetScenarios(seen()),
    },
  };
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

/** An uploaded file as the journal keeps it (its name, type and size: endpoint.ts's journalForm). */
function journaledUpload(value: unknown): { filename: string; bytes: number } | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  const u = one as { filename?: unknown; bytes?: unknown } | null;
  return u && typeof u === 'object' && typeof u.filename === 'string' && typeof u.bytes === 'number'
    ? { filename: u.filename, bytes: u.bytes }
    : undefined;
}

/**
 * A glimpse of what was asked: the last text of the messages, input, contents, prompt or query; else
 * an uploaded file's name and size (a file, an upload's part), or the file a batch reads.
 */
function previewOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const text = lastText(b.messages ?? b.input ?? b.contents ?? b.prompt ?? b.query);
  if (text) return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
  const upload = Object.values(b).map(journaledUpload).find(Boolean);
  if (upload) return `${upload.filename} (${upload.bytes} bytes${typeof b.purpose === 'string' ? `, purpose ${b.purpose}` : ''})`;
  if (typeof b.input_file_id === 'string') return `${typeof b.endpoint === 'string' ? `${b.endpoint} ` : ''}requests of ${b.input_file_id}`;
  return undefined;
}

/** A batch's requests in a few words: how many, and how they went (of the ones its entry lists). */
function batchPreview(batch: NonNullable<JournalEntry['batch']>): string {
  const total = batch.requests.length + batch.more;
  const ok = batch.requests.filter((r) => r.status === 'succeeded').length;
  const outcome = `${ok} succeeded, ${batch.requests.length - ok} errored`;
  return `batch of ${total} request${total === 1 ? '' : 's'}: ${batch.more ? `of the first ${batch.requests.length}, ${outcome}` : outcome}`;
}

// Each entry's preview, worked out once per body (a live view asks for every entry several times a second).
const previews = new WeakMap<JournalEntry, { body: unknown; preview: string | undefined }>();

/** An entry without its headers and bodies, with a preview of the prompt. */
function summaryOf(entry: JournalEntry): RequestSummary {
  const { headers, body, response: _r, ...summary } = entry;
  let known = previews.get(entry);
  if (!known || known.body !== body) previews.set(entry, (known = { body, preview: previewOf(body) }));
  const test = entryTestId({ headers });
  // A batch's lines are answered by the time its entry lists them: the preview says how they went.
  const preview = entry.batch ? batchPreview(entry.batch) : known.preview;
  return { ...summary, preview, ...(test !== undefined && { test }) };
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
  const runtime = new Runtime({
    ...options,
    fixtures: options.fixtures && validateFixtures(options.fixtures, 'createGateway({fixtures})'),
  });
  const origin = options.origin?.replace(/\/+$/, '') ?? '*';
  const testFixtures = () => runtime.testScopes.all().map((t) => t.fixtures);
  // Every test's run-time fixtures count against the one bound with the shared ones (RUNTIME_FIXTURES).
  const add = (source: string, fixtures: Fixture[], scope?: FixtureScope) =>
    runtime.fixtures.useIn(scope, validateFixtures(fixtures, source), testFixtures()).map((e) => e.id);
  let handlers: (HttpHandler | WebSocketHandler)[] | undefined;
  const gateway: Gateway = {
    get handlers() {
      return (handlers ??= handlersOf(runtime, origin));
    },
    use: (...fixtures) => add('gateway.use()', fixtures),
    requests: (filter = {}, limit) => requestsOf(runtime, filter, limit),
    countRequests: (filter = {}) => heldRequests(runtime, filter).length,
    request(seq) {
      const entry = runtime.journal.held().find((e) => e.seq === seq);
      return entry && handedOut([entry])[0];
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
      runtime.testScopes.clear();
      runtime.tokens.resetUse();
      runtime.limiter.clear();
      runtime.spending.clear();
      runtime.clockOffset = 0;
      // Every store (stored responses, files, batches, image files, the prompt cache...): each registered itself.
      runtime.stores.clear();
    },
    resources: () => resourcesOf(runtime),
    fixtures: {
      list: () => [...testFixtures().flatMap((scope) => scope.entries), ...runtime.fixtures.list()],
      add: (...fixtures) => add('gateway.fixtures.add()', fixtures),
      remove: (id) => runtime.fixtures.remove(id) || testFixtures().some((scope) => runtime.fixtures.remove(id, scope)),
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
    costs: () => runtime.spending.report(),
    advanceClock(seconds) {
      if (!Number.isSafeInteger(seconds) || seconds < 0)
        throw new TypeError(`advanceClock: expected a whole number of seconds >= 0, got ${seconds}`);
      const now = runtime.now();
      const problem = clockProblem(now + seconds);
      if (problem)
        throw new RangeError(
          `advanceClock: ${problem}; it is at ${now}, so it may advance at most ${Math.max(0, LATEST_CLOCK_SECONDS - now)} seconds`,
        );
      runtime.clockOffset += seconds;
      return runtime.now();
    },
    forTest: (id) => testView(runtime, id, add),
    tests: () => runtime.testScopes.all().map((t) => t.id),
    models: () => runtime.catalogue.list(),
    get activeStreams() {
      return runtime.activeStreams;
    },
    get sockets() {
      const { open, max, refused } = runtime.sockets;
      return { open, max, refused };
    },
  };
  runtimes.set(gateway, runtime);
  return gateway;
}
