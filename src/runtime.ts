// The gateway's live state, shared by every endpoint: settings, tokens, fixtures, catalogue, journal.
// State only: what a request's answer is, is decided in pipeline/decide.ts.
import { Catalogue, type ModelEntry, type ModelFamily } from './core/models.ts';
import type { Journal } from './core/journal.ts';
import { ScopedJournal, TestScopes } from './scope.ts';
import { clockSeconds, type ClockOption } from './core/clock.ts';
import { INSTANT, toLatency, type LatencyProfile } from './core/timing.ts';
import { DEFAULT_KEY, KeyStore } from './auth/keys.ts';
import { FixtureSet } from './fixtures/match.ts';
import { StoreRegistry } from './core/stores.ts';
import { PROMPT_CACHE, PromptCache } from './core/cache.ts';
import type { RecordOptions } from './types/record.ts';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from './core/ratelimit.ts';
import { checkPrices, mergePrices, type PriceTable } from './core/prices.ts';
import { Spending } from './core/spending.ts';
import shipped from '../catalog/models.json' with { type: 'json' };
import shippedPrices from '../catalog/prices.json' with { type: 'json' };
import type { GatewayOptions } from './api.ts';

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_STORE_BYTES = 64 * 1024 * 1024;

export class Runtime {
  readonly seed: number;
  readonly clock: ClockOption;
  readonly latency: LatencyProfile;
  readonly maxBodyBytes: number;
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
  /** Live streams, so a test can see production stop when a client leaves. */
  activeStreams = 0;

  constructor(options: GatewayOptions = {}) {
    this.seed = options.seed ?? 0;
    this.clock = options.clock ?? 'fixed';
    try {
      this.latency = options.latency === undefined ? INSTANT : toLatency(options.latency);
    } catch (error) {
      throw new Error(`model-gateway-mock options, latency: ${(error as Error).message}`);
    }
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.tokens = new KeyStore(options.tokens?.length ? options.tokens : [DEFAULT_KEY]);
    this.fixtures = new FixtureSet(options.fixtures ?? []);
    try {
      this.catalogue = shippedCatalogue(options.models);
    } catch (error) {
      throw new Error(`model-gateway-mock options, models: ${(error as Error).message}`);
    }
    this.journal = new ScopedJournal(options.journalSize ?? 1000, this.testScopes);
    this.strict = options.strict ?? false;
    this.strictParams = options.strictParams ?? false;
    // A copy: the in-process transport fills in its own fetch, and the caller's options stay as given.
    this.record = options.record && { ...options.record };
    this.stores = new StoreRegistry({ storeBytes: options.storeBytes ?? DEFAULT_STORE_BYTES }, (owner) => this.testScopes.isLive(owner));
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
export function shippedCatalogue(models: readonly ModelEntry[] = []): Catalogue {
  return new Catalogue([...(shipped.models as ModelEntry[]), ...models], shipped.families as ModelFamily[]);
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
