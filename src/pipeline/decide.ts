// The per-request decisions: what the fixtures, the request's `x-mock-*` overrides and the token's
// scope make of one canonical request, before anything is synthesized; in record mode, that it goes
// upstream instead. Reads and updates the live state (Runtime) through a narrow context.
import { GatewayError, kindForStatus } from '../core/errors.ts';
import { faultStrikes, isReplyFault, overloaded, parseFault, pinnedBy, type FaultSpec } from '../core/faults.ts';
import type { JournalEntry } from '../core/journal.ts';
import type { CanonicalReply } from '../core/reply.ts';
import type { CanonicalRequest } from '../core/request.ts';
import { requestKey, respond, type PinnedReply } from '../core/respond.ts';
import type { FileSearcher } from '../core/synthesize/builtin.ts';
import { parseLatency, toLatency, type LatencyProfile } from '../core/timing.ts';
import { countPromptTokens } from '../core/tokens.ts';
import type { Capability } from '../core/models.ts';
import type { NearMiss } from '../fixtures/match.ts';
import type { Runtime } from '../runtime.ts';
import { requestOwnerKey, requestTestId } from '../scope.ts';
import type { Inbound } from './exchange.ts';
import { quotedName } from './params.ts';

/** The live state a decision reads and updates: settings, tokens, fixtures, catalogue, test scopes, prompt cache. */
export type DecisionState = Pick<
  Runtime,
  'seed' | 'latency' | 'strict' | 'record' | 'tokens' | 'fixtures' | 'catalogue' | 'testScopes' | 'stores' | 'promptCache' | 'now'
>;

/** What a decision reads: that state, the request's URL and headers, its journal entry and token (a Call has them all). */
export interface DecisionContext {
  readonly runtime: DecisionState;
  readonly inbound: Pick<Inbound, 'url' | 'header'>;
  readonly entry: JournalEntry;
  readonly token: string;
  /** The endpoint's own path, when it was reached by a dialect's (Call's canonicalPath). */
  readonly canonicalPath?: string;
}

/** What fixtures and overrides decide for one request (the fault not yet drawn against its probability). */
export interface Decision {
  pinned?: PinnedReply;
  seed: number;
  latency: LatencyProfile;
  fault?: FaultSpec;
  raw?: unknown;
}

/** What a request's answer is made of: the reply, its timing, and a fault to inflict, if any. */
export interface Answered {
  reply: CanonicalReply;
  latency: LatencyProfile;
  fault?: FaultSpec;
  /** A fixture's verbatim body for this format, if it has one. */
  raw?: unknown;
}

/** Record mode, and no fixture answers: the request goes to the real service (record/recorder.ts). */
export interface Forward {
  readonly forward: CanonicalRequest;
}

export function isForward(value: object): value is Forward {
  return 'forward' in value;
}

/** Fails unless `model` is in the catalogue and can do `capability` (Anthropic and Gemini word their own). */
export function requireModel(ctx: Pick<DecisionContext, 'runtime'>, model: string, capability: Capability): void {
  const info = ctx.runtime.catalogue.get(model);
  if (!info) {
    throw new GatewayError('not_found', `The model \`${model}\` does not exist or you do not have access to it.`, {
      code: 'model_not_found',
    });
  }
  if (!info.capabilities.includes(capability)) {
    throw new GatewayError(
      'not_found',
      `The model \`${model}\` does not support ${capability} (it supports: ${info.capabilities.join(', ')}).`,
      {
        param: 'model',
        code: 'model_not_supported',
      },
    );
  }
}

/** Fails when the conversation is longer than the model's context window, as the real services do. */
function requireContext(runtime: DecisionState, request: CanonicalRequest): void {
  const limit = runtime.catalogue.get(request.model)?.context_window;
  if (limit === undefined) return;
  const tokens = countPromptTokens(request.messages, request.tools, request.framing);
  if (tokens > limit) {
    throw new GatewayError(
      'invalid_request',
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      {
        param: 'messages',
        code: 'context_length_exceeded',
      },
    );
  }
}

