// One API endpoint and the pipeline every format's endpoints run, whatever the transport:
// request id → body (size limit, JSON) → auth → journal → the format's handler → vendor error on failure.
import { asGatewayError, GatewayError } from '../core/errors.ts';
import { boundEntry, boundedHeaders, JOURNAL_BODY_CHARS, shortenedBody, type JournalEntry } from '../core/journal.ts';
import { fakerReady, hashStrings, hashStringsInSlices, makeId } from '../core/seed.ts';
import { tokenizerReady } from '../core/tokens.ts';
import { HOW_KEYS_ARE_SET, maskedSearch, maskKey, ModelScopeError, presentedKey, type EphemeralKind, type KeyWay } from '../auth/keys.ts';
import type { Runtime } from '../runtime.ts';
import type { BodyEndpoint, Call, EndpointSpec, FormatEdge, Params } from './call.ts';
import {
  abandon,
  ClientGone,
  isProxied,
  isUpload,
  type FormBody,
  type Inbound,
  type JsonObject,
  type Outbound,
  type Upload,
} from './exchange.ts';
import { captureResponse } from './capture.ts';
import { framingOf } from './framing.ts';
import { decodeInSlices, notAnObject, parseJson, parseJsonAtOnce } from './pieces.ts';
import { inSlices, SLICE_CHARS } from '../core/slices.ts';
import { isForward } from './decide.ts';
import { acceptUnknownParams, warningsFor } from './params.ts';
import type { Recorder } from '../record/recorder.ts';
import { admitRequest, chargeReply } from './limits.ts';
import { RateLimitError } from '../core/ratelimit.ts';

/** Each runtime's recorder, loaded with record mode's first forwarded request. */
const recorders = new WeakMap<Runtime, Recorder>();

async function recorderOf(runtime: Runtime): Promise<Recorder> {
  let recorder = recorders.get(runtime);
  if (!recorder) {
    const { Recorder } = await import('../record/recorder.ts');
    // Another request may have loaded it meanwhile: keep the first.
    recorder = recorders.get(runtime) ?? new Recorder(runtime.record!);
    recorders.set(runtime, recorder);
  }
  return recorder;
}

/** UTF-8 size of a string, without encoding it, a slice at a time with the event loop served between. */
async function utf8Length(text: string): Promise<number> {
  let bytes = text.length;
  await inSlices(text.length, (from, to) => void (bytes += utf8Extra(text, from, to)));
  return bytes;
}

/** Bytes beyond one per UTF-16 unit that text[from, to) takes in UTF-8. */
function utf8Extra(text: string, from: number, to: number): number {
  // Most bodies are ASCII: one native scan of the slice says so.
  if (!/[^\x00-\x7f]/.test(from === 0 && to === text.length ? text : text.slice(from, to))) return 0;
  let extra = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    // A pair encodes as 4 bytes (1 extra per unit, so a pair cut by a slice counts alike), a lone surrogate as 3 (U+FFFD).
    const paired =
      (c & 0xfc00) === 0xd800
        ? (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
        : (c & 0xfc00) === 0xdc00 && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    extra += c < 0x800 || paired ? 1 : 2;
  }
  return extra;
}

/** The boundary of a multipart/form-data content type, or undefined for any other body. */
function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  return /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)?.slice(1).find(Boolean) ?? '';
}

/**
 * A multipart body as a plain object, through the platform's own parser (Node's undici, or the
 * browser's): no dependency, and the body limit has already bounded its input.
 */
async function parseMultipart(bytes: Uint8Array, contentType: string): Promise<FormBody> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new GatewayError(
      'invalid_request',
      `Could not parse the multipart form data of your request (${why}). Send multipart/form-data with a boundary, as HTTP clients do for FormData bodies.`,
    );
  }
  const body: FormBody = {};
  for (const [rawName, value] of form) {
    const name = rawName.endsWith('[]') ? rawName.slice(0, -2) : rawName;
    const item: string | Upload =
      typeof value === 'string' ? value : { filename: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
    const held = body[name];
    if (held === undefined) body[name] = rawName.endsWith('[]') ? [item] : item;
    else if (Array.isArray(held)) held.push(item);
    else body[name] = [held, item];
  }
  return body;
}

/** What the journal keeps of a multipart body: uploads by name, type and size, never their bytes. */
function journalForm(body: FormBody): JsonObject {
  const describe = (v: string | Upload) => (isUpload(v) ? { filename: v.filename, type: v.type, bytes: v.bytes.byteLength } : v);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.map(describe) : describe(v)]));
}

/**
 * Who sent a request: the issued token it acts for, the rate window it counts in ('' on a route without
 * rate limits), the client secret it presented instead of a token, if any, and whether it spent a use of
 * the token's quota.
 */
interface Caller {
  token: string;
  scope: string;
  clientSecret?: string;
  spent?: boolean;
}

