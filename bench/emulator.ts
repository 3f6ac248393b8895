// The emulator under benchmark: the built CLI on a free loopback port, with its resident memory
// (Linux /proc) and its own event-loop delay (src/cli/loop-stats.ts, read on SIGUSR2).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLI = new URL('../bin/model-gateway-mock.js', import.meta.url).pathname;
const PRELOAD = new URL('./preload-loop-stats.ts', import.meta.url).pathname;

export interface LoopStats {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export interface Emulator {
  url: string;
  child: ChildProcess;
  /** Resident memory in MiB. */
  rss(): number;
  /** Event-loop delay since the last call (or the start), in ms; null if the emulator does not answer within 10 s. */
  loopStats(): Promise<LoopStats | null>;
  stop(): Promise<void>;
}

export function startEmulator(args: string[] = []): Promise<Emulator> {
  const child = spawn(process.execPath, ['--import', PRELOAD, CLI, '--port', '0', '--host', '127.0.0.1', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MGM_EVENT_LOOP_STATS: '1' },
  });
  let err = '';
  const waiting: ((s: LoopStats) => void)[] = [];
  child.stderr!.on('data', (d) => {
    err += d;
    let at;
    while ((at = err.indexOf('\n')) >= 0) {
      const line = err.slice(0, at);
      err = err.slice(at + 1);
      const m = /^mgm-event-loop (.*)$/.exec(line);
      if (m) waiting.shift()?.(JSON.parse(m[1]) as LoopStats);
      else if (line) process.stderr.write(`[emulator] ${line}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      resolve({
        url: m[1],
        child,
        rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
        loopStats: () =>
          new Promise<LoopStats | null>((done) => {
            const answer = (s: LoopStats | null) => {
              clearTimeout(timer);
              const at = waiting.indexOf(answer);
              if (at >= 0) waiting.splice(at, 1);
              done(s);
            };
            const timer = setTimeout(() => answer(null), 10_000);
            waiting.push(answer);
            child.kill('SIGUSR2');
          }),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}: ${out}${err}`)));
  });
}

export const formatLoop = (s: LoopStats | null) =>
  s
    ? `event-loop delay p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms`
    : 'event-loop delay: no answer within 10 s (the emulator is stuck)';

/** A seeded generator (xorshift32), so a benchmark run replays. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
