// The Responses API's WebSocket mode: one socket on /v1/responses, a `response.create` client event per
// turn, the response's stream events sent back as text frames. Each response.create goes down the
// pipeline as the POST /v1/responses it stands for (SocketRequests: routed, authenticated, rate-limited,
// journaled, answered by the same handler with its fixtures, faults and stored state), so a response
// made on the socket is retrievable over HTTP and `previous_response_id` works across both. Responses
// run one at a time, in the order they were asked for, as the service runs them.
import { type ErrorKind, GatewayError } from '../../core/errors.ts';
import type { Call } from '../../pipeline/call.ts';
import {
  abandon,
  isJsonObject,
  isPlayback,
  tooLarge,
  type ConnectionCache,
  type Inbound,
  type JsonObject,
  type Outbound,
  type SocketPeer,
  type SocketRequests,
  type SocketSink,
} from '../../pipeline/exchange.ts';
import { utf8, type StreamEvent } from '../../pipeline/framing.ts';
import type { EventPlayback } from '../../pipeline/playback.ts';
import { SocketPump, type PlannedFrame } from '../../pipeline/socket-pump.ts';
import { tooManySessions } from './errors.ts';
import { forgetOnConnection } from './responses.ts';

/** Limits of one socket; the queue's and the duration's close it (an error event, then 1008). */
const RESPONSES_SOCKET_LIMITS = {
  /** Client events and bytes in one connection, and bytes sent on it: none but the duration's, as the service's. */
  events: Infinity,
  bytes: Infinity,
  serverBytes: Infinity,
  /** Client events held, in order, while a response is under way (and their bytes). */
  waitingEvents: 64,
  waitingBytes: 16 * 1024 * 1024,
  /** Client events handled in one turn of the event loop (a burst read at once is handled this many at a time). */
  eventsPerTurn: 64,
  /** Wall-clock length of a connection, as the service's 60 minutes. */
  durationMs: 60 * 60 * 1000,
};

const CLIENT_EVENTS = ['response.create'];

/** Upgrade headers that are the handshake's, not the request's a response.create stands for. */
const HANDSHAKE = /^(upgrade|connection|sec-websocket-.*|content-length|content-type)$/;

/** The response under way: its playback's stop, and the abort of its request (a delay it waits out). */
interface Active {
  stop: () => void;
  controller: AbortController;
}

class ResponsesSocket implements SocketPeer {
  private readonly call: Call;
  private readonly sink: SocketSink;
  private readonly requests: SocketRequests;
  /** The client's events in order, one response at a time, back-pressure and playback (socket-pump.ts). */
  private readonly pump: SocketPump;
  private active?: Active;
  private gone = false;
  /** The connection's last response, continued with previous_response_id on this socket even when not stored (`store: false`). */
  private readonly cache: ConnectionCache = {};
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(call: Call, sink: SocketSink, requests: SocketRequests) {
    this.call = call;
    this.sink = sink;
    this.requests = requests;
    this.pump = new SocketPump(
      sink,
      RESPONSES_SOCKET_LIMITS,
      call.runtime.readerTimeoutMs,
      {
        handle: (text) => this.handle(text),
        overLimit: () =>
          this.refuse(
            'event_queue_full',
            `This connection sent more than ${RESPONSES_SOCKET_LIMITS.waitingEvents} events (or ${RESPONSES_SOCKET_LIMITS.waitingBytes} bytes of them) while a response was under way, the emulator's limit; wait for each response's last event before sending the next.`,
          ),
        readerGone: () => this.dropReader(),
      },
      call.runtime.sockets,
    );
    call.entry.stream = true;
    call.entry.outcome = 'streaming';
    this.timer = setTimeout(
      () =>
        this.refuse(
          'websocket_connection_limit_reached',
          `Responses websocket connection limit reached (${RESPONSES_SOCKET_LIMITS.durationMs / 60000} minutes). Create a new websocket connection to continue.`,
        ),
      RESPONSES_SOCKET_LIMITS.durationMs,
    );
    this.timer.unref?.();
    if (!this.pump.admitted) this.refuse('rate_limit_exceeded', tooManySessions(call.runtime.sockets.max), 'rate_limit');
  }

  receive(text: string): void {
    if (!this.gone) this.pump.receive(text);
  }

