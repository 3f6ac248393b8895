// Memory under a long run: the journal is a ring buffer and every store is bounded, so the server's
// resident memory should level off however many requests it serves. Samples RSS (Linux /proc) after
// each phase of load, varying the prompt so synthesis caches fill too.
// Usage: npm run bench:memory [-- --phases 6 --seconds 5]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({ options: { phases: { type: 'string', default: '6' }, seconds: { type: 'string', default: '5' } } });
const CLI = new URL('../bin/model-gateway-mock.js', import.meta.url).pathname;
const child = spawn(process.execPath, [CLI, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => {
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
});
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;

let n = 0;
console.log(`phase  requests   RSS MiB`);
console.log(`start  ${String(0).padStart(8)}  ${rss().toFixed(0).padStart(8)}`);
let total = 0;
for (let phase = 1; phase <= Number(values.phases); phase++) {
  const result = await autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    connections: 16,
    duration: Number(values.seconds),
    // A different prompt each request: the journal and the caches see new entries all the time.
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `request number ${n++}` }], max_tokens: 30 }) }) }],
  });
  total += result.requests.total;
  console.log(`${String(phase).padStart(5)}  ${String(total).padStart(8)}  ${rss().toFixed(0).padStart(8)}`);
}
child.kill();
