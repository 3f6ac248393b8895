// GatewayError → Google's status and `{error:{code, message, status, details?}}` body.
import type { ErrorKind, GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';

/** Google's canonical status names. */
const STATUS: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'INVALID_ARGUMENT',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'INVALID_ARGUMENT',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  quota: 'RESOURCE_EXHAUSTED',
  server: 'INTERNAL',
  overloaded: 'UNAVAILABLE',
  unavailable: 'UNAVAILABLE',
};

/**
 * HTTP statuses Google does not use, and what it sends instead: a bad API key is a 400
 * (reason API_KEY_INVALID), an oversized payload a 400, an overloaded model a 503.
 */
const REMAP: Record<number, number> = { 401: 400, 413: 400, 529: 503 };

/** Seconds until a retry may pass: the error's retry-after when it is in seconds (a rate window's end), else 1. */
const retryDelay = (error: GatewayError) => (/^\d+$/.test(error.headers['retry-after'] ?? '') ? error.headers['retry-after'] : '1');

function geminiErrorBody(error: GatewayError) {
  const status = STATUS[error.kind];
  const http = REMAP[error.status] ?? error.status;
  const details =
    error.kind === 'authentication'
      ? [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
        ]
      : http === 429
        ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelay(error)}s` }]
        : undefined;
  return { http, body: { error: { code: http, message: error.message, status, ...(details ? { details } : {}) } } };
}

/** A failure as Google answers it: its remapped status and body, retry-after on a 429. */
export function geminiErrorResponse(error: GatewayError): Outbound {
  const { http, body } = geminiErrorBody(error);
  // Google says when to retry in the body's RetryInfo; HTTP clients (the AI SDK) read retry-after.
  return json(body, http, http === 429 ? { 'retry-after': '1', ...error.headers } : error.headers);
}

// @google/genai throws for a chunk that is `{error:{code:4xx|5xx}}`.
export const geminiStreamError = (error: GatewayError): RecordedEvent => ({ data: JSON.stringify(geminiErrorBody(error).body) });