  closed(): void {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.timer);
    this.pump.stop();
    forgetOnConnection(this.call, this.cache);
    const { entry } = this.call;
    if (this.active) {
      // Synthesis stops at once: the playback makes no more events, a delay being waited out ends.
      this.active.stop();
      this.active.controller.abort();
      this.active = undefined;
      entry.outcome = 'aborted';
    } else if (entry.outcome === 'streaming') entry.outcome = 'completed';
  }

  /** The reader took nothing for the reader timeout: the pump closed and dropped the connection. */
  private dropReader(): void {
    this.closed();
    this.call.entry.outcome = 'aborted';
  }

  /** The service's error event for a failure: its status, and the error as the HTTP route's body has it. */
  private fail(error: GatewayError, streamId?: string): void {
    this.sendError(this.call.format.errorResponse(error, this.call.requestId), streamId);
  }

  private sendError(out: Outbound, streamId?: string): void {
    if (this.gone) return;
    let error: unknown;
    try {
      error = (JSON.parse(typeof out.body === 'string' ? out.body : '{}') as { error?: unknown }).error;
    } catch {
      // not JSON: described below
    }
    error ??= { type: 'server_error', code: null, message: `HTTP ${out.status}`, param: null };
    // What the HTTP answer's headers said of the limits (a 429's retry-after), on the error as the service puts them.
    const limits = Object.entries(out.headers).filter(([k]) => /^(x-ratelimit-|retry-after)/.test(k));
    if (limits.length && isJsonObject(error)) error = { ...error, headers: Object.fromEntries(limits) };
    this.send(JSON.stringify({ type: 'error', status: out.status, error, ...(streamId !== undefined && { stream_id: streamId }) }));
  }

  private send(text: string): void {
    this.call.entry.eventsSent++;
    this.pump.send(text);
  }

  /** Ends the connection for exceeding a limit: an error event, then close 1008 (policy violation). */
  private refuse(code: string, message: string, kind: ErrorKind = 'invalid_request'): void {
    if (this.gone) return;
    this.fail(new GatewayError(kind, message, { code }));
    this.sink.close(1008, code);
    this.closed();
  }

  /** One client event: held while a response is under way (one at a time, in order); a response.create starts its response; anything else is answered with the error event. */
  private handle(text: string): void {
    if (this.active) return void this.pump.hold(text);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return this.fail(
        new GatewayError(
          'invalid_request',
          'We could not parse the JSON body of your request. Each client event must be one JSON object, e.g. {"type":"response.create","model":"gpt-4.1","input":"Hi"}.',
          { code: 'invalid_json' },
        ),
      );
    }
    if (!isJsonObject(event) || typeof event.type !== 'string')
      return this.fail(
        new GatewayError('invalid_request', 'A client event must be a JSON object with a string `type`, e.g. "response.create".', {
          param: 'type',
          code: 'invalid_value',
        }),
      );
    if (!CLIENT_EVENTS.includes(event.type)) {
      const shown = event.type.length > 64 ? `${event.type.slice(0, 64)}…` : event.type;
      return this.fail(
        new GatewayError(
          'invalid_request',
          `Invalid value for 'type': '${shown}'. Supported values are: 'response.create'.${event.type === 'response.steer' ? ' (response.steer is not emulated yet.)' : ''}`,
          { param: 'type', code: 'invalid_value' },
        ),
      );
    }
    const { type: _type, stream: _stream, stream_id: streamId, ...body } = event;
    if (streamId !== undefined && typeof streamId !== 'string')
      return this.fail(
        new GatewayError('invalid_request', `Invalid type for 'stream_id': expected a string, but got ${kind(streamId)}.`, {
          param: 'stream_id',
          code: 'invalid_type',
        }),
      );
    if (body.background === true)
      return this.fail(
        new GatewayError(
          'invalid_request',
          'background is not supported over WebSocket: leave it out, or create background responses with POST /v1/responses.',
          { param: 'background' },
        ),
        streamId,
      );
    this.respond({ ...body, stream: true }, streamId);
  }

  /** The POST /v1/responses a response.create stands for, under the upgrade's headers (its key, test id and x-mock-* overrides). */
  private inboundFor(text: string, signal: AbortSignal): Inbound {
    const upgrade = this.call.inbound;
    const header = (name: string) =>
      name === 'content-type' ? 'application/json' : HANDSHAKE.test(name) ? undefined : upgrade.header(name);
    const bytes = utf8(text);
    const within = (limit: number) => {
      if (bytes.byteLength > limit) throw tooLarge(limit);
    };
    return {
      method: 'POST',
      url: new URL(upgrade.url),
      header,
      headers: () => ({
        ...Object.fromEntries(Object.entries(upgrade.headers()).filter(([k]) => !HANDSHAKE.test(k))),
        'content-type': 'application/json',
      }),
      text: async (limit) => (within(limit), text),
      bytes: async (limit) => (within(limit), bytes),
      signal,
      connection: this.cache,
    };
  }

  private respond(body: JsonObject, streamId: string | undefined): void {
    const controller = new AbortController();
    const active: Active = { stop: () => {}, controller };
    this.active = active;
    void this.requests.answer(this.inboundFor(JSON.stringify(body), controller.signal)).then(
      (out) => this.deliver(out, active, streamId),
      () => this.deliver(this.call.format.errorResponse(new GatewayError('server', 'The server had an error.'), ''), active, streamId),
    );
  }

  /** The response's answer on the socket: its events as frames, when due and as the reader takes them, or the error event. */
  private deliver(out: Outbound, active: Active, streamId: string | undefined): void {
    if (this.gone || this.active !== active) return abandon(out);
    const body = out.body;
    if (out.broken) {
      // A connection fault breaks this connection, as it breaks an HTTP one.
      this.sink.terminate();
      this.closed();
      return;
    }
    if (!isPlayback(body)) {
      if (out.status < 400) {
        abandon(out);
        this.sendError({
          status: 500,
          headers: {},
          body: JSON.stringify({
            error: {
              type: 'server_error',
              code: null,
              message:
                'model-gateway-mock answers Responses sockets from fixtures and synthesis only (record mode does not forward them yet).',
              param: null,
            },
          }),
        });
      } else this.sendError(out, streamId);
      return this.next();
    }
    active.stop = this.playOut(body, streamId);
  }

  private next(): void {
    this.active = undefined;
    this.pump.resume();
  }

  private playOut(body: EventPlayback, streamId: string | undefined): () => void {
    const { hooks } = body;
    const tag = streamId === undefined ? '' : `,"stream_id":${JSON.stringify(streamId)}}`;
    const frame = (e: StreamEvent, at: number) => {
      const data = e.data.startsWith('{"error":') ? errorEvent(e.data, at) : e.data;
      return tag && data.endsWith('}') ? data.slice(0, -1) + tag : data;
    };
    function* frames(): Generator<PlannedFrame> {
      let index = 0;
      for (const e of body.events) yield { ...e, data: frame(e, index++) };
    }
    // The POST's journal entry keeps the frames as sent, one a line.
    let shown = '';
    return this.pump.play(frames(), {
      sent: (data) => {
        this.call.entry.eventsSent++;
        shown += `${data}\n`;
      },
      onProgress: (sent) => {
        hooks.onProgress?.(sent, utf8(shown));
        shown = '';
      },
      end: () => {
        if (!body.breakAtEnd) return this.next();
        // A cut stream: its events, then the connection drops.
        this.sink.terminate();
        this.closed();
      },
      onEnd: (outcome) => hooks.onEnd?.(outcome),
    });
  }
}

/**
 * A failure part-way through a stream as the socket's error event (`type: "error"`, its code, message
 * and param, and its place in the stream): the format's in-stream error has no type, which a socket's
 * client could not tell from any other frame.
 */
function errorEvent(data: string, sequence: number): string {
  const { error } = JSON.parse(data) as { error: { code?: unknown; message?: unknown; param?: unknown } };
  return JSON.stringify({
    type: 'error',
    code: error.code ?? null,
    message: error.message,
    param: error.param ?? null,
    sequence_number: sequence,
  });
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** GET /v1/responses with Upgrade: websocket: the Responses socket (auth, test id and the journal as any request). */
export function responsesUpgrade(call: Call): Outbound {
  if ((call.inbound.header('upgrade') ?? '').toLowerCase() !== 'websocket') {
    throw new GatewayError(
      'invalid_request',
      'GET /v1/responses is the Responses WebSocket: connect with a WebSocket client (Upgrade: websocket) and send response.create events, or create a response with POST /v1/responses.',
    );
  }
  return {
    status: 101,
    headers: {},
    body: null,
    socket: {
      maxFrameBytes: call.runtime.maxBodyBytes,
      open: (sink, requests) => new ResponsesSocket(call, sink, requests),
    },
  };
}
