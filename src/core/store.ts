// A bounded in-memory store: the oldest entry goes first when it is full, by count or by bytes. For
// state the real services keep between requests (stored responses, generated files), so memory stays
// flat however long a run lasts.

export class BoundedStore<V> {
  private readonly items = new Map<string, { value: V; size: number }>();
  private held = 0;
  readonly capacity: number;
  readonly maxBytes: number;

  /** At most `capacity` entries and `maxBytes` bytes (as the sizes given to `set` add up). */
  constructor(capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.capacity = capacity;
    this.maxBytes = maxBytes;
  }

  get(id: string): V | undefined {
    return this.items.get(id)?.value;
  }

  /** Stores `value`, `size` bytes by the caller's estimate; one larger than the whole bound is not kept. */
  set(id: string, value: V, size = 0): void {
    this.delete(id);
    if (size > this.maxBytes) return;
    this.items.set(id, { value, size });
    this.held += size;
    while (this.items.size > this.capacity || this.held > this.maxBytes) this.delete(this.items.keys().next().value as string);
  }

  delete(id: string): boolean {
    const item = this.items.get(id);
    if (!item) return false;
    this.held -= item.size;
    return this.items.delete(id);
  }

  /** The entries whose id starts with `prefix`, oldest first (listing endpoints page through these). */
  *entries(prefix = ''): IterableIterator<[string, V]> {
    for (const [id, item] of this.items) if (id.startsWith(prefix)) yield [id, item.value];
  }

  /** The values held, oldest first. */
  values(): V[] {
    return [...this.items.values()].map((item) => item.value);
  }

  clear(): void {
    this.items.clear();
    this.held = 0;
  }

  get size(): number {
    return this.items.size;
  }

  /** Bytes held, by the sizes given to `set`. */
  get bytes(): number {
    return this.held;
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
