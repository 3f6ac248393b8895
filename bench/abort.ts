// Abort storm: rounds of hundreds of concurrent streams (every format) to 127.0.0.1, each dropped by
// the client at a seeded random point: before the headers, mid-stream, or near the end. After each
// round the emulator must report no active stream, and its memory must level off: the caches and
// stores are bounded by count and take a few thousand streams to fill (measured: ~6000, at about
// 440 MiB), after which RSS must stay flat.
// Usage: npm run bench:abort [-- --rounds 30 --streams 300 --seed 1 --latency ttft=20,tps=300]
// Exits 1 if a stream stays active, or RSS still grows over the last third of the rounds (more than 5% + 8 MiB).
import { request, type ClientRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { formatLoop, rng, startEmulator } from './emulator.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '30' },
    streams: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    latency: { type: 'string', default: 'ttft=20,tps=300' },
  },
});
const ROUNDS = Number(values.rounds);
const STREAMS = Number(values.streams);
const random = rng(Number(values.seed));

const prompt = (i: number) => `Tell me a story about stream number ${i}, please.`;
const kinds = [
  {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-test' },
    body: (i: number) => ({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: prompt(i) }] }),
  },
  {
    path: '/v1/responses',
    headers: { authorization: 'Bearer sk-test' },
    body: (i: number) => ({ model: 'gpt-4o-mini', stream: true, input: prompt(i) }),
  },
  {
    path: '/v1/completions',
    headers: { authorization: 'Bearer sk-test' },
    body: (i: number) => ({ model: 'gpt-3.5-turbo-instruct', stream: true, max_tokens: 60, prompt: prompt(i) }),
  },
  {
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
    body: (i: number) => ({ model: 'claude-haiku-4-5', max_tokens: 200, stream: true, messages: [{ role: 'user', content: prompt(i) }] }),
  },
  {
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    headers: { 'x-goog-api-key': 'sk-test' },
    body: (i: number) => ({ contents: [{ parts: [{ text: prompt(i) }] }] }),
  },
];

/** One stream, dropped by the client at a random point; resolves when the socket is gone. */
function droppedStream(url: string, i: number): Promise<'before headers' | 'mid-stream' | 'completed'> {
  const kind = kinds[Math.floor(random() * kinds.length)];
  const body = JSON.stringify(kind.body(i));
  // A third before the headers (after 0-30 ms), the rest after 0-3000 body bytes.
  const early = random() < 1 / 3;
  const afterMs = Math.floor(random() * 30);
  const afterBytes = Math.floor(random() * 3000);
  return new Promise((resolve) => {
    let outcome: 'before headers' | 'mid-stream' | 'completed' = 'before headers';
    const req: ClientRequest = request(
      `${url}${kind.path}`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...kind.headers } },
      (res) => {
        let seen = 0;
        outcome = 'mid-stream';
        res.on('data', (chunk: Buffer) => {
          seen += chunk.byteLength;
          if (!early && seen >= afterBytes) req.destroy();
        });
        res.once('end', () => (outcome = 'completed'));
      },
    );
    req.once('error', () => {});
    req.once('close', () => resolve(outcome));
    req.end(body);
    if (early) setTimeout(() => req.destroy(), afterMs);
  });
}

async function activeStreams(url: string): Promise<number> {
  const res = await fetch(`${url}/__admin/requests?limit=1`);
  return ((await res.json()) as { meta: { activeStreams: number } }).meta.activeStreams;
}

/** Polls until no stream is active; the time it took, or -1 after 5 s. */
async function drained(url: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 5_000) {
    if ((await activeStreams(url)) === 0) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  return -1;
}

const emulator = await startEmulator(['--latency', values.latency!]);
const settle = () => new Promise((r) => setTimeout(r, 1_000));
let failed = false;
try {
  // One round to warm up (code loaded, caches made), then the baseline.
  await Promise.all(Array.from({ length: STREAMS }, (_, i) => droppedStream(emulator.url, i)));
  await drained(emulator.url);
  await settle();
  const baseline = emulator.rss();
  await emulator.loopStats();
  console.log(`node ${process.version}; ${ROUNDS} rounds of ${STREAMS} concurrent streams, latency ${values.latency}, seed ${values.seed}`);
  console.log(`baseline RSS ${baseline.toFixed(0)} MiB (after one warm-up round)`);
  const sizes: number[] = [];
  console.log('round  before-headers  mid-stream  completed  active-after  drained-in  RSS MiB');
  for (let round = 1; round <= ROUNDS; round++) {
    const outcomes = await Promise.all(Array.from({ length: STREAMS }, (_, i) => droppedStream(emulator.url, round * STREAMS + i)));
    const took = await drained(emulator.url);
    const active = await activeStreams(emulator.url);
    await settle();
    const count = (o: string) => outcomes.filter((x) => x === o).length;
    sizes.push(emulator.rss());
    console.log(
      `${String(round).padStart(5)}  ${String(count('before headers')).padStart(14)}  ${String(count('mid-stream')).padStart(10)}  ${String(count('completed')).padStart(9)}  ${String(active).padStart(12)}  ${(took < 0 ? 'never' : `${took.toFixed(0)} ms`).padStart(10)}  ${emulator.rss().toFixed(0).padStart(7)}`,
    );
    if (active !== 0) {
      console.log(`FAIL: ${active} streams still active after round ${round}`);
      failed = true;
    }
  }
  const final = emulator.rss();
  console.log(
    `final RSS ${final.toFixed(0)} MiB (${final >= baseline ? '+' : ''}${(final - baseline).toFixed(0)} MiB); during the storm: ${formatLoop(await emulator.loopStats())}`,
  );
  const tail = sizes.slice(-Math.max(2, Math.floor(ROUNDS / 3)));
  const growth = Math.max(...tail) - Math.min(...tail);
  console.log(`RSS over the last ${tail.length} rounds: ${Math.min(...tail).toFixed(0)}-${Math.max(...tail).toFixed(0)} MiB`);
  if (growth > Math.min(...tail) * 0.05 + 8) {
    console.log('FAIL: memory still grows at the end of the storm');
    failed = true;
  }
} finally {
  await emulator.stop();
}
process.exitCode = failed ? 1 : 0;
