// In-process transport: endpoints as msw handlers (works with msw 2.x and 3.x).
import { bypass, HttpHandler } from 'msw';
import type { Runtime } from '../runtime.ts';
import { runEndpoint } from '../pipeline/endpoint.ts';
import { RouteTable } from '../pipeline/routes.ts';
import { presentedKey, type KeyWay } from '../auth/keys.ts';
import type { EndpointSpec, FormatEdge } from '../pipeline/call.ts';
import {
  abandon,
  collect,
  isPieces,
  isPlayback,
  isProxied,
  tooLarge,
  type BrokenConnection,
  type Inbound,
  type Outbound,
} from '../pipeline/exchange.ts';
import { playbackStream } from '../pipeline/playback.ts';
import { decodeInSlices } from '../pipeline/pieces.ts';
import { CORS_HEADERS, preflightHeaders } from './cors.ts';

/** The body's bytes, refusing more than `limit`: by the declared length, else while it streams in. */
async function bodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array();
  if (declared !== null) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body.getReader();
  const chunks = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    },
  };
  return collect(chunks, limit, () => void reader.cancel());
}

function inboundOf(request: Request): Inbound {
  return {
    method: request.method,
    url: new URL(request.url),
    header: (name) => request.headers.get(name) ?? undefined,
    headers: () => Object.fromEntries(request.headers),
    text: async (limit) => decodeInSlices(await bodyBytes(request, limit), new TextDecoder()),
    bytes: (limit) => bodyBytes(request, limit),
    signal: request.signal,
  };
}

/** A connection fault, as fetch sees one: a network error, or a body that breaks after bad bytes. */
function brokenResponse(broken: BrokenConnection): Response {
  if (broken.type !== 'MALFORMED_RESPONSE_CHUNK') return Response.error();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('zz\r\nnot a valid chunk'));
      controller.error(new TypeError('terminated: malformed response chunk'));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

/** A body that arrives a chunk at a time, each made when the reader asks for it. */
function pulled(chunks: AsyncIterable<Uint8Array>, cancel: () => void): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel,
  });
}

const encoder = new TextEncoder();

function responseOf(out: Outbound, signal: AbortSignal, readerTimeoutMs: number): Response {
  if (out.broken) return brokenResponse(out.broken);
  // Headers fetch refuses (a CR/LF in a value) throw here, before any body is made: a stream made first
  // would play on (journaled completed, or growing an orphaned queue) after the Response failed.
  const headers = new Headers({ ...CORS_HEADERS, ...out.headers });
  if (isProxied(out.body)) {
    const proxied = out.body;
    return new Response(
      pulled(proxied.chunks, () => proxied.abort()),
      { status: out.status, headers },
    );
  }
  if (isPieces(out.body)) {
    // A big JSON reply: its pieces as the reader takes them, the rest never made if it stops reading.
    const { head, rest } = out.body;
    const pieces = (async function* () {
      yield encoder.encode(head);
      for await (const piece of rest) yield encoder.encode(piece);
    })();
    return new Response(
      pulled(pieces, () => void pieces.return(undefined)),
      { status: out.status, headers },
    );
  }
  const body = isPlayback(out.body) ? playbackStream(out.body, signal, readerTimeoutMs) : out.body;
  return new Response(body as BodyInit | null, { status: out.status, headers });
}

/** The standalone server's answer to a CORS preflight. */
const preflight = (request: Request) =>
  new Response(null, { status: 204, headers: preflightHeaders(request.headers.get('access-control-request-headers') ?? undefined) });

/** The path under `origin` ('*' for any): the request's own path, or undefined when it is another origin's. */
function pathUnder(origin: string, url: URL): string | undefined {
  if (origin === '*') return url.pathname;
  const base = new URL(origin);
  if (url.origin !== base.origin) return undefined;
  // An origin given with a path (`https://proxy.test/llm`) serves the API under it.
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!prefix) return url.pathname;
  return url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : undefined;
}

