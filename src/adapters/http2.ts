// HTTP/2 on the standalone server's own port, beside HTTP/1.1. In clear, a connection that opens with
// HTTP/2's connection preface (prior knowledge: what the AWS SDK's default client speaks to an
// http:// endpoint, or `curl --http2-prior-knowledge`); under TLS, one whose client asked ALPN for
// h2 alone (a client that offers both gets http/1.1, as browsers and curl always have). Every other
// connection goes to node:http as before, WebSocket upgrades included. HTTP/2 requests reach the
// same listener through node:http2's compatibility API (adapters/node.ts serves both).
import type { Server } from 'node:http';
import { createServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { Server as TlsServer, type TLSSocket } from 'node:tls';

/** What every HTTP/2 client sends first (RFC 9113 §3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** The ALPN protocols a TLS server offers, in its order of preference: HTTP/1.1 unless the client speaks only h2. */
export const ALPN_PROTOCOLS = ['http/1.1', 'h2'];

const ignore = () => {};

interface Http2Door {
  /** Ends every HTTP/2 session and every connection still being told apart (server.close() ends the rest). */
  close(): void;
}

/**
 * Makes `server` (node:http, or node:https with ALPN_PROTOCOLS) answer HTTP/2 too: its own connection
 * listener is kept for HTTP/1.1 and called for every connection that is not HTTP/2.
 */
export function serveHttp2(server: Server, listener: (req: Http2ServerRequest, res: Http2ServerResponse) => void): Http2Door {
  const http2 = createServer();
  http2.on('request', listener);
  // A client's protocol error ends its session (node:http2 answers with GOAWAY): nothing to do here.
  http2.on('sessionError', ignore);
  const sessions = new Set<Http2Session>();
  http2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const undecided = new Set<Socket>();
  const tls = server instanceof TlsServer;
  // node:https hands its decrypted sockets to node:http's listener on 'secureConnection'; node:http on 'connection'.
  const event = tls ? 'secureConnection' : 'connection';
  const listeners = server.listeners(event) as ((socket: Socket) => void)[];
  if (listeners.length !== 1)
    throw new Error(`model-gateway-mock: expected node:http's own '${event}' listener alone, found ${listeners.length}`);
  const [http1] = listeners;
  server.removeListener(event, http1);
  const hand = (socket: Socket, isHttp2: boolean) => {
    if (isHttp2) http2.emit('connection', socket);
    else http1.call(server, socket);
  };
  server.on(event, (socket: Socket) => {
    if (tls) return hand(socket, (socket as TLSSocket).alpnProtocol === 'h2');
    // Until it is told apart, a connection that fails is nobody's: its error must not go unhandled.
    undecided.add(socket);
    socket.on('error', ignore);
    socket.once('close', () => undecided.delete(socket));
    sniff(socket, (isHttp2) => {
      undecided.delete(socket);
      socket.off('error', ignore);
      hand(socket, isHttp2);
    });
  });
  return {
    close() {
      for (const session of sessions) session.destroy();
      for (const socket of undecided) socket.destroy();
    },
  };
}

/**
 * Reads the first bytes of a clear-text connection without consuming them (they go back with
 * `unshift`), until they agree with the HTTP/2 preface whole (`decided(true)`) or differ from it
 * (`decided(false)`, at the first byte for any HTTP/1.1 request). Reading in paused mode leaves the
 * socket for node:http to consume natively.
 */
function sniff(socket: Socket, decided: (isHttp2: boolean) => void, held?: Buffer): void {
  const read = socket.read() as Buffer | null;
  const data = held && read ? Buffer.concat([held, read]) : (read ?? held);
  if (!data) return void socket.once('readable', () => sniff(socket, decided, held));
  const n = Math.min(data.length, PREFACE.length);
  const agrees = data.subarray(0, n).equals(PREFACE.subarray(0, n));
  if (agrees && data.length < PREFACE.length) return void socket.once('readable', () => sniff(socket, decided, data));
  socket.unshift(data);
  decided(agrees);
}
