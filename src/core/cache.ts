// Prompt caching: which prompt prefixes each scope (an API key, or a key and a test) has had cached,
// until when on the emulator's clock. A prefix is identified by a hash of the model, the tools and the
// messages up to a message boundary; caching is matched at those boundaries only. The state is a store
// (stores.ts): bounded in entries and bytes (the oldest goes first), dropped by reset and by its test's.
import type { CacheRequest, CanonicalRequest } from './request.ts';
import { StringHasher } from './seed.ts';
import { defineStore, HeldStore, SHARED, type Owner } from './stores.ts';

/** The smallest prefix cached when the catalogue gives a model none (most models' published minimum). */
export const DEFAULT_CACHE_MIN_TOKENS = 1024;

/** Message boundaries looked at before the last breakpoint (or the prompt's end), as Anthropic's 20-block lookback. */
const CACHE_LOOKBACK = 20;

/** Entries kept in all, and their bytes (a key of the scope and two hashes, and an expiry). */
const ENTRY_BYTES = 96;
const CACHE_BYTES = 4 * 1024 * 1024;

/** Each cached prefix's expiry (Unix seconds), by its key. */
export const PROMPT_CACHE = defineStore<number>({
  name: 'prompt-cache',
  title: 'Cached prompt prefixes',
  maxCount: 10_000,
  maxBytes: CACHE_BYTES,
  whenFull: 'drop-oldest',
  describe: (expires) => ({ expires_at: expires }),
});

/** What caching made of one prompt: tokens read from the cache, tokens written (and of those, kept an hour or more). */
interface CacheFigures {
  read: number;
  written: number;
  writtenLong: number;
}

const NONE: CacheFigures = { read: 0, written: 0, writtenLong: 0 };

/** A TTL of an hour or more counts as a long write (Anthropic's `ttl: "1h"`). */
const LONG_TTL_SECONDS = 3600;

export class PromptCache {
  private readonly entries: HeldStore<number>;

  /** Over the runtime's store of PROMPT_CACHE (a store of its own when none is given). */
  constructor(entries = new HeldStore(PROMPT_CACHE, CACHE_BYTES)) {
    this.entries = entries;
  }

  /**
   * Looks the prompt's prefixes up for `scope` at `now` (Unix seconds), refreshes what it hits and
   * stores what it writes, as `owner`'s (the request's test, which the scope names too). `prefix` is the
   * prompt's prefix tokens (promptPrefixTokens: after the tools, then after each message); prefixes
   * under `minTokens` are never cached.
   */
  account(
    scope: string,
    now: number,
    request: CanonicalRequest,
    prefix: readonly number[],
    minTokens: number,
    owner: Owner = SHARED,
  ): CacheFigures {
    const asked = request.cache;
    // An explicit cache the request names is read whole (its store counted it when it was made).
    if (asked?.held) return { read: asked.held, written: 0, writtenLong: 0 };
    // Most prompts are shorter than any cacheable prefix: nothing to hash or look up.
    if (!asked || (!asked.automatic && !asked.breakpoints?.length) || prefix.at(-1)! < minTokens) return NONE;
    const keys = boundaryKeys(scope, request, asked);
    const keep = (key: string, expires: number) => this.entries.set(key, expires, key.length * 2 + ENTRY_BYTES, owner);
    const live = (at: number) => {
      const expires = this.entries.get(keys(at), owner);
      return expires !== undefined && expires > now;
    };
    if (asked.automatic) {
      const { stepTokens, ttlSeconds } = asked.automatic;
      const last = prefix.length - 1;
      let hit = -1;
      for (let at = last; at >= Math.max(0, last - CACHE_LOOKBACK) && hit < 0; at--) if (prefix[at] >= minTokens && live(at)) hit = at;
      for (let at = Math.max(0, last - CACHE_LOOKBACK); at <= last; at++) if (prefix[at] >= minTokens) keep(keys(at), now + ttlSeconds);
      // Automatic caching reports what it read, rounded down to its step; writes cost nothing and are not reported.
      return hit < 0 ? NONE : { read: Math.floor(prefix[hit] / stepTokens) * stepTokens, written: 0, writtenLong: 0 };
    }
    // Breakpoints: the longest live prefix at or before the last breakpoint is read (and refreshed with
    // the TTL of the breakpoint at or after it); each breakpoint past it is written, its segment at its TTL.
    const points = [...asked.breakpoints!].sort((a, b) => a.after - b.after).map((p) => ({ at: p.after + 1, ttl: p.ttlSeconds }));
    const lastAt = points.at(-1)!.at;
    let read = 0;
    let readAt = -1;
    for (let at = lastAt; at >= Math.max(0, lastAt - CACHE_LOOKBACK) && readAt < 0; at--) {
      if (prefix[at] >= minTokens && live(at)) readAt = at;
    }
    if (readAt >= 0) {
      read = prefix[readAt];
      keep(keys(readAt), now + (points.find((p) => p.at >= readAt) ?? points.at(-1)!).ttl);
    }
    let written = 0;
    let writtenLong = 0;
    let from = read;
    for (const p of points) {
      const tokens = prefix[p.at];
      if (tokens < minTokens || tokens <= from) continue;
      keep(keys(p.at), now + p.ttl);
      written += tokens - from;
      if (p.ttl >= LONG_TTL_SECONDS) writtenLong += tokens - from;
      from = tokens;
    }
    return { read, written, writtenLong };
  }

  /** Prefixes held, for tests and the state report. */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * The cache key of each message boundary: the scope and routing key, the model and tools, and a
 * running hash of the messages up to the boundary (each message's JSON hashed once).
 */
function boundaryKeys(scope: string, request: CanonicalRequest, asked: CacheRequest): (at: number) => string {
  const hasher = new StringHasher().update(request.model).update('\u0000').update(JSON.stringify(request.tools));
  const digests = [hasher.digest()];
  for (const m of request.messages) digests.push(hasher.update('\u0000').update(JSON.stringify(m)).digest());
  const head = `${scope}\u0000${asked.automatic?.key ?? ''}\u0000`;
  return (at) => head + digests[at].toString(36);
}
