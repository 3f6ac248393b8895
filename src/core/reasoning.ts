// How many tokens a reasoning model spends thinking before it answers: more for a higher effort (or a
// larger budget) and for a longer prompt, spread by the request's key, so the same request always
// reasons the same amount whatever format asked and whether it streams.
import type { CanonicalRequest, ReasoningEffort } from './request.ts';
import { deriveKey, Rng } from './seed.ts';

/** Reasoning tokens at each effort for a short prompt, before the prompt's length and the spread. */
const EFFORT_TOKENS: Record<ReasoningEffort, number> = { none: 0, minimal: 48, low: 320, medium: 1024, high: 3072, xhigh: 6144 };

/** The effort a reasoning model uses when the request names none (OpenAI's and Gemini's dynamic default). */
const DEFAULT_EFFORT: ReasoningEffort = 'medium';

/** A budget is spent to about half on a short prompt (and up to all of it on a long one). */
const BUDGET_SHARE = 0.5;

/** Each PROMPT_STEP tokens of prompt add the short prompt's reasoning again, up to PROMPT_FACTOR_MAX times it in all. */
const PROMPT_STEP = 6000;
const PROMPT_FACTOR_MAX = 5;

/**
 * Reasoning tokens of one choice: 0 for a model that does not reason (unless the request asks for shown
 * thinking with a budget, given on any model) or for effort `none`; otherwise the effort's figure (or
 * half the budget), times 1 to 5 by the prompt's length, times 0.8 to 1.2 by the key, within the budget.
 */
export function reasoningTokens(request: CanonicalRequest, reasoningModel: boolean, promptTokens: number, key: number): number {
  const asked = request.reasoning;
  const budget = asked?.budgetTokens;
  if (!reasoningModel && !(asked?.show && budget !== undefined)) return 0;
  const base = budget !== undefined ? budget * BUDGET_SHARE : EFFORT_TOKENS[asked?.effort ?? DEFAULT_EFFORT];
  if (base <= 0) return 0;
  const factor = Math.min(PROMPT_FACTOR_MAX, 1 + promptTokens / PROMPT_STEP);
  const spread = 0.8 + 0.4 * new Rng(deriveKey(key, 'reasoning')).next();
  const tokens = Math.max(1, Math.round(base * factor * spread));
  return budget === undefined ? tokens : Math.min(budget, tokens);
}
