// Rate limits as the services apply them: requests and tokens per window (a minute by default), per
// scope (an API key; a key and a test when tests are isolated). Vendor-neutral: the formats turn a
// window's state into their own headers and error bodies. The windows run on the gateway's clock
// (Runtime.now(), whole seconds), so under the default fixed clock a window never passes: spent
// budget comes back by reset() or, with `clock: 'real'`, as time goes by.
import { GatewayError } from './errors.ts';
import type { RateLimits } from '../types/ratelimit.ts';
export type { RateLimits } from '../types/ratelimit.ts';

/**
 * Generous defaults: far above what a test or a bench sends, since under the fixed clock a window
 * never passes and a long run would otherwise reach them.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { rpm: 1_000_000, tpm: 1_000_000_000, windowSeconds: 60 };

/** A window's state after a request was counted: what the vendors' rate-limit headers report. */
export interface RateWindow {
  limits: RateLimits;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** When the window started and when it ends (full replenishment), Unix seconds on the gateway's clock. */
  startedAt: number;
  resetsAt: number;
  /** Seconds from now until the window ends (at least 1). */
  resetSeconds: number;
}

/** A request refused by a rate limit: which one, and the window it hit (the formats' headers and bodies read both). */
export class RateLimitError extends GatewayError {
  readonly limited: 'requests' | 'tokens';
  readonly window: RateWindow;

  constructor(limited: 'requests' | 'tokens', window: RateWindow, message: string) {
    super('rate_limit', message, { code: 'rate_limit_exceeded', headers: { 'retry-after': String(window.resetSeconds) } });
    this.limited = limited;
    this.window = window;
  }
}

interface Counts {
  startedAt: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** Scopes whose windows are kept at most (the oldest dropped first): memory stays bounded however many keys or tests run. */
const MAX_RATE_SCOPES = 10_000;

/** Every scope's current window, in one place. */
export class RateLimiter {
  private readonly windows = new Map<string, Counts>();

  /** The scope's window at `now`: a new one when none is open or the last has ended. */
  private open(scope: string, limits: RateLimits, now: number): Counts {
    let counts = this.windows.get(scope);
    if (!counts || now >= counts.startedAt + limits.windowSeconds) {
      counts = { startedAt: now, requests: 0, inputTokens: 0, outputTokens: 0 };
      this.windows.delete(scope);
      if (this.windows.size >= MAX_RATE_SCOPES) this.windows.delete(this.windows.keys().next().value!);
      this.windows.set(scope, counts);
    }
    return counts;
  }

  private view(counts: Counts, limits: RateLimits, now: number): RateWindow {
    const resetsAt = counts.startedAt + limits.windowSeconds;
    // Fields written out (no spread of counts): this runs for every limited request's reply.
    return {
      limits,
      startedAt: counts.startedAt,
      requests: counts.requests,
      inputTokens: counts.inputTokens,
      outputTokens: counts.outputTokens,
      resetsAt,
      resetSeconds: Math.max(1, resetsAt - now),
    };
  }

  /**
   * Counts one request in the scope's window, or refuses it (RateLimitError, a 429) when the window's
   * requests or tokens are spent. `who()` names the scope in the message (a masked key): called only
   * for a refusal, so an admitted request builds no message.
   */
  admit(scope: string, limits: RateLimits, now: number, who: () => string): void {
    const counts = this.open(scope, limits, now);
    const tokens = counts.inputTokens + counts.outputTokens;
    if (counts.requests >= limits.rpm || tokens >= limits.tpm) {
      const window = this.view(counts, limits, now);
      const per = limits.windowSeconds === 60 ? 'min' : `${limits.windowSeconds}s`;
      const fix =
        "Raise the limit with --rpm/--tpm, the rateLimits option or the token's rpm/tpm (POST /__admin/tokens), or reset with POST /__admin/reset.";
      if (counts.requests >= limits.rpm) {
        throw new RateLimitError(
          'requests',
          window,
          `Rate limit reached for ${who()} on requests per ${per} (RPM): Limit ${limits.rpm}, Used ${counts.requests}, Requested 1. Please try again in ${window.resetSeconds}s. ${fix}`,
        );
      }
      throw new RateLimitError(
        'tokens',
        window,
        `Rate limit reached for ${who()} on tokens per ${per} (TPM): Limit ${limits.tpm}, Used ${tokens}. Please try again in ${window.resetSeconds}s. ${fix}`,
      );
    }
    counts.requests++;
  }

  /** Adds a reply's tokens to the window `admit` counted its request in; the window as it then stands. */
  charge(scope: string, limits: RateLimits, now: number, inputTokens: number, outputTokens: number): RateWindow {
    const counts = this.open(scope, limits, now);
    counts.inputTokens += inputTokens;
    counts.outputTokens += outputTokens;
    return this.view(counts, limits, now);
  }

  /** Forgets every window (reset()). */
  clear(): void {
    this.windows.clear();
  }
}
