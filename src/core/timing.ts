// Latency profiles: when each piece of a reply is due, relative to the request's arrival.
import { Rng } from './seed.ts';
import type { LatencyProfile } from '../types/timing.ts';
export type { LatencyProfile } from '../types/timing.ts';

/** No delay at all: the default, so tests stay fast. */
export const INSTANT: LatencyProfile = { ttftMs: 0, tokensPerSecond: 0, jitter: 0 };

const KEYS: Record<string, keyof LatencyProfile> = {
  ttft: 'ttftMs',
  tps: 'tokensPerSecond',
  jitter: 'jitter',
};

/**
 * Named profiles. `realistic` is modelled on a hosted chat model under ordinary load (about half a
 * second to the first token, then some 60 tokens a second); `slow` on a busy large model.
 */
const PROFILES: Record<string, LatencyProfile> = {
  instant: INSTANT,
  realistic: { ttftMs: 450, tokensPerSecond: 60, jitter: 0.25 },
  slow: { ttftMs: 2000, tokensPerSecond: 15, jitter: 0.3 },
};

/**
 * Parses the latency grammar shared by the CLI, the options, fixtures and `x-mock-latency`: a profile
 * name (`instant`, `realistic`, `slow`), or comma-separated `key=value` pairs, keys `ttft` (ms), `tps`
 * (tokens per second), `jitter` (0..1), optionally after a name whose values they override.
 * Examples: `ttft=250,tps=40,jitter=0.2`, `realistic`, `realistic,jitter=0`.
 */
export function parseLatency(spec: string): LatencyProfile {
  const [first, ...rest] = spec.split(',');
  const named = Object.hasOwn(PROFILES, first.trim()) ? PROFILES[first.trim()] : undefined;
  if (named) return { ...named, ...pairsOf(rest.join(',')) };
  return { ...INSTANT, ...pairsOf(spec) };
}

function pairsOf(spec: string): Partial<LatencyProfile> {
  const profile: Partial<LatencyProfile> = {};
  for (const pair of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, raw] = pair.split('=').map((s) => s.trim());
    const key = Object.hasOwn(KEYS, name) ? KEYS[name] : undefined;
    const value = raw === undefined || raw === '' ? Number.NaN : Number(raw.replace(/ms$/, ''));
    if (!key || !Number.isFinite(value)) {
      throw new Error(
        `invalid latency "${pair}": expected a profile (${Object.keys(PROFILES).join(', ')}) or ttft=<ms>, tps=<tokens per second>, jitter=<0..1>, e.g. "ttft=250,tps=40,jitter=0.2"`,
      );
    }
    const problem = outOfRange(key, value, name);
    if (problem) throw new Error(`invalid latency "${pair}": ${problem}`);
    profile[key] = value;
  }
  return profile;
}

/** The longest wait any latency field (or a stall) may ask for: one day, far inside a timer's 2^31 - 1 ms. */
export const MAX_WAIT_MS = 86_400_000;

/**
 * Each field's range, one check for every way a profile is given (the CLI, the options, fixtures,
 * `x-mock-latency`): every wait it makes (a first token, the gap between two, doubled by jitter) stays
 * a day or two, where a timer past 2^31 - 1 ms fires at once and warns (tps=0.0000001 re-armed ~900
 * times a second).
 */
const RANGES: Record<keyof LatencyProfile, { min: number; max: number; zero?: string; unit: string }> = {
  ttftMs: { min: 0, max: MAX_WAIT_MS, unit: 'ms' },
  // 0 sends every token at once; otherwise at most 1000 s between two.
  tokensPerSecond: { min: 0.001, max: 1_000_000, zero: 'every token at once', unit: 'tokens per second' },
  jitter: { min: 0, max: 1, unit: 'a share of each gap' },
};

/** What is wrong with `value` for `key` (called `name` where it was given), if anything. */
function outOfRange(key: keyof LatencyProfile, value: number, name: string): string | undefined {
  const { min, max, zero, unit } = RANGES[key];
  if ((zero !== undefined && value === 0) || (value >= min && value <= max)) return undefined;
  return `${name} is ${zero === undefined ? '' : `0 (${zero}) or `}from ${min} to ${max} (${unit})`;
}

/** A value as the user would recognize it in an error (numbers and strings as written, the rest as JSON, cut short). */
function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  const text = typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * A profile given as a spec (see parseLatency) or as an object of its fields, left-out fields instant;
 * both are checked alike, so a bad value fails where it is given, not as odd timings later.
 */
export function toLatency(value: string | Partial<LatencyProfile>): LatencyProfile {
  if (typeof value === 'string') return parseLatency(value);
  const shape = 'a spec such as "ttft=250,tps=40,jitter=0.2" or an object such as { ttftMs: 250, tokensPerSecond: 40, jitter: 0.2 }';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`invalid latency ${shown(value)}: expected ${shape}`);
  const fields: string[] = Object.values(KEYS);
  const profile = { ...INSTANT };
  for (const [name, raw] of Object.entries(value)) {
    if (raw === undefined) continue;
    if (!fields.includes(name)) throw new Error(`invalid latency: unknown field "${name}"; expected ${shape}`);
    if (typeof raw !== 'number' || !Number.isFinite(raw)) throw new Error(`invalid latency: ${name} ${shown(raw)}: expected a number`);
    const problem = outOfRange(name as keyof LatencyProfile, raw, name);
    if (problem) throw new Error(`invalid latency: ${name} ${shown(raw)}: ${problem}`);
    profile[name as keyof LatencyProfile] = raw;
  }
  return profile;
}

/** Due times (ms from arrival) of `count` pieces in one stream. */
export function pieceTimes(profile: LatencyProfile, count: number, key: number): number[] {
  // No delay at all: every piece is due at once (what the draws below would give, without them).
  if (profile.ttftMs === 0 && profile.tokensPerSecond === 0) return new Array<number>(count).fill(0);
  const times: number[] = [];
  const each = dueTimes(profile, key);
  for (let i = 0; i < count; i++) times.push(each.next().value);
  return times;
}

/** pieceTimes' times one at a time, as many as are taken: the same draws, none made ahead. */
export function* dueTimes(profile: LatencyProfile, key: number): Generator<number, never> {
  if (profile.ttftMs === 0 && profile.tokensPerSecond === 0) for (;;) yield 0;
  const rng = new Rng(key);
  const spread = (ms: number) => ms * (1 + profile.jitter * (rng.next() * 2 - 1));
  const gap = profile.tokensPerSecond > 0 ? 1000 / profile.tokensPerSecond : 0;
  let t = spread(profile.ttftMs);
  yield Math.round(t);
  for (;;) {
    t += spread(gap);
    yield Math.round(t);
  }
}
