// model-gateway-mock: public API.
import { buildGateway, endpoints, type Gateway } from './gateway.ts';
import type { GatewayOptions } from './runtime.ts';
import { mswHandlers } from './adapters/msw.ts';
import { mswWebSocketHandlers } from './adapters/websocket-msw.ts';
import { validateFixtures } from './fixtures/validate.ts';

export type { Gateway, RequestFilter } from './gateway.ts';

/** The emulator in-process: `setupServer(...createGateway(options).handlers)`. */
export function createGateway(options: GatewayOptions = {}): Gateway {
  return buildGateway(options, {
    handlers: (runtime, origin) => [...mswHandlers(runtime, origin, endpoints), ...mswWebSocketHandlers(runtime, origin, endpoints)],
    validate: validateFixtures,
  });
}
export type { GatewayOptions } from './runtime.ts';
export type { Fixture, FixtureMatch, FixtureReply, FixtureError, FixtureAnswer, FixtureToolCall, TextMatch } from './fixtures/types.ts';
export type { FixtureEntry } from './fixtures/match.ts';
export type { FaultSpec } from './core/faults.ts';
export type { IssuedToken, TokenScope } from './auth/keys.ts';
export type { JournalEntry } from './core/journal.ts';
export type { LatencyProfile } from './core/timing.ts';
export type { ModelInfo, Capability } from './core/models.ts';
export type { CanonicalRequest, Message, Part } from './core/request.ts';
export type { FinishReason, Usage } from './core/reply.ts';
export { FIXED_EPOCH_SECONDS } from './core/clock.ts';
