// model-gateway-mock/browser: the in-process gateway for msw's setupWorker. The root entry is the same
// module graph (no Node built-ins on it); this name promises it, and test/browser-bundle.test.ts keeps it so.
// The same names as the root entry, listed: a new export there is published here only when added here.
// The fixture check (ajv) and the fixture pattern engine (re2js) are imported up front: the root loads
// them on first use, synchronously, which only Node can (fixture-check.ts, fixtures/regex.ts).
import * as fixtureValidation from './fixtures/validate.ts';
import { fixtureCheck } from './fixture-check.ts';
import * as re2 from 're2js';
import { regexEngine } from './fixtures/regex.ts';

fixtureCheck.provide(fixtureValidation);
regexEngine.provide(re2);
export { blockUnhandled, createGateway, FIXED_EPOCH_SECONDS } from './index.ts';
export type {
  BlockUnhandledOptions,
  UnhandledOptions,
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
  FixtureBuiltinCall,
  FixtureCitation,
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
