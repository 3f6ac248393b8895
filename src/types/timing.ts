// The latency profile's public type (core/timing.ts parses it and times the pieces).

export interface LatencyProfile {
  /** Milliseconds before the first piece (and before a non-streamed reply). */
  ttftMs: number;
  /** Pieces per second after the first; 0 means all at once. */
  tokensPerSecond: number;
  /** Relative spread of each gap, 0..1; drawn from the seed, so it replays. */
  jitter: number;
}
