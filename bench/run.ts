// Throughput and latency of the emulator against a bare node:http server sending the same bytes,
// measured in the same run,
// plus the time from starting the CLI to the first 200 from /__admin/health.
// Usage: npm run bench [-- --seconds 10 --connections 32]
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, connections: { type: 'string', default: '32' } } });
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const CLI = new URL('../bin/model-gateway-mock.js', import.meta.url).pathname;
const BARE = new URL('./bare-server.ts', import.meta.url).pathname;

function start(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

const body = (stream: boolean) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], stream, max_tokens: 40 });

async function load(url: string, stream: boolean) {
  const opts = {
    url: `${url}/v1/chat/completions`,
    method: 'POST' as const,
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: body(stream),
    connections: CONNECTIONS,
  };
  await autocannon({ ...opts, duration: 2 }); // warm-up
  const r = await autocannon({ ...opts, duration: SECONDS });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

async function startupMs(): Promise<number> {
  const t0 = performance.now();
  const { url, child } = await start([CLI, '--port', '0']);
  for (;;) {
    const ok = await fetch(`${url}/__admin/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - t0;
  child.kill();
  return ms;
}

const mock = await start([CLI, '--port', '0']);
// The bare server sends the emulator's own bytes and headers, so both put the same bytes on the wire.
const canned: Record<string, { headers: Record<string, string>; body: string }> = {};
for (const stream of [false, true]) {
  const res = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body: body(stream) });
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)));
  canned[stream ? 'sse' : 'json'] = { headers, body: await res.text() };
}
const cannedFile = join(mkdtempSync(join(tmpdir(), 'mgm-bench-')), 'canned.json');
writeFileSync(cannedFile, JSON.stringify(canned));
const bare = await start([BARE, cannedFile]);
const rows: string[] = [];
try {
  for (const stream of [false, true]) {
    const b = await load(bare.url, stream);
    const m = await load(mock.url, stream);
    rows.push(
      `${stream ? 'streaming chat' : 'chat (JSON)   '}  bare ${b.rps.toFixed(0).padStart(6)} req/s p99 ${String(b.p99).padStart(3)} ms | ` +
        `emulator ${m.rps.toFixed(0).padStart(6)} req/s p99 ${String(m.p99).padStart(3)} ms | ` +
        `throughput ${(m.rps / b.rps).toFixed(2)}x, p99 ${(m.p99 / Math.max(b.p99, 1)).toFixed(2)}x`,
    );
  }
} finally {
  bare.child.kill();
  mock.child.kill();
}
const startups: number[] = [];
for (let i = 0; i < 5; i++) startups.push(await startupMs());
startups.sort((a, b) => a - b);
console.log(`node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s per run`);
for (const row of rows) console.log(row);
console.log(`start-up to first healthy 200: median ${startups[2].toFixed(0)} ms (min ${startups[0].toFixed(0)}, max ${startups[4].toFixed(0)})`);
