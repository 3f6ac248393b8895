// Standalone transport: node:http (and node:http2's compatibility API, see http2.ts) straight into the
// endpoint pipeline. No express router and no fetch Request/Response objects on this path: both cost
// more than the emulator's own work.
// Routing matches paths as msw's own URL matcher does (pipeline/paths.ts), so a path means the same thing in
// both modes, without loading msw.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as h2, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Runtime } from '../runtime.ts';
import { GatewayError } from '../core/errors.ts';
import { defaultFormat, methodNotAllowed, runEndpoint, unknownRoute } from '../pipeline/endpoint.ts';
import type { EndpointSpec, FormatEdge, Params } from '../pipeline/call.ts';
import { isPieces, isPlayback, isProxied, tooLarge, type BrokenConnection, type Inbound, type Outbound } from '../pipeline/exchange.ts';
import { decodeInSlices, type JsonPieces } from '../pipeline/pieces.ts';
import { httpChunk, playEvents } from '../pipeline/sse.ts';
import { errorFormat, matchPath } from '../pipeline/paths.ts';
import { createHash } from 'node:crypto';

/** A request as either protocol's server hands it over. */
export type NodeRequest = IncomingMessage | Http2ServerRequest;
/** A response as either protocol's server hands it over. */
export type NodeResponse = ServerResponse | Http2ServerResponse;

/**
 * What this adapter uses of a response: node:http's ServerResponse and node:http2's compatibility
 * response both have it (the latter's flushHeaders too, though its types leave it out).
 */
interface Reply {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  write(chunk: string | Uint8Array, callback?: () => void): boolean;
  end(chunk?: string | Uint8Array | (() => void)): unknown;
  flushHeaders(): void;
  destroy(): void;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  off(event: 'close' | 'drain', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/** A whole answer at once, on either protocol (a body's content-length is the caller's to set). */
export function writeWhole(res: NodeResponse, status: number, headers: Record<string, string>, body?: string): void {
  (res as Reply).writeHead(status, headers);
  (res as Reply).end(body);
}

/** An HTTP/2 exchange: its stream is what a fault breaks and a cut resets, never the connection other streams share. */
const isHttp2 = (res: NodeResponse): res is Http2ServerResponse => 'stream' in res;

/** Whether `res` can no longer be written (its client left, or it was broken). */
const isGone = (res: NodeResponse): boolean => (isHttp2(res) ? res.stream.destroyed : res.destroyed);

/** Resets an HTTP/2 exchange's stream (RST_STREAM, INTERNAL_ERROR): what a broken connection is to the client. */
const resetStream = (res: Http2ServerResponse) => res.stream.close(h2.NGHTTP2_INTERNAL_ERROR);

function readBody(req: NodeRequest, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) {
        // Keep draining so the 413 can still be written, but hold nothing more.
        req.off('data', onData);
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, total)));
    req.once('error', reject);
  });
}

/**
 * One request as an Inbound. A class, not an object literal: a literal with its own getter gives every
 * request its own accessor, which V8 keeps reachable from old space, so whole requests (sockets'
 * messages, bodies, closures) survived collections into the old generation: measured 2x the CPU per
 * request and a heap that grew to hundreds of MB between full collections.
 */
class NodeInbound implements Inbound {
  readonly method: string;
  readonly url: URL;
  private readonly req: NodeRequest;
  /** The abort signal is made only if the pipeline asks for it (streams and delays do). */
  private controller?: AbortController;
  private gone = false;

  constructor(req: NodeRequest, res: NodeResponse, url: URL) {
    this.method = req.method ?? 'GET';
    this.url = url;
    this.req = req;
    res.once('close', () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.controller?.abort();
    });
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /**
   * Node builds a fresh object per request; only set-cookie is ever an array, and clients don't send it.
   * HTTP/2's pseudo-headers (`:path`, `:method`…) say nothing the request line does not: left out.
   */
  headers(): Record<string, string> {
    const headers = this.req.headers as Record<string, string>;
    if (!('stream' in this.req)) return headers;
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')));
  }

  async text(limit: number): Promise<string> {
    // As Buffer's toString('utf8') decodes (a BOM kept), in slices.
    return decodeInSlices(await readBody(this.req, limit), new TextDecoder('utf-8', { ignoreBOM: true }));
  }

  bytes(limit: number): Promise<Uint8Array> {
    return readBody(this.req, limit);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }
}

/**
 * A connection fault on an HTTP/2 stream: the stream is reset (RST_STREAM, INTERNAL_ERROR), after
 * the headers and bytes the fault sends first; the connection's other streams go on.
 */
