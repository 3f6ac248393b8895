// Failures as data. The core and the formats' parsers throw GatewayError; each format renders it
// in its vendor's body. `kind` is format-neutral; `code` and `param` carry the detail formats show.

export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'rate_limit'
  | 'quota'
  | 'server'
  | 'overloaded'
  | 'unavailable';

const STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  rate_limit: 429,
  quota: 429,
  server: 500,
  overloaded: 529,
  unavailable: 503,
};

interface GatewayErrorInit {
  /** The field at fault, in the request's own path syntax (e.g. `messages[0].role`). */
  param?: string;
  /** A machine-readable code, e.g. `model_not_found`. */
  code?: string;
  /** Overrides the kind's usual status. */
  status?: number;
  /** Extra response headers (retry-after, allow…). */
  headers?: Record<string, string>;
  /** Machine-readable detail of the cause, where a vendor's body carries it (Anthropic's `error.details`, with its `error_code`). */
  details?: ErrorDetails;
}

/** An error's detail: its `error_code` and the fields that code defines. */
export type ErrorDetails = { error_code: string } & Record<string, unknown>;

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly param?: string;
  readonly code?: string;
  readonly headers: Record<string, string>;
  readonly details?: ErrorDetails;

  constructor(kind: ErrorKind, message: string, init: GatewayErrorInit = {}) {
    super(message);
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = init.status ?? STATUS[kind];
    this.param = init.param;
    this.code = init.code;
    this.headers = init.headers ?? {};
    if (init.details) this.details = init.details;
  }
}

/**
 * What was thrown, as the error the client gets: a GatewayError as it is; anything else is a bug of
 * ours, which must still answer like the service would (a 500) and say what went wrong.
 */
export function asGatewayError(error: unknown, processing: 'request' | 'event' = 'request'): GatewayError {
  if (error instanceof GatewayError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new GatewayError('server', `The server had an error while processing your ${processing} (model-gateway-mock: ${detail}).`);
}

/** The kind a bare HTTP status stands for (used when a fixture pins only a status). */
export function kindForStatus(status: number): ErrorKind {
  const exact = (Object.keys(STATUS) as ErrorKind[]).find((k) => STATUS[k] === status && k !== 'quota');
  if (exact) return exact;
  return status >= 500 ? 'server' : 'invalid_request';
}
