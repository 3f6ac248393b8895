// The Gemini wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import { geminiErrorResponse, geminiStreamError } from './errors.ts';

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
  // Google's API versions /v1beta and /v1alpha are its own; its SDK sends the key in x-goog-api-key.
  recognizes: (request) => /^\/v1(?:beta|alpha)(?:\/|$)/.test(request.url.pathname) || request.header('x-goog-api-key') !== undefined,
};
