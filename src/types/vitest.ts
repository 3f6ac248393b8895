// The vitest helper's public types that its two modes share (vitest.ts, vitest-remote.ts, vitest-unhandled.ts).
import type { RequestHandler } from 'msw';
import type { setupServer } from 'msw/node';
import type { RequestFilter } from '../api.ts';
import type { Fixture } from './fixtures.ts';
import type { JournalEntry } from './journal.ts';
import type { HeldStoreReport } from './resources.ts';

/** A request no msw handler takes: 'error' fails the test that made it, 'warn' prints, 'bypass' lets it through. */
export type UnhandledMode = 'error' | 'warn' | 'bypass';

export interface RemoteGatewayOptions {
  /** The standalone server's root URL, e.g. `http://127.0.0.1:4010` (its `/v1`, `/__admin`… hang from it). */
  url: string;
  /** Fixtures put in under each test's id before it (that test's reset removes them after it). */
  use?: Fixture[];
  /** A request no handler takes (one to another host): 'error' (default) fails the test, 'warn' prints, 'bypass' lets it through. */
  onUnhandledRequest?: UnhandledMode;
  /** Your own msw handlers, served before the gateway's. */
  handlers?: RequestHandler[];
  /** The server's admin token, if it asks for one (a server bound beyond loopback). */
  adminToken?: string;
}

/** The running test's side of a shared standalone gateway; every operation goes to its `/__admin`. */
export interface RemoteGateway {
  /** The server's root URL. */
  readonly url: string;
  /** The msw server that adds the test id, for `server.use(...)` of your own per-test handlers. */
  readonly server: ReturnType<typeof setupServer>;
  /**
   * The running test's id (what its requests carry as `x-mock-test-id`); undefined between tests. A
   * WebSocket is not tagged for you: set the header on its upgrade.
   * @example new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: 'Bearer sk-test', 'x-mock-test-id': gateway.testId! } })
   */
  readonly testId: string | undefined;
  /**
   * Adds fixtures for the running test's requests only; returns their ids.
   * @example await gateway.use({ match: { model: 'gpt-4o' }, reply: { text: 'Hello!' } });
   */
  use(...fixtures: Fixture[]): Promise<string[]>;
  /**
   * The running test's requests, oldest first, optionally filtered; with `limit`, the newest `limit`.
   * @example expect(await gateway.requests({ path: '/v1/chat/completions' })).toHaveLength(1);
   */
  requests(filter?: Omit<RequestFilter, 'test'>, limit?: number): Promise<JournalEntry[]>;
  /**
   * How many of the running test's requests pass `filter`.
   * @example expect(await gateway.countRequests({ unmatched: true })).toBe(0);
   */
  countRequests(filter?: Omit<RequestFilter, 'test'>): Promise<number>;
  /** Scenario states as the running test's requests see them. */
  readonly scenarios: {
    /**
     * Each scenario the fixtures name, with its state and the states its fixtures mention.
     * @example (await gateway.scenarios.list()).map((s) => `${s.name}: ${s.state}`) // ['checkout: Started']
     */
    list(): Promise<{ name: string; state: string; possibleStates: string[] }[]>;
    /**
     * Puts a scenario in a state for the running test's requests.
     * @example await gateway.scenarios.set('checkout', 'paid');
     */
    set(name: string, state: string): Promise<void>;
    /**
     * Puts the running test's scenarios back in 'Started'.
     * @example await gateway.scenarios.reset();
     */
    reset(): Promise<void>;
  };
  /**
   * The objects the running test's requests made that the server holds (files, batches, stored
   * responses...), store by store.
   * @example (await gateway.resources()).find((s) => s.name === 'openai.files')?.count // 1
   */
  resources(): Promise<HeldStoreReport[]>;
  /**
   * Drops the running test's fixtures, counters, scenario states, journal view and held objects (done after each test).
   * @example await gateway.reset(); // mid-test: start again with none of its own fixtures
   */
  reset(): Promise<void>;
}
