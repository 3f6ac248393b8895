// A bounded in-memory store: the oldest entry goes first when it is full. For state the real services
// keep between requests (stored responses, generated image files), so memory stays flat however long
// a run lasts. Bounded by entry count and, when given a size function, by total bytes.

export class BoundedStore<V> {
  private readonly items = new Map<string, V>();
  readonly capacity: number;
  private readonly maxBytes: number;
  private readonly sizeOf?: (value: V) => number;
  private bytes = 0;

  constructor(capacity: number, bytes?: { max: number; sizeOf(value: V): number }) {
    this.capacity = capacity;
    this.maxBytes = bytes?.max ?? Infinity;
    this.sizeOf = bytes?.sizeOf;
  }

  get(id: string): V | undefined {
    return this.items.get(id);
  }

  /** Stores `value` (dropping the oldest entries to make room); a value larger than the byte bound is not kept. */
  set(id: string, value: V): void {
    this.delete(id);
    const size = this.sizeOf?.(value) ?? 0;
    if (size > this.maxBytes) return;
    this.items.set(id, value);
    this.bytes += size;
    while (this.items.size > this.capacity || this.bytes > this.maxBytes) this.delete(this.items.keys().next().value as string);
  }

  delete(id: string): boolean {
    const value = this.items.get(id);
    if (value === undefined && !this.items.has(id)) return false;
    this.bytes -= this.sizeOf?.(value as V) ?? 0;
    return this.items.delete(id);
  }

  clear(): void {
    this.items.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.items.size;
  }

  /** Bytes held, by the size function (0 without one). */
  get byteSize(): number {
    return this.bytes;
  }
}
