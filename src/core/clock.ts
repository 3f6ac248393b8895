// Timestamps in replies. By default they come from a fixed clock so that bodies repeat byte for byte.
import { FIXED_EPOCH_SECONDS, type ClockOption } from '../types/clock.ts';
export { type ClockOption } from '../types/clock.ts';

export function clockSeconds(clock: ClockOption): number {
  if (clock === 'real') return Math.floor(Date.now() / 1000);
  if (typeof clock === 'number') return Math.floor(clock);
  return FIXED_EPOCH_SECONDS;
}

/**
 * The latest time the clock may show, 9999-12-31T23:59:59Z: every format writes dates with four-digit
 * years, and past JavaScript's date range every Anthropic request failed ("Invalid time value").
 */
export const LATEST_CLOCK_SECONDS = 253_402_300_799;

/** Why the clock may not stand at `seconds` (Unix), or undefined when it may. */
export function clockProblem(seconds: number): string | undefined {
  if (seconds <= LATEST_CLOCK_SECONDS) return undefined;
  return `the clock may not pass 9999-12-31T23:59:59Z (${LATEST_CLOCK_SECONDS} Unix seconds)`;
}

/**
 * The age in seconds of something that runs on the gateway's clock (a batch, a background response):
 * the time since `createdAt`, or the times it was polled, whichever is more. So a client polling under
 * the fixed clock sees every stage in turn, and `advanceClock` moves everything on at once.
 */
export const ageOn = (now: number, createdAt: number, polls: number): number => Math.max(now - createdAt, polls);
