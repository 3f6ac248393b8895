// The standalone server's footprint over a long run. V8 sizes the young generation from the machine's
// memory (128 MiB on a big machine) and lets the old generation grow to about four times
// its live data between full collections: after a long run of varied requests the server held ~400 MB
// (bench/memory.ts). Node takes --max-semi-space-size only at start, and a CLI started through npx
// cannot choose node's flags, so the CLI sets two flags V8 reads as it goes: the young generation
// stops growing at YOUNG_BYTES, and the old one grows to at most twice its live data. Measured over
// 60k varied requests: ~225 MB resident instead of ~405 (16 MiB gave the same; 8 MiB cost 10% more
// CPU); on repeated requests the CPU per request moved less than the machine's noise.
// Only the CLI does this: in-process, the process (and its heap) belongs to the user.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/** The young generation's size (new_space, as getHeapSpaceStatistics reports it) where it stops growing; it starts at 8 MiB. */
const YOUNG_BYTES = 32 * 1024 * 1024;

/** V8's default factor by which the young generation grows. */
const V8_GROWTH_FACTOR = 2;

/** Applies the limits the user has not set with node flags (in `flags`: node's arguments and NODE_OPTIONS). */
export function limitHeapGrowth(flags: string = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ')): void {
  if (!flags.includes('heap-growing-percent')) setFlagsFromString('--heap-growing-percent=100');
  if (flags.includes('semi-space')) return;
  let capped = false;
  // After each collection: stop growth at the cap, allow it again below (V8 shrinks the space when idle).
  new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    const atCap = young !== undefined && young.space_size >= YOUNG_BYTES;
    if (atCap === capped) return;
    capped = atCap;
    setFlagsFromString(`--semi-space-growth-factor=${atCap ? 1 : V8_GROWTH_FACTOR}`);
  }).observe({ entryTypes: ['gc'] });
}
