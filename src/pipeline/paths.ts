// Path patterns (`/v1/models/:model`) matched as msw's own matcher matches `*${pattern}`, without
// loading msw: the standalone server keeps msw off its module graph (test/layering.test.ts checks it,
// and compares this matcher with msw's on the same paths).
import type { FormatEdge, Params } from './call.ts';
import type { Inbound } from './exchange.ts';

/**
 * The pattern's parameters when `pathname` ends with it (any prefix, as msw's leading `*`; one
 * trailing slash tolerated), else undefined. A parameter takes one non-empty segment, percent-decoded
 * (left as sent when that fails).
 */
export function matchPath(pattern: string, pathname: string): Params | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const want = pattern.split('/');
  const got = path.split('/');
  const offset = got.length - want.length;
  if (offset < 0) return undefined;
  const params: Record<string, string> = {};
  for (let i = 1; i < want.length; i++) {
    const segment = got[offset + i];
    if (want[i].startsWith(':')) {
      if (!segment) return undefined;
      params[want[i].slice(1)] = decode(segment);
    } else if (segment !== want[i]) return undefined;
  }
  return params;
}

function decode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The origin a client reached us at, for URLs handed back to it (a batch's results_url, an image's url):
 * the request URL's scheme (the node adapter makes it https on an encrypted connection, msw gives the
 * whole URL) with the Host the client sent when that is a plain host[:port] (the standalone server
 * parses paths against localhost), else the request URL's origin.
 */
export function requestOrigin(inbound: { url: URL; header(name: string): string | undefined }): string {
  const host = inbound.header('host');
  if (host && /^(?:[\w.-]+|\[[\da-f:.]+\])(?::\d{1,5})?$/i.test(host)) return `${inbound.url.protocol}//${host}`;
  return inbound.url.origin;
}

/**
 * The format a request no endpoint takes is answered in (a 404 for an unknown path, a 405 for a wrong
 * method): the first of `formats` that recognizes it as its vendor's client's, else `fallback`.
 */
export function errorFormat(formats: Iterable<FormatEdge>, request: Pick<Inbound, 'url' | 'header'>, fallback: FormatEdge): FormatEdge {
  for (const format of formats) if (format.recognizes?.(request)) return format;
  return fallback;
}
