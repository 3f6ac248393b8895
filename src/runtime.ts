// The gateway's live state, shared by every endpoint: settings, tokens, fixtures, catalogue, journal.
import { Catalogue, type ModelEntry, type ModelFamily } from './core/models.ts';
import { Journal } from './core/journal.ts';
import { clockSeconds, type ClockOption } from './core/clock.ts';
import { INSTANT, parseLatency, toLatency, type LatencyProfile } from './core/timing.ts';
import { DEFAULT_KEY as DEFAULT_TOKEN, KeyStore as TokenStore } from './auth/keys.ts';
import { FixtureSet } from './fixtures/match.ts';
import type { Fixture } from './fixtures/types.ts';
import type { CanonicalRequest } from './core/request.ts';
import type { CanonicalReply } from './core/reply.ts';
import type { Capability } from './core/models.ts';
import { GatewayError, kindForStatus } from './core/errors.ts';
import { respond, type PinnedReply } from './core/respond.ts';
import { countPromptTokens } from './core/tokens.ts';
import { BoundedStore } from './core/store.ts';
import { faultStrikes, parseFault, type FaultSpec } from './core/faults.ts';
import type { NearMiss } from './fixtures/match.ts';
import type { Call } from './transport/endpoint.ts';
import type { Inbound } from './transport/exchange.ts';
import { ForwardToUpstream, type RecordOptions } from './record/forward.ts';
import type { Recorder } from './record/recorder.ts';
import shipped from '../catalog/models.json' with { type: 'json' };
import { isFormatName } from './formats/names.ts';

export interface GatewayOptions {
  /**
   * Origin the in-process handlers intercept, e.g. `https://gateway.test`. Default: any origin,
   * so SDKs keep their default base URLs.
   */
  origin?: string;
  /** Seed of every synthesized value. Default 0. */
  seed?: number;
  /** The issued tokens. Default: `['sk-test']`. */
  tokens?: string[];
  /** Fixtures in force from the start. */
  fixtures?: Fixture[];
  /** Global latency profile, as `ttft=250,tps=40,jitter=0.2` or an object. Default: instant. */
  latency?: string | Partial<LatencyProfile>;
  /** Timestamps in replies: 'fixed' (default, 2026-01-01T00:00:00Z), 'real', or Unix seconds. */
  clock?: ClockOption;
  /**
   * Models added to (or replacing, by id) the shipped catalogue: whole models, or your own names for
   * one (`{ id, base }` or `'name=base'`, base a model id or a family such as `claude-sonnet`).
   */
  models?: ModelEntry[];
  /** Largest accepted request body in bytes. Default 32 MiB. */
  maxBodyBytes?: number;
  /** How many requests the journal keeps. Default 1000 (bodies over 64 KiB are kept shortened to about 64 KiB). */
  journalSize?: number;
  /** Bytes of stored state (Responses kept for `previous_response_id` and retrieval). Default 64 MiB. */
  storeBytes?: number;
  /** Answer only from fixtures: an unmatched request gets a 404 with the near-miss report. */
  strict?: boolean;
  /**
   * Refuse request parameters the gateway does not know with the vendor's 400. Default false: they are
   * accepted, named in the journal entry (`warnings`) and in an `x-mock-warning` header.
   */
  strictParams?: boolean;
  /** Record mode: forward what no fixture matches to an upstream and save its answers as fixtures. */
  record?: RecordOptions;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
export const DEFAULT_STORE_BYTES = 64 * 1024 * 1024;

export class Runtime {
  readonly seed: number;
  readonly clock: ClockOption;
  readonly latency: LatencyProfile;
  readonly maxBodyBytes: number;
  readonly tokens: TokenStore;
  readonly fixtures: FixtureSet;
  readonly catalogue: Catalogue;
  readonly journal: Journal;
  readonly strict: boolean;
  readonly strictParams: boolean;
  /** Record mode's settings; the recorder itself loads on the first forwarded request. */
  readonly record?: RecordOptions;
  recorder?: Recorder;
  /** State a format keeps between requests (stored responses), by id; bounded in count and bytes, cleared by reset. */
  readonly stored: BoundedStore<unknown>;
  /** Generated image files served by URL until reset, by file name; bounded in count and bytes (256 MiB). */
  readonly files = new BoundedStore<StoredFile>(1000, 256 * 1024 * 1024);
  /** Live streams, so a test can see production stop when a client leaves. */
  activeStreams = 0;

  constructor(options: GatewayOptions = {}) {
    this.seed = options.seed ?? 0;
    this.clock = options.clock ?? 'fixed';
    try {
      this.latency = options.latency === undefined ? INSTANT : toLatency(options.latency);
    } catch (error) {
      throw new Error(`model-gateway-mock options, latency: ${(error as Error).message}`);
    }
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.tokens = new TokenStore(options.tokens?.length ? options.tokens : [DEFAULT_TOKEN]);
    this.fixtures = new FixtureSet(options.fixtures ?? []);
    try {
      this.catalogue = shippedCatalogue(options.models);
    } catch (error) {
      throw new Error(`model-gateway-mock options, models: ${(error as Error).message}`);
    }
    this.journal = new Journal(options.journalSize ?? 1000);
    this.strict = options.strict ?? false;
    this.strictParams = options.strictParams ?? false;
    this.record = options.record;
    this.stored = new BoundedStore(1000, options.storeBytes ?? DEFAULT_STORE_BYTES);
  }

