// Standalone transport: node:http straight into the endpoint pipeline. No express router and no
// fetch Request/Response objects on this path: both cost more than the emulator's own work.
// Requests are routed by the one route table both transports use (pipeline/routes.ts), so a path means
// the same thing in both modes, without loading msw.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Runtime } from '../runtime.ts';
import { GatewayError } from '../core/errors.ts';
import { runEndpoint } from '../pipeline/endpoint.ts';
import type { EndpointSpec, FormatEdge } from '../pipeline/call.ts';
import {
  abandon,
  ClientGone,
  isPieces,
  isPlayback,
  isProxied,
  tooLarge,
  type BrokenConnection,
  type Inbound,
  type Outbound,
} from '../pipeline/exchange.ts';
import { decodeInSlices, type JsonPieces } from '../pipeline/pieces.ts';
import { HIGH_WATER_BYTES, playFramed, type ByteSink } from '../pipeline/playback.ts';
import { RouteTable } from '../pipeline/routes.ts';
import { createHash } from 'node:crypto';
import { yieldToLoop } from '../core/slices.ts';

/** Bodies being read, by connection: what fails the read when Node's parser refuses what follows (see answerClientError). */
const reading = new WeakMap<Duplex, (error: Error & { code?: string }) => void>();

/** The parser's refusal of a body as the request's own error: the format's 400 (413 for oversized chunk extensions). */
function malformed(error: Error & { code?: string }): GatewayError {
  const why = error.message.replace(/^Parse Error:\s*/i, '');
  if (error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW')
    return new GatewayError('request_too_large', `The request body's chunk extensions are too large (${error.code}).`);
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new GatewayError('invalid_request', 'The request body did not arrive in time (ERR_HTTP_REQUEST_TIMEOUT).', { status: 408 });
  return new GatewayError(
    'invalid_request',
    `The request body could not be read as HTTP/1.1: ${why}${error.code ? ` (${error.code})` : ''}. Send it with a Content-Length it matches, or well-formed chunked encoding.`,
  );
}

/**
 * The body, refusing more than `limit` bytes. A client that closes its connection first fails it with
 * ClientGone; one whose body Node's parser refuses, with that refusal as a 400, which the pipeline
 * answers, after which the connection closes (`res`: the parser cannot read another request on it).
 */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const socket = req.socket;
    reading.set(socket, (error) => {
      reading.delete(socket);
      // The client ended its side before the body was in: it has left, as when its connection drops.
      if (error.code === 'HPE_INVALID_EOF_STATE') {
        socket.destroy();
        return reject(new ClientGone());
      }
      res.shouldKeepAlive = false;
      reject(malformed(error));
    });
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
    req.once('end', () => {
      reading.delete(socket);
      resolve(Buffer.concat(chunks, total));
    });
    // A request stream errs only when its connection does: the client left before its body was in.
    req.once('error', () => {
      reading.delete(socket);
      reject(new ClientGone());
    });
  });
}

/** What Node answers a request its parser refuses before a handler has it (its own 'clientError' default). */
const BARE_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/**
 * node:http's 'clientError': its parser refused what a client sent. While that request's body is being
 * read, the pipeline answers it (the format's 400 naming the problem, journaled as sent; it was
 * journaled a 500 the client never saw, while Node sent a bare 400); otherwise as Node would, a bare
 * status line, and the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const fail = reading.get(socket);
  if (fail) return fail(error);
  if (socket.writable && (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0) {
    const status = BARE_STATUS[error.code ?? ''] ?? 400;
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(error);
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
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  /** The abort signal is made only if the pipeline asks for it (streams and delays do). */
  private controller?: AbortController;
  private gone = false;

  constructor(req: IncomingMessage, res: ServerResponse, url: URL) {
    this.method = req.method ?? 'GET';
    this.url = url;
    this.req = req;
    this.res = res;
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

  /** Node builds a fresh object per request; only set-cookie is ever an array, and clients don't send it. */
  headers(): Record<string, string> {
    return this.req.headers as Record<string, string>;
  }

  async text(limit: number): Promise<string> {
    // As Buffer's toString('utf8') decodes (a BOM kept), in slices.
    return decodeInSlices(await readBody(this.req, this.res, limit), new TextDecoder('utf-8', { ignoreBOM: true }));
  }

  bytes(limit: number): Promise<Uint8Array> {
    return readBody(this.req, this.res, limit);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }
}

