// What both modes of the vitest helper do with a request no msw handler takes: refuse it in the process
// and fail the test that made it (or warn and let it through, or let it through), under msw 2 and msw 3 alike.
import { syncBuiltinESMExports } from 'node:module';
import { unhandledBlocked } from './unhandled.ts';
import type { UnhandledMode } from './types/vitest.ts';

/** msw's printing defaults: msw 2 hands (request, print), msw 3 ({ frame, defaults }). They print only: the request then goes on. */
function warnOf(args: unknown[]): () => void {
  const [first, second] = args as [{ defaults?: { warn(): void } }, { warning(): void } | undefined];
  return () => (first instanceof Request ? second?.warning() : first.defaults?.warn());
}

/** Starts `server` with `mode` for unhandled requests; `failures()` takes the messages of those since the last call. */
export function listenFailing(server: { listen(options?: never): void }, mode: UnhandledMode): { failures(): string[] } {
  const unhandled: string[] = [];
  const blocked = unhandledBlocked({ onBlocked: (request) => unhandled.push(request) });
  const pass = (...args: unknown[]) => (mode === 'warn' ? warnOf(args)() : undefined);
  // msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame; each ignores the other.
  server.listen((mode === 'error' ? blocked : { onUnhandledRequest: pass, onUnhandledFrame: pass }) as never);
  // msw patches node:http's module object; an ESM named import (`import { request } from 'node:http'`)
  // reads a copy that only this brings up to date, and would otherwise reach the network unseen.
  syncBuiltinESMExports();
  return {
    failures: () =>
      unhandled
        .splice(0)
        .map(
          (request) =>
            `${request}: no handler answers this request, so it was refused and never sent (model-gateway-mock serves its endpoints only; add an msw handler for it).`,
        ),
  };
}

/** Undoes listenFailing's change to node:http's ESM exports, once msw has put the module back. */
export function closed(server: { close(): void }): void {
  server.close();
  syncBuiltinESMExports();
}

/** The error that fails a test, if anything failed. */
export function failedRequests(failures: string[]): Error | undefined {
  return failures.length ? new Error(`model-gateway-mock: ${failures.length} unhandled request(s)\n${failures.join('\n')}`) : undefined;
}