/**
 * The presented token, once it is known to be issued and within its quota (and, for a `limited` route,
 * its rate limits). A client secret (`ek_…`, on the routes that take one) acts for the token that minted
 * it: that token's scope, quota and limits apply, as if it had been presented.
 */
function authenticate(inbound: Inbound, runtime: Runtime, ways: readonly KeyWay[], ephemeral?: EphemeralKind, limited = false): Caller {
  const presented = presentedKey(inbound, ways);
  if (!presented) {
    throw new GatewayError('authentication', `You didn't provide an API key. ${HOW_KEYS_ARE_SET}`, { code: 'invalid_api_key' });
  }
  const minted = ephemeral ? runtime.tokens.ephemeralKey(presented, runtime.now(), ephemeral) : undefined;
  const token = minted?.parent ?? presented;
  if (!runtime.tokens.has(token)) {
    throw new GatewayError('authentication', `Incorrect API key provided: ${maskKey(presented)}. ${HOW_KEYS_ARE_SET}`, {
      code: 'invalid_api_key',
    });
  }
  // One scope for admission and charge: the reply's tokens go to the window that counted its request.
  const scope = limited ? rateScope(runtime, token, inbound) : '';
  // Refused by a rate limit before the quota is touched: the services bill no refused request.
  if (limited) admitRequest(runtime, token, scope);
  runtime.tokens.spend(token);
  return minted ? { token, scope, clientSecret: presented, spent: true } : { token, scope, spent: true };
}

/** Rate windows are the token's, and each test's own when the request carries a test id. */
function rateScope(runtime: Runtime, token: string, inbound: Inbound): string {
  return runtime.testScopes.stateKey(token, (name) => inbound.header(name));
}

/** A request id in the format's style, stable for the same request. */
function requestIdFor(format: FormatEdge, inbound: Pick<Inbound, 'method' | 'url'>, seed: number, body = ''): string {
  return makeId(format.requestIdPrefix, 32, hashStrings([inbound.method, ' ', inbound.url.pathname, inbound.url.search, '\n', body], seed));
}

/** requestIdFor a request with a body: a long body is hashed in slices, with the event loop served between. */
export async function bodyRequestId(
  format: FormatEdge,
  inbound: Pick<Inbound, 'method' | 'url'>,
  seed: number,
  body: string,
): Promise<string> {
  if (body.length <= SLICE_CHARS) return requestIdFor(format, inbound, seed, body);
  const hash = await hashStringsInSlices([inbound.method, ' ', inbound.url.pathname, inbound.url.search, '\n', body], seed);
  return makeId(format.requestIdPrefix, 32, hash);
}

/** Journal and live-stream count for an upstream's answer passing through, like our own streams. */
function trackProxied(runtime: Runtime, entry: JournalEntry, out: Outbound): void {
  const body = out.body;
  if (!isProxied(body)) return;
  entry.stream = framingOf(out.headers['content-type'] ?? '') !== undefined;
  entry.outcome = 'streaming';
  runtime.activeStreams++;
  const source = body.chunks;
  let ended = false;
  const end = (outcome: 'completed' | 'aborted') => {
    if (ended) return;
    ended = true;
    entry.outcome = outcome;
    runtime.activeStreams--;
  };
  body.chunks = (async function* () {
    try {
      for await (const chunk of source) yield chunk;
      end('completed');
    } finally {
      end('aborted');
    }
  })();
  const abort = body.abort;
  body.abort = () => {
    abort();
    end('aborted');
  };
}

/** What the body step leaves: the body as received (record mode forwards it unchanged), and its parse. */
interface BodyRead {
  received?: string | Uint8Array;
  /** The parsed body, also journaled; run once the token is known good (a stranger's body is never parsed). */
  parse(): JsonObject | undefined | Promise<JsonObject | undefined>;
}

const noBody = async (): Promise<undefined> => undefined;

/** The caller of a public route (no token). */
const publicCaller: Caller = { token: '', scope: '' };

/**
 * The body step: a POST's body read within the limit, measured and hashed into the request id as soon
 * as it is in (the journal then shows a request being worked on: tests read it). A GET or DELETE, and
 * an empty body on a route that takes none (`responses.cancel` sends no body and no content type), has
 * no body.
 */
