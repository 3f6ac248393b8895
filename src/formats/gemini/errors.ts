// GatewayError → Google's status and `{error:{code, message, status, details?}}` body, as the Gemini API
// answers it; googleErrors() gives the same for another Google service that words credentials its own way.
import type { ErrorKind, GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { sseFrame } from '../../pipeline/sse.ts';

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

/** How a Google service answers a missing or unknown credential. */
export interface GoogleService {
  /** The service's host name, as its ErrorInfo details name it. */
  host: string;
  /** The HTTP status, canonical status and ErrorInfo reason of a bad credential; `hint` follows the gateway's message. */
  badCredential: { http: number; status: string; reason: string; hint?: string };
}

/** The Gemini API: a bad API key is a 400 with reason API_KEY_INVALID. */
const GEMINI_API: GoogleService = {
  host: 'generativelanguage.googleapis.com',
  badCredential: { http: 400, status: 'INVALID_ARGUMENT', reason: 'API_KEY_INVALID' },
};

/**
 * HTTP statuses Google does not use, and what it sends instead: an oversized payload is a 400, an
 * overloaded model a 503 (a bad credential is the service's own, above).
 */
const REMAP: Record<number, number> = { 413: 400, 529: 503 };

/** Seconds until a retry may pass: the error's retry-after when it is in seconds (a rate window's end), else 1. */
const retryDelay = (error: GatewayError) => (/^\d+$/.test(error.headers['retry-after'] ?? '') ? error.headers['retry-after'] : '1');

function googleErrorBody(service: GoogleService, error: GatewayError) {
  if (error.kind === 'authentication') {
    const { http, status, reason, hint } = service.badCredential;
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com', metadata: { service: service.host } },
    ];
    return { http, body: { error: { code: http, message: hint ? `${error.message} ${hint}` : error.message, status, details } } };
  }
  const http = REMAP[error.status] ?? error.status;
  const details = http === 429 ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelay(error)}s` }] : undefined;
  return { http, body: { error: { code: http, message: error.message, status: STATUS[error.kind], ...(details ? { details } : {}) } } };
}

/** A Google service's error renderers: its status and body, retry-after on a 429, and the in-stream error chunk. */
export function googleErrors(service: GoogleService) {
  return {
    errorResponse(error: GatewayError): Outbound {
      const { http, body } = googleErrorBody(service, error);
      // Google says when to retry in the body's RetryInfo; HTTP clients (the AI SDK) read retry-after.
      return json(body, http, http === 429 ? { 'retry-after': '1', ...error.headers } : error.headers);
    },
    // @google/genai throws for a chunk that is `{error:{code:4xx|5xx}}`.
    streamError: (error: GatewayError): string => sseFrame(JSON.stringify(googleErrorBody(service, error).body)),
  };
}

export const { errorResponse: geminiErrorResponse, streamError: geminiStreamError } = googleErrors(GEMINI_API);