function breakStream(res: Http2ServerResponse, broken: BrokenConnection): void {
  if (broken.type === 'CONNECTION_RESET_BY_PEER' || broken.type === 'EMPTY_RESPONSE') return resetStream(res);
  res.writeHead(200, { 'content-type': 'application/json' });
  const bytes = broken.type === 'MALFORMED_RESPONSE_CHUNK' ? 'zz\r\nnot a valid chunk' : (broken.bytes ?? new Uint8Array());
  res.write(bytes, () => resetStream(res));
}

/** Inflicts a connection fault on the socket itself, bypassing HTTP framing (on HTTP/2, on the stream). */
function breakConnection(res: NodeResponse, broken: BrokenConnection): void {
  if (isHttp2(res)) return breakStream(res, broken);
  const socket = res.socket;
  if (!socket) return;
  switch (broken.type) {
    case 'CONNECTION_RESET_BY_PEER':
      socket.resetAndDestroy();
      break;
    case 'EMPTY_RESPONSE':
      socket.end();
      break;
    case 'MALFORMED_RESPONSE_CHUNK':
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nnot a valid chunk\r\n');
      break;
    case 'RANDOM_DATA_THEN_CLOSE':
      socket.end(broken.bytes ?? new Uint8Array());
      break;
  }
}

/** Resolves once `res` can take more (or is gone). */
function drained(res: Reply): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * A big JSON reply, a piece at a time (chunked: its length is known only at the end); a slow reader
 * holds back the pieces not made yet, and a client that leaves stops them.
 */
