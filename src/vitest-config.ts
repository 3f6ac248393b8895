// model-gateway-mock/vitest-config: what a vitest.config.ts sets for tests that run the gateway in a simulated
// DOM. Imports nothing (a config file loads it before any test: no vitest runtime, msw or gateway).

/**
 * vitest's `onUnhandledError` for happy-dom: happy-dom's fetch closes a response body's stream again after
 * its reader cancelled it, which the openai SDK does with bodies it is done with (a streamed reply, an
 * error it retries), and the `ERR_INVALID_STATE` ("Controller is already closed") it then throws from its
 * own code is uncaught, so the run exits 1 with every test green. This ignores exactly that error (false);
 * every other one still fails the run. jsdom uses Node's fetch and needs nothing.
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { environment: 'happy-dom', onUnhandledError: ignoreHappyDomCancel } });
 */
export function ignoreHappyDomCancel(error: { message?: string; stack?: string }): boolean {
  return !(/Controller is already closed/.test(error.message ?? '') && /happy-dom[\\/]lib[\\/]fetch/.test(error.stack ?? ''));
}