  now(): number {
    return clockSeconds(this.clock);
  }

  /** Fails unless `model` is in the catalogue and can do `capability`. */
  requireModel(model: string, capability: Capability): void {
    const info = this.catalogue.get(model);
    if (!info) {
      throw new GatewayError('not_found', `The model \`${model}\` does not exist or you do not have access to it.`, { code: 'model_not_found' });
    }
    if (!info.capabilities.includes(capability)) {
      throw new GatewayError('not_found', `The model \`${model}\` does not support ${capability} (it supports: ${info.capabilities.join(', ')}).`, {
        param: 'model',
        code: 'model_not_supported',
      });
    }
  }

  /** Fails when the conversation is longer than the model's context window, as the real services do. */
  requireContext(request: CanonicalRequest): void {
    const limit = this.catalogue.get(request.model)?.context_window;
    if (limit === undefined) return;
    const tokens = countPromptTokens(request.messages, request.tools);
    if (tokens > limit) {
      throw new GatewayError('invalid_request', `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, {
        param: 'messages',
        code: 'context_length_exceeded',
      });
    }
  }

  /**
   * What the fixtures, the request's `x-mock-*` overrides and the token's scope decide for a request,
   * before anything is synthesized. Records model and fixture in the journal. Errors (a fixture's, a
   * forced status, strict mode's near miss) are thrown as GatewayErrors.
   */
  decide(call: Call, request: CanonicalRequest): Decision {
    const { entry, inbound } = call;
    entry.model = request.model;
    entry.stream = request.stream;
    this.tokens.allow(call.token, request.model);
    const ctx = { request, path: inbound.url.pathname, header: (name: string) => inbound.header(name) };
    // Recording: what no fixture answers goes to the real service, x-mock-* headers and all.
    if (this.record && !this.fixtures.find(ctx)) throw new ForwardToUpstream(request);
    const overrides = parseOverrides(inbound);
    if (overrides.status !== undefined) {
      throw new GatewayError(kindForStatus(overrides.status), `Status ${overrides.status} forced by the x-mock-status header.`, { status: overrides.status });
    }
    const taken = this.fixtures.take(ctx);
    if (!taken && this.strict) {
      const near = this.fixtures.nearest(ctx);
      entry.nearMiss = near;
      throw new GatewayError('not_found', nearMissReport(near), { code: 'no_fixture_matched' });
    }
    const answer = taken?.answer;
    const name = taken ? (taken.entry.fixture.name ?? taken.entry.id) : undefined;
    entry.fixture ??= name;
    if (answer?.error) {
      const e = answer.error;
      throw new GatewayError(kindForStatus(e.status), e.message ?? `Error ${e.status} from fixture "${name}".`, { status: e.status, code: e.code, headers: e.headers });
    }
    return {
      pinned: answer?.reply ? { name, ...answer.reply } : name ? { name } : undefined,
      seed: overrides.seed ?? this.seed,
      latency: overrides.latency ?? (answer?.latency === undefined ? this.latency : toLatency(answer.latency)),
      fault: overrides.fault ?? answer?.fault,
      raw: isFormatName(request.format) ? answer?.raw?.[request.format] : undefined,
    };
  }

  /** The answer to a chat-like request: the decision, and the reply it pins or synthesizes. */
  answer(call: Call, request: CanonicalRequest): Answered {
    this.requireContext(request);
    const { pinned, seed, latency, fault, raw } = this.decide(call, request);
    const reply = respond(request, { seed, created: this.now() }, pinned);
    return { reply, latency, fault: fault && faultStrikes(fault, reply.key) ? fault : undefined, raw };
  }
}

/** The shipped catalogue and families, with `models` added. */
export function shippedCatalogue(models: readonly ModelEntry[] = []): Catalogue {
  return new Catalogue([...(shipped.models as ModelEntry[]), ...models], shipped.families as ModelFamily[]);
}

/** A file the gateway serves by URL (a generated image). */
export interface StoredFile {
  bytes: Uint8Array;
  contentType: string;
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

interface Overrides {
  status?: number;
  seed?: number;
  latency?: LatencyProfile;
  fault?: FaultSpec;
}

/**
 * Per-request overrides for clients that cannot load fixtures:
 * `x-mock-status: <400-599>`, `x-mock-seed: <integer>`, `x-mock-latency: ttft=…,tps=…,jitter=…`,
 * `x-mock-fault: <NAME>[,after=N][,ms=N][,status=N][,probability=P]`.
 */
function parseOverrides(inbound: Inbound): Overrides {
  const out: Overrides = {};
  const bad = (header: string, why: string) => new GatewayError('invalid_request', `Invalid ${header} header: ${why}`, { param: header });
  const status = inbound.header('x-mock-status');
  if (status !== undefined) {
    const n = Number(status);
    if (!/^\d{3}$/.test(status.trim()) || n < 400 || n > 599) throw bad('x-mock-status', `expected an HTTP error status from 400 to 599, got "${status}"`);
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
  if (!near) return 'No fixture matched this request (strict mode), and there are no fixtures at all. Add one with --fixtures, createGateway({fixtures}), use() or POST /__admin/fixtures.';
  const lines = near.conditions.map((c) => `  ${c.ok ? '✓' : '✗'} ${c.field}: expected ${c.expected}, got ${c.actual}`);
  return [`No fixture matched this request (strict mode). Nearest fixture: ${near.name ? `"${near.name}" (${near.id})` : near.id}`, ...lines].join('\n');
}
