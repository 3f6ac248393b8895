// The WebSocket adapter: upgrades on the endpoints marked `upgrade` run the endpoint pipeline (auth,
// model, journal) like any request; an accepted one carries a session that talks through the socket.
// In-process, msw's `ws.link` intercepts the global WebSocket (here); standalone, node:http's
// 'upgrade' goes to the `ws` library (websocket-node.ts, kept apart so browsers never load it, and
// the standalone server never loads msw: what both share is in upgrade.ts).
import { ws, type WebSocketHandler } from 'msw';
import type { Runtime } from '../runtime.ts';
import { runEndpoint } from '../pipeline/endpoint.ts';
import type { EndpointSpec } from '../pipeline/call.ts';
import type { Outbound, SocketPeer, SocketRequests, SocketSession, SocketSink } from '../pipeline/exchange.ts';
import { inboundOf, Pending, socketRequests } from './upgrade.ts';

/** In-process: msw WebSocket handlers for the upgrade endpoints, on `origin` ('*' for any). */
export function mswWebSocketHandlers(runtime: Runtime, origin: string, endpoints: readonly EndpointSpec[]): WebSocketHandler[] {
  const base = origin === '*' ? '*' : origin.replace(/^http/, 'ws');
  return endpoints
    .filter((e) => e.upgrade)
    .map((spec) => {
      const link = ws.link(`${base}${spec.path}`);
      return link.addEventListener('connection', ({ client, info }) => {
        const pending = new Pending();
        const controller = new AbortController();
        // Node's WebSocket also takes `{ protocols, headers }` (undici's WebSocketInit; the Agents SDK sends its key so).
        const init = initOf(info.protocols);
        const offered = [init.protocols ?? []].flat();
        client.addEventListener('message', (event: MessageEvent) => {
          const data = event.data;
          const text = typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer);
          pending.receive(text);
        });
        client.addEventListener('close', () => {
          controller.abort();
          pending.close();
        });
        const url = new URL(client.url);
        // A browser's WebSocket carries no headers: the subprotocols are all there is.
        const headers: Record<string, string> = {
          ...init.headers,
          upgrade: 'websocket',
          ...(offered.length ? { 'sec-websocket-protocol': offered.join(', ') } : {}),
        };
        const inbound = inboundOf(
          'GET',
          url,
          (name) => headers[name],
          () => headers,
          controller.signal,
        );
        const requests = socketRequests(runtime, endpoints, spec.format);
        void runEndpoint(runtime, spec, inbound, {}).then((out) => openInProcess(client, out, pending, requests));
      });
    });
}

/** What a WebSocket constructor's second argument offers: subprotocols, and (Node's) headers, by lower-case name. */
function initOf(arg: unknown): { protocols?: string | string[]; headers?: Record<string, string> } {
  if (typeof arg === 'string' || Array.isArray(arg) || arg === null || typeof arg !== 'object')
    return { protocols: arg as string | string[] | undefined };
  const { protocols, headers } = arg as { protocols?: string | string[]; headers?: Record<string, unknown> };
  const named = Object.entries(headers ?? {}).filter(([, v]) => typeof v === 'string');
  return { protocols, headers: Object.fromEntries(named.map(([k, v]) => [k.toLowerCase(), v as string])) };
}

interface MswClient {
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
}

/** msw cannot fail a handshake with a status: a refused connection gets the error as an `error` event, then close 1008. */
function openInProcess(client: MswClient, out: Outbound, pending: Pending, requests: SocketRequests): void {
  const session: SocketSession | undefined = out.socket;
  if (!session) {
    const body = typeof out.body === 'string' ? (JSON.parse(out.body) as { error?: unknown }) : {};
    client.send(
      JSON.stringify({ type: 'error', event_id: `event_refused_${out.status}`, error: body.error ?? { message: `HTTP ${out.status}` } }),
    );
    // Closed on the next turn: msw delivers the message asynchronously, and a close first would drop it.
    setTimeout(() => client.close(1008, `HTTP ${out.status}`), 0);
    return;
  }
  const sink: SocketSink = {
    send: (text, binary) => client.send(binary ? new TextEncoder().encode(text).buffer : text),
    // In-process every frame is handed to the client's WebSocket as an event at once: nothing is buffered.
    buffered: () => 0,
    whenDrained: (resume) => queueMicrotask(resume),
    pauseReading: () => {},
    // On the next turn, as a refusal's: msw delivers frames asynchronously, and a close first would drop those sent before it.
    close: (code, reason) => void setTimeout(() => client.close(code, reason), 0),
    // A dropped connection, as the browser reports one.
    terminate: () => client.close(1006, 'connection dropped'),
  };
  const peer = session.open(sink, requests);
  const limited: SocketPeer = {
    receive: (text) => {
      // `ws` enforces maxPayload standalone; here the same limit is checked by hand.
      if (text.length > session.maxFrameBytes) {
        client.close(1009, 'Max payload size exceeded');
        peer.closed();
        return;
      }
      peer.receive(text);
    },
    closed: () => peer.closed(),
  };
  pending.attach(limited);
}
