// The Anthropic wire format as the pipeline sees it: its request ids and its error renderers.
import type { FormatEdge } from '../../transport/endpoint.ts';
import { anthropicErrorResponse, anthropicStreamError } from './errors.ts';

export const anthropicFormat: FormatEdge = {
  name: 'anthropic',
  requestIdHeader: 'request-id',
  requestIdPrefix: 'req_011',
  errorResponse: anthropicErrorResponse,
  streamError: anthropicStreamError,
};
