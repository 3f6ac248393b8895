// The gateway's clock as the public API names it (core/clock.ts reads it). The one constant here is
// published: tests compare reply timestamps with it.

/** The fixed clock's time: 2026-01-01T00:00:00Z, in Unix seconds. */
export const FIXED_EPOCH_SECONDS = 1767225600;

/** 'fixed' (the default), 'real' (wall clock), or a Unix time in seconds to use for every reply. */
export type ClockOption = 'fixed' | 'real' | number;
