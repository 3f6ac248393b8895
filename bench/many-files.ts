// A frontend's test run of many files (issue 26): vitest on a generated suite of FILES files, each
// making one in-process chat call through the openai SDK against `setupServer(...createGateway().handlers)`,
// against the same suite with a trivial msw handler returning the gateway's reply as fixed bytes. vitest
// evaluates modules afresh in every file, so what the gateway loads on first use is paid per file unless
// it is shared across the worker. Prints one JSON line: the median wall time of each suite.
// Usage: node bench/many-files.ts [--files 20] [--runs 3]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setupServer } from 'msw/node';
import { createGateway } from '../dist/src/index.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '20' }, runs: { type: 'string', default: '3' } } });
const FILES = Number(values.files);
const RUNS = Number(values.runs);
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const REQUEST = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], max_tokens: 40 };

// The gateway's reply, for the trivial handler to send.
const probe = setupServer(...createGateway().handlers);
probe.listen();
const res = await fetch('https://api.test/v1/chat/completions', {
  method: 'POST',
  headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
  body: JSON.stringify(REQUEST),
});
const reply = { body: await res.text(), type: res.headers.get('content-type') ?? 'application/json' };
probe.close();

const server = {
  gateway: `import { createGateway } from 'model-gateway-mock';\nconst server = setupServer(...createGateway().handlers);`,
  trivial: `import { http, HttpResponse } from 'msw';\nconst server = setupServer(http.post('*/v1/chat/completions', () => new HttpResponse(${JSON.stringify(reply.body)}, { headers: { 'content-type': ${JSON.stringify(reply.type)} } })));`,
};
const testFile = (kind: keyof typeof server, i: number) => `import { afterAll, beforeAll, expect, it } from 'vitest';
import OpenAI from 'openai';
import { setupServer } from 'msw/node';
${server[kind]}
beforeAll(() => server.listen());
afterAll(() => server.close());
it('answers chat ${i}', async () => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'https://api.test/v1', maxRetries: 0 });
  const r = await client.chat.completions.create(${JSON.stringify(REQUEST)});
  expect(r.choices[0].message.content).toBeTruthy();
});
`;

// Inside the package, so that 'model-gateway-mock' resolves to its own built entry as an installed one would.
const dirs = Object.fromEntries(
  (Object.keys(server) as (keyof typeof server)[]).map((kind) => {
    const dir = mkdtempSync(fileURLToPath(new URL(`./.many-files-${kind}-`, import.meta.url)));
    writeFileSync(join(dir, 'vitest.config.mjs'), `export default { test: { include: ['*.test.ts'] } };\n`);
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `chat-${i}.test.ts`), testFile(kind, i));
    return [kind, dir];
  }),
) as Record<keyof typeof server, string>;

function wall(dir: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [VITEST, 'run', '--root', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vitest failed in ${dir}:\n${r.stdout}\n${r.stderr}`);
  return performance.now() - t0;
}

const times = { gateway: [] as number[], trivial: [] as number[] };
try {
  // Interleaved, so that the shared machine's load falls on both alike.
  for (let i = 0; i < RUNS; i++) for (const kind of ['trivial', 'gateway'] as const) times[kind].push(wall(dirs[kind]));
} finally {
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(
  JSON.stringify({ files: FILES, runs: RUNS, gatewayMs: Math.round(median(times.gateway)), trivialMs: Math.round(median(times.trivial)) }),
);
