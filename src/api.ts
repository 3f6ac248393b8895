// The public types of the gateway object and its options: what the entry points publish. Types only,
// and nothing internal on their import graph: they come from types/ (test/surface.test.ts reads the published .d.ts files).
import type { HttpHandler, WebSocketHandler } from 'msw';
import type { JournalEntry } from './types/journal.ts';
import type { ClockOption } from './types/clock.ts';
import type { LatencyProfile } from './types/timing.ts';
import type { ModelEntry, ModelInfo } from './types/models.ts';
import type { Fixture, FixtureEntry } from './types/fixtures.ts';
import type { IssuedToken, TokenScope } from './types/keys.ts';
import type { RecordOptions } from './types/record.ts';
import type { RateLimits } from './types/ratelimit.ts';
import type { PriceTable } from './types/prices.ts';
import type { CostReport, SpendTotals } from './types/spending.ts';
import type { HeldStoreReport } from './types/resources.ts';

export type { RateLimits } from './types/ratelimit.ts';
export type { ModelPrice, PriceTable } from './types/prices.ts';
export type { CostReport, SpendTotals } from './types/spending.ts';
export type { HeldObject, HeldStoreReport } from './types/resources.ts';

export interface GatewayOptions {
  /**
   * Origin the in-process handlers intercept, e.g. `https://gateway.test`. Default: any origin,
   * so SDKs keep their default base URLs.
   */
  origin?: string;
  /** Seed of every synthesized value. Default 0. */
  seed?: number;
  /** The issued tokens. Default: `['sk-test']`. */
  tokens?: string[];
  /**
   * Accept any non-empty key as if it were issued (unscoped, unlimited; the issued tokens keep their
   * scopes): for code under test that reads a real key from the environment (`OPENAI_API_KEY`). Default
   * false: a key the gateway did not issue gets the vendor's 401. The key is never sent anywhere either
   * way, and the journal masks it.
   * @example createGateway({ acceptAnyKey: true })
   */
  acceptAnyKey?: boolean;
  /** Fixtures in force from the start. */
  fixtures?: Fixture[];
  /** Global latency profile, as `ttft=250,tps=40,jitter=0.2` or an object. Default: instant. */
  latency?: string | Partial<LatencyProfile>;
  /** Timestamps in replies: 'fixed' (default, 2026-01-01T00:00:00Z), 'real', or Unix seconds. */
  clock?: ClockOption;
  /**
   * Models added to (or replacing, by id) the shipped catalogue: whole models, or your own names for
   * one (`{ id, base }` or `'name=base'`, base a model id or a family such as `claude-sonnet`).
   */
  models?: ModelEntry[];
  /**
   * Deployment names (Azure OpenAI's: a cloud account's own names for its models) mapped to models of
   * the catalogue. A deployment named for a catalogue model (`gpt-4o-mini`) needs no entry; any other
   * name is the cloud's own 404 (`DeploymentNotFound`) until mapped here. The other clouds' model ids
   * (Vertex AI's, Bedrock's, OpenRouter's) are looked up here first too.
   * @example createGateway({ deployments: { 'prod-chat': 'gpt-4o-mini' } })
   */
  deployments?: Record<string, string>;
  /** Largest accepted request body in bytes. Default 32 MiB. */
  maxBodyBytes?: number;
  /**
   * How long a client may take nothing of an answer the gateway has bytes waiting for (a stream, a big
   * body, a realtime socket) before it is dropped, in ms; 0 never drops one. Default 60000. Production
   * pauses meanwhile: at most 64 KiB wait unread per connection.
   */
  readerTimeoutMs?: number;
  /**
   * Socket sessions open at once, every kind together (OpenAI realtime, Gemini Live, Responses over
   * WebSocket); one more is refused as its service refuses it (realtime and Responses: a 429
   * `rate_limit_exceeded` error event, then close 1008; Live: close 1011, RESOURCE_EXHAUSTED). Default 256.
   */
  maxSockets?: number;
  /** How many requests the journal keeps. Default 1000 (bodies over 64 KiB are kept shortened to about 64 KiB). */
  journalSize?: number;
  /** Bytes of stored state (Responses kept for `previous_response_id` and retrieval, chat completions created with `store: true`). Default 64 MiB. */
  storeBytes?: number;
  /** Answer only from fixtures: an unmatched request gets a 404 with the near-miss report. */
  strict?: boolean;
  /**
   * Refuse request parameters the gateway does not know with the vendor's 400. Default false: they are
   * accepted, named in the journal entry (`warnings`) and in an `x-mock-warning` header.
   */
  strictParams?: boolean;
  /**
   * Serve only the catalogue's model ids and your `models` aliases: a name resolved today by the vendors'
   * naming (a newer version, a snapshot, `-latest`) gets the vendor's 404. Default false.
   */
  strictModels?: boolean;
  /** Record mode: forward what no fixture matches to an upstream and save its answers as fixtures. */
  record?: RecordOptions;
  /**
   * Every token's rate limits, unless it was issued with its own `rpm`/`tpm`: requests and tokens
   * (input and output) per window of `windowSeconds` on the gateway's clock. Default: 1,000,000
   * requests and 1,000,000,000 tokens per 60 s. Under the default fixed clock a window never passes
   * (spent budget comes back on `reset()`); with `clock: 'real'` it passes as time goes by.
   * @example createGateway({ rateLimits: { rpm: 3, tpm: 10_000 } })
   */
  rateLimits?: Partial<RateLimits>;
  /**
   * Prices in USD per million tokens, by model id or naming family, replacing the shipped table's
   * entries of the same name (catalog/prices.json: list prices as of 2026-11, illustrative).
   * @example createGateway({ prices: { models: { 'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 } } } })
   */
  prices?: PriceTable;
}