/** Inflicts a connection fault on the socket itself, bypassing HTTP framing. */
function breakConnection(res: ServerResponse, broken: BrokenConnection): void {
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

/**
 * Resolves true once `res` can take more, false if it is gone or its reader took nothing for
 * `timeoutMs` (0: no limit); the caller then drops the connection.
 */
function drained(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      clearTimeout(timer);
      resolve(ok && !res.destroyed);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = timeoutMs > 0 ? setTimeout(() => done(false), timeoutMs) : undefined;
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * Writes `piece`, then waits while the reader's buffer is full; false when the connection is gone or
 * was dropped. After a drain the event loop serves everyone else first: a socket that took the piece
 * at once drains on the next tick, and going on from there would never let it.
 */
async function written(res: ServerResponse, piece: string | Uint8Array, timeoutMs: number): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(piece)) return true;
  if (await drained(res, timeoutMs)) {
    await yieldToLoop();
    return true;
  }
  res.destroy();
  return false;
}

/**
 * A big JSON reply, a piece at a time (chunked: its length is known only at the end); a slow reader
 * holds back the pieces not made yet, one that takes nothing for the reader timeout is dropped, and a
 * client that leaves stops them.
 */
async function writePieces(res: ServerResponse, body: JsonPieces, timeoutMs: number): Promise<void> {
  try {
    if (!(await written(res, body.head, timeoutMs))) return;
    for await (const piece of body.rest) if (!(await written(res, piece, timeoutMs))) return;
    res.end();
  } catch {
    res.destroy();
  }
}

/** A body bigger than the high-water mark (audio, a long JSON reply), a high-water mark's worth at a time as the reader takes it. */
async function writeInSlices(res: ServerResponse, data: Uint8Array, timeoutMs: number): Promise<void> {
  for (let at = 0; at < data.byteLength; at += HIGH_WATER_BYTES)
    if (!(await written(res, data.subarray(at, at + HIGH_WATER_BYTES), timeoutMs))) return;
  res.end();
}

/** An upstream's answer (record mode), read from the upstream only as fast as the client takes it. */
async function writeProxied(res: ServerResponse, chunks: AsyncIterable<Uint8Array>, abort: () => void, timeoutMs: number): Promise<void> {
  try {
    for await (const chunk of chunks)
      if (!(await written(res, chunk, timeoutMs))) {
        abort();
        return;
      }
    res.end();
  } catch {
    res.destroy();
  }
}

