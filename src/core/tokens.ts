// Token counting with a real BPE tokenizer (o200k_base, the encoding of current OpenAI models).
// Other vendors' models tokenize differently; o200k is a close, stable stand-in for their counts.
import { decode, decodeGenerator, encode, vocabularySize } from 'gpt-tokenizer/encoding/o200k_base';
import { textOf, type Message } from './request.ts';
import type { ToolSpec } from './tools.ts';
import { memoize } from './memo.ts';

// Text such as "<|endoftext|>" in a prompt is ordinary text to us, never a special token.
const PLAIN = { disallowedSpecial: new Set<string>() };

/** Fixed costs of non-text parts (OpenAI's low-detail image cost, roughly). */
const PART_TOKENS = { image: 85, audio: 100, file: 100 } as const;

/** The token ids of `text`. The array is shared: do not modify it. */
export const tokenize = memoize((text: string): readonly number[] => (text ? encode(text, PLAIN) : []));

export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** The text split into one piece per token (pieces that would cut a character are merged). Shared: do not modify. */
export const splitTokens = memoize((text: string): readonly string[] => {
  const pieces: string[] = [];
  for (const piece of decodeGenerator(tokenize(text))) if (piece) pieces.push(piece);
  return pieces;
});

/** Text of token ids (for prompts sent as token arrays); false unless every id is in the vocabulary. */
export function detokenize(ids: readonly unknown[]): string | false {
  if (!ids.length || ids.some((id) => typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= vocabularySize)) return false;
  return decode(ids as number[]);
}

/** The first `max` tokens of `text`. */
export function truncateTokens(text: string, max: number): string {
  return splitTokens(text).slice(0, max).join('');
}

/**
 * Prompt tokens of a conversation, the way OpenAI counts chat input: each message costs its
 * content plus 3 tokens of framing, and every reply is primed with 3 more; tool definitions count
 * as their JSON.
 */
export function countPromptTokens(messages: readonly Message[], tools: readonly ToolSpec[] = []): number {
  let total = 3;
  if (tools.length) total += countTokens(JSON.stringify(tools));
  for (const m of messages) {
    total += 3 + countTokens(m.role) + countTokens(textOf(m));
    for (const part of m.parts) if (part.type !== 'text') total += PART_TOKENS[part.type];
    for (const call of m.toolCalls ?? []) total += countTokens(call.name) + countTokens(call.arguments);
  }
  return total;
}
