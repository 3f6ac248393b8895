// Rate limits' public type (core/ratelimit.ts keeps the windows).

/** The limits of one scope. */
export interface RateLimits {
  /** Requests per window. */
  rpm: number;
  /** Tokens (input and output) per window. */
  tpm: number;
  /** The window's length in seconds (60: per minute). */
  windowSeconds: number;
}