/**
 * What the fixtures, the request's `x-mock-*` overrides and the token's scope decide for a request,
 * before anything is synthesized, or, recording with no fixture to answer, that it is forwarded.
 * Records model and fixture in the journal. Errors (a fixture's, a forced status, strict mode's near
 * miss) are thrown as GatewayErrors.
 */
export function decide(ctx: DecisionContext, request: CanonicalRequest): Decision | Forward {
  const { entry, inbound, runtime } = ctx;
  entry.model = request.model;
  entry.stream = request.stream;
  runtime.tokens.allow(ctx.token, request.model);
  const match = { request, path: inbound.url.pathname, canonicalPath: ctx.canonicalPath, header: (name: string) => inbound.header(name) };
  // A test's requests (x-mock-test-id) see its own fixtures, counters and scenario states first (scope.ts).
  const testId = requestTestId(match.header);
  const scope = testId === undefined ? undefined : runtime.testScopes.get(testId).fixtures;
  // Recording: what no fixture answers goes to the real service, x-mock-* headers and all.
  if (runtime.record && !runtime.fixtures.find(match, scope)) return { forward: request };
  const overrides = parseOverrides(inbound);
  if (overrides.status !== undefined) {
    throw new GatewayError(kindForStatus(overrides.status), `Status ${overrides.status} forced by the x-mock-status header.`, {
      status: overrides.status,
    });
  }
  const taken = runtime.fixtures.take(match, scope);
  if (!taken && runtime.strict) {
    const near = runtime.fixtures.nearest(match, scope);
    entry.nearMiss = near;
    throw new GatewayError('not_found', nearMissReport(near), { code: 'no_fixture_matched' });
  }
  const answer = taken?.answer;
  const name = taken ? (taken.entry.fixture.name ?? taken.entry.id) : undefined;
  entry.fixture ??= name;
  const unoffered = unofferedCalls(answer?.reply?.toolCalls, request);
  if (unoffered.length) (entry.warnings ??= []).push(unofferedWarning(name!, unoffered, request));
  if (answer?.error) {
    const e = answer.error;
    throw new GatewayError(kindForStatus(e.status), e.message ?? `Error ${e.status} from fixture "${name}".`, {
      status: e.status,
      code: e.code,
      headers: e.headers,
      details: e.details,
    });
  }
  return {
    pinned: answer?.reply ? { name, ...answer.reply } : name ? { name } : undefined,
    seed: overrides.seed ?? runtime.seed,
    latency: overrides.latency ?? (answer?.latency === undefined ? runtime.latency : toLatency(answer.latency)),
    fault: overrides.fault ?? answer?.fault,
    raw: answer?.raw?.[request.format],
  };
}

/** The tools a fixture's reply calls that the request did not offer (each once, in order). */
function unofferedCalls(calls: readonly { name: string }[] | undefined, request: CanonicalRequest): string[] {
  if (!calls?.length) return [];
  const offered = new Set(request.tools.map((t) => t.name));
  return [...new Set(calls.map((c) => c.name).filter((n) => !offered.has(n)))];
}

/**
 * The warning (journal `warnings`, `x-mock-warning`) for a fixture that calls tools the request did not
 * offer: sent as the fixture says (a test may want exactly that), but a client's tool loop will not find them.
 */
function unofferedWarning(fixture: string, names: readonly string[], request: CanonicalRequest): string {
  const list = (all: readonly string[]) =>
    `${all.slice(0, 5).map(quotedName).join(', ')}${all.length > 5 ? ` and ${all.length - 5} more` : ''}`;
  const offered = request.tools.length ? `it offered ${list(request.tools.map((t) => t.name))}` : 'it offered no tools';
  return `fixture ${quotedName(fixture)} calls ${names.length === 1 ? 'a tool' : 'tools'} the request did not offer: ${list(names)} (${offered})`;
}

/**
 * The answer to a chat-like request: the decision, and the reply it pins or synthesizes. `searchFiles`
 * answers the request's file searches from stores its format holds (else they are synthesized).
 */
