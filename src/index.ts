// model-gateway-mock: public API. Every name is listed (no `export *`): what is published is chosen here,
// and test/surface.test.ts checks that nothing internal reaches the published types.
import { buildGateway, endpoints } from './gateway.ts';
import type { Gateway, GatewayOptions } from './api.ts';
import { mswHandlers } from './adapters/msw.ts';
import { mswWebSocketHandlers } from './adapters/websocket-msw.ts';
import { validateFixtures } from './fixture-check.ts';
import { unhandledBlocked } from './unhandled.ts';
import type { BlockUnhandledOptions, UnhandledOptions } from './types/unhandled.ts';
import { FALLBACK_FORMAT } from './formats/all.ts';

/**
 * The emulator in-process, as msw handlers plus its control plane.
 * @example
 * const gateway = createGateway({ fixtures: [{ match: { model: 'gpt-4o' }, reply: { text: 'Hello!' } }] });
 * const server = setupServer(...gateway.handlers); // msw/node, or setupWorker in a browser
 * server.listen();
 * await new OpenAI({ apiKey: 'sk-test' }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 * gateway.requests(); // what was asked
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  return buildGateway(options, {
    handlers: (runtime, origin) => [
      ...mswHandlers(runtime, origin, endpoints, FALLBACK_FORMAT),
      ...mswWebSocketHandlers(runtime, origin, endpoints),
    ],
    validate: validateFixtures,
  });
}
/**
 * Options for msw's `server.listen()` (or `worker.start()`) under which a request no handler takes is
 * refused in the process, never sent to the network with its credentials, under msw 3 and msw 2 alike:
 * its caller gets a network error, and the request is printed (or handed to `onBlocked`).
 * @example
 * const server = setupServer(...createGateway().handlers);
 * server.listen(blockUnhandled());
 * await fetch('https://api.example.com/v2/chat', { headers: { authorization: `Bearer ${process.env.OPENAI_API_KEY}` } }); // TypeError: fetch failed, nothing sent
 * @example
 * // In a browser: the page's own server still answers its routes, its modules and its HMR socket (ws: on the same host).
 * await setupWorker(...gateway.handlers).start(blockUnhandled({ allow: (url) => url.host === location.host }));
 */
export function blockUnhandled(options?: BlockUnhandledOptions): UnhandledOptions {
  return unhandledBlocked(options);
}
export type { BlockUnhandledOptions, UnhandledOptions } from './types/unhandled.ts';
export type {
  Gateway,
  GatewayOptions,
  RequestFilter,
  RequestSummary,
  RateLimits,
  PriceTable,
  ModelPrice,
  CostReport,
  SpendTotals,
  TestCosts,
  GatewayTest,
  HeldObject,
  HeldStoreReport,
} from './api.ts';
export type {
  Fixture,
  FixtureMatch,
  FixtureReply,
  FixtureError,
  FixtureAnswer,
  FixtureToolCall,
  FixtureBuiltinCall,
  FixtureCitation,
  TextMatch,
  ToolCallMatch,
} from './types/fixtures.ts';
export type { FixtureEntry } from './types/fixtures.ts';
export type { FaultSpec } from './types/faults.ts';
export type { IssuedToken, TokenScope } from './types/keys.ts';
export type { JournalEntry } from './types/journal.ts';
export type { LatencyProfile } from './types/timing.ts';
export type { ModelInfo, Capability } from './types/models.ts';
export type { CanonicalRequest, Message, Part } from './types/request.ts';
export type { FinishReason, Usage } from './types/reply.ts';
export { FIXED_EPOCH_SECONDS } from './types/clock.ts';
