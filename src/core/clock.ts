// Timestamps in replies. By default they come from a fixed clock so that bodies repeat byte for byte.

/** The fixed clock's time: 2026-01-01T00:00:00Z, in Unix seconds. */
export const FIXED_EPOCH_SECONDS = 1767225600;

/** 'fixed' (the default), 'real' (wall clock), or a Unix time in seconds to use for every reply. */
export type ClockOption = 'fixed' | 'real' | number;

export function clockSeconds(clock: ClockOption): number {
  if (clock === 'real') return Math.floor(Date.now() / 1000);
  if (typeof clock === 'number') return Math.floor(clock);
  return FIXED_EPOCH_SECONDS;
}