/**
 * The msw handler of `endpoints` on `origin` ('*' for any; `fallback` renders what no format
 * recognizes): one handler routing by the same table as
 * the standalone server (pipeline/routes.ts), so a path means the same thing in both modes. It takes
 * every request the table routes (an endpoint's, or a 405 for another method on its path) and, for a
 * path no endpoint serves, the 404 the standalone server gives, in the caller's format; on any origin
 * (the default) that 404 only for requests meant for the gateway, which present a key it issued: msw
 * counts a request a handler takes as handled, and the rest must stay unhandled (other hosts, reported
 * by onUnhandledRequest) or go on to the user's handlers. HEAD is msw's business.
 */
export function mswHandlers(runtime: Runtime, origin: string, endpoints: readonly EndpointSpec[], fallback: FormatEdge): HttpHandler[] {
  // Record mode in-process: the upstream call must get past msw (ours and the test's handlers).
  if (runtime.record) runtime.record.fetch ??= (url, init) => fetch(bypass(url as URL, init));
  const table = new RouteTable(endpoints, fallback);
  /** The request as the table sees it: its path under the origin (undefined when not ours to look at). */
  const inboundUnder = (request: Request): Inbound | undefined => {
    if (request.method === 'HEAD') return undefined;
    const inbound = inboundOf(request);
    const path = pathUnder(origin, inbound.url);
    if (path === undefined) return undefined;
    if (path !== inbound.url.pathname) inbound.url = new URL(path + inbound.url.search, inbound.url.origin);
    return inbound;
  };
  // Every way a client may present a key on an HTTP request, and the formats' own readers (SigV4).
  const keyWays: KeyWay[] = [...ALL_KEY_WAYS, ...new Set(endpoints.flatMap((e) => e.auth.filter((way) => typeof way === 'object')))];
  const presented = (inbound: Inbound) => {
    try {
      return presentedKey(inbound, keyWays);
    } catch {
      return undefined; // a malformed credential presents no key
    }
  };
  const claims = (request: Request) => {
    const inbound = inboundUnder(request);
    if (!inbound) return false;
    return table.route(inbound) !== undefined || origin !== '*' || runtime.tokens.has(presented(inbound) ?? '');
  };
  return [
    new ClaimingHandler(`${origin === '*' ? '*' : new URL(origin).origin}/*`, claims, async ({ request }) => {
      // OPTIONS gets the standalone server's preflight answer: a service worker never sees a preflight, but
      // happy-dom sends them through Node's http (without Access-Control-Request-Method).
      if (request.method === 'OPTIONS') return preflight(request);
      const inbound = inboundUnder(request)!;
      const routed = table.route(inbound);
      const out =
        routed && 'spec' in routed ? await runEndpoint(runtime, routed.spec, inbound, routed.params) : table.refuse(inbound, routed);
      try {
        return responseOf(out, request.signal, runtime.readerTimeoutMs);
      } catch (error) {
        // A header fetch refuses: the stream it would have carried has ended before it began.
        abandon(out);
        throw error;
      }
    }),
  ];
}

/** An any-method handler on `path` that takes only the requests `claims` says are its own. */
class ClaimingHandler extends HttpHandler {
  private readonly claims: (request: Request) => boolean;

  constructor(path: string, claims: (request: Request) => boolean, resolver: ConstructorParameters<typeof HttpHandler>[2]) {
    super(/.+/, path, resolver);
    this.claims = claims;
  }

  override predicate(args: Parameters<HttpHandler['predicate']>[0]) {
    // Async in msw 3 and recent 2.x; kept as the base answers.
    const matched = super.predicate(args) as boolean | Promise<boolean>;
    return (
      matched instanceof Promise ? matched.then((ok) => ok && this.claims(args.request)) : matched && this.claims(args.request)
    ) as ReturnType<HttpHandler['predicate']>;
  }
}

/** Every way a client may present a key on an HTTP request, besides a format's own readers. */
const ALL_KEY_WAYS = ['bearer', 'x-api-key', 'x-goog-api-key', 'api-key', 'query-key'] as const;
