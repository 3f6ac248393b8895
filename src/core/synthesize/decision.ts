// A decision's calibrated probabilities (Gemini's decisions route): a deterministic distribution over a
// question's outcomes, one outcome leaning ahead as a model's answer does.
import { deriveKey, Rng } from '../seed.ts';

/** Probabilities (four decimals, summing to 1) of `n` outcomes for `key`. */
export function outcomeProbabilities(key: number, n: number): number[] {
  const rng = new Rng(deriveKey(key, 'decision'));
  // Cubed, the draws spread: most answers have a clear favourite, some are close calls.
  const weights = Array.from({ length: n }, () => rng.next() ** 3 + 0.01);
  const total = weights.reduce((a, b) => a + b, 0);
  const rounded = weights.map((w) => Math.round((w / total) * 10_000) / 10_000);
  // Rounding's remainder goes to the favourite, so the probabilities sum to exactly 1.
  const top = rounded.indexOf(Math.max(...rounded));
  rounded[top] = Math.round((1 - rounded.reduce((a, b, i) => (i === top ? a : a + b), 0)) * 10_000) / 10_000;
  return rounded;
}
