// Throughput and latency of the emulator and of the leading peer emulator (@copilotkit/aimock), each
// against a bare node:http server sending that emulator's own bytes, all in the same run; then the
// time from starting each CLI to its first healthy 200 and its resident memory then; then the
// in-process benchmark (bench/inprocess.ts); then the cold figures (bench/cold.ts) and a test run of
// many files against msw's floor (bench/many-files.ts).
// Usage: npm run bench [-- --seconds 8 --connections 32 --no-inprocess --no-cold]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rssMiB, start } from './spawn.ts';
import { chatBody as body, HEADERS, load as loadFor } from './load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    'no-inprocess': { type: 'boolean' },
    'no-cold': { type: 'boolean' },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CLI = here('../bin/model-gateway-mock.js');
const PEER_CLI = here('../node_modules/@copilotkit/aimock/dist/cli.js');
const BARE = here('./bare-server.ts');
const INPROCESS = here('./inprocess.ts');
const COLD = here('./cold.ts');
const MANY_FILES = here('./many-files.ts');

const load = (server: Parameters<typeof loadFor>[0], stream: boolean) => loadFor(server, stream, SECONDS, CONNECTIONS);

interface Canned {
  headers: Record<string, string>;
  body: string;
}

/** An emulator's own reply to the benchmark request, JSON and SSE, for a bare server to send. */
async function cannedOf(url: string): Promise<{ json: Canned; sse: Canned }> {
  const out: Record<string, Canned> = {};
  for (const stream of [false, true]) {
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: HEADERS, body: body(stream) });
    const headers = Object.fromEntries(
      [...res.headers].filter(([k]) => !['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)),
    );
    out[stream ? 'sse' : 'json'] = { headers, body: await res.text() };
  }
  return out as { json: Canned; sse: Canned };
}

const dir = mkdtempSync(join(tmpdir(), 'mgm-bench-'));
const CONTENT_OF = (canned: { json: Canned }) =>
  (JSON.parse(canned.json.body) as { choices: { message: { content: string } }[] }).choices[0].message.content;
const events = (sse: string) => sse.split('\n\n').filter((e) => e.startsWith('data:')).length;

/** The peer's arguments: a catch-all fixture answering with `text` (our reply's text, so both send the same words). */
function peerArgs(text: string): string[] {
  writeFileSync(join(dir, 'peer.json'), JSON.stringify({ fixtures: [{ match: {}, response: { content: text } }] }));
  return [PEER_CLI, '--port', '0', '-f', join(dir, 'peer.json')];
}

const mock = await start([CLI, '--port', '0']);
const ours = await cannedOf(mock.url);
const PEER = peerArgs(CONTENT_OF(ours));
const peer = await start(PEER);
const theirs = await cannedOf(peer.url);
writeFileSync(join(dir, 'ours.json'), JSON.stringify(ours));
writeFileSync(join(dir, 'theirs.json'), JSON.stringify(theirs));
const bareOurs = await start([BARE, join(dir, 'ours.json')]);
const bareTheirs = await start([BARE, join(dir, 'theirs.json')]);

const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const lines: string[] = [];
try {
  for (const stream of [false, true]) {
    // Interleaved, so that the shared machine's load falls on every server alike.
    const b1 = await load(bareOurs, stream);
    const m = await load(mock, stream);
    const b2 = await load(bareTheirs, stream);
    const p = await load(peer, stream);
    const name = stream ? 'chat, SSE' : 'chat, JSON';
    const ev = stream ? [events(ours.sse.body), events(theirs.sse.body)] : [1, 1];
    const one = (r: Awaited<ReturnType<typeof load>>, bare: Awaited<ReturnType<typeof load>>, n: number) =>
      `${x(r.rps, bare.rps)} by rate, ${x(bare.cpuUs, r.cpuUs)} by CPU time (${r.rps.toFixed(0)} req/s, ${r.cpuUs.toFixed(0)} µs CPU/req vs bare ${bare.cpuUs.toFixed(0)}, ` +
      `p99 ${r.p99} ms vs bare ${bare.p99} ms${stream ? `, ${((r.rps * n) / 1000).toFixed(0)}k events/s, ${n}/stream` : ''})`;
    lines.push(`${name}: emulator ${one(m, b1, ev[0])}\n${' '.repeat(name.length + 2)}aimock   ${one(p, b2, ev[1])}`);
  }
} finally {
  for (const r of [bareOurs, bareTheirs, mock, peer]) r.child.kill();
}

