// The Anthropic wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import { anthropicErrorResponse, anthropicStreamError } from './errors.ts';
import type { RateWindow } from '../../core/ratelimit.ts';
import type { Usage } from '../../core/reply.ts';
import { count, field, foldedUsage, usageFrom } from '../raw-usage.ts';

/**
 * Anthropic's anthropic-ratelimit-* headers: requests, tokens (input and output together, the most
 * restrictive), input tokens and output tokens, each with its limit, what is left and when it is
 * whole again (RFC 3339). One tokens-per-minute limit stands for all three token limits here.
 */
function rateLimitHeaders(w: RateWindow): Record<string, string> {
  const reset = new Date(w.resetsAt * 1000).toISOString().replace('.000Z', 'Z');
  const headers: Record<string, string> = {};
  const put = (name: string, limit: number, used: number) => {
    headers[`anthropic-ratelimit-${name}-limit`] = String(limit);
    headers[`anthropic-ratelimit-${name}-remaining`] = String(Math.max(0, limit - used));
    headers[`anthropic-ratelimit-${name}-reset`] = reset;
  };
  put('requests', w.limits.rpm, w.requests);
  put('tokens', w.limits.tpm, w.inputTokens + w.outputTokens);
  put('input-tokens', w.limits.tpm, w.inputTokens);
  put('output-tokens', w.limits.tpm, w.outputTokens);
  return headers;
}

/**
 * The usage of a raw Anthropic body (a stream's: message_start's `message.usage`, then message_delta's
 * `usage` over it). `input_tokens` leaves out what was read from or written to the cache: the prompt is the three together.
 */
export function anthropicUsageOf(raw: unknown): Usage | undefined {
  const u = foldedUsage(raw, (p) => p.usage ?? field(p, 'message').usage);
  if (!u) return undefined;
  const cached = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  return usageFrom({
    input: count(u.input_tokens) + cached + written,
    output: count(u.output_tokens),
    cached,
    written,
    written1h: count(field(u, 'cache_creation').ephemeral_1h_input_tokens),
    reasoning: count(field(u, 'output_tokens_details').thinking_tokens),
  });
}

export const anthropicFormat: VendorFormat = {
  name: 'anthropic',
  requestIdHeader: 'request-id',
  requestIdPrefix: 'req_011',
  // Anthropic's SDK drops every server-sent event without an `event:` line.
  namedEvents: true,
  errorResponse: anthropicErrorResponse,
  streamError: anthropicStreamError,
  credentialHeaders: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
  rateLimitHeaders,
  usageOf: anthropicUsageOf,
  // Anthropic's SDKs send anthropic-version on every request, and its key in x-api-key, which no other vendor uses.
  recognizes: (request) => request.header('anthropic-version') !== undefined || request.header('x-api-key') !== undefined,
};
