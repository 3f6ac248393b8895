// The objects the services keep between requests (stored responses, files, uploads, batches, generated
// images, cached prompt prefixes...), held in memory in stores that register themselves: a kind of
// store is declared once, where it is used (`defineStore`), with its ceilings in count and bytes and
// what it does when full; each runtime makes its store of a kind on first use, in its registry. Every
// object belongs to an owner (a test's life, or the shared space), so a test's reset drops its objects
// from every store, and the gateway's reset empties them all, with no list of stores to keep by hand.

/** Who holds an object: a test's life (its id and generation: see scope.ts), or the shared space (''). */
export interface Owner {
  /** '' for the shared space (requests without a test id). */
  readonly key: string;
  /** The registry's epoch when the owner was named: an owner named before a reset holds nothing after it. */
  readonly epoch: number;
}

/** The shared space, for stores outside any registry (tests of one store). */
export const SHARED: Owner = { key: '', epoch: 0 };

/** What a store's object shows on the pages: a few facts, by name. */
type HeldFacts = Record<string, string | number | boolean | null>;

/** Settings of the gateway a kind's ceilings may follow. */
interface StoreSettings {
  /** The `storeBytes` option. */
  storeBytes: number;
  /** The gateway's clock (Unix seconds), for kinds whose objects expire. */
  now?: () => number;
}

/** A kind of store: declared once at module level, made per runtime on first use. */
export interface StoreKind<V> {
  /** Unique, for the pages and reports: `openai.files`. */
  readonly name: string;
  /** What it holds, in words: `OpenAI files`. */
  readonly title: string;
  /** Most objects held at once. */
  readonly maxCount: number;
  /** Most bytes held at once (by the sizes given to `set`), fixed or from the gateway's settings. */
  readonly maxBytes: number | ((settings: StoreSettings) => number);
  /**
   * When an object does not fit: `drop-oldest` makes room by dropping the oldest objects (a cache, or
   * state whose loss a client survives); `refuse` keeps nothing and `set` says so (the format answers
   * with the service's error), so a user's object never disappears behind its back.
   */
  readonly whenFull: 'drop-oldest' | 'refuse';
  /** The facts the pages show of an object (its id is shown anyway). */
  describe?(value: V): HeldFacts;
  /**
   * Whether an object has expired at `now` (the gateway's clock). A `refuse` store that is full drops
   * its expired objects before it refuses: one past its time no longer counts against the ceilings.
   */
  expired?(value: V, now: number): boolean;
}

/** Every kind declared so far, in declaration order (a test fills each, resets, and finds each empty). */
const declared: StoreKind<unknown>[] = [];

/** Declares a kind of store; its runtimes' stores are made on first use (`registry.of(kind)`). */
export function defineStore<V>(kind: StoreKind<V>): StoreKind<V> {
  if (declared.some((k) => k.name === kind.name)) throw new Error(`store kind "${kind.name}" is declared twice`);
  declared.push(kind as StoreKind<unknown>);
  return kind;
}

/** The kinds declared by the modules loaded so far. */
export function declaredStores(): readonly StoreKind<unknown>[] {
  return declared;
}

interface Item<V> {
  id: string;
  owner: string;
  value: V;
  size: number;
}

/** One held object as reports list it. */
interface HeldItem {
  id: string;
  /** Its owner's key ('' when shared). */
  owner: string;
  bytes: number;
  facts: HeldFacts;
}

/** Where an owner's object lives in the store (test ids are printable ASCII: no line break). */
const slot = (owner: string, id: string) => `${owner}\n${id}`;

/**
 * A store of one kind in one runtime: bounded in count and bytes, each object with its owner. Objects
 * are by owner and id: two tests may hold objects of the same id (the same request made in each gives
 * the same id), and neither sees the other's. What an owner sees: a test, its own objects and the shared
 * ones; the shared space (requests without a test id), every object.
 */
export class HeldStore<V> {
  readonly kind: StoreKind<V>;
  readonly maxBytes: number;
  /** By slot, oldest first. */
  private readonly items = new Map<string, Item<V>>();
  /** Slots by owner, so an owner's objects go without a walk over everyone's. */
  private readonly byOwner = new Map<string, Set<string>>();
  /** Slots by id, for the shared space's look-ups and ids drawn anew. */
  private readonly byId = new Map<string, Set<string>>();
  private held = 0;
  private readonly live: (owner: Owner) => boolean;
  private readonly now?: () => number;

  constructor(kind: StoreKind<V>, maxBytes: number, live: (owner: Owner) => boolean = () => true, now?: () => number) {
    this.kind = kind;
    this.maxBytes = maxBytes;
    this.live = live;
    this.now = now;
  }

