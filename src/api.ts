// The public types of the gateway object and its options: what the entry points publish. Types only,
// and nothing internal on their import graph (test/surface.test.ts reads the published .d.ts files).
import type { HttpHandler, WebSocketHandler } from 'msw';
import type { JournalEntry } from './core/journal.ts';
import type { ClockOption } from './core/clock.ts';
import type { LatencyProfile } from './core/timing.ts';
import type { ModelEntry, ModelInfo } from './core/models.ts';
import type { Fixture } from './fixtures/types.ts';
import type { FixtureEntry } from './fixtures/match.ts';
import type { IssuedToken, TokenScope } from './auth/keys.ts';
import type { RecordOptions } from './record/forward.ts';

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
  /** Largest accepted request body in bytes. Default 32 MiB. */
  maxBodyBytes?: number;
  /** How many requests the journal keeps. Default 1000 (bodies over 64 KiB are kept shortened to about 64 KiB). */
  journalSize?: number;
  /** Bytes of stored state (Responses kept for `previous_response_id` and retrieval). Default 64 MiB. */
  storeBytes?: number;
  /** Answer only from fixtures: an unmatched request gets a 404 with the near-miss report. */
  strict?: boolean;
  /**
   * Refuse request parameters the gateway does not know with the vendor's 400. Default false: they are
   * accepted, named in the journal entry (`warnings`) and in an `x-mock-warning` header.
   */
  strictParams?: boolean;
  /** Record mode: forward what no fixture matches to an upstream and save its answers as fixtures. */
  record?: RecordOptions;
}

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

/** A journal entry without its headers, bodies and answer, with a glimpse of the prompt: what a live list shows. */
export type RequestSummary = Omit<JournalEntry, 'headers' | 'body' | 'response'> & {
  /** The last text of the messages, input, contents, prompt or query, cut at 120 characters. */
  preview?: string;
};

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
   * Adds fixtures that take precedence over all earlier ones until `reset()`; returns their ids.
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
   * Clears the journal, run-time fixtures, scenarios, token use, stored responses, image files and message batches; revives `once` fixtures.
   * @example afterEach(() => gateway.reset());
   */
  reset(): void;
  /**
   * The fixtures in force, and adding or removing them one by one.
   * @example const [id] = gateway.fixtures.add({ reply: { text: 'Hi' } }); gateway.fixtures.remove(id);
   */
  readonly fixtures: {
    list(): FixtureEntry[];
    add(...fixtures: Fixture[]): string[];
    remove(id: string): boolean;
  };
  /**
   * Scenario states (fixtures with `scenario`/`requiredState`/`newState`).
   * @example gateway.scenarios.set('checkout', 'paid');
   */
  readonly scenarios: {
    list(): { name: string; state: string; possibleStates: string[] }[];
    set(name: string, state: string): void;
    reset(): void;
  };
  /**
   * The issued API keys.
   * @example const { token } = gateway.tokens.issue({ models: ['gpt-4o'], quota: 3 });
   */
  readonly tokens: {
    list(): IssuedToken[];
    /** Issues a token (generated when `token` is not given), optionally scoped to models and a request quota. */
    issue(scope?: TokenScope & { token?: string }): IssuedToken;
    revoke(token: string): boolean;
  };
  /**
   * The model catalogue in force: the shipped models and the `models` option's.
   * @example gateway.models().filter((m) => m.owned_by === 'openai')
   */
  models(): ModelInfo[];
  /** Streams still being written (useful to see that aborted streams stop). */
  readonly activeStreams: number;
}