async function writePieces(node: NodeResponse, body: JsonPieces): Promise<void> {
  const res = node as Reply;
  try {
    res.write(body.head);
    for await (const piece of body.rest) {
      if (isGone(node)) return;
      if (!res.write(piece)) await drained(res);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

function write(node: NodeResponse, out: Outbound, extra: Record<string, string>): void {
  if (out.broken) return breakConnection(node, out.broken);
  const res = node as Reply;
  const headers = { ...extra, ...out.headers };
  const body = out.body;
  if (isProxied(body)) {
    // An upstream's answer (record mode): each chunk as it arrives; a client that leaves stops the fetch.
    res.writeHead(out.status, headers);
    res.flushHeaders();
    res.once('close', () => body.abort());
    void (async () => {
      try {
        for await (const chunk of body.chunks) res.write(chunk);
        res.end();
      } catch {
        res.destroy();
      }
    })();
    return;
  }
  if (isPlayback(body)) {
    // Headers go now; each event as it falls due; a client that leaves stops production.
    res.writeHead(out.status, headers);
    // Events due now go with the headers: corked, headers, those events (and the end, when that is
    // all) leave in one write instead of three. (An HTTP/2 session batches its frames itself.)
    const socket = isHttp2(node) ? undefined : node.socket;
    const now = body.events.length > 0 && body.events[0].due <= 0;
    if (now) socket?.cork();
    else res.flushHeaders();
    // A cut stream: what was written arrives, then the socket closes without the final chunk (HTTP/2: the stream is reset).
    const cut = isHttp2(node) ? () => void node.write(new Uint8Array(), () => resetStream(node)) : () => void node.socket?.end();
    const end = body.breakAtEnd ? cut : () => void res.end();
    // A reader that falls behind holds back what is not written yet (playEvents waits for the drain).
    const sink = { write: (chunk: Uint8Array) => res.write(chunk), end, drained: (resume: () => void) => void drained(res).then(resume) };
    const stop = playEvents(body.events, sink, body.hooks, httpChunk);
    if (now) socket?.uncork();
    res.once('close', stop);
    return;
  }
  if (isPieces(body)) {
    res.writeHead(out.status, headers);
    void writePieces(node, body);
    return;
  }
  const data = body ?? '';
  headers['content-length'] = String(typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength);
  res.writeHead(out.status, headers);
  res.end(data);
}

/** The path as the exact table keys it: msw's matcher takes one trailing slash (`/v1/models/` is `/v1/models`), and so does the table. */
function tablePath(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/** Whether `spec` takes this request (an endpoint sharing a path with others may look at more than the path). */
function takes(spec: EndpointSpec, inbound: Inbound): boolean {
  return !spec.accepts || spec.accepts(inbound);
}

interface Route {
  spec: EndpointSpec;
  /** Path pattern, msw syntax (`:param`), matched at the end of the path. */
  pattern: string;
}

export class NodeRouter {
  private readonly exact = new Map<string, EndpointSpec[]>();
  private readonly patterned: Route[] = [];
  private readonly runtime: Runtime;
  private readonly fallback: FormatEdge;
  private readonly formats: ReadonlySet<FormatEdge>;

  /** `fallback` renders 404s for paths no endpoint serves, unless another format recognizes the request. */
  constructor(runtime: Runtime, endpoints: readonly EndpointSpec[], fallback: FormatEdge) {
    this.runtime = runtime;
    this.fallback = fallback;
    this.formats = new Set(endpoints.map((e) => e.format));
    for (const spec of endpoints) {
      if (spec.path.includes(':') || spec.path.includes('*')) this.patterned.push({ spec, pattern: spec.path });
      else {
        const key = `${spec.method} ${spec.path}`;
        this.exact.set(key, [...(this.exact.get(key) ?? []), spec]);
      }
    }
  }

  private exactRoute(inbound: Inbound): EndpointSpec | undefined {
    return this.exact.get(`${inbound.method} ${tablePath(inbound.url.pathname)}`)?.find((spec) => takes(spec, inbound));
  }

  /** Routes a request no exact path takes: parameterized paths, else what its path allows. */
  private route(inbound: Inbound): { spec?: EndpointSpec; params: Params; allowed: EndpointSpec[] } {
    const { method, url } = inbound;
    const path = tablePath(url.pathname);
    const allowed: EndpointSpec[] = [];
    for (const [key, specs] of this.exact) if (key.endsWith(` ${path}`)) allowed.push(...specs);
    for (const route of this.patterned) {
      // With the host in front, as msw matches the whole URL (`//v1/models/x` parses as host `v1`).
      const params = matchPath(route.pattern, `/${url.host}${url.pathname}`);
      if (!params) continue;
      if (route.spec.method === method && takes(route.spec, inbound)) return { spec: route.spec, params, allowed };
      allowed.push(route.spec);
    }
    return { params: {}, allowed };
  }

  /** Answers one request; `extra` headers (CORS) go on every response. Never rejects. */
  async handle(req: NodeRequest, res: NodeResponse, extra: Record<string, string>): Promise<void> {
    let out: Outbound;
    try {
      // The path is all that routes; the Host header is the client's to get wrong. The scheme is the
      // connection's, for URLs handed back (paths.ts's requestOrigin).
      const encrypted = 'stream' in req ? req.stream.session?.encrypted : (req.socket as { encrypted?: boolean }).encrypted;
      // HTTP/2 names the host :authority; requestOrigin and the journal read it as the Host header.
      if ('stream' in req) req.headers.host ??= req.authority;
      const url = new URL(req.url ?? '/', encrypted ? 'https://localhost' : 'http://localhost');
      const inbound = new NodeInbound(req, res, url);
      const exact = this.exactRoute(inbound);
      const { spec, params, allowed } = exact ? { spec: exact, params: {}, allowed: [] } : this.route(inbound);
      if (spec) out = await runEndpoint(this.runtime, spec, inbound, params);
      else if (allowed.length)
        out = methodNotAllowed(errorFormat(new Set(allowed.map((s) => s.format)), inbound, defaultFormat(allowed)), inbound, [
          ...new Set(allowed.map((s) => s.method)),
        ]);
      else out = unknownRoute(errorFormat(this.formats, inbound, this.fallback), inbound);
    } catch (error) {
      // Only a malformed request line gets here (the pipeline answers every failure itself).
      out = this.fallback.errorResponse(new GatewayError('invalid_request', `Malformed request: ${(error as Error).message}`), '');
    }
    // Written at the end of this event-loop turn, so the responses to requests that arrived together
    // go out together: measured ~1.5x the throughput of writing each at once (bench/run.ts).
    setImmediate(() => {
      if (isGone(res)) {
        // The client left before anything was written: a stream that never started has still ended.
        if (isPlayback(out.body)) out.body.hooks.onEnd?.('aborted');
        else if (isProxied(out.body)) out.body.abort();
        return;
      }
      try {
        write(res, out, extra);
      } catch {
        // A header Node refuses to send (say, a fixture's): drop the connection rather than the server.
        res.destroy();
      }
    });
  }
}

/**
 * `GET /__admin/health`, answered without express so that a fresh server is healthy before express
 * has loaded: the same bytes and headers express sends (its weak ETag); conditional requests go to express.
 */
export function healthAnswer(version: string): (req: NodeRequest, res: NodeResponse) => boolean {
  const body = JSON.stringify({ status: 'healthy', version });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ETag: `W/"${Buffer.byteLength(body).toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`,
  };
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url !== '/__admin/health' || req.headers['if-none-match'] !== undefined)
      return false;
    writeWhole(res, 200, headers, req.method === 'GET' ? body : undefined);
    return true;
  };
}
