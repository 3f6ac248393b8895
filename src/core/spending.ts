// What each API key has spent since the start (or the last reset): requests, tokens and USD, kept
// apart from the journal so totals stay whole when the journal's ring drops old entries.
import { roundUsd } from './prices.ts';
import type { Usage } from './reply.ts';
import type { SpendTotals, CostReport } from '../types/spending.ts';
export type { SpendTotals } from '../types/spending.ts';

/** Keys whose totals are kept at most (the least recently charged dropped first): memory stays bounded. */
const MAX_SPENDING_KEYS = 10_000;

/** Totals of nothing spent yet. */
export const noSpend = (): SpendTotals => ({
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheCreationInputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  unpriced: 0,
});

/** Adds one reply's usage and cost (undefined: the model has no price) to `into`. */
export function addSpend(into: SpendTotals, usage: Usage, costUsd: number | undefined): void {
  into.requests++;
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.cachedInputTokens += usage.cachedInputTokens;
  into.cacheCreationInputTokens += usage.cacheCreationInputTokens ?? 0;
  into.reasoningTokens += usage.reasoningTokens;
  // Rounded like each request's cost, so a total is the sum a reader of the journal gets.
  if (costUsd === undefined) into.unpriced++;
  else into.costUsd = roundUsd(into.costUsd + costUsd);
}

export class Spending {
  private readonly byToken = new Map<string, SpendTotals>();
  /** The token charged last, so the most recent in `byToken`'s order: charging it again moves nothing. */
  private last?: string;

  /** Adds one reply's usage and cost (undefined: the model has no price) to `token`'s totals. */
  charge(token: string, usage: Usage, costUsd: number | undefined): void {
    let totals = this.byToken.get(token);
    if (totals && token === this.last) return addSpend(totals, usage, costUsd);
    if (totals) this.byToken.delete(token);
    else {
      totals = noSpend();
      if (this.byToken.size >= MAX_SPENDING_KEYS) this.byToken.delete(this.byToken.keys().next().value!);
    }
    this.byToken.set(token, totals);
    this.last = token;
    addSpend(totals, usage, costUsd);
  }

  report(): CostReport {
    const total = noSpend();
    const tokens = [...this.byToken].map(([token, t]) => {
      total.requests += t.requests;
      total.inputTokens += t.inputTokens;
      total.outputTokens += t.outputTokens;
      total.cachedInputTokens += t.cachedInputTokens;
      total.cacheCreationInputTokens += t.cacheCreationInputTokens;
      total.reasoningTokens += t.reasoningTokens;
      total.costUsd = roundUsd(total.costUsd + t.costUsd);
      total.unpriced += t.unpriced;
      return { token, ...t };
    });
    return { tokens, total };
  }

  clear(): void {
    this.byToken.clear();
    this.last = undefined;
  }
}
