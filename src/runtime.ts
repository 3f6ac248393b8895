// The gateway's live state, shared by every endpoint: settings, tokens, fixtures, catalogue, journal.
// State only: what a request's answer is, is decided in pipeline/decide.ts.
import { Catalogue, type ModelEntry, type ModelFamily } from './core/models.ts';
import type { Journal } from './core/journal.ts';
import { ScopedJournal, TestScopes } from './scope.ts';
import { clockProblem, clockSeconds, type ClockOption } from './core/clock.ts';
import { INSTANT, toLatency, type LatencyProfile } from './core/timing.ts';
import { DEFAULT_KEY, KeyStore } from './auth/keys.ts';
import { FixtureSet } from './fixtures/match.ts';
import { SharedBytes, StoreRegistry } from './core/stores.ts';
import { PROMPT_CACHE, PromptCache } from './core/cache.ts';
import type { RecordOptions } from './types/record.ts';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from './core/ratelimit.ts';
import { checkPrices, mergePrices, type PriceTable } from './core/prices.ts';
import { Spending } from './core/spending.ts';
import shipped from '../catalog/models.json' with { type: 'json' };
import shippedPrices from '../catalog/prices.json' with { type: 'json' };
import type { GatewayOptions } from './api.ts';
import { DEFAULT_MAX_SOCKETS, SocketSessions } from './pipeline/socket-sessions.ts';

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** How long a reader may take nothing with bytes waiting for it, unless `readerTimeoutMs` says (pipeline/playback.ts). */
export const DEFAULT_READER_TIMEOUT_MS = 60_000;
/** The longest timer Node arms (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const DEFAULT_STORE_BYTES = 64 * 1024 * 1024;

export class Runtime {
  readonly seed: number;
  readonly clock: ClockOption;
  readonly latency: LatencyProfile;
  readonly maxBodyBytes: number;
  /** How long a reader may take nothing of what waits for it before it is dropped (0: never). */
  readonly readerTimeoutMs: number;
  readonly tokens: KeyStore;
  readonly fixtures: FixtureSet;
  readonly catalogue: Catalogue;
  readonly journal: Journal;
  /**
   * The objects the services keep between requests (stored responses, files, batches, image files, the
   * prompt cache...), one store per kind, each kind declared where it is used (core/stores.ts): bounded,
   * each object its test's or shared, emptied by reset.
   */
  readonly stores: StoreRegistry;
  /** Each test's own state on a shared gateway, by test id (`x-mock-test-id`; see scope.ts); bounded. A test's end drops its objects from the stores. */
  readonly testScopes = new TestScopes(undefined, (owner) => this.stores.drop(owner));
  readonly strict: boolean;
  readonly strictParams: boolean;
  /** Record mode's settings; the recorder itself loads on the first forwarded request (pipeline/endpoint.ts). */
  readonly record?: RecordOptions;
  /** Prompt prefixes cached per scope (core/cache.ts), over its store. */
  readonly promptCache: PromptCache;
  /** Every token's rate limits unless it sets its own (TokenScope's rpm, tpm). */
  readonly rateLimits: RateLimits;
  /** The rate windows of every scope (a token), on the gateway's clock. */
  readonly limiter = new RateLimiter();
  /** Prices per model and family: catalog/prices.json with the `prices` option over it. */
  readonly prices: PriceTable;
  /** Requests, tokens and USD per token since the start or the last reset. */
  readonly spending = new Spending();
  /** Bytes of conversation items all realtime sessions keep together (formats/openai/realtime-items.ts: 64 MiB); given back as sessions close. */
  readonly realtimeItems = new SharedBytes(64 * 1024 * 1024);
  /** Deployment names (a cloud account's own names for models, such as Azure's) → catalogue models: the `deployments` option. */
  readonly deployments: ReadonlyMap<string, string>;
  /** Live streams, so a test can see production stop when a client leaves. */
  activeStreams = 0;
  /** Socket sessions open at once (realtime, Live, Responses over WebSocket) under the `maxSockets` ceiling. */
  readonly sockets: SocketSessions;

  constructor(options: GatewayOptions = {}) {
    this.seed = options.seed ?? 0;
    this.clock = options.clock ?? 'fixed';
    const problem = typeof this.clock === 'number' ? clockProblem(this.clock) : undefined;
    if (problem) throw new Error(`model-gateway-mock options, clock: ${problem}, got ${this.clock}`);
    try {
      this.latency = options.latency === undefined ? INSTANT : toLatency(options.latency);
    } catch (error) {
      throw new Error(`model-gateway-mock options, latency: ${(error as Error).message}`);
    }
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const timeout = options.readerTimeoutMs ?? DEFAULT_READER_TIMEOUT_MS;
    if (!Number.isInteger(timeout) || timeout < 0 || timeout > MAX_TIMER_MS)
      throw new Error(
        `model-gateway-mock options, readerTimeoutMs: expected whole milliseconds from 0 (never) to ${MAX_TIMER_MS}, got ${timeout}`,
      );
    this.readerTimeoutMs = timeout;
    const maxSockets = options.maxSockets ?? DEFAULT_MAX_SOCKETS;
    if (!Number.isInteger(maxSockets) || maxSockets < 0)
      throw new Error(`model-gateway-mock options, maxSockets: expected a whole number of sessions from 0, got ${maxSockets}`);
    this.sockets = new SocketSessions(maxSockets);
    this.tokens = new KeyStore(options.tokens?.length ? options.tokens : [DEFAULT_KEY], options.acceptAnyKey ?? false);
    this.fixtures = new FixtureSet(options.fixtures ?? []);
    try {
      this.catalogue = shippedCatalogue(options.models, options.strictModels ?? false);
    } catch (error) {
      throw new Error(`model-gateway-mock options, models: ${(error as Error).message}`);
    }
    try {
      this.deployments = deploymentsOf(options.deployments, this.catalogue);
    } catch (error) {
      throw new Error(`model-gateway-mock options, deployments: ${(error as Error).message}`);
    }
    this.journal = new ScopedJournal(options.journalSize ?? 1000, this.testScopes);
    this.strict = options.strict ?? false;
    this.strictParams = options.strictParams ?? false;
    // A copy: the in-process transport fills in its own fetch, and the caller's options stay as given.
    this.record = options.record && { ...options.record };
    this.stores = new StoreRegistry({ storeBytes: options.storeBytes ?? DEFAULT_STORE_BYTES, now: () => this.now() }, (owner) =>
      this.testScopes.isLive(owner),
    );
    this.promptCache = new PromptCache(this.stores.of(PROMPT_CACHE));
    this.rateLimits = rateLimitsOf(options.rateLimits);
    try {
      this.prices = mergePrices(shippedPrices as PriceTable, options.prices && checkPrices(options.prices));
    } catch (error) {
      throw new Error(`model-gateway-mock options, prices: ${(error as Error).message}`);
    }
  }

  /** Seconds the clock was moved on by `advanceClock` (a test letting rate windows pass); reset() sets it back. */
  clockOffset = 0;

  now(): number {
    return clockSeconds(this.clock) + this.clockOffset;
  }
}

/** The shipped catalogue and families, with `models` added. */
export function shippedCatalogue(models: readonly ModelEntry[] = [], strictModels = false): Catalogue {
  return new Catalogue([...(shipped.models as ModelEntry[]), ...models], shipped.families as ModelFamily[], strictModels);
}

/** The `deployments` option checked: each name a string, each mapped to a model of the catalogue. */
export function deploymentsOf(given: Record<string, string> | undefined, catalogue: Catalogue): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, model] of Object.entries(given ?? {})) {
    if (typeof model !== 'string' || !catalogue.get(model))
      throw new Error(
        `"${name}" maps to ${JSON.stringify(model)}, which is no model of the catalogue (add it with the models option, or map the deployment to one that is)`,
      );
    out.set(name, model);
  }
  return out;
}

/** The rate limits of `given` over the defaults, each a positive whole number. */
function rateLimitsOf(given: Partial<RateLimits> = {}): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`model-gateway-mock options, rateLimits.${name}: expected a whole number >= 1, got ${JSON.stringify(value)}`);
  }
  return limits;
}
