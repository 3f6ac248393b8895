// What happens to a request no msw handler takes: it is refused in the process, never sent on. msw's own
// 'error' strategy refuses it too, but a custom callback that calls msw's printing defaults (print.error()
// in msw 2, defaults.error() in msw 3) lets the request through after printing, credentials and all: the
// callback must refuse it itself, by throwing. A thrown Response is what msw answers the client with
// (Response.error(): a network error, as if the host were unreachable); a WebSocket connection is failed
// with the thrown Error. Browser-safe: no Node built-ins.
import { maskedSearch } from './auth/keys.ts';
import type { BlockUnhandledOptions, UnhandledOptions } from './types/unhandled.ts';

/** An unhandled request or connection as msw 2 (a Request) or msw 3 ({ frame }) hands it to the callback. */
interface Unhandled {
  url: URL;
  method: string;
  socket: boolean;
}

/** The request inside msw 3's network frame: an HTTP frame holds a Request, a WebSocket frame its connection. */
function fromFrame(frame: unknown): Unhandled {
  const { protocol, data } = frame as { protocol: string; data: { request?: Request; connection?: { client: { url: URL } } } };
  if (data.request) return { url: new URL(data.request.url), method: data.request.method, socket: protocol !== 'http' };
  return { url: new URL(String(data.connection?.client.url)), method: 'GET', socket: true };
}

/** msw 2 hands a WebSocket connection over as a Request with an upgrade header. */
const fromRequest = (request: Request): Unhandled => ({
  url: new URL(request.url),
  method: request.method,
  socket: request.headers.get('upgrade')?.toLowerCase() === 'websocket',
});

/** How a blocked request is named in messages: method and URL, any credential in its query masked. */
const described = ({ url, method, socket }: Unhandled) =>
  `${socket ? 'WebSocket' : method} ${url.origin}${url.pathname}${maskedSearch(url)}`;

const blockedMessage = (request: string) =>
  `model-gateway-mock: blocked ${request}: no msw handler answers it, so it was refused in the process and never sent (add an msw handler for it, or let it through with blockUnhandled({ allow })).`;

/**
 * Listen options under which a request no handler takes fails in the process (a network error to its
 * caller) instead of reaching the network with its credentials; `allow` lets chosen ones through.
 */
export function unhandledBlocked(options: BlockUnhandledOptions = {}): UnhandledOptions {
  const { allow, onBlocked = (request: string) => console.error(blockedMessage(request)) } = options;
  const refuse = (u: Unhandled): void => {
    if (allow?.(u.url)) return;
    onBlocked(described(u));
    // Thrown out of msw's callback, each is how msw fails what it intercepted (see the top of this file).
    throw u.socket ? new Error(blockedMessage(described(u))) : Response.error();
  };
  return {
    onUnhandledRequest: (request) => refuse(fromRequest(request)),
    onUnhandledFrame: ({ frame }) => refuse(fromFrame(frame)),
  };
}
