// A token's rate limits and spending as the pipeline applies them to a request: admitted (or refused
// with a 429) before any work, charged with its reply's tokens and cost after. The counting itself is
// in core (ratelimit.ts, spending.ts, prices.ts); the headers and bodies are the formats'.
import type { JournalEntry } from '../core/journal.ts';
import { costOf, priceOf } from '../core/prices.ts';
import type { RateLimits, RateWindow } from '../core/ratelimit.ts';
import type { Usage } from '../core/reply.ts';
import type { Runtime } from '../runtime.ts';
import { maskKey } from '../auth/keys.ts';

/** The limits `token` runs under: its own rpm/tpm, else the gateway's (their own object, untouched, when it has none). */
function limitsOf(runtime: Runtime, token: string): RateLimits {
  const own = runtime.tokens.get(token);
  const base = runtime.rateLimits;
  if (!own || (own.rpm === undefined && own.tpm === undefined)) return base;
  return { rpm: own.rpm ?? base.rpm, tpm: own.tpm ?? base.tpm, windowSeconds: base.windowSeconds };
}

/**
 * Counts a request in the window of `scope` (the token; per-test isolation passes token and test),
 * or throws the RateLimitError that the format renders as its 429.
 */
export function admitRequest(runtime: Runtime, token: string, scope: string): void {
  runtime.limiter.admit(scope, limitsOf(runtime, token), runtime.now(), () => `this token (${maskKey(token)})`);
}

/** What `usage` of `model` costs at the price table in force, times `share`; undefined when the model has no price. */
export function priceUsage(
  runtime: Pick<Runtime, 'prices' | 'catalogue'>,
  model: string | undefined,
  usage: Usage,
  share = 1,
): number | undefined {
  const price = model === undefined ? undefined : priceOf(runtime.prices, runtime.catalogue, model);
  return price && costOf(usage, price, share);
}

/**
 * After a reply: its tokens charged to the window, its cost on the journal entry and in the token's
 * totals. Returns the window as the reply's rate-limit headers report it.
 */
export function chargeReply(runtime: Runtime, token: string, entry: JournalEntry, scope: string): RateWindow {
  const usage = entry.usage;
  const limits = limitsOf(runtime, token);
  if (!usage) return runtime.limiter.charge(scope, limits, runtime.now(), 0, 0);
  // Priced already when the handler priced its parts itself (a batch: each request by its model, discounted).
  entry.costUsd ??= priceUsage(runtime, entry.model, usage);
  runtime.spending.charge(token, usage, entry.costUsd);
  runtime.testScopes.charge(entry, usage, entry.costUsd);
  return runtime.limiter.charge(scope, limits, runtime.now(), usage.inputTokens, usage.outputTokens);
}
