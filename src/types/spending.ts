// What was spent: the public types of the cost report (core/spending.ts adds it up).

/** One key's totals. */
export interface SpendTotals {
  /** Requests answered with a reply (errors and refusals cost nothing). */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationInputTokens: number;
  reasoningTokens: number;
  /** USD, at the price table in force (see costOf in core/prices.ts). */
  costUsd: number;
  /** Of `requests`, those for a model the price table has no price for (counted at 0 USD). */
  unpriced: number;
}

/** Totals per token, and over all of them: what `gateway.costs()` and `GET /__admin/costs` return. */
export interface CostReport {
  tokens: ({ token: string } & SpendTotals)[];
  total: SpendTotals;
}
