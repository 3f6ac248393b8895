// Latency profiles: when each piece of a reply is due, relative to the request's arrival.
import { Rng } from './seed.ts';

export interface LatencyProfile {
  /** Milliseconds before the first piece (and before a non-streamed reply). */
  ttftMs: number;
  /** Pieces per second after the first; 0 means all at once. */
  tokensPerSecond: number;
  /** Relative spread of each gap, 0..1; drawn from the seed, so it replays. */
  jitter: number;
}

/** No delay at all: the default, so tests stay fast. */
export const INSTANT: LatencyProfile = { ttftMs: 0, tokensPerSecond: 0, jitter: 0 };

const KEYS: Record<string, keyof LatencyProfile> = {
  ttft: 'ttftMs',
  tps: 'tokensPerSecond',
  jitter: 'jitter',
};

/**
 * Parses the latency grammar shared by the CLI and the options:
 * comma-separated `key=value` pairs, keys `ttft` (ms), `tps` (tokens per second), `jitter` (0..1).
 * Example: `ttft=250,tps=40,jitter=0.2`. Missing keys keep their instant values.
 */
export function parseLatency(spec: string): LatencyProfile {
  const profile = { ...INSTANT };
  for (const pair of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, raw] = pair.split('=').map((s) => s.trim());
    const key = KEYS[name];
    const value = Number(raw?.replace(/ms$/, ''));
    if (!key || raw === undefined || !Number.isFinite(value) || value < 0) {
      throw new Error(`invalid latency "${pair}": expected ttft=<ms>, tps=<tokens per second> or jitter=<0..1>, e.g. "ttft=250,tps=40,jitter=0.2"`);
    }
    if (key === 'jitter' && value > 1) throw new Error(`invalid latency "${pair}": jitter is between 0 and 1`);
    profile[key] = value;
  }
  return profile;
}

/** Due times (ms from arrival) of `count` pieces in one stream. */
export function pieceTimes(profile: LatencyProfile, count: number, key: number): number[] {
  const rng = new Rng(key);
  const spread = (ms: number) => ms * (1 + profile.jitter * (rng.next() * 2 - 1));
  const gap = profile.tokensPerSecond > 0 ? 1000 / profile.tokensPerSecond : 0;
  const times: number[] = [];
  let t = spread(profile.ttftMs);
  for (let i = 0; i < count; i++) {
    if (i > 0) t += spread(gap);
    times.push(Math.round(t));
  }
  return times;
}
