// What loads on first use (lazy.ts), loaded now: the standalone server calls this right after it
// listens, so its first API request finds the tokenizer and faker ready instead of waiting for them.
import { tokenizerReady } from './tokens.ts';
import { fakerReady } from './seed.ts';

/** Starts loading every lazy module in the background; a failure shows on the first request that needs it. */
export function preloadLazy(): void {
  for (const ready of [tokenizerReady, fakerReady]) void ready()?.catch(() => {});
}
