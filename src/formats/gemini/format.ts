// The Gemini wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import type { Inbound } from '../../pipeline/exchange.ts';
import { geminiErrorResponse, geminiStreamError } from './errors.ts';
import type { Usage } from '../../core/reply.ts';
import { count, foldedUsage, usageFrom } from '../raw-usage.ts';

/** Tokens of one modality in a `*TokensDetails` list. */
function modality(details: unknown, name: string): number {
  if (!Array.isArray(details)) return 0;
  return details.reduce((n: number, d) => n + (d?.modality === name ? count(d.tokenCount) : 0), 0);
}

/**
 * The usage of a raw Gemini body: its `usageMetadata` (a stream's last, each chunk's being the total so
 * far). Thoughts are output apart from the candidates; a tool-use prompt is input apart from the prompt.
 */
function usageOf(raw: unknown): Usage | undefined {
  const u = foldedUsage(raw, (p) => p.usageMetadata);
  if (!u) return undefined;
  const thoughts = count(u.thoughtsTokenCount);
  return usageFrom({
    input: count(u.promptTokenCount) + count(u.toolUsePromptTokenCount),
    output: count(u.candidatesTokenCount) + thoughts,
    cached: count(u.cachedContentTokenCount),
    reasoning: thoughts,
    image: modality(u.promptTokensDetails, 'IMAGE'),
    audio: modality(u.promptTokensDetails, 'AUDIO'),
  });
}

export const geminiFormat: VendorFormat = {
  name: 'gemini',
  requestIdHeader: 'x-request-id',
  requestIdPrefix: '',
  namedEvents: false,
  errorResponse: geminiErrorResponse,
  streamError: geminiStreamError,
  credentialHeaders: (key) => ({ 'x-goog-api-key': key }),
  // Google sends no rate-limit headers: its 429 says when to retry in the body's RetryInfo.
  rateLimitHeaders: () => ({}),
  usageOf,
  // Google's API versions /v1beta and /v1alpha are its own; its SDK sends the key in x-goog-api-key.
  recognizes: (request) => /^\/v1(?:beta|alpha)(?:\/|$)/.test(request.url.pathname) || request.header('x-goog-api-key') !== undefined,
};

/** How a Gemini client may send its key: `?key=`, x-goog-api-key, or a bearer token. */
export const KEY_WAYS = ['query-key', 'x-goog-api-key', 'bearer'] as const;

/** Google clients send their key as x-goog-api-key or ?key=, and name themselves in x-goog-api-client. */
export const fromGoogleClient = (inbound: Inbound) =>
  inbound.header('x-goog-api-key') !== undefined ||
  inbound.header('x-goog-api-client') !== undefined ||
  inbound.url.searchParams.has('key');