async function readBody(runtime: Runtime, spec: EndpointSpec, inbound: Inbound, entry: JournalEntry): Promise<BodyRead> {
  if (spec.method !== 'POST' && spec.method !== 'PATCH') {
    entry.requestId = requestIdFor(spec.format, inbound, runtime.seed);
    return { parse: noBody };
  }
  const contentType = inbound.header('content-type');
  if ('rawBody' in spec && spec.rawBody) {
    const bytes = await inbound.bytes(runtime.maxBodyBytes);
    entry.bodyBytes = bytes.byteLength;
    entry.requestId = await bodyRequestId(spec.format, inbound, runtime.seed, await decodeInSlices(bytes, new TextDecoder('latin1')));
    const upload: Upload = { filename: '', type: contentType ?? '', bytes };
    return { received: bytes, parse: async () => ({ data: upload }) as unknown as JsonObject };
  }
  const boundary = multipartBoundary(contentType);
  if (boundary !== undefined) {
    const bytes = await inbound.bytes(runtime.maxBodyBytes);
    entry.bodyBytes = bytes.byteLength;
    // Clients draw a fresh boundary per request: leave it out, so the same form keeps its request id.
    const text = await decodeInSlices(bytes, new TextDecoder('latin1'));
    entry.requestId = await bodyRequestId(spec.format, inbound, runtime.seed, boundary ? text.split(boundary).join('') : text);
    const parse = async () => {
      const form = await parseMultipart(bytes, contentType!);
      // Uploads by name, type and size; a long text field shortened like a big JSON body's.
      entry.body = shortenedBody(journalForm(form));
      return form;
    };
    return { received: bytes, parse };
  }
  const text = await inbound.text(runtime.maxBodyBytes);
  // A small body (most are) is measured, hashed and parsed at once: no promise or turn for each step.
  const small = text.length <= SLICE_CHARS;
  entry.bodyBytes = small ? text.length + utf8Extra(text, 0, text.length) : await utf8Length(text);
  entry.requestId = small
    ? requestIdFor(spec.format, inbound, runtime.seed, text)
    : await bodyRequestId(spec.format, inbound, runtime.seed, text);
  if (!text && spec.bodiless) return { received: text, parse: noBody };
  const parse = () => {
    if (small) return journaled(parseJsonAtOnce(text));
    return parseJson(text).then(journaled);
  };
  // A big body would hold its megabytes for as long as the ring holds the entry: keep a short copy.
  const journaled = (body: JsonObject) => {
    if (text.length <= JOURNAL_BODY_CHARS) entry.body = body;
    else {
      entry.body = shortenedBody(body);
      entry.truncated = true;
    }
    return body;
  };
  return { received: text, parse };
}

/**
 * The body the handler gets: unless strictParams is on, its own top-level copy, marked so that the
 * field checker leaves unknown parameters out of it and names them in the journal entry (which keeps
 * what was sent).
 */
function lenientBody(body: JsonObject | undefined, runtime: Runtime, entry: JournalEntry): JsonObject | undefined {
  if (runtime.strictParams || body === undefined) return body;
  const own = { ...body };
  const unknown: string[] = [];
  acceptUnknownParams(own, (names) => {
    unknown.push(...names);
    entry.warnings = warningsFor(unknown);
  });
  return own;
}

/** Whether an endpoint's handler is promised a body: a POST not marked `bodiless`, or a PATCH. */
const takesBody = (spec: EndpointSpec): spec is BodyEndpoint => (spec.method === 'POST' || spec.method === 'PATCH') && !spec.bodiless;

const hasBody = (call: Call): call is Call<JsonObject> => call.body !== undefined;

/**
 * The endpoint's handler run on a call. A POST that takes a body has one by now (readBody parsed a
 * JSON object or a form, or refused the request), as its handler's type says.
 */
export function handle(spec: EndpointSpec, call: Call): ReturnType<EndpointSpec['handle']> {
  if (!takesBody(spec)) return spec.handle(call);
  if (!hasBody(call)) throw notAnObject();
  return spec.handle(call);
}

/**
 * The tokenizer and faker load on the first request, not at start-up (see core/lazy.ts): undefined once
 * both are in, else their loading, which resolves to the error if one failed to load (a broken
 * install), which that request then answers as the server's error.
 */
function lazyModulesLoading(): Promise<Error | undefined> | undefined {
  const tokenizer = tokenizerReady();
  const faker = fakerReady();
  if (tokenizer || faker)
    return Promise.all([tokenizer, faker]).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
  return undefined;
}

