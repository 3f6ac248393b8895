// Bounded memoization for pure functions of one key. Synthesis and tokenization are pure and
// dominate a reply's cost, and test suites repeat the same requests, so their results are kept.
// The bound is in entries and in bytes (as `sizeOf` estimates them), so long keys cannot pile up.

interface MemoBounds<K, V = unknown> {
  /** Most results kept. Default 2000. */
  entries?: number;
  /** Most bytes kept, by `sizeOf`. Default 16 MiB. */
  bytes?: number;
  /** Estimated bytes of one entry (key and value); default 64. A result over a quarter of `bytes` is not kept. */
  sizeOf?: (key: K, value: V) => number;
}

/** A memoized function; `peek` and `keep` let a caller that computes a result another way (in slices) share the memo. */
export interface Memo<K, V> {
  (key: K): V;
  /** The kept result for `key`, if any. */
  peek(key: K): V | undefined;
  /** Keeps `value` as the result for `key` (within the bounds) and returns it. */
  keep(key: K, value: V): V;
}

/** `fn` with its results kept within `bounds`; the oldest is dropped first (hits do not reorder: cheaper). */
export function memoize<K, V>(fn: (key: K) => V, bounds: MemoBounds<K, V> | number = {}): Memo<K, V> {
  const { entries = 2000, bytes = 16 * 1024 * 1024, sizeOf = () => 64 } = typeof bounds === 'number' ? { entries: bounds } : bounds;
  const cache = new Map<K, { value: V; size: number }>();
  let held = 0;
  const keep = (key: K, value: V) => {
    // Two requests counting the same text in slices may both finish it: the first result stays.
    const had = cache.get(key);
    if (had !== undefined) return had.value;
    const size = sizeOf(key, value);
    if (size > bytes / 4) return value;
    cache.set(key, { value, size });
    held += size;
    while (cache.size > entries || held > bytes) {
      const [oldest, entry] = cache.entries().next().value as [K, { size: number }];
      cache.delete(oldest);
      held -= entry.size;
    }
    return value;
  };
  const memo = (key: K) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit.value;
    return keep(key, fn(key));
  };
  return Object.assign(memo, { peek: (key: K) => cache.get(key)?.value, keep });
}
