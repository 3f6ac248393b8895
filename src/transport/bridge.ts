// node:http ⇄ msw: each incoming request becomes a fetch Request for msw's getResponse(), and the
// Response goes back out with headers flushed at once for streams and production stopped on disconnect.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getResponse, type RequestHandler } from 'msw';

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal,
    // Node's fetch needs this for a streamed request body.
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
}

function writeHead(res: ServerResponse, response: Response, extra: Record<string, string>): void {
  const headers: Record<string, string | string[]> = { ...extra };
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
}

/**
 * Answers `req` from `handlers`; calls `unhandled` when no handler matches.
 * Returns when the response is fully written or the client has gone.
 */
export async function bridge(
  handlers: readonly RequestHandler[],
  req: IncomingMessage,
  res: ServerResponse,
  extraHeaders: Record<string, string>,
  unhandled: () => void,
): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const response = await getResponse(handlers as RequestHandler[], toRequest(req, controller.signal));
  if (!response) return unhandled();
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A stream: headers go now, each event as it is produced; a client that leaves stops production.
    writeHead(res, response, extraHeaders);
    res.flushHeaders();
    try {
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res, { signal: controller.signal });
    } catch {
      // the client went away mid-stream: nothing left to answer
    }
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  writeHead(res, response, { ...extraHeaders, 'content-length': String(body.byteLength) });
  res.end(body);
}
