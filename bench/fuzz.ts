// The fuzz suite's properties over a real socket, many more cases than CI runs, with a fresh seed
// each run (printed; pass --seed to replay), while a probe polls /__admin/health. Prints the probe's
// latency and the emulator's own event-loop delay for each format.
// Usage: npm run bench:fuzz [-- --runs 5000 --seed 42]   (FUZZ_MAX_STRING, FUZZ_REQUEST_MS apply)
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  adminRequests,
  anthropicRequests,
  changesState,
  geminiRequests,
  openaiRequests,
  type FuzzRequest,
} from '../test/helpers/fuzz/requests.ts';
import { checkAnswer, describe } from '../test/helpers/fuzz/verdict.ts';
import { formatStats, healthProbe, sendSocket } from '../test/helpers/fuzz/harness.ts';
import { formatLoop, startEmulator } from './emulator.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5000' }, seed: { type: 'string' } } });
const RUNS = Number(values.runs);
const SEED = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);

const properties: [string, fc.Arbitrary<FuzzRequest>, number][] = [
  ['OpenAI', openaiRequests, RUNS],
  ['Anthropic', anthropicRequests, RUNS],
  ['Gemini', geminiRequests, RUNS],
  ['control plane', adminRequests, Math.ceil(RUNS / 4)],
];

const emulator = await startEmulator(['--seed', '1']);
// Compile the fixture schema first (a one-off, 0.5-1.7 s: see the fuzz suite).
await fetch(`${emulator.url}/__admin/fixtures`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"warm":"up"}' });
await emulator.loopStats();
console.log(`node ${process.version}; ${RUNS} cases per format, seed ${SEED} (replay with --seed ${SEED})`);
let failed = false;
try {
  for (const [name, arb, runs] of properties) {
    const probe = healthProbe(emulator.url);
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(arb, async (r) => {
        try {
          const answer = await sendSocket(emulator.url, r);
          if (answer) checkAnswer(r, answer);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n  request: ${describe(r)}`);
        } finally {
          if (changesState(r)) await fetch(`${emulator.url}/__admin/reset`, { method: 'POST' });
        }
      }),
      { numRuns: runs, seed: SEED },
    );
    const seconds = (performance.now() - started) / 1000;
    const stats = await probe.stop();
    console.log(
      `${name.padEnd(13)} ${result.numRuns} cases in ${seconds.toFixed(1)} s: ${result.failed ? 'FAILED' : 'ok'}; /__admin/health ${formatStats(stats)}; ${formatLoop(await emulator.loopStats())}`,
    );
    if (result.failed) {
      failed = true;
      console.log(`${fc.defaultReportMessage(result)}\n${(result.errorInstance as Error | undefined)?.message ?? ''}`);
    }
  }
  const meta = ((await (await fetch(`${emulator.url}/__admin/requests?limit=1`)).json()) as { meta: { activeStreams: number } }).meta;
  console.log(
    `active streams at the end: ${meta.activeStreams}; emulator alive: ${emulator.child.exitCode === null}; RSS ${emulator.rss().toFixed(0)} MiB`,
  );
  if (meta.activeStreams !== 0) failed = true;
} finally {
  await emulator.stop();
}
process.exitCode = failed ? 1 : 0;
