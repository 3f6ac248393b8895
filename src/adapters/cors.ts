// CORS for browser callers: the standalone server answers them, and so do the in-process handlers, because
// simulated DOMs (happy-dom) send real preflights through Node's http that msw intercepts.

/** On every API reply: any origin may read it, headers included. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
};

/** The 204 answer to a preflight asking for `requestedHeaders`. */
export function preflightHeaders(requestedHeaders: string | undefined): Record<string, string> {
  return {
    ...CORS_HEADERS,
    'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': requestedHeaders ?? '*',
    'access-control-max-age': '86400',
  };
}
