// Azure OpenAI as the pipeline sees it: OpenAI's wire format (its streams, usage and rate-limit
// headers) with Azure's request id header, error bodies, and the callers it recognizes.
import type { FormatEdge } from '../../pipeline/call.ts';
import { openaiFormat } from '../openai/format.ts';
import { azureErrorResponse } from './errors.ts';

export const azureFormat: FormatEdge = {
  ...openaiFormat,
  // Azure's API Management names every answer's request id so; `x-request-id` carries it too (errors.ts).
  requestIdHeader: 'apim-request-id',
  errorResponse: azureErrorResponse,
  // Its clients call under /openai, and send their key as `api-key`, which no other vendor uses.
  recognizes: (request) => /^\/openai(?:\/|$)/.test(request.url.pathname) || request.header('api-key') !== undefined,
};
