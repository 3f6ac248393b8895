// Per-token log probabilities for a generated text: the chosen token is always the likeliest.
import { GatewayError } from '../errors.ts';
import { Rng } from '../seed.ts';
import { tokenPieces } from '../tokens.ts';

export interface TokenLogprob {
  token: string;
  logprob: number;
  alternatives: { token: string; logprob: number }[];
}

// More than the 20 alternatives OpenAI allows, so a draw always finds a fresh one.
const ALTERNATIVES = [
  ' the',
  ' a',
  ' it',
  ' and',
  ' to',
  ' of',
  ' in',
  ' is',
  ' that',
  ' this',
  '.',
  ',',
  ' you',
  ' we',
  ' for',
  ' on',
  ' with',
  ' as',
  ' be',
  ' at',
  ' or',
  ' not',
];

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Log probabilities one reply may carry, over all its choices: a token with its alternatives counts
 * 1 + top. Enough for 2048 completion choices of 40 tokens at logprobs 5, or a 16k-token reply at
 * top_logprobs 20; a schema's JSON of a million characters would ask for 4 million (seconds of work).
 */
export const MAX_LOGPROB_ENTRIES = 500_000;

/** The log probabilities counted so far for one reply: pass the same count for each of its choices. */
export class LogprobCount {
  entries = 0;
}

/**
 * Counts the entries `text`'s log probabilities will take (each token 1 + `top`) before any is made,
 * refusing a reply whose choices together pass MAX_LOGPROB_ENTRIES: a stream that makes them later,
 * as it writes them, fails before its first byte, not part-way.
 */
export function chargeLogprobs(text: string, top: number, count: LogprobCount): void {
  let tokens = 0;
  for (const _ of tokenPieces(text)) tokens++;
  count.entries += tokens * (1 + top);
  if (count.entries > MAX_LOGPROB_ENTRIES) {
    throw new GatewayError(
      'invalid_request',
      `model-gateway-mock stopped computing log probabilities after ${MAX_LOGPROB_ENTRIES} entries (tokens × (1 + top alternatives), over all choices); ask for fewer top alternatives, fewer choices or fewer tokens (max_tokens).`,
    );
  }
}

/** One entry per token of `text`, with `top` alternatives each (the chosen token among them, first). */
export function synthesizeLogprobs(text: string, top: number, key: number, count = new LogprobCount()): TokenLogprob[] {
  chargeLogprobs(text, top, count);
  return [...logprobSteps(text, top, key)];
}

/** synthesizeLogprobs' entries one at a time, as they are taken (charge them first: chargeLogprobs). */
export function* logprobSteps(text: string, top: number, key: number): Generator<TokenLogprob> {
  const rng = new Rng(key);
  for (const token of tokenPieces(text)) {
    const logprob = round(-rng.next() * 0.5);
    const alternatives = [{ token, logprob }];
    let floor = logprob;
    while (alternatives.length < top) {
      const alt = rng.pick(ALTERNATIVES);
      if (alternatives.some((a) => a.token === alt)) continue;
      floor = round(floor - 0.5 - rng.next() * 3);
      alternatives.push({ token: alt, logprob: floor });
    }
    yield { token, logprob, alternatives: alternatives.slice(0, top) };
  }
}