/** Which journal entries to return; every field given must match. */
export interface RequestFilter {
  method?: string;
  path?: string;
  model?: string;
  format?: string;
  /** The dialect a request came by (`azure`, `openrouter`); `''` for the vendors' own paths. */
  dialect?: string;
  status?: number;
  fixture?: string;
  /** Only requests no fixture answered (true), or only those one did (false). */
  unmatched?: boolean;
  /** Only this test's requests (sent with `x-mock-test-id: <test>`) since its last reset. */
  test?: string;
}

/** A journal entry without its headers, bodies and answer, with a glimpse of the prompt: what a live list shows. */
export type RequestSummary = Omit<JournalEntry, 'headers' | 'body' | 'response'> & {
  /** The last text of the messages, input, contents, prompt or query, cut at 120 characters. */
  preview?: string;
  /** The test it was sent for (its `x-mock-test-id` header), if any. */
  test?: string;
};

/** Listing, adding and removing fixtures. */
interface FixtureOperations {
  /**
   * The fixtures held, each with its id, source and use count.
   * @example gateway.fixtures.list().filter((f) => f.source === 'runtime').map((f) => f.id)
   */
  list(): FixtureEntry[];
  /**
   * Adds fixtures ahead of every earlier one, as `use()` does; returns their ids.
   * @example const [id] = gateway.fixtures.add({ match: { model: 'gpt-4o' }, reply: { text: 'Hi' } });
   */
  add(...fixtures: Fixture[]): string[];
  /**
   * Removes one fixture by its id (in a test's view, one of that test's own); false when there is none.
   * @example gateway.fixtures.remove(id) // true, then false for the same id
   */
  remove(id: string): boolean;
}

/** Scenario states: listing, setting one, restarting them all. */
interface ScenarioOperations {
  /**
   * Each scenario the fixtures name: its state, and the states its fixtures mention ('Started' first).
   * @example
   * gateway.use({ scenario: 'checkout', newScenarioState: 'paid', reply: { text: 'Paid.' } });
   * gateway.scenarios.list() // [{ name: 'checkout', state: 'Started', possibleStates: ['Started', 'paid'] }]
   */
  list(): { name: string; state: string; possibleStates: string[] }[];
  /**
   * Puts a scenario in a state, as if a fixture had moved it there.
   * @example gateway.scenarios.set('checkout', 'paid');
   */
  set(name: string, state: string): void;
  /**
   * Puts every scenario back in its first state, 'Started'.
   * @example gateway.scenarios.reset();
   */
  reset(): void;
}

