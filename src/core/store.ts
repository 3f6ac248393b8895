// A bounded in-memory store: the oldest entry goes first when it is full. For state the real services
// keep between requests (stored responses), so memory stays flat however long a run lasts.

export class BoundedStore<V> {
  private readonly items = new Map<string, V>();
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get(id: string): V | undefined {
    return this.items.get(id);
  }

  set(id: string, value: V): void {
    this.items.delete(id);
    this.items.set(id, value);
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value as string);
  }

  delete(id: string): boolean {
    return this.items.delete(id);
  }

  clear(): void {
    this.items.clear();
  }

  get size(): number {
    return this.items.size;
  }
}
