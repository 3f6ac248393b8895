// Timestamps in replies. By default they come from a fixed clock so that bodies repeat byte for byte.
import { FIXED_EPOCH_SECONDS, type ClockOption } from '../types/clock.ts';
export { type ClockOption } from '../types/clock.ts';

export function clockSeconds(clock: ClockOption): number {
  if (clock === 'real') return Math.floor(Date.now() / 1000);
  if (typeof clock === 'number') return Math.floor(clock);
  return FIXED_EPOCH_SECONDS;
}
