// The issued API keys' public types (auth/keys.ts keeps them).

/** What a token may do. */
export interface TokenScope {
  /** Models it may call; all when absent. */
  models?: string[];
  /** Requests it may make; unlimited when absent. */
  quota?: number;
  /** Requests per minute (per rate window); the gateway's default (`rateLimits.rpm`, --rpm) when absent. */
  rpm?: number;
  /** Tokens (input and output) per minute (per rate window); the gateway's default (`rateLimits.tpm`, --tpm) when absent. */
  tpm?: number;
}

export interface IssuedToken extends TokenScope {
  token: string;
  /** Requests made so far. */
  used: number;
}
