// Cold start (issue 26), as medians of fresh processes: importing the package, its first and second
// in-process chat reply (bench/cold-probe.ts), the same first reply from a trivial msw handler (msw's
// and fetch's own first use, the floor), and the standalone server's first and hundredth API
// request over a socket after its health route answers. Prints one JSON line.
// Usage: node bench/cold.ts [--runs 7]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { start } from './spawn.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CLI = here('../bin/model-gateway-mock.js');
const BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], max_tokens: 40 });
const HEADERS = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function probe(args: string[] = []): Promise<{
  importMs: number;
  firstMs: number;
  secondMs: number;
  importCpuMs: number;
  firstCpuMs: number;
  fromStartMs: number;
  body: string;
}> {
  const child = spawn(process.execPath, [here('./cold-probe.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code ? reject(new Error(`cold-probe exited ${code}`)) : resolve(JSON.parse(out)))),
  );
}

/** A fresh CLI: ms from spawn to healthy, then its first API request, then the 100th. */
async function socket(): Promise<{ healthyMs: number; firstMs: number; hundredthMs: number }> {
  const t0 = performance.now();
  const { url, child } = await start([CLI, '--port', '0']);
  while (
    !(await fetch(`${url}/__admin/health`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 2));
  const healthyMs = performance.now() - t0;
  const one = async () => {
    const t = performance.now();
    await (await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: HEADERS, body: BODY })).text();
    return performance.now() - t;
  };
  const firstMs = await one();
  for (let i = 0; i < 98; i++) await one();
  const hundredthMs = await one();
  child.kill();
  return { healthyMs, firstMs, hundredthMs };
}

const loadBefore = loadavg()[0];
const inProcess = [];
const trivial = [];
const sockets = [];
const replyFile = join(mkdtempSync(join(tmpdir(), 'mgm-cold-')), 'reply.json');
for (let i = 0; i < RUNS; i++) {
  const p = await probe();
  inProcess.push(p);
  writeFileSync(replyFile, p.body);
  trivial.push(await probe(['--trivial', replyFile]));
  sockets.push(await socket());
}
const m = <T>(rows: T[], key: keyof T) => Math.round(median(rows.map((r) => r[key] as number)));
console.log(
  JSON.stringify({
    runs: RUNS,
    importMs: m(inProcess, 'importMs'),
    importCpuMs: m(inProcess, 'importCpuMs'),
    firstReplyMs: m(inProcess, 'firstMs'),
    firstReplyCpuMs: m(inProcess, 'firstCpuMs'),
    secondReplyMs: m(inProcess, 'secondMs'),
    trivialFirstReplyMs: m(trivial, 'firstMs'),
    trivialFirstReplyCpuMs: m(trivial, 'firstCpuMs'),
    // From the process's start to its first reply (node's start, msw's import and the package's included).
    firstReplyFromStartMs: m(inProcess, 'fromStartMs'),
    trivialFromStartMs: m(trivial, 'fromStartMs'),
    healthyMs: m(sockets, 'healthyMs'),
    firstRequestMs: m(sockets, 'firstMs'),
    hundredthRequestMs: m(sockets, 'hundredthMs'),
    // The machine's load average (1 min) before and after: other work shares the cores.
    load: [loadBefore, loadavg()[0]].map((l) => Math.round(l * 10) / 10),
  }),
);
