// model-gateway-mock: public API.
export { createGateway, type Gateway } from './gateway.ts';
export type { GatewayOptions } from './runtime.ts';
export type { Fixture, FixtureMatch, FixtureReply, FixtureError, TextMatch } from './fixtures/types.ts';
export type { JournalEntry } from './core/journal.ts';
export type { LatencyProfile } from './core/timing.ts';
export type { ModelInfo, Capability } from './core/models.ts';
export type { CanonicalRequest, Message, Part } from './core/request.ts';
export type { FinishReason, Usage } from './core/reply.ts';
export { FIXED_EPOCH_SECONDS } from './core/clock.ts';
