// The gateway's live state, shared by every endpoint: settings, tokens, fixtures, catalogue, journal.
// State only: what a request's answer is, is decided in pipeline/decide.ts.
import { Catalogue, type ModelEntry, type ModelFamily } from './core/models.ts';
import type { Journal } from './core/journal.ts';
import { ScopedJournal, TestScopes } from './scope.ts';
import { clockProblem, clockSeconds, type ClockOption } from './core/clock.ts';
import { INSTANT, toLatency, type LatencyProfile } from './core/timing.ts';
import { DEFAULT_KEY, KeyStore } from './auth/keys.ts';
import { FixtureSet } from './fixtures/match.ts';
import { BoundedStore, SharedBytes } from './core/store.ts';
import { PromptCache } from './core/cache.ts';
import type { RecordOptions } from './types/record.ts';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from './core/ratelimit.ts';
import { checkPrices, mergePrices, type PriceTable } from './core/prices.ts';
import { Spending } from './core/spending.ts';
import shipped from '../catalog/models.json' with { type: 'json' };
import shippedPrices from '../catalog/prices.json' with { type: 'json' };
import type { GatewayOptions } from './api.ts';

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
  /** Each test's own state on a shared gateway, by test id (`x-mock-test-id`; see scope.ts); bounded. */
  readonly testScopes = new TestScopes();
  readonly strict: boolean;
  readonly strictParams: boolean;
  /** Record mode's settings; the recorder itself loads on the first forwarded request (pipeline/endpoint.ts). */
  readonly record?: RecordOptions;
  /** State a format keeps between requests (stored responses), by id; bounded in count and bytes, cleared by reset. */
  readonly stored: BoundedStore<unknown>;
  /** Generated image files served by URL until reset, by file name; bounded in count and bytes (256 MiB). */
  readonly files = new BoundedStore<StoredFile>(1000, 256 * 1024 * 1024);
  /** Prompt prefixes cached per scope (core/cache.ts); bounded in entries and bytes, cleared by reset. */
  readonly promptCache = new PromptCache();
  /** Every token's rate limits unless it sets its own (TokenScope's rpm, tpm). */
  readonly rateLimits: RateLimits;
  /** The rate windows of every scope (a token), on the gateway's clock. */
  readonly limiter = new RateLimiter();
  /** Prices per model and family: catalog/prices.json with the `prices` option over it. */
  readonly prices: PriceTable;
  /** Requests, tokens and USD per token since the start or the last reset. */
  readonly spending = new Spending();
  /** Message Batches (formats/anthropic/batches.ts) by id: at most 100 and 64 MiB of results, the oldest dropped first. */
  readonly batches = new BoundedStore<unknown>(100, 64 * 1024 * 1024);
  /** Bytes of conversation items all realtime sessions keep together (formats/openai/realtime-items.ts: 64 MiB); given back as sessions close. */
  readonly realtimeItems = new SharedBytes(64 * 1024 * 1024);
  /** Deployment names (a cloud account's own names for models, such as Azure's) → catalogue models: the `deployments` option. */
  readonly deployments: ReadonlyMap<string, string>;
  /** Live streams, so a test can see production stop when a client leaves. */
  activeStreams = 0;

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
    this.tokens = new KeyStore(options.tokens?.length ? options.tokens : [DEFAULT_KEY], options.acceptAnyKey ?? false);
    this.fixtures = new FixtureSet(options.fixtures ?? []);
    try {
      this.catalogue = shippedCatalogue(options.models);
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
    this.stored = new BoundedStore(1000, options.storeBytes ?? DEFAULT_STORE_BYTES);
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
export function shippedCatalogue(models: readonly ModelEntry[] = []): Catalogue {
  return new Catalogue([...(shipped.models as ModelEntry[]), ...models], shipped.families as ModelFamily[]);
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

/** A file the gateway serves by URL (a generated image). */
interface StoredFile {
  bytes: Uint8Array;
  contentType: string;
}
