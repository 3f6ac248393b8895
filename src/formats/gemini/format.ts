// The Gemini wire format as the pipeline sees it: its request ids and its error renderers.
import type { FormatEdge } from '../../transport/endpoint.ts';
import { geminiErrorResponse, geminiStreamError } from './errors.ts';

export const geminiFormat: FormatEdge = {
  name: 'gemini',
  requestIdHeader: 'x-request-id',
  requestIdPrefix: '',
  errorResponse: geminiErrorResponse,
  streamError: geminiStreamError,
};
