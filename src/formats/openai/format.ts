// The OpenAI wire format as the pipeline sees it: its request ids, how an API key travels, and its error renderers.
import type { VendorFormat } from '../format.ts';
import { openaiErrorResponse, openaiStreamError } from './errors.ts';

export const openaiFormat: VendorFormat = {
  name: 'openai',
  requestIdHeader: 'x-request-id',
  requestIdPrefix: 'req_',
  namedEvents: false,
  errorResponse: openaiErrorResponse,
  streamError: openaiStreamError,
  credentialHeaders: (key) => ({ authorization: `Bearer ${key}` }),
};
