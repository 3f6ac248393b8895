// The gateway's live state, shared by every endpoint: settings, tokens, fixtures, catalogue, journal.
import { Catalogue, type ModelInfo } from './core/models.ts';
import { Journal } from './core/journal.ts';
import { clockSeconds, type ClockOption } from './core/clock.ts';
import { INSTANT, parseLatency, type LatencyProfile } from './core/timing.ts';
import { DEFAULT_TOKEN, TokenStore } from './auth/tokens.ts';
import { FixtureSet } from './fixtures/match.ts';
import type { Fixture } from './fixtures/types.ts';
import type { CanonicalRequest } from './core/request.ts';
import type { CanonicalReply } from './core/reply.ts';
import type { Capability } from './core/models.ts';
import type { JournalEntry } from './core/journal.ts';
import { GatewayError, kindForStatus } from './core/errors.ts';
import { respond } from './core/respond.ts';
import shipped from '../fixtures/models.json' with { type: 'json' };

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
  /** Models added to (or replacing, by id) the shipped catalogue. */
  models?: ModelInfo[];
  /** Largest accepted request body in bytes. Default 32 MiB. */
  maxBodyBytes?: number;
  /** How many requests the journal keeps. Default 1000. */
  journalSize?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export function toLatency(value: GatewayOptions['latency']): LatencyProfile {
  if (value === undefined) return INSTANT;
  return typeof value === 'string' ? parseLatency(value) : { ...INSTANT, ...value };
}

export class Runtime {
  readonly seed: number;
  readonly clock: ClockOption;
  readonly latency: LatencyProfile;
  readonly maxBodyBytes: number;
  readonly tokens: TokenStore;
  readonly fixtures: FixtureSet;
  readonly catalogue: Catalogue;
  readonly journal: Journal;
  /** Live streams, so a test can see production stop when a client leaves. */
  activeStreams = 0;

  constructor(options: GatewayOptions = {}) {
    this.seed = options.seed ?? 0;
    this.clock = options.clock ?? 'fixed';
    this.latency = toLatency(options.latency);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.tokens = new TokenStore(options.tokens?.length ? options.tokens : [DEFAULT_TOKEN]);
    this.fixtures = new FixtureSet(options.fixtures ?? []);
    this.catalogue = new Catalogue([...(shipped.models as ModelInfo[]), ...(options.models ?? [])]);
    this.journal = new Journal(options.journalSize ?? 1000);
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

  /**
   * The reply to a canonical request: the winning fixture's, else a synthesized one.
   * Records model and fixture in the journal entry; a fixture's error is thrown as a GatewayError.
   */
  answer(request: CanonicalRequest, entry: JournalEntry): { reply: CanonicalReply; latency: LatencyProfile } {
    entry.model = request.model;
    entry.stream = request.stream;
    const fixture = this.fixtures.take(request);
    const name = fixture ? (fixture.name ?? 'unnamed fixture') : undefined;
    entry.fixture = name;
    if (fixture?.error) {
      const e = fixture.error;
      throw new GatewayError(kindForStatus(e.status), e.message ?? `Error ${e.status} from fixture "${name}".`, {
        status: e.status,
        code: e.code,
        headers: e.headers,
      });
    }
    const reply = respond(request, { seed: this.seed, created: this.now() }, fixture && { name, ...fixture.reply });
    const latency = fixture?.latency === undefined ? this.latency : toLatency(fixture.latency);
    return { reply, latency };
  }
}
