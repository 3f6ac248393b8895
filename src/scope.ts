// One test's state on a gateway shared by many tests (one standalone server for a whole suite, parallel
// workers): a request carrying `x-mock-test-id: <id>` is that test's. The test gets its own journal
// view, its own run-time fixtures (tried before the shared ones), its own fixture counters and scenario
// states: a "scope", made on first use, dropped by that test's reset, and bounded in number (the least
// recently used goes first). Requests without the header use the shared state, as they always did.
// The objects a test's requests make (files, batches, stored responses: core/stores.ts) are its own
// too: its requests see them and the shared ones, other tests never do, and its scope's end drops them.
import { Journal, type JournalEntry } from './core/journal.ts';
import type { StoreKind, StoreRegistry, StoreView } from './core/stores.ts';
import { GatewayError } from './core/errors.ts';
import { FixtureScope } from './fixtures/match.ts';
import { addSpend, noSpend, type SpendTotals } from './core/spending.ts';
import type { Usage } from './core/reply.ts';

/** The header that marks a request (or a WebSocket upgrade) as one test's. */
export const TEST_ID_HEADER = 'x-mock-test-id';
/** Live test scopes a gateway keeps; making one more drops the least recently used. */
const MAX_TEST_SCOPES = 256;
/** Longest test id, in characters. */
export const MAX_TEST_ID_CHARS = 256;

/** One test's state. */
class TestScope {
  readonly fixtures: FixtureScope;
  /** This test's journal view: the entries recorded against this object (clearing the view replaces it). */
  view = {};
  readonly id: string;
  /** What this test's replies cost (every token's), since its scope was made: its reset starts them at zero. */
  readonly costs: SpendTotals = noSpend();
  /** Which life of the test id this is: a reset test comes back with a new one, so its old state keys (stateKey) reach nothing. */
  readonly generation: number;
  /** Who holds the objects this life of the test makes (stores.ts's Owner key). */
  readonly ownerKey: string;
  constructor(id: string, generation: number) {
    this.id = id;
    this.generation = generation;
    this.ownerKey = `${generation}:${id}`;
    this.fixtures = new FixtureScope(id, generation);
  }
}

/** The test id an owner key names (undefined for the shared space, ''). */
export function ownerTest(key: string): string | undefined {
  return key === '' ? undefined : key.slice(key.indexOf(':') + 1);
}

/** The live test scopes, by test id, least recently used first. */
export class TestScopes {
  private readonly live = new Map<string, TestScope>();
  private made = 0;
  readonly capacity: number;
  /** Told the owner key of each scope that ends (reset, or pushed out), so its stored objects go with it. */
  private readonly ended: (ownerKey: string) => void;
  constructor(capacity = MAX_TEST_SCOPES, ended: (ownerKey: string) => void = () => {}) {
    this.capacity = capacity;
    this.ended = ended;
  }

  /** The test's scope, made on first use (dropping the least recently used one past the ceiling). */
  get(id: string): TestScope {
    let scope = this.live.get(id);
    if (scope) this.live.delete(id);
    else scope = new TestScope(id, ++this.made);
    this.live.set(id, scope);
    while (this.live.size > this.capacity) this.drop(this.live.keys().next().value!);
    return scope;
  }

  /** The test's scope if it is live; reading never makes one. */
  peek(id: string): TestScope | undefined {
    return this.live.get(id);
  }

  drop(id: string): boolean {
    const scope = this.live.get(id);
    if (!scope) return false;
    this.live.delete(id);
    this.ended(scope.ownerKey);
    return true;
  }

  clear(): void {
    for (const id of [...this.live.keys()]) this.drop(id);
  }

  /** Whether an owner key is a live test's current life. */
  isLive(ownerKey: string): boolean {
    const at = ownerKey.indexOf(':');
    return this.live.get(ownerKey.slice(at + 1))?.generation === Number(ownerKey.slice(0, at));
  }

  all(): TestScope[] {
    return [...this.live.values()];
  }

