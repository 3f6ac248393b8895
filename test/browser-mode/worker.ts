// vitest browser mode: the gateway in msw's service worker for the test file that calls this, reset after each
// test, and every request that reaches no handler (beyond the runner's own page assets) failing the test.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { setupWorker } from 'msw/browser';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/browser.ts';

/** A host that does not exist: only the worker can answer requests to it. */
export const BASE = 'https://gateway.invalid';

export function useWorkerGateway(options: GatewayOptions = {}): Gateway {
  const gateway = createGateway(options);
  const worker = setupWorker(...gateway.handlers);
  const unhandled: string[] = [];
  // msw 3 names the option onUnhandledFrame ({ frame }), msw 2 onUnhandledRequest (request).
  const onUnhandled = (...args: unknown[]) => {
    const first = args[0] as { frame?: { data: { request?: Request } } } & Partial<Request>;
    const request = first.frame?.data.request ?? (first as Request);
    if (new URL(request.url).origin !== location.origin) unhandled.push(`${request.method} ${request.url}`);
  };
  beforeAll(async () => {
    await worker.start({ quiet: true, onUnhandledRequest: onUnhandled, onUnhandledFrame: onUnhandled } as never);
  });
  afterEach(() => {
    gateway.reset();
    expect(unhandled.splice(0)).toEqual([]);
  });
  afterAll(() => worker.stop());
  return gateway;
}
