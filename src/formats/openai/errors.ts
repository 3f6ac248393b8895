// GatewayError → OpenAI's status, headers and `{error:{message, type, param, code}}` body.
import type { ErrorKind, GatewayError } from '../../core/errors.ts';
import { RateLimitError } from '../../core/ratelimit.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';

const TYPE: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_request_error',
  permission: 'invalid_request_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'requests',
  quota: 'insufficient_quota',
  server: 'server_error',
  overloaded: 'server_error',
  unavailable: 'server_error',
};

const DEFAULT_CODE: Partial<Record<ErrorKind, string>> = {
  rate_limit: 'rate_limit_exceeded',
  quota: 'insufficient_quota',
};

export function openaiErrorBody(error: GatewayError) {
  return {
    error: {
      message: error.message,
      // A rate limit names what ran out (`requests` or `tokens`); a spent quota is `insufficient_quota`.
      type: error instanceof RateLimitError ? error.limited : TYPE[error.kind],
      param: error.param ?? null,
      code: error.code ?? DEFAULT_CODE[error.kind] ?? null,
    },
  };
}

/** The rate-limit headers OpenAI sends with a 429, unless the error brings its own. */
const RATE_LIMITED = {
  'retry-after': '1',
  'x-ratelimit-limit-requests': '10000',
  'x-ratelimit-remaining-requests': '0',
  'x-ratelimit-reset-requests': '1s',
  'x-ratelimit-limit-tokens': '2000000',
  'x-ratelimit-remaining-tokens': '0',
  'x-ratelimit-reset-tokens': '1s',
};

/** OpenAI sends no 529 (Anthropic's overload): an overloaded model is its 503. */
const openaiStatus = (status: number) => (status === 529 ? 503 : status);

/** A failure as OpenAI answers it: status, body, and its rate-limit headers on a 429. */
export const openaiErrorResponse = (error: GatewayError): Outbound =>
  json(openaiErrorBody(error), openaiStatus(error.status), error.status === 429 ? { ...RATE_LIMITED, ...error.headers } : error.headers);

// The openai SDK throws an APIError for any event whose data has an `error` field.
export const openaiStreamError = (error: GatewayError): RecordedEvent => ({ data: JSON.stringify(openaiErrorBody(error)) });

/**
 * A failure part-way through a Responses stream as the service sends it: an `error` event with its code,
 * message and param, numbered after the `after` events that went before (the SDK raises it as an APIError).
 */
export function responsesStreamError(error: GatewayError, after: number): RecordedEvent {
  const { error: body } = openaiErrorBody(error);
  return {
    event: 'error',
    data: JSON.stringify({ type: 'error', code: body.code, message: body.message, param: body.param, sequence_number: after }),
  };
}

/** A socket session (realtime, Responses over WebSocket) over the ceiling on sessions open at once: its error message. */
export function tooManySessions(max: number): string {
  return `Too many concurrent sessions: ${max} are open, the emulator's ceiling (maxSockets, --max-sockets). Close one before opening another.`;
}
