// The OpenAI wire format as the pipeline sees it: its request ids and its error renderers.
import type { FormatEdge } from '../../transport/endpoint.ts';
import { openaiErrorResponse, openaiStreamError } from './errors.ts';

export const openaiFormat: FormatEdge = {
  name: 'openai',
  requestIdHeader: 'x-request-id',
  requestIdPrefix: 'req_',
  errorResponse: openaiErrorResponse,
  streamError: openaiStreamError,
};
