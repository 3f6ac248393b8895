// Bounded memoization for pure functions of one key. Synthesis and tokenization are pure and
// dominate a reply's cost, and test suites repeat the same requests, so their results are kept.

/** `fn` with up to `size` results kept; the oldest is dropped first (hits do not reorder: cheaper). */
export function memoize<K, V>(fn: (key: K) => V, size = 2000): (key: K) => V {
  const cache = new Map<K, V>();
  return (key: K) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = fn(key);
    cache.set(key, value);
    if (cache.size > size) cache.delete(cache.keys().next().value as K);
    return value;
  };
}