  /** Whether `size` more bytes (and, unless `replacing`, one more object) fit a `refuse` store as it holds now. */
  private room(size: number, replacing = 0, adds = true): boolean {
    return (!adds || this.items.size < this.kind.maxCount) && this.held - replacing + size <= this.maxBytes;
  }

  /** Drops every expired object (every owner's), when the kind's objects expire: a full store's last resort. */
  private dropExpired(): void {
    const expired = this.kind.expired;
    if (!expired || !this.now) return;
    const now = this.now();
    for (const [key, item] of [...this.items]) if (expired(item.value, now)) this.remove(key);
  }

  get maxCount(): number {
    return this.kind.maxCount;
  }

  /** The item `viewer` sees by `id`: its own, else a shared one; the shared space sees anyone's (its own first). */
  private seen(id: string, viewer: Owner): Item<V> | undefined {
    const own = this.items.get(slot(viewer.key, id));
    if (own) return own;
    if (viewer.key !== '') return this.items.get(slot('', id));
    const first = this.byId.get(id)?.values().next().value;
    return first === undefined ? undefined : this.items.get(first);
  }

  /** The object `viewer` sees by `id` (see `seen`). */
  get(id: string, viewer: Owner): V | undefined {
    return this.seen(id, viewer)?.value;
  }

  /** The object whoever holds it (a file served by URL to any client), with its owner's key. */
  find(id: string): { value: V; owner: string } | undefined {
    const item = this.seen(id, SHARED);
    return item && { value: item.value, owner: item.owner };
  }

  /** Whether anyone holds an object by this id (new ids are drawn until one is free). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * Whether one more object of `size` bytes would be kept now (a `refuse` store checks before the work);
   * a full one drops its expired objects first.
   */
  fits(size: number): boolean {
    if (size > this.maxBytes) return false;
    if (this.kind.whenFull === 'drop-oldest') return true;
    if (this.room(size)) return true;
    this.dropExpired();
    return this.room(size);
  }

  /**
   * Keeps `value` under `id` for `owner`, `size` bytes by the caller's count (replacing what the owner
   * held by that id). False when it is not kept: too big for the store, a `refuse` store full, or an
   * owner reset since it was named (work finished after its test's reset leaves nothing behind).
   */
  set(id: string, value: V, size: number, owner: Owner): boolean {
    if (!this.live(owner) || size > this.maxBytes) return false;
    const key = slot(owner.key, id);
    const old = this.items.get(key);
    if (this.kind.whenFull === 'refuse' && !this.room(size, old?.size ?? 0, !old)) {
      this.dropExpired();
      // The object being replaced may have expired and gone with the others.
      const still = this.items.get(key);
      if (!this.room(size, still?.size ?? 0, !still)) return false;
    }
    if (this.items.has(key)) this.remove(key);
    this.items.set(key, { id, owner: owner.key, value, size });
    index(this.byOwner, owner.key, key);
    index(this.byId, id, key);
    this.held += size;
    while (this.items.size > this.kind.maxCount || this.held > this.maxBytes) this.remove(this.items.keys().next().value as string);
    return true;
  }

  /**
   * Counts the object `viewer` sees by `id` at `size` bytes now (it grew or shrank in place), keeping
   * its owner. False, with nothing changed, when it is gone or a `refuse` store has no room for it.
   */
  resize(id: string, viewer: Owner, size: number): boolean {
    const item = this.seen(id, viewer);
    if (!item) return false;
    if (size > this.maxBytes || (this.kind.whenFull === 'refuse' && this.held - item.size + size > this.maxBytes)) return false;
    this.held += size - item.size;
    item.size = size;
    while (this.held > this.maxBytes) this.remove(this.items.keys().next().value as string);
    return true;
  }

  /** Deletes the object `viewer` sees by `id`; false when it sees none. */
  delete(id: string, viewer: Owner): boolean {
    const item = this.seen(id, viewer);
    return item !== undefined && this.remove(slot(item.owner, item.id));
  }

  private remove(key: string): boolean {
    const item = this.items.get(key);
    if (!item) return false;
    this.held -= item.size;
    this.items.delete(key);
    unindex(this.byOwner, item.owner, key);
    unindex(this.byId, item.id, key);
    return true;
  }

  /** The objects `viewer` sees (a test: its own and the shared ones; the shared space: all), oldest first, with their ids. */
  *visible(viewer: Owner): IterableIterator<[string, V]> {
    for (const item of this.items.values())
      if (viewer.key === '' || item.owner === viewer.key || item.owner === '') yield [item.id, item.value];
  }

