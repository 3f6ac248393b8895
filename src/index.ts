// model-gateway-mock: public API. Every name is listed (no `export *`): what is published is chosen here,
// and test/surface.test.ts checks that nothing internal reaches the published types.
import { buildGateway, endpoints } from './gateway.ts';
import type { Gateway, GatewayOptions } from './api.ts';
import { mswHandlers } from './adapters/msw.ts';
import { mswWebSocketHandlers } from './adapters/websocket-msw.ts';
import { validateFixtures } from './fixture-check.ts';

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
    handlers: (runtime, origin) => [...mswHandlers(runtime, origin, endpoints), ...mswWebSocketHandlers(runtime, origin, endpoints)],
    validate: validateFixtures,
  });
}
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