export function answer(ctx: DecisionContext, request: CanonicalRequest, searchFiles?: FileSearcher): Answered | Forward {
  requireContext(ctx.runtime, request);
  const decision = decide(ctx, request);
  if (isForward(decision)) return decision;
  const { pinned, seed, latency, fault, raw } = decision;
  const { runtime } = ctx;
  // Cached per API key, and per test when the request carries a test id (whose reset drops its entries).
  const header = (name: string) => ctx.inbound.header(name);
  const scope = runtime.testScopes.stateKey(ctx.token, header);
  const owner = runtime.stores.owner(requestOwnerKey(runtime.testScopes, header));
  const context = {
    seed,
    created: runtime.now(),
    model: runtime.catalogue.get(request.model),
    cache: { store: runtime.promptCache, scope, now: runtime.now(), owner },
    searchFiles,
  };
  // Drawn against the reply's key (what respond() derives), before the reply: some faults shape it.
  const struck = fault && faultStrikes(fault, requestKey(request, seed)) ? fault : undefined;
  if (struck?.type === 'OVERLOADED' || (struck && isReplyFault(struck))) ctx.entry.fault = struck.type;
  if (struck?.type === 'OVERLOADED') throw overloaded(struck);
  const shaping = struck !== undefined && isReplyFault(struck);
  const reply = respond(request, context, shaping ? { ...pinned, ...pinnedBy(struck) } : pinned);
  // What the reply's tokens cost and count against the rate limits (limits.ts charges them);
  // delivery.ts's deliver() replaces it with a raw body's own usage when that is what goes out.
  ctx.entry.usage = reply.usage;
  return { reply, latency, fault: shaping ? undefined : struck, raw };
}

interface Overrides {
  status?: number;
  seed?: number;
  latency?: LatencyProfile;
  fault?: FaultSpec;
}

/**
 * Per-request overrides for clients that cannot load fixtures:
 * `x-mock-status: <400-599>`, `x-mock-seed: <integer>`, `x-mock-latency: ttft=…,tps=…,jitter=…`,
 * `x-mock-fault: <NAME>[,after=N][,ms=N][,status=N][,probability=P]` (a connection, stream, reply or error fault).
 */
function parseOverrides(inbound: Pick<Inbound, 'header'>): Overrides {
  const out: Overrides = {};
  const bad = (header: string, why: string) => new GatewayError('invalid_request', `Invalid ${header} header: ${why}`, { param: header });
  const status = inbound.header('x-mock-status');
  if (status !== undefined) {
    const n = Number(status);
    if (!/^\d{3}$/.test(status.trim()) || n < 400 || n > 599)
      throw bad('x-mock-status', `expected an HTTP error status from 400 to 599, got "${status}"`);
    out.status = n;
  }
  const seed = inbound.header('x-mock-seed');
  if (seed !== undefined) {
    const n = Number(seed);
    if (!/^\d+$/.test(seed.trim()) || !Number.isSafeInteger(n)) throw bad('x-mock-seed', `expected a non-negative integer, got "${seed}"`);
    out.seed = n;
  }
  const latency = inbound.header('x-mock-latency');
  const fault = inbound.header('x-mock-fault');
  try {
    if (latency !== undefined) out.latency = parseLatency(latency);
  } catch (error) {
    throw bad('x-mock-latency', (error as Error).message);
  }
  try {
    if (fault !== undefined) out.fault = parseFault(fault);
  } catch (error) {
    throw bad('x-mock-fault', (error as Error).message);
  }
  return out;
}

/** WireMock-style: the nearest fixture and, for each of its conditions, whether and why it missed. */
export function nearMissReport(near: NearMiss | undefined): string {
  if (!near)
    return 'No fixture matched this request (strict mode), and there are no fixtures at all. Add one with --fixtures, createGateway({fixtures}), use() or POST /__admin/fixtures.';
  const lines = near.conditions.map((c) => `  ${c.ok ? '✓' : '✗'} ${c.field}: expected ${c.expected}, got ${c.actual}`);
  return [
    `No fixture matched this request (strict mode). Nearest fixture: ${near.name ? `"${near.name}" (${near.id})` : near.id}`,
    ...lines,
  ].join('\n');
}
