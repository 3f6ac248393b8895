// Path patterns (`/v1/models/:model`, msw's syntax) matched from the host root, as msw matches a
// pattern under a fixed origin (`https://host/v1/models/:model`), without loading msw: the
// standalone server keeps msw off its module graph (test/layering.test.ts checks it, and compares this
// matcher with msw's on the same paths). routes.ts routes both transports with it.
import type { Params } from './call.ts';

/** The path as the table keys it: one trailing slash tolerated (`/v1/models/` is `/v1/models`), as msw's matcher does. */
export function tablePath(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/**
 * The pattern's parameters when `pathname` is the pattern, whole (one trailing slash tolerated), else
 * undefined. A parameter takes one non-empty segment, percent-decoded (left as sent when that fails);
 * a literal segment matches as sent or percent-decoded.
 */
export function matchPath(pattern: string, pathname: string): Params | undefined {
  return matchSegments(pattern.split('/'), tablePath(pathname).split('/'));
}

/** matchPath on a pattern and a path already split at their slashes (the route table splits each once). */
export function matchSegments(want: readonly string[], got: readonly string[]): Params | undefined {
  if (got.length !== want.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 1; i < want.length; i++) {
    const segment = got[i];
    if (want[i].startsWith(':')) {
      if (!segment) return undefined;
      params[want[i].slice(1)] = decode(segment);
    } else if (segment !== want[i] && (!segment.includes('%') || decode(segment) !== want[i])) return undefined;
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
