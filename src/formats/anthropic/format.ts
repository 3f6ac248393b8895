// The Anthropic wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import { anthropicErrorResponse, anthropicStreamError } from './errors.ts';

export const anthropicFormat: VendorFormat = {
  name: 'anthropic',
  requestIdHeader: 'request-id',
  requestIdPrefix: 'req_011',
  // Anthropic's SDK drops every server-sent event without an `event:` line.
  namedEvents: true,
  errorResponse: anthropicErrorResponse,
  streamError: anthropicStreamError,
  credentialHeaders: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
  // Anthropic's SDKs send anthropic-version on every request, and its key in x-api-key, which no other vendor uses.
  recognizes: (request) => request.header('anthropic-version') !== undefined || request.header('x-api-key') !== undefined,
};
