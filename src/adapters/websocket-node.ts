// Standalone WebSocket upgrades: node:http's 'upgrade' goes to the `ws` library (loaded on the first
// upgrade, so start-up does not pay for it), after the endpoint pipeline has accepted the handshake.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { Runtime } from '../runtime.ts';
import { runEndpoint, unknownRoute } from '../pipeline/endpoint.ts';
import type { EndpointSpec, FormatEdge } from '../pipeline/call.ts';
import type { Inbound, Outbound, SocketSink } from '../pipeline/exchange.ts';
import { inboundOf, socketRequests } from './upgrade.ts';
import { HIGH_WATER_BYTES } from '../pipeline/playback.ts';

type WsModule = typeof import('ws');
let wsModule: Promise<WsModule> | undefined;

/** Writes a refused handshake: the pipeline's HTTP error, then the socket closes. */
function refuse(socket: Duplex, out: Outbound): void {
  const body = typeof out.body === 'string' ? out.body : '';
  const headers = { ...out.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  const head = [`HTTP/1.1 ${out.status} ${STATUS_CODES[out.status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join(
    '\r\n',
  );
  socket.end(`${head}\r\n\r\n${body}`);
}

/** Standalone: answers one upgrade request on the node:http server. Never throws. */
export async function handleUpgrade(
  runtime: Runtime,
  endpoints: readonly EndpointSpec[],
  fallback: FormatEdge,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => {});
  const controller = new AbortController();
  socket.once('close', () => controller.abort());
  let out: Outbound;
  let inbound: Inbound;
  try {
    // Clients that join a base URL ending in / to a path (@google/genai's Live) ask for //ws/…: one path, as servers read it.
    const url = new URL((req.url ?? '/').replace(/^\/+/, '/'), 'http://localhost');
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    inbound = inboundOf(req.method ?? 'GET', url, header, () => req.headers as Record<string, string>, controller.signal);
    const spec = endpoints.find((e) => e.upgrade && e.path === url.pathname);
    out = spec ? await runEndpoint(runtime, spec, inbound, {}) : unknownRoute(fallback, inbound);
  } catch {
    return void socket.destroy();
  }
  const session = out.socket;
  if (!session) return refuse(socket, out);
  if (socket.destroyed) return;
  const { WebSocketServer } = await (wsModule ??= import('ws'));
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: session.maxFrameBytes,
    perMessageDeflate: false,
    handleProtocols: () => session.protocol ?? false,
  });
  // The pipeline's headers (request id) go on the 101 as on any response.
  server.on('headers', (lines) => {
    for (const [k, v] of Object.entries(out.headers)) lines.push(`${k}: ${v}`);
  });
  server.handleUpgrade(req, socket, head, (client) => {
    const sink: SocketSink = {
      send: (text, binary) => client.send(binary ? Buffer.from(text) : text),
      buffered: () => client.bufferedAmount,
      // Past the high-water mark the socket's own write said so: its 'drain' comes once it is empty.
      whenDrained: (resume) => (client.bufferedAmount < HIGH_WATER_BYTES ? queueMicrotask(resume) : void socket.once('drain', resume)),
      pauseReading: (paused) => (paused ? client.pause() : client.resume()),
      close: (code, reason) => client.close(code, reason),
      terminate: () => client.terminate(),
    };
    const peer = session.open(sink, socketRequests(runtime, endpoints, fallback));
    // Oversized frames: `ws` closes with 1009 and emits an error, which ends the session like a close.
    client.on('message', (data, isBinary) => peer.receive(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString()));
    client.on('close', () => peer.closed());
    client.on('error', () => peer.closed());
  });
}