/** One test's cost totals: `forTest(id).costs()`, `GET /__admin/costs?test=<id>`. */
export interface TestCosts {
  test: string;
  total: SpendTotals;
}

/**
 * One test's side of a shared gateway: what requests sent with `x-mock-test-id: <id>` see. Its
 * fixtures answer that test's requests only, ahead of the shared ones; its use counts (`once`,
 * sequences) and scenario states are its own. Made on first use, dropped by `reset()`.
 */
export interface GatewayTest {
  readonly id: string;
  /**
   * Adds fixtures for this test's requests only; returns their ids.
   * @example gateway.forTest('checkout-1').use({ match: { model: 'gpt-4o' }, reply: { text: 'Paid.' } });
   */
  use(...fixtures: Fixture[]): string[];
  /**
   * This test's requests since its last reset, oldest first (the journal is shared: see `journalSize`).
   * @example expect(gateway.forTest('checkout-1').requests({ path: '/v1/chat/completions' })).toHaveLength(1);
   */
  requests(filter?: RequestFilter, limit?: number): JournalEntry[];
  /**
   * How many of this test's requests pass `filter` (nothing is decoded).
   * @example gateway.forTest('checkout-1').countRequests({ unmatched: true }) // 0
   */
  countRequests(filter?: RequestFilter): number;
  /**
   * Empties this test's journal view only.
   * @example gateway.forTest('checkout-1').clearRequests(); // its requests() is [] until it sends another
   */
  clearRequests(): void;
  /**
   * Drops this test's fixtures, counters, scenario states, cost totals and held objects (its files,
   * batches, stored responses, image files, cached prompts), and empties its journal view.
   * @example gateway.forTest('checkout-1').reset(); // gateway.tests() no longer lists it
   */
  reset(): void;
  /**
   * The objects this test's requests made that the gateway holds, store by store (every store, empty ones too).
   * @example gateway.forTest('checkout-1').resources().find((s) => s.name === 'openai.files')?.count // 1
   */
  resources(): HeldStoreReport[];
  /**
   * What this test's replies cost since its last reset, every token's together (`gateway.costs()` has
   * them per token); whole when the journal drops old entries.
   * @example expect(gateway.forTest('checkout-1').costs().total.requests).toBe(1);
   */
  costs(): TestCosts;
  /** This test's fixtures first, then the shared ones (with this test's use counts). */
  readonly fixtures: FixtureOperations;
  /** Scenario states as this test's requests see them. */
  readonly scenarios: ScenarioOperations;
}

/**
 * The emulator and its control plane. In-process, `createGateway()` returns one; standalone,
 * `startServer()` exposes it as `server.gateway`, and each `/__admin` route is one of these operations.
 */