  /** Drops every object of one owner (its test was reset, or pushed out of the live tests). */
  dropOwner(key: string): void {
    const keys = this.byOwner.get(key);
    if (keys) for (const k of [...keys]) this.remove(k);
  }

  clear(): void {
    this.items.clear();
    this.byOwner.clear();
    this.byId.clear();
    this.held = 0;
  }

  get size(): number {
    return this.items.size;
  }

  /** Bytes held, by the sizes given to `set`. */
  get bytes(): number {
    return this.held;
  }

  /** The store as `owner` sees it (what it keeps is `owner`'s). */
  view(owner: Owner): StoreView<V> {
    return new StoreView(this, owner);
  }

  /** Every object held (of every owner), oldest first, as the pages list them. */
  report(): HeldItem[] {
    return [...this.items.values()].map((item) => ({
      id: item.id,
      owner: item.owner,
      bytes: item.size,
      facts: this.kind.describe?.(item.value) ?? {},
    }));
  }
}

function index(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function unindex(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  set?.delete(value);
  if (set && !set.size) map.delete(key);
}

/** A store as one owner sees it: a test, its own objects and the shared ones; the shared space, all of them. */
export class StoreView<V> {
  readonly store: HeldStore<V>;
  readonly owner: Owner;

  constructor(store: HeldStore<V>, owner: Owner) {
    this.store = store;
    this.owner = owner;
  }

  get(id: string): V | undefined {
    return this.store.get(id, this.owner);
  }

  /** Keeps `value` as this owner's (see HeldStore.set); false when it is not kept. */
  set(id: string, value: V, size: number): boolean {
    return this.store.set(id, value, size, this.owner);
  }

  /** Deletes the object this owner sees by `id`; false when it sees none. */
  delete(id: string): boolean {
    return this.store.delete(id, this.owner);
  }

  /** Counts the object this owner sees by `id` at `size` bytes now, keeping its owner (see HeldStore.resize). */
  resize(id: string, size: number): boolean {
    return this.store.resize(id, this.owner, size);
  }

  /** The objects this owner sees, oldest first. */
  values(): V[] {
    return [...this.store.visible(this.owner)].map(([, value]) => value);
  }

  /** The objects this owner sees whose id starts with `prefix`, oldest first. */
  *entries(prefix = ''): IterableIterator<[string, V]> {
    for (const entry of this.store.visible(this.owner)) if (entry[0].startsWith(prefix)) yield entry;
  }
}

/** One runtime's stores, one per kind, made on first use; reset and per-owner drops reach them all. */
export class StoreRegistry {
  private readonly stores = new Map<StoreKind<never>, HeldStore<never>>();
  private readonly settings: StoreSettings;
  private readonly isLive: (key: string) => boolean;
  /** Counts the registry's clears: an owner named before one holds nothing after it. */
  private epoch = 0;

  /** `isLive(key)` says whether a test's owner key is still that test's current life. */
  constructor(settings: StoreSettings, isLive: (key: string) => boolean = () => true) {
    this.settings = settings;
    this.isLive = isLive;
  }

  /** This runtime's store of `kind`, made on first use. */
  of<V>(kind: StoreKind<V>): HeldStore<V> {
    let store = this.stores.get(kind as StoreKind<never>) as HeldStore<V> | undefined;
    if (!store) {
      const maxBytes = typeof kind.maxBytes === 'function' ? kind.maxBytes(this.settings) : kind.maxBytes;
      store = new HeldStore(
        kind,
        maxBytes,
        (owner) => owner.epoch === this.epoch && (owner.key === '' || this.isLive(owner.key)),
        this.settings.now,
      );
      this.stores.set(kind as StoreKind<never>, store as HeldStore<never>);
    }
    return store;
  }

  /** An owner named now: `key` '' for the shared space, else a test's owner key (scope.ts). */
  owner(key: string): Owner {
    return { key, epoch: this.epoch };
  }

  /** Every store made so far, in the order they were first used. */
  all(): HeldStore<unknown>[] {
    return [...this.stores.values()] as HeldStore<unknown>[];
  }

  /** Drops one owner's objects from every store. */
  drop(key: string): void {
    for (const store of this.stores.values()) store.dropOwner(key);
  }

  /** Empties every store; owners named before hold nothing after. */
  clear(): void {
    this.epoch++;
    for (const store of this.stores.values()) store.clear();
  }
}

/** A byte ceiling several holders draw from (realtime conversations across a gateway's sessions). */
export class SharedBytes {
  private used = 0;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Takes `bytes` if they fit under the ceiling, else takes nothing and says so. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes taken and not given back. */
  get held(): number {
    return this.used;
  }
}
