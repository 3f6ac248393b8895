// Memory under a long run: the journal is a ring buffer and every store and cache is bounded, so the
// server's resident memory should level off however many requests it serves. Prints the resident
// memory when idle (started, healthy, nothing served), then after every phase of load, each request
// with a new prompt (so the journal and the synthesis and token caches see new entries all the time).
// Usage: npm run bench:memory [-- --requests 200000 --phases 8]
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { rssMiB, start } from './spawn.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100000' }, phases: { type: 'string', default: '5' } } });
const REQUESTS = Number(values.requests);
const PHASES = Number(values.phases);
const CLI = fileURLToPath(new URL('../bin/model-gateway-mock.js', import.meta.url));
const { url, child } = await start([CLI, '--port', '0']);
while (
  !(await fetch(`${url}/__admin/health`).then(
    (r) => r.ok,
    () => false,
  ))
)
  await new Promise((r) => setTimeout(r, 5));
await new Promise((r) => setTimeout(r, 1000));
console.log(`idle (healthy, no request served): ${rssMiB(child.pid!).toFixed(0)} MiB`);

let n = 0;
let total = 0;
const samples: [number, number][] = [];
console.log(`requests   RSS MiB   req/s`);
for (let phase = 1; phase <= PHASES; phase++) {
  const amount = Math.round((REQUESTS * phase) / PHASES) - total;
  const result = await autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    connections: 16,
    amount,
    // A different prompt each request, and now and then a stream: the journal and the caches see new entries all the time.
    requests: [
      {
        setupRequest: (req) => {
          const i = n++;
          return {
            ...req,
            body: JSON.stringify({
              model: 'gpt-4o-mini',
              messages: [{ role: 'user', content: `request number ${i}: tell me about item ${i * 7919}` }],
              max_tokens: 30,
              stream: i % 4 === 0,
            }),
          };
        },
      },
    ],
  });
  total += result.requests.total;
  const rss = rssMiB(child.pid!);
  samples.push([total, rss]);
  console.log(`${String(total).padStart(8)}  ${rss.toFixed(0).padStart(8)}  ${result.requests.average.toFixed(0).padStart(6)}`);
}
child.kill();
// The slope over the second half (after the journal ring and the caches have filled), to judge a longer run.
const half = samples.slice(Math.floor(samples.length / 2));
if (half.length >= 2) {
  const [[r0, m0], [r1, m1]] = [half[0], half.at(-1)!];
  const perMillion = ((m1 - m0) / (r1 - r0)) * 1e6;
  console.log(
    perMillion > 0
      ? `growth over the last ${r1 - r0} requests: ${perMillion.toFixed(1)} MiB per million requests (at that rate 1M requests would end near ${(m1 + ((1e6 - r1) * perMillion) / 1e6).toFixed(0)} MiB)`
      : `no growth over the last ${r1 - r0} requests (${m0.toFixed(0)} → ${m1.toFixed(0)} MiB): the bounded stores are full, so a longer run should stay near this`,
  );
}
