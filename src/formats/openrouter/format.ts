// OpenRouter as the pipeline sees it: OpenAI's wire format (its streams, usage, rate-limit headers)
// with OpenRouter's error body, and the callers it recognizes (its paths are under /api/v1).
import type { FormatEdge } from '../../pipeline/call.ts';
import { openaiFormat } from '../openai/format.ts';
import { openrouterErrorResponse, openrouterStreamError } from './errors.ts';

export const openrouterFormat: FormatEdge = {
  ...openaiFormat,
  errorResponse: openrouterErrorResponse,
  streamError: openrouterStreamError,
  recognizes: (request) => /^\/api\/v1(?:\/|$)/.test(request.url.pathname),
};