export interface Gateway {
  /**
   * msw handlers: `setupServer(...gateway.handlers)` or `setupWorker(...gateway.handlers)`. The HTTP
   * endpoints, then the WebSocket ones (`/v1/realtime`, through msw's `ws.link`, for clients that use
   * the global WebSocket).
   */
  readonly handlers: (HttpHandler | WebSocketHandler)[];
  /**
   * Adds fixtures that take precedence over all earlier ones until `reset()`; returns their ids. They
   * answer every request; `forTest(id).use()` adds fixtures for one test's requests only.
   * @example gateway.use({ match: { model: 'gpt-4o' }, reply: { text: 'Hello!' } });
   */
  use(...fixtures: Fixture[]): string[];
  /**
   * The requests received so far, oldest first (bounded by `journalSize`), optionally filtered; with
   * `limit`, only the newest `limit` of those.
   * @example expect(gateway.requests({ path: '/v1/chat/completions' })).toHaveLength(1);
   */
  requests(filter?: RequestFilter, limit?: number): JournalEntry[];
  /**
   * How many journal entries pass `filter` (nothing is decoded).
   * @example gateway.countRequests({ unmatched: true }) // 0
   */
  countRequests(filter?: RequestFilter): number;
  /**
   * One journal entry by its `seq`, if the journal still holds it.
   * @example gateway.request(1)?.model // 'gpt-4o'
   */
  request(seq: number): JournalEntry | undefined;
  /**
   * Every entry held, summarized (no headers, bodies or answer): cheap enough to poll for a live view.
   * @example gateway.requestSummaries().map((s) => `${s.method} ${s.path} ${s.status}`)
   */
  requestSummaries(): RequestSummary[];
  /**
   * Empties the journal only (fixtures, tokens and stores stay); `seq` starts again from 1.
   * @example gateway.clearRequests();
   */
  clearRequests(): void;
  /** How many requests the journal keeps (the `journalSize` option). */
  readonly journalSize: number;
  /** Counts the times the journal was emptied (`reset()`, `clearRequests()`): a reader following it can tell it restarted. */
  readonly journalGeneration: number;
  /**
   * Clears the journal, run-time fixtures, scenarios, every test's state, token use, rate windows, cost
   * totals, the clock's advance and every held object (files, uploads, batches, stored responses and
   * chat completions, image files, message batches, the prompt cache); revives `once` fixtures.
   * @example afterEach(() => gateway.reset());
   */
  reset(): void;
  /**
   * The objects the gateway holds between requests, store by store, each marked with the test that made it.
   * @example gateway.resources().map((s) => `${s.title}: ${s.count}`)
   */
  resources(): HeldStoreReport[];
  /**
   * The fixtures in force (every test's too, each marked with its `test`), and adding or removing them one by one.
   * @example const [id] = gateway.fixtures.add({ reply: { text: 'Hi' } }); gateway.fixtures.remove(id);
   */
  readonly fixtures: FixtureOperations;
  /**
   * Scenario states (fixtures with `scenario`/`requiredScenarioState`/`newScenarioState`).
   * @example gateway.scenarios.set('checkout', 'paid');
   */
  readonly scenarios: ScenarioOperations;
  /**
   * The issued API keys.
   * @example const { token } = gateway.tokens.issue({ models: ['gpt-4o'], quota: 3 });
   */
  readonly tokens: {
    /**
     * Every token in force, with its scope and the requests it made.
     * @example gateway.tokens.list().map((t) => t.token) // ['sk-test'] by default
     */
    list(): IssuedToken[];
    /**
     * Issues a token (generated when `token` is not given), optionally scoped to models, a request quota and its own rate limits (`rpm`, `tpm`).
     * @example gateway.tokens.issue({ token: 'sk-ci', rpm: 10 }) // { token: 'sk-ci', used: 0, rpm: 10 }
     */
    issue(scope?: TokenScope & { token?: string }): IssuedToken;
    /**
     * Withdraws a token: requests presenting it are refused from then on; false if it was not in force.
     * @example gateway.tokens.revoke('sk-ci') // true
     */
    revoke(token: string): boolean;
  };
  /**
   * What each token has spent since the start or the last `reset()`: requests answered, tokens and
   * USD at the price table in force, per token and in total (each journal entry has its own `costUsd`).
   * @example expect(gateway.costs().tokens.find((t) => t.token === 'sk-test')?.costUsd).toBeGreaterThan(0);
   */
  costs(): CostReport;
  /**
   * Moves the gateway's clock on by `seconds` (whole, >= 0) and returns its time (Unix seconds): how a
   * test lets rate-limit windows pass under the fixed clock. Later replies' timestamps move with it;
   * `reset()` sets it back.
   * @example gateway.advanceClock(60); // the next request opens a new rate window
   */
  advanceClock(seconds: number): number;
  /**
   * One test's own state (requests sent with `x-mock-test-id: <id>`), for many tests sharing one gateway.
   * @example gateway.forTest('checkout-1').use({ reply: { text: 'Paid.' } });
   */
  forTest(id: string): GatewayTest;
  /**
   * The ids of the tests with live state, least recently used first (at most 256 are kept).
   * @example gateway.tests() // ['checkout-1']
   */
  tests(): string[];
  /**
   * The model catalogue in force: the shipped models and the `models` option's.
   * @example gateway.models().filter((m) => m.owned_by === 'openai')
   */
  models(): ModelInfo[];
  /** Streams still being written (useful to see that aborted streams stop). */
  readonly activeStreams: number;
  /** Socket sessions open now, the `maxSockets` ceiling, and how many were refused for it. */
  readonly sockets: { readonly open: number; readonly max: number; readonly refused: number };
}
