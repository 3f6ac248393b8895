// The OpenAI wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import { openaiErrorResponse, openaiStreamError } from './errors.ts';
import type { RateWindow } from '../../core/ratelimit.ts';
import type { Usage } from '../../core/reply.ts';
import { count, field, foldedUsage, usageFrom } from '../raw-usage.ts';

/** A duration as OpenAI's reset headers write it: `1s`, `6m0s`, `1h2m3s`. */
function openaiDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}

/** OpenAI's x-ratelimit-* headers: limits, what is left in the window, and when it is whole again. */
function rateLimitHeaders(w: RateWindow): Record<string, string> {
  const reset = openaiDuration(w.resetSeconds);
  return {
    'x-ratelimit-limit-requests': String(w.limits.rpm),
    'x-ratelimit-limit-tokens': String(w.limits.tpm),
    'x-ratelimit-remaining-requests': String(Math.max(0, w.limits.rpm - w.requests)),
    'x-ratelimit-remaining-tokens': String(Math.max(0, w.limits.tpm - w.inputTokens - w.outputTokens)),
    'x-ratelimit-reset-requests': reset,
    'x-ratelimit-reset-tokens': reset,
  };
}

/**
 * The usage of a raw OpenAI body: Chat Completions' and legacy completions' `usage.prompt_tokens`/
 * `completion_tokens` (with their details), the Responses API's `usage.input_tokens`/`output_tokens`
 * (a stream's in its `response.completed` event's `response`).
 */
function usageOf(raw: unknown): Usage | undefined {
  const u = foldedUsage(raw, (p) => p.usage ?? field(p, 'response').usage);
  if (!u) return undefined;
  const chat = 'prompt_tokens' in u || 'completion_tokens' in u;
  const input = field(u, chat ? 'prompt_tokens_details' : 'input_tokens_details');
  const output = field(u, chat ? 'completion_tokens_details' : 'output_tokens_details');
  return usageFrom({
    input: count(chat ? u.prompt_tokens : u.input_tokens),
    output: count(chat ? u.completion_tokens : u.output_tokens),
    cached: count(input.cached_tokens),
    written: count(input.cache_write_tokens),
    reasoning: count(output.reasoning_tokens),
    image: count(input.image_tokens),
    audio: count(input.audio_tokens),
  });
}

export const openaiFormat: VendorFormat = {
  name: 'openai',
  requestIdHeader: 'x-request-id',
  requestIdPrefix: 'req_',
  namedEvents: false,
  errorResponse: openaiErrorResponse,
  streamError: openaiStreamError,
  credentialHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  rateLimitHeaders,
  usageOf,
};
