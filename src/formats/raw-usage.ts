// Reading the usage out of a fixture's verbatim `raw` body (what record mode writes for every answer),
// so that a replayed answer is charged for the tokens its client is told of, not for a synthesized
// reply nobody sees. Each format says where its usage sits and what its fields mean (format.ts's
// usageOf); this finds the payloads and folds their usage objects together.
import type { Usage } from '../core/reply.ts';
import { isJsonObject, type JsonObject } from './fields.ts';

function parsed(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined; // `[DONE]` and other non-JSON data carry no usage
  }
}

/**
 * The usage objects of a raw body, later ones over earlier ones field by field, or undefined when no
 * payload has one. A raw body is one payload, an array of them (a stream's events, JSON or strings),
 * or a recorded stream `{ events: [{ event?, data }] }`. Folding, not taking the last, because some
 * streams split usage over events: Anthropic's message_start has the input, its message_delta the output.
 */
export function foldedUsage(raw: unknown, pick: (payload: JsonObject) => unknown): JsonObject | undefined {
  const recorded =
    isJsonObject(raw) && Array.isArray(raw.events) ? raw.events.map((e) => (isJsonObject(e) ? e.data : undefined)) : undefined;
  const payloads = recorded ?? (Array.isArray(raw) ? raw : [raw]);
  let usage: JsonObject | undefined;
  for (const payload of payloads) {
    const p = parsed(payload);
    const found = isJsonObject(p) ? pick(p) : undefined;
    if (isJsonObject(found)) usage = { ...usage, ...found };
  }
  return usage;
}

/** A token count from a wire body: a non-negative whole number, anything else none (0). */
export const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), Number.MAX_SAFE_INTEGER) : 0;

/** An object field of a wire body, or an empty one. */
export const field = (v: unknown, key: string): JsonObject => {
  const f = isJsonObject(v) ? v[key] : undefined;
  return isJsonObject(f) ? f : {};
};

/** The canonical usage from counts (parts clamped to their whole); optional kinds only when there are some. */
export function usageFrom(counts: {
  input: number;
  output: number;
  cached?: number;
  written?: number;
  written1h?: number;
  reasoning?: number;
  image?: number;
  audio?: number;
}): Usage {
  const { input, output } = counts;
  const some = (key: keyof Usage, n = 0) => (n > 0 ? { [key]: Math.min(n, input) } : {});
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: Math.min(counts.cached ?? 0, input),
    reasoningTokens: Math.min(counts.reasoning ?? 0, output),
    ...some('cacheCreationInputTokens', counts.written),
    ...some('cacheCreation1hInputTokens', Math.min(counts.written1h ?? 0, counts.written ?? 0)),
    ...some('imageInputTokens', counts.image),
    ...some('audioInputTokens', counts.audio),
  };
}
