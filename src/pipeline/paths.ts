// Path patterns (`/v1/models/:model`) matched as msw's own matcher matches `*${pattern}`, without
// loading msw: the standalone server keeps msw off its module graph (test/layering.test.ts checks it,
// and compares this matcher with msw's on the same paths).
import type { Params } from './call.ts';

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