  /**
   * Adds a reply's usage and cost to the totals of the test its entry was sent with, if any. Its scope
   * was made when the entry was recorded; one reset (or dropped) since is not made again for it.
   */
  charge(entry: Pick<JournalEntry, 'headers'>, usage: Usage, costUsd: number | undefined): void {
    const id = entryTestId(entry);
    const scope = id === undefined ? undefined : this.peek(id);
    if (scope) addSpend(scope.costs, usage, costUsd);
  }

  /**
   * The key of per-client state (the prompt cache, rate windows) for a request: its token, or its token
   * and test (id and generation) when it carries a test id, so tests sharing a server and a token do not
   * share that state, and a test's reset starts it afresh (what the old key held ages out of its bounded store).
   * A token comes from a header and holds no line break, so the two kinds of key never collide.
   */
  stateKey(token: string, header: (name: string) => string | undefined): string {
    const test = testIdOf(header(TEST_ID_HEADER));
    return test === undefined ? token : `${token}\ntest=${test}#${this.get(test).generation}`;
  }
}

/**
 * A store as a request sees it (stores.ts): the objects of its test (`x-mock-test-id`) and the shared
 * ones; what it keeps is its test's (the shared space's, without a test id).
 */
export function heldFor<V>(
  ctx: { runtime: { stores: StoreRegistry; testScopes: TestScopes }; inbound: { header(name: string): string | undefined } },
  kind: StoreKind<V>,
): StoreView<V> {
  const { stores, testScopes } = ctx.runtime;
  return stores.of(kind).view(stores.owner(requestOwnerKey(testScopes, (name) => ctx.inbound.header(name))));
}

/** The owner key of a request's objects: its test's current life, or '' (shared) without a test id; a malformed id is the 400 requestTestId gives. */
export function requestOwnerKey(scopes: TestScopes, header: (name: string) => string | undefined): string {
  const id = requestTestId(header);
  return id === undefined ? '' : scopes.get(id).ownerKey;
}

/** A test id as sent, or why it is refused: non-empty, printable ASCII, at most MAX_TEST_ID_CHARS. */
export function checkTestId(id: string, where: string): string {
  if (!id || id.length > MAX_TEST_ID_CHARS || !/^[\x20-\x7e]+$/.test(id)) {
    const got = !id ? 'an empty one' : id.length > MAX_TEST_ID_CHARS ? `${id.length} characters` : 'other characters';
    throw new GatewayError(
      'invalid_request',
      `Invalid test id (${where}): a test id is 1 to ${MAX_TEST_ID_CHARS} printable ASCII characters, got ${got}.`,
      { param: where },
    );
  }
  return id;
}

/** The test id a request carries (header as sent, trimmed), if a valid one. */
function testIdOf(value: string | undefined): string | undefined {
  const id = value?.trim();
  if (!id) return undefined;
  try {
    return checkTestId(id, TEST_ID_HEADER);
  } catch {
    return undefined;
  }
}

/** The test id a request carries (an empty header is none); a malformed one is refused with a 400 that says what a test id is. */
export function requestTestId(header: (name: string) => string | undefined): string | undefined {
  const value = header(TEST_ID_HEADER)?.trim();
  return value ? checkTestId(value, TEST_ID_HEADER) : undefined;
}

// Which test's view each entry was recorded in (WeakMap: entries leave with the journal's ring).
const views = new WeakMap<JournalEntry, object>();

/** The journal, also filing each entry that carries a test id in that test's view. */
export class ScopedJournal extends Journal {
  private readonly scopes: TestScopes;
  constructor(capacity: number, scopes: TestScopes) {
    super(capacity);
    this.scopes = scopes;
  }

  override record(entry: JournalEntry): JournalEntry {
    const id = testIdOf(entry.headers[TEST_ID_HEADER]);
    if (id !== undefined) views.set(entry, this.scopes.get(id).view);
    return super.record(entry);
  }
}

/** Whether an entry is in the test's current view. */
export function inView(entry: JournalEntry, scope: TestScope): boolean {
  return views.get(entry) === scope.view;
}

/** The test id an entry was sent with, if any. */
export function entryTestId(entry: Pick<JournalEntry, 'headers'>): string | undefined {
  return testIdOf(entry.headers[TEST_ID_HEADER]);
}