/** Milliseconds from spawning the CLI to the first 200 from `health`, and the resident memory just after. */
async function startup(args: string[], health: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const { url, child } = await start(args);
  for (;;) {
    const ok = await fetch(`${url}${health}`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 500));
  const rss = rssMiB(child.pid!);
  child.kill();
  return { ms, rss };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const starts = { ours: [] as { ms: number; rss: number }[], theirs: [] as { ms: number; rss: number }[] };
for (let i = 0; i < 5; i++) {
  starts.ours.push(await startup([CLI, '--port', '0'], '/__admin/health'));
  starts.theirs.push(await startup(PEER, '/health'));
}
const summary = (s: { ms: number; rss: number }[]) =>
  `median ${median(s.map((r) => r.ms)).toFixed(0)} ms (${Math.min(...s.map((r) => r.ms)).toFixed(0)}-${Math.max(...s.map((r) => r.ms)).toFixed(0)}), idle ${median(s.map((r) => r.rss)).toFixed(0)} MiB`;

console.log(
  `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${new Date().toISOString().slice(0, 16)}Z; ${CONNECTIONS} connections, ${SECONDS} s per run; ratios to a bare node:http server sending the same bytes`,
);
for (const line of lines) console.log(line);
console.log(`start-up to healthy, 5 starts: emulator ${summary(starts.ours)} | aimock ${summary(starts.theirs)}`);

/** Runs a bench script in its own process; its last line of output, parsed. */
async function lastJsonLine<T>(script: string, args: string[]): Promise<T> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await new Promise((r) => child.once('exit', r));
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

if (!values['no-inprocess']) {
  const r = await lastJsonLine<{ standalone: number; floor: number; inProcess: number; concurrency: number; runs: number }>(INPROCESS, [
    '--seconds',
    '3',
  ]);
  console.log(
    `in-process, openai SDK (${r.concurrency} at a time, medians of ${r.runs} interleaved runs): setupServer(...gateway.handlers) ${r.inProcess.toFixed(0)} req/s | trivial msw handler, same bytes ${r.floor.toFixed(0)} req/s | ` +
      `standalone over a socket ${r.standalone.toFixed(0)} req/s; gateway's time per request ${x(r.floor, r.inProcess)} msw's own`,
  );
}

if (!values['no-cold']) {
  const c = await lastJsonLine<{
    runs: number;
    importMs: number;
    importCpuMs: number;
    firstReplyMs: number;
    firstReplyCpuMs: number;
    secondReplyMs: number;
    trivialFirstReplyMs: number;
    trivialFirstReplyCpuMs: number;
    firstReplyFromStartMs: number;
    trivialFromStartMs: number;
    healthyMs: number;
    firstRequestMs: number;
    hundredthRequestMs: number;
    load: number[];
  }>(COLD, ['--runs', '7']);
  console.log(
    `cold, medians of ${c.runs} fresh processes (load average ${c.load.join(' -> ')}): import ${c.importMs} ms (CPU ${c.importCpuMs} ms), first in-process reply ${c.firstReplyMs} ms (CPU ${c.firstReplyCpuMs} ms; second ${c.secondReplyMs} ms; a trivial msw handler's first ${c.trivialFirstReplyMs} ms, CPU ${c.trivialFirstReplyCpuMs} ms); from process start to the first reply ${c.firstReplyFromStartMs} ms, trivial ${c.trivialFromStartMs} ms | ` +
      `standalone: healthy ${c.healthyMs} ms after spawn, first API request ${c.firstRequestMs} ms (100th ${c.hundredthRequestMs} ms)`,
  );
  const m = await lastJsonLine<{ files: number; runs: number; gatewayMs: number; trivialMs: number }>(MANY_FILES, ['--runs', '3']);
  console.log(
    `vitest, ${m.files} files of one in-process chat call each (median of ${m.runs}): gateway ${m.gatewayMs} ms | trivial msw handler ${m.trivialMs} ms; ${x(m.gatewayMs, m.trivialMs)} msw's`,
  );
}
