// Event-loop delay of the emulator process, measured from inside it, for the benchmarks: with
// MGM_EVENT_LOOP_STATS=1 it prints one line `mgm-event-loop {json}` to stderr on SIGUSR2 (then
// starts over) and at exit. Off otherwise: nothing is measured or printed.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const STARTED = Symbol.for('model-gateway-mock.loop-stats');
const RESOLUTION_MS = 5;

/** Starts the monitor when MGM_EVENT_LOOP_STATS=1; calling it again does nothing. */
export function startLoopStats(env: NodeJS.ProcessEnv = process.env): void {
  const g = globalThis as { [STARTED]?: boolean };
  if (env.MGM_EVENT_LOOP_STATS !== '1' || g[STARTED]) return;
  g[STARTED] = true;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const report = (when: string) => {
    // Each sample is a whole timer interval: the delay is what exceeds the resolution.
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100) || 0;
    const stats = {
      when,
      samples: histogram.count,
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      mean: ms(histogram.mean),
    };
    process.stderr.write(`mgm-event-loop ${JSON.stringify(stats)}\n`);
  };
  process.on('SIGUSR2', () => {
    report('SIGUSR2');
    histogram.reset();
  });
  process.once('exit', () => report('exit'));
}
