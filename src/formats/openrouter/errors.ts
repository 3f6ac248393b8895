// GatewayError → OpenRouter's status and `{error:{code, message, metadata?}}` body, the code being the
// HTTP status as a number. A spent quota is its 402 (out of credits); the rest keep OpenAI's status.
import type { GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { openaiErrorResponse } from '../openai/errors.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';

/** OpenRouter's body for a failure with `status`. */
function errorBody(error: GatewayError, status: number) {
  return { error: { code: status, message: error.message, ...(error.param && { metadata: { param: error.param } }) } };
}

/** A failure as OpenRouter answers it (OpenAI's status and rate-limit headers, but a spent quota is a 402). */
export function openrouterErrorResponse(error: GatewayError): Outbound {
  const openai = openaiErrorResponse(error);
  const status = error.kind === 'quota' ? 402 : openai.status;
  return json(errorBody(error, status), status, openai.headers);
}

/** A failure part-way through a stream: the error object as a chunk of its own, which OpenRouter's clients raise. */
export const openrouterStreamError = (error: GatewayError): RecordedEvent => ({ data: JSON.stringify(errorBody(error, error.status)) });
