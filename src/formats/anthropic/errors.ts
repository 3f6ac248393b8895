// GatewayError → Anthropic's status, headers and `{type:"error", error:{type, message}, request_id}` body.
import type { ErrorKind, GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';

const TYPE: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  quota: 'rate_limit_error',
  server: 'api_error',
  overloaded: 'overloaded_error',
  unavailable: 'api_error',
};

/** Rate-limit headers Anthropic sends with a 429, unless the error brings its own. */
const RATE_LIMITED = {
  'retry-after': '1',
  'anthropic-ratelimit-requests-limit': '50',
  'anthropic-ratelimit-requests-remaining': '0',
  'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:01Z',
  'anthropic-ratelimit-tokens-limit': '40000',
  'anthropic-ratelimit-tokens-remaining': '0',
  'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:01Z',
};

/** The error body; a batch result's error has no request of its own (`request_id: null`). */
export function anthropicErrorBody(error: GatewayError, requestId: string | null) {
  // `details` (with its `error_code`) only where the service sends it: @anthropic-ai/sdk raises a typed error by it.
  const details = error.details ? { details: error.details } : {};
  return { type: 'error', error: { type: TYPE[error.kind], message: error.message, ...details }, request_id: requestId };
}

/** A failure as Anthropic answers it: status, body (with the request id), and its rate-limit headers on a 429. */
export function anthropicErrorResponse(error: GatewayError, requestId: string): Outbound {
  const headers = error.status === 429 ? { ...RATE_LIMITED, ...error.headers } : error.headers;
  return json(anthropicErrorBody(error, requestId), error.status, headers);
}

export const anthropicStreamError = (error: GatewayError, requestId: string): RecordedEvent => ({
  event: 'error',
  data: JSON.stringify(anthropicErrorBody(error, requestId)),
});
