// One API endpoint as an msw handler. Every format's endpoints run the same pipeline here:
// request id → body (size limit, JSON) → auth → journal → the format's handler → vendor error on failure.
import { http, type HttpHandler } from 'msw';
import { GatewayError } from '../core/errors.ts';
import type { JournalEntry } from '../core/journal.ts';
import { hashString, makeId } from '../core/seed.ts';
import { HOW_TOKENS_ARE_SET, maskToken, presentedToken, type TokenWay } from '../auth/tokens.ts';
import type { Runtime } from '../runtime.ts';

/** What a wire format tells the pipeline about itself. */
export interface FormatEdge {
  name: string;
  /** The response header that carries the request id, in the vendor's name. */
  requestIdHeader: string;
  /** The vendor's id style for request ids, e.g. `req_` + 32 characters. */
  requestIdPrefix: string;
  /** Renders a failure in the vendor's status, headers and body. */
  errorResponse(error: GatewayError, requestId: string): Response;
}

export interface Call {
  request: Request;
  url: URL;
  params: Record<string, string | readonly string[] | undefined>;
  /** The parsed JSON body (undefined for bodiless methods). */
  body: unknown;
  requestId: string;
  runtime: Runtime;
  /** This request's journal entry: handlers fill in model, format, fixture and stream progress. */
  entry: JournalEntry;
}

export interface EndpointSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path from the host root, msw syntax (`/v1/models/:model`). */
  path: string;
  format: FormatEdge;
  /** How the token may be presented on this route. */
  auth: readonly TokenWay[];
  handle(call: Call): Response | Promise<Response>;
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `Request body too large: the limit is ${limit} bytes (set with --max-body or the maxBodyBytes option).`);
}

/** The body as text, refusing anything over `limit` bytes without buffering it all. */
async function readBody(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > limit) throw tooLarge(limit);
    return request.text();
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

function parseJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', 'We could not parse the JSON body of your request. The API expects a JSON object in the request body; what was sent was not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  return body;
}

function authenticate(call: Call, ways: readonly TokenWay[]): void {
  const token = presentedToken(call.request, call.url, ways);
  if (!token) {
    throw new GatewayError('authentication', `You didn't provide an API key. ${HOW_TOKENS_ARE_SET}`, { code: 'invalid_api_key' });
  }
  if (!call.runtime.tokens.has(token)) {
    throw new GatewayError('authentication', `Incorrect API key provided: ${maskToken(token)}. ${HOW_TOKENS_ARE_SET}`, { code: 'invalid_api_key' });
  }
}

async function run(runtime: Runtime, spec: EndpointSpec, request: Request, params: Call['params']): Promise<Response> {
  const url = new URL(request.url);
  const entry = runtime.journal.record({
    requestId: '',
    method: request.method,
    path: url.pathname,
    headers: Object.fromEntries(request.headers),
    format: spec.format.name,
    status: 0,
    stream: false,
    outcome: 'completed',
    eventsSent: 0,
  });
  let requestId = makeId(spec.format.requestIdPrefix, 32, hashString(`${request.method} ${url.pathname}${url.search}`, runtime.seed));
  let response: Response;
  try {
    let body: unknown;
    if (spec.method === 'POST') {
      const text = await readBody(request, runtime.maxBodyBytes);
      requestId = makeId(spec.format.requestIdPrefix, 32, hashString(`${request.method} ${url.pathname}${url.search}\n${text}`, runtime.seed));
      entry.requestId = requestId;
      authenticate({ request, url, params, body, requestId, runtime, entry }, spec.auth);
      body = parseJson(text);
      entry.body = body;
    } else {
      entry.requestId = requestId;
      authenticate({ request, url, params, body, requestId, runtime, entry }, spec.auth);
    }
    response = await spec.handle({ request, url, params, body, requestId, runtime, entry });
  } catch (error) {
    entry.requestId = requestId;
    const failure = error instanceof GatewayError ? error : internalError(error);
    response = spec.format.errorResponse(failure, requestId);
  }
  response.headers.set(spec.format.requestIdHeader, requestId);
  if (entry.fixture) response.headers.set('x-mock-fixture', entry.fixture);
  entry.status = response.status;
  return response;
}

function internalError(error: unknown): GatewayError {
  // A bug of ours must still answer like the service would, and say what went wrong.
  const detail = error instanceof Error ? error.message : String(error);
  return new GatewayError('server', `The server had an error while processing your request (model-gateway-mock: ${detail}).`);
}

/** The msw handler for one endpoint, on `origin` ('*' for any). */
export function endpointHandler(runtime: Runtime, origin: string, spec: EndpointSpec): HttpHandler {
  const verb = spec.method === 'POST' ? http.post : spec.method === 'DELETE' ? http.delete : http.get;
  return verb(origin + spec.path, ({ request, params }) => run(runtime, spec, request, params));
}

/** Answers other methods on known paths with 405 in the format's error body. */
export function methodNotAllowedHandler(origin: string, path: string, allowed: readonly string[], format: FormatEdge): HttpHandler {
  return http.all(origin + path, ({ request }) => {
    if (request.method === 'OPTIONS' || request.method === 'HEAD') return undefined;
    const message = `Method ${request.method} is not allowed on ${new URL(request.url).pathname}; use ${allowed.join(' or ')}.`;
    const requestId = makeId(format.requestIdPrefix, 32, hashString(`${request.method} ${request.url}`));
    const response = format.errorResponse(
      new GatewayError('method_not_allowed', message, { headers: { allow: allowed.join(', ') } }),
      requestId,
    );
    response.headers.set(format.requestIdHeader, requestId);
    return response;
  });
}
