// Soak with large bodies: thousands of requests whose prompts are 512 KB to 1 MB (prose, base64
// blobs, code, CJK), a few at a time, through every format; prints the emulator's resident memory
// and event-loop delay over time, and the latency of a small request sent alongside.
// Usage: npm run bench:soak [-- --requests 2000 --concurrency 4 --seed 1 --every 200]
import { parseArgs } from 'node:util';
import { formatLoop, rng, startEmulator } from './emulator.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    every: { type: 'string', default: '200' },
    timeout: { type: 'string', default: '30000' },
  },
});
const TOTAL = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const EVERY = Number(values.every);
const random = rng(Number(values.seed));

const WORDS = 'the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches'.split(' ');
const CJK = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A prompt of `bytes` (about): mostly prose, with a base64 blob, a minified line and CJK text. */
function prompt(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const pick = random();
    let piece: string;
    if (pick < 0.55) piece = Array.from({ length: 200 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
    else if (pick < 0.75) piece = Array.from({ length: 4096 }, () => B64[Math.floor(random() * 64)]).join('');
    else if (pick < 0.9) piece = Array.from({ length: 300 }, (_, i) => `a${i}=f(b${i},c);`).join('');
    else piece = Array.from({ length: 1000 }, () => CJK[Math.floor(random() * CJK.length)]).join('');
    parts.push(piece);
    size += Buffer.byteLength(piece) + 1;
  }
  return parts.join('\n');
}

const routes: { path: string; headers: Record<string, string>; body(p: string): unknown }[] = [
  {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-test' },
    body: (p: string) => ({ model: 'gpt-4.1', max_tokens: 20, messages: [{ role: 'user', content: p }] }),
  },
  {
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
    body: (p: string) => ({ model: 'claude-sonnet-5-5', max_tokens: 20, messages: [{ role: 'user', content: p }] }),
  },
  {
    path: '/v1beta/models/gemini-2.5-flash:countTokens',
    headers: { 'x-goog-api-key': 'sk-test' },
    body: (p: string) => ({ contents: [{ parts: [{ text: p }] }] }),
  },
  {
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    headers: { 'x-goog-api-key': 'sk-test' },
    body: (p: string) => ({ contents: [{ parts: [{ text: p }] }], generationConfig: { maxOutputTokens: 20 } }),
  },
  {
    path: '/v1/embeddings',
    headers: { authorization: 'Bearer sk-test' },
    body: (p: string) => ({ model: 'text-embedding-3-small', input: p }),
  },
];

// A few distinct prompts reused with a varying prefix: building 1 MB strings is not what is measured.
const bases = Array.from({ length: 8 }, () => prompt(512 * 1024 + Math.floor(random() * 512 * 1024)));

const emulator = await startEmulator();
const statuses = new Map<number | string, number>();
const small = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'ping' }] });
const probeLatencies: number[] = [];
let done = 0;
let next = 0;
let running = true;
const started = performance.now();

// The other client: one small chat request after another.
const probe = (async () => {
  while (running) {
    const t = performance.now();
    await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: small,
    }).then(
      (r) => r.text(),
      () => '',
    );
    probeLatencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
})();

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

async function worker() {
  while (next < TOTAL) {
    const i = next++;
    const route = routes[i % routes.length];
    const body = JSON.stringify(route.body(`request ${i}: ${bases[i % bases.length]}`));
    const outcome = await fetch(`${emulator.url}${route.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...route.headers },
      body,
      signal: AbortSignal.timeout(Number(values.timeout)),
    }).then(
      async (r) => (await r.text(), r.status),
      (e: Error) => e.name,
    );
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    const count = ++done;
    if (count % EVERY === 0) {
      const loop = await emulator.loopStats();
      const recent = probeLatencies.splice(0);
      console.log(
        `${String(count).padStart(6)}  ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s  RSS ${emulator.rss().toFixed(0).padStart(5)} MiB  ${formatLoop(loop)}  other client p99 ${pct(recent, 0.99).toFixed(0)} ms, max ${Math.max(0, ...recent).toFixed(0)} ms`,
      );
    }
  }
}

console.log(
  `node ${process.version}; ${TOTAL} requests of 0.5-1 MB, ${CONCURRENCY} at a time, seed ${values.seed}; start RSS ${emulator.rss().toFixed(0)} MiB`,
);
try {
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
} finally {
  running = false;
  await probe;
  console.log(`answers: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; final RSS ${emulator.rss().toFixed(0)} MiB`);
  await emulator.stop();
}
