// The transport-neutral shape of one HTTP exchange. The endpoint pipeline reads an Inbound and
// produces an Outbound; the msw adapter (in-process) and the node:http adapter (standalone) convert.
import { GatewayError } from '../core/errors.ts';
import type { EventPlayback } from './playback.ts';
import type { ConnectionFault } from '../core/faults.ts';
import { stringifyInPieces, type JsonPieces } from './pieces.ts';

export interface Inbound {
  method: string;
  url: URL;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** All headers, lower-case names (for the journal). */
  headers(): Record<string, string>;
  /** The body as text, refusing more than `limit` bytes with a 413 GatewayError. */
  text(limit: number): Promise<string>;
  /** The body's raw bytes (multipart uploads), with the same limit. Read the body once, by one of the two. */
  bytes(limit: number): Promise<Uint8Array>;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** A request sent over a socket session (a Responses socket's response.create): what that connection keeps of its last answer. */
  connection?: ConnectionCache;
}

/**
 * What a socket connection keeps between its requests: a key, and its value or where that is (the
 * Responses socket's last response: its name among the stored responses, see formats/openai/responses.ts).
 */
export interface ConnectionCache {
  key?: string;
  value?: unknown;
}

/** A broken connection instead of a response; `bytes` are written first where the fault sends any. */
export interface BrokenConnection {
  type: ConnectionFault;
  bytes?: Uint8Array;
}

export interface Outbound {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | EventPlayback | ProxiedBody | JsonPieces | null;
  /** Set when the answer is a connection fault rather than a response. */
  broken?: BrokenConnection;
  /** Set when the answer accepts a WebSocket upgrade: the adapter completes the handshake and runs it. */
  socket?: SocketSession;
}

/** What the adapter gives a WebSocket session to talk through. */
export interface SocketSink {
  /** Sends one frame: text, or the same UTF-8 as a binary frame (Gemini Live's frames are binary). */
  send(text: string, binary?: boolean): void;
  /** Bytes sent that the reader has not taken yet (0 where the carrier buffers nothing: in-process). */
  buffered(): number;
  /** Calls `resume` once the reader has taken what was buffered. */
  whenDrained(resume: () => void): void;
  /** Stops (true) or restarts reading the client's frames: a session whose reader takes nothing reads nothing more. */
  pauseReading(paused: boolean): void;
  /** Closes cleanly with a close frame. */
  close(code: number, reason: string): void;
  /** Drops the connection with no close frame (a connection fault). */
  terminate(): void;
}

/** A WebSocket session's side of the connection, fed by the adapter. */
export interface SocketPeer {
  /** One text frame from the client (binary frames arrive decoded as UTF-8). */
  receive(text: string): void;
  /** The connection is gone: stop producing. */
  closed(): void;
}

/** An accepted upgrade: the subprotocol to answer with, and the session to start once the socket is open. */
export interface SocketSession {
  protocol?: string;
  /** Largest frame the session accepts, in bytes; the adapter refuses bigger ones with close code 1009. */
  maxFrameBytes: number;
  open(sink: SocketSink, requests: SocketRequests): SocketPeer;
}

/**
 * What a session sends down the pipeline as if it had come over HTTP (a Responses socket's
 * `response.create` as a POST /v1/responses): routed by the same table, authenticated, journaled,
 * limited and answered like any request. The adapter that opened the socket supplies it.
 */
export interface SocketRequests {
  answer(inbound: Inbound): Promise<Outbound>;
}

/** An upstream's answer passed through as it arrives (record mode): the adapter reads `chunks` to the end, or calls `abort`. */
interface ProxiedBody {
  chunks: AsyncIterable<Uint8Array>;
  /** Stops the upstream fetch (the client left). */
  abort(): void;
}

export function isProxied(body: Outbound['body']): body is ProxiedBody {
  return body !== null && typeof body === 'object' && 'chunks' in body;
}

export function isPlayback(body: Outbound['body']): body is EventPlayback {
  return body !== null && typeof body === 'object' && 'events' in body;
}

/**
 * Ends an answer that will never be written (its client left first, or writing it failed): a stream's
 * playback reports itself aborted, so the journal and `activeStreams` count it ended, and an upstream's
 * fetch stops.
 */
export function abandon(out: Outbound): void {
  if (isPlayback(out.body)) out.body.hooks.onEnd?.('aborted');
  else if (isProxied(out.body)) out.body.abort();
}

/** The client closed its connection before its request's body was in: no one is left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before its request body was in');
    this.name = 'ClientGone';
  }
}

/** A big JSON body, written in pieces (see pieces.ts). */
export function isPieces(body: Outbound['body']): body is JsonPieces {
  return body !== null && typeof body === 'object' && 'rest' in body;
}

/** Replies marked by `mayBeBig`: serialized in pieces when they turn out big. */
const mayBeBigReplies = new WeakSet<object>();

/**
 * Marks a reply that input can make big (2048 embeddings of 3072 floats are 134 MB of JSON): `json`
 * then writes it in pieces once it passes a MiB, with the same bytes. Other replies skip that walk.
 */
export function mayBeBig<T extends object>(value: T): T {
  mayBeBigReplies.add(value);
  return value;
}

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Outbound {
  const body = value !== null && typeof value === 'object' && mayBeBigReplies.has(value) ? stringifyInPieces(value) : JSON.stringify(value);
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

export function tooLarge(limit: number): GatewayError {
  return new GatewayError(
    'request_too_large',
    `Request body too large: the limit is ${limit} bytes (set with --max-body or the maxBodyBytes option).`,
  );
}

/** A JSON object as parsed from a request: its fields are unknown until checked (formats/fields.ts). */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One uploaded file of a multipart body. */
export interface Upload {
  filename: string;
  /** The part's content type as sent ('' when none). */
  type: string;
  bytes: Uint8Array;
}

export function isUpload(value: unknown): value is Upload {
  return value !== null && typeof value === 'object' && (value as Upload).bytes instanceof Uint8Array;
}

/** A multipart body: each field a string or an upload; a repeated field (or one named `x[]`) an array under `x`. */
export type FormBody = Record<string, string | Upload | (string | Upload)[]>;

/** Collects byte chunks up to `limit`, for adapters whose bodies arrive as a stream. */
export async function collect(chunks: AsyncIterable<Uint8Array>, limit: number, stop: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > limit) {
      stop();
      throw tooLarge(limit);
    }
    parts.push(chunk);
  }
  const all = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return all;
}
