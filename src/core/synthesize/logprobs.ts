// Per-token log probabilities for a generated text: the chosen token is always the likeliest.
import { Rng } from '../seed.ts';
import { splitTokens } from '../tokens.ts';

export interface TokenLogprob {
  token: string;
  logprob: number;
  alternatives: { token: string; logprob: number }[];
}

// More than the 20 alternatives OpenAI allows, so a draw always finds a fresh one.
const ALTERNATIVES = [
  ' the', ' a', ' it', ' and', ' to', ' of', ' in', ' is', ' that', ' this', '.', ',',
  ' you', ' we', ' for', ' on', ' with', ' as', ' be', ' at', ' or', ' not',
];

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** One entry per token of `text`, with `top` alternatives each (the chosen token among them, first). */
export function synthesizeLogprobs(text: string, top: number, key: number): TokenLogprob[] {
  const rng = new Rng(key);
  return splitTokens(text).map((token) => {
    const logprob = round(-rng.next() * 0.5);
    const alternatives = [{ token, logprob }];
    let floor = logprob;
    while (alternatives.length < top) {
      const alt = rng.pick(ALTERNATIVES);
      if (alternatives.some((a) => a.token === alt)) continue;
      floor = round(floor - 0.5 - rng.next() * 3);
      alternatives.push({ token: alt, logprob: floor });
    }
    return { token, logprob, alternatives: alternatives.slice(0, top) };
  });
}
