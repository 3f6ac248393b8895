// model-gateway-mock: public API.
export { createGateway, type Gateway, type RequestFilter } from './gateway.ts';
export type { GatewayOptions } from './runtime.ts';
export type { Fixture, FixtureMatch, FixtureReply, FixtureError, FixtureAnswer, FixtureToolCall, TextMatch } from './fixtures/types.ts';
export type { FixtureEntry } from './fixtures/match.ts';
export type { FaultSpec } from './core/faults.ts';
export type { IssuedToken, TokenScope } from './auth/tokens.ts';
export type { JournalEntry } from './core/journal.ts';
export type { LatencyProfile } from './core/timing.ts';
export type { ModelInfo, Capability } from './core/models.ts';
export type { CanonicalRequest, Message, Part } from './core/request.ts';
export type { FinishReason, Usage } from './core/reply.ts';
export { FIXED_EPOCH_SECONDS } from './core/clock.ts';