function write(res: ServerResponse, out: Outbound, extra: Record<string, string>, readerTimeoutMs: number): void {
  if (out.broken) return breakConnection(res, out.broken);
  const headers = { ...extra, ...out.headers };
  const body = out.body;
  if (isProxied(body)) {
    // A client that leaves stops the fetch.
    res.writeHead(out.status, headers);
    res.flushHeaders();
    res.once('close', () => body.abort());
    void writeProxied(res, body.chunks, body.abort, readerTimeoutMs);
    return;
  }
  if (isPlayback(body)) {
    // Headers go now; each event as it falls due; a client that leaves stops production.
    res.writeHead(out.status, headers);
    // Events due now go with the headers: corked, headers, those events (and the end, when that is
    // all) leave in one write instead of three.
    const socket = res.socket;
    socket?.cork();
    let wrote = false;
    const sink: ByteSink = {
      write(bytes) {
        wrote = true;
        return res.write(bytes);
      },
      whenDrained: (resume) => void res.once('drain', resume),
      // A cut stream: the headers and what was written arrive, then the socket closes without the final chunk.
      end: body.breakAtEnd
        ? () => {
            if (!wrote) res.flushHeaders();
            res.socket?.end();
          }
        : () => void res.end(),
      drop: () => void res.destroy(),
    };
    const stop = playFramed(body, sink, readerTimeoutMs);
    if (!wrote && !res.writableEnded) res.flushHeaders();
    socket?.uncork();
    res.once('close', stop);
    return;
  }
  if (isPieces(body)) {
    res.writeHead(out.status, headers);
    void writePieces(res, body, readerTimeoutMs);
    return;
  }
  const data = body ?? '';
  const length = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  headers['content-length'] = String(length);
  res.writeHead(out.status, headers);
  if (length <= HIGH_WATER_BYTES) return void res.end(data);
  void writeInSlices(res, typeof data === 'string' ? Buffer.from(data) : data, readerTimeoutMs);
}

/**
 * The request target as a URL: a path from the root as sent (`//v1/models` stays a path, as fetch and
 * msw see it, not a host), an absolute form as given. The scheme is the connection's.
 */
function requestUrl(req: IncomingMessage): URL {
  const base = (req.socket as { encrypted?: boolean }).encrypted ? 'https://localhost' : 'http://localhost';
  const target = req.url ?? '/';
  return target.startsWith('/') ? new URL(base + target) : new URL(target, base);
}

export class NodeRouter {
  private readonly runtime: Runtime;
  private readonly fallback: FormatEdge;
  readonly table: RouteTable;

  /** `fallback` renders 404s for paths no endpoint serves, unless another format recognizes the request. */
  constructor(runtime: Runtime, endpoints: readonly EndpointSpec[], fallback: FormatEdge) {
    this.runtime = runtime;
    this.fallback = fallback;
    this.table = new RouteTable(endpoints, fallback);
  }

  /** Answers one request; `extra` headers (CORS) go on every response. Never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse, extra: Record<string, string>): Promise<void> {
    let out: Outbound;
    try {
      // The path is all that routes; the Host header is the client's to get wrong. The scheme is the
      // connection's, for URLs handed back (paths.ts's requestOrigin).
      const inbound = new NodeInbound(req, res, requestUrl(req));
      const routed = this.table.route(inbound);
      out =
        routed && 'spec' in routed
          ? await runEndpoint(this.runtime, routed.spec, inbound, routed.params)
          : this.table.refuse(inbound, routed);
    } catch (error) {
      // Only a malformed request line gets here (the pipeline answers every failure itself).
      out = this.fallback.errorResponse(new GatewayError('invalid_request', `Malformed request: ${(error as Error).message}`), '');
    }
    // Written at the end of this event-loop turn, so the responses to requests that arrived together
    // go out together: measured ~1.5x the throughput of writing each at once (bench/run.ts).
    setImmediate(() => {
      // The client left before anything was written: a stream that never started has still ended.
      if (res.destroyed) return abandon(out);
      try {
        write(res, out, extra, this.runtime.readerTimeoutMs);
      } catch {
        // A header Node refuses to send: drop the connection rather than the server, and count the stream ended.
        res.destroy();
        abandon(out);
      }
    });
  }
}

/**
 * `GET /__admin/health`, answered without express so that a fresh server is healthy before express
 * has loaded: the same bytes and headers express sends (its weak ETag); conditional requests go to express.
 */
export function healthAnswer(version: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const body = JSON.stringify({ status: 'healthy', version });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ETag: `W/"${Buffer.byteLength(body).toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`,
  };
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url !== '/__admin/health' || req.headers['if-none-match'] !== undefined)
      return false;
    res.writeHead(200, headers).end(req.method === 'GET' ? body : undefined);
    return true;
  };
}
