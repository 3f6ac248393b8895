// model-gateway-mock/browser: the in-process gateway for msw's setupWorker. The root entry is the same
// module graph (no Node built-ins on it); this name promises it, and test/browser-bundle.test.ts keeps it so.
// The same names as the root entry, listed: a new export there is published here only when added here.
// The fixture check (ajv) is imported up front: the root loads it on first use, synchronously, which only
// Node can (fixture-check.ts).
import * as fixtureValidation from './fixtures/validate.ts';
import { fixtureCheck } from './fixture-check.ts';

fixtureCheck.provide(fixtureValidation);
export { createGateway, FIXED_EPOCH_SECONDS } from './index.ts';
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
  Fixture,
  FixtureMatch,
  FixtureReply,
  FixtureError,
  FixtureAnswer,
  FixtureToolCall,
  TextMatch,
  ToolCallMatch,
  FixtureEntry,
  FaultSpec,
  IssuedToken,
  TokenScope,
  JournalEntry,
  LatencyProfile,
  ModelInfo,
  Capability,
  CanonicalRequest,
  Message,
  Part,
  FinishReason,
  Usage,
} from './index.ts';
