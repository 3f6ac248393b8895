// What both modes of the vitest helper do with a request no msw handler takes: fail the test that made
// it (or warn, or let it through), under msw 2 and msw 3 alike.
import type { UnhandledMode } from './types/vitest.ts';

/** What msw 2 (request, print) and msw 3 ({ frame, defaults }) hand an unhandled-request callback. */
function unhandledOf(args: unknown[]): { what: string; error(): void; warn(): void } {
  const [first, second] = args as [Record<string, unknown>, Record<string, () => void> | undefined];
  if (first instanceof Request)
    return { what: `${first.method} ${first.url}`, error: () => second?.error(), warn: () => second?.warning() };
  const { frame, defaults } = first as { frame: { protocol: string; data: { request?: Request } }; defaults: Record<string, () => void> };
  const request = frame.data.request;
  return {
    what: request ? `${request.method} ${request.url}` : `a ${frame.protocol} connection`,
    error: () => defaults.error(),
    warn: () => defaults.warn(),
  };
}

/** Starts `server` with `mode` for unhandled requests; `failures()` takes the messages of those since the last call. */
export function listenFailing(server: { listen(options?: never): void }, mode: UnhandledMode): { failures(): string[] } {
  const unhandled: string[] = [];
  const onUnhandled = (...args: unknown[]) => {
    if (mode === 'bypass') return;
    const u = unhandledOf(args);
    if (mode === 'warn') return u.warn();
    unhandled.push(u.what);
    u.error();
  };
  // msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame; each ignores the other.
  server.listen({ onUnhandledRequest: onUnhandled, onUnhandledFrame: onUnhandled } as never);
  return {
    failures: () =>
      unhandled
        .splice(0)
        .map(
          (what) => `${what}: no handler answers this request (model-gateway-mock serves its endpoints only; add an msw handler for it).`,
        ),
  };
}

/** The error that fails a test, if anything failed. */
export function failedRequests(failures: string[]): Error | undefined {
  return failures.length ? new Error(`model-gateway-mock: ${failures.length} unhandled request(s)\n${failures.join('\n')}`) : undefined;
}