/** Runs one request through the pipeline. Never throws: every failure becomes the format's error. */
export async function runEndpoint(runtime: Runtime, spec: EndpointSpec, inbound: Inbound, params: Params): Promise<Outbound> {
  const loading = lazyModulesLoading();
  const unloaded = loading && (await loading);
  const started = performance.now();
  const entry = runtime.journal.record({
    seq: 0,
    requestId: '',
    method: inbound.method,
    path: inbound.url.pathname,
    query: maskedSearch(inbound.url),
    // As received: credentials are masked when the entry is handed out (gateway.ts), never shown in clear.
    headers: boundedHeaders(inbound.headers()),
    format: spec.format.name,
    status: 0,
    stream: false,
    outcome: 'completed',
    eventsSent: 0,
    startedAt: Date.now(),
  });
  if (spec.dialect) entry.dialect = spec.dialect;
  let out: Outbound;
  // The body as received, for record mode to forward unchanged.
  let received: string | Uint8Array | undefined;
  // The answer under way: a stream it started is ended if what follows fails (activeStreams stayed counted).
  let underway: Outbound | undefined;
  let caller: Caller | undefined;
  try {
    if (unloaded) throw unloaded;
    // One sequence for every request: the body (if any) is in and measured, then the token, then the parse.
    const read = await readBody(runtime, spec, inbound, entry);
    received = read.received;
    // A route with no ways to present a token is public (generated image files).
    // POSTs count against the token's rate limits (model listings and file downloads do not).
    const limited = spec.method === 'POST';
    caller = spec.auth.length ? authenticate(inbound, runtime, spec.auth, spec.ephemeral, limited) : publicCaller;
    const { token, scope, clientSecret } = caller;
    const body = lenientBody(await read.parse(), runtime, entry);
    const call: Call = { inbound, params, body, requestId: entry.requestId, runtime, entry, token, clientSecret, format: spec.format };
    const handled = await handle(spec, call);
    if (!isForward(handled)) underway = handled;
    // Unknown parameters the handler went on without (see params.ts).
    if (entry.warnings && !isForward(handled)) handled.headers['x-mock-warning'] = entry.warnings.join(', ');
    if (isForward(handled)) {
      // Record mode, and no fixture answers: the upstream's answer, passed through and recorded.
      out = await (await recorderOf(runtime)).forward(call, handled, received);
      trackProxied(runtime, entry, out);
      underway = out;
    } else out = handled;
    if (limited && token && out.status < 400 && !isForward(handled))
      Object.assign(out.headers, spec.format.rateLimitHeaders(chargeReply(runtime, token, entry, scope)));
  } catch (error) {
    if (underway) abandon(underway);
    // A request its token was not allowed to make spends none of its quota.
    if (error instanceof ModelScopeError && caller?.spent) runtime.tokens.refund(caller.token);
    entry.requestId ||= requestIdFor(spec.format, inbound, runtime.seed);
    if (error instanceof ClientGone) {
      // Nothing is answered to a client that left while sending its body: journaled as such, not as a 500 it never saw.
      out = { status: 0, headers: {}, body: null };
      entry.outcome = 'aborted';
    } else {
      out = spec.format.errorResponse(asGatewayError(error), entry.requestId);
      if (error instanceof RateLimitError) Object.assign(out.headers, spec.format.rateLimitHeaders(error.window));
    }
  }
  out.headers[spec.format.requestIdHeader] = entry.requestId;
  // Header values must be Latin-1: a fixture named in another script is sent percent-encoded.
  if (entry.fixture)
    out.headers['x-mock-fixture'] = /^[\x20-\x7e]*$/.test(entry.fixture) ? entry.fixture : encodeURIComponent(entry.fixture);
  entry.status = out.status;
  if (out.broken) entry.fault = out.broken.type;
  captureResponse(entry, out, started);
  // What the client wrote into the entry (a model id, a path), bounded now that the request is decided.
  boundEntry(entry);
  if (spec.refusedUpgrade && !out.socket && out.status >= 400 && (inbound.header('upgrade') ?? '').toLowerCase() === 'websocket')
    return closedSocket(out, spec.refusedUpgrade(out));
  return out;
}

/** A refused handshake as a service that accepts the socket and closes it at once (the journal keeps the error). */
function closedSocket(out: Outbound, close: { code: number; reason: string }): Outbound {
  abandon(out);
  return {
    status: 101,
    headers: out.headers,
    body: null,
    socket: {
      maxFrameBytes: 64 * 1024,
      open: (sink) => {
        sink.close(close.code, close.reason);
        return { receive: () => {}, closed: () => {} };
      },
    },
  };
}

/** The answer for a known path asked with a method it does not serve. */
export function methodNotAllowed(format: FormatEdge, inbound: Inbound, allowed: readonly string[]): Outbound {
  const message = `Method ${inbound.method} is not allowed on ${inbound.url.pathname}; use ${allowed.join(' or ')}.`;
  const requestId = requestIdFor(format, inbound, 0);
  const out = format.errorResponse(new GatewayError('method_not_allowed', message, { headers: { allow: allowed.join(', ') } }), requestId);
  out.headers[format.requestIdHeader] = requestId;
  return out;
}

/** The answer for a path no endpoint serves. */
export function unknownRoute(format: FormatEdge, inbound: Inbound): Outbound {
  const requestId = requestIdFor(format, inbound, 0);
  const out = format.errorResponse(new GatewayError('not_found', `Invalid URL (${inbound.method} ${inbound.url.pathname})`), requestId);
  out.headers[format.requestIdHeader] = requestId;
  return out;
}
