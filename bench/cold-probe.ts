// One fresh process's cold figures, printed as one JSON line: importing the package, the first and the
// second in-process chat reply (msw's setupServer with the gateway's handlers; msw is loaded before the
// clock starts: a test file loads it anyway). The package is imported by its name, as a user does (its
// exports: the bundle). With `--trivial <file>`, the same with a trivial msw handler
// sending that file's bytes instead of the gateway (the floor: msw's and fetch's own first use). Run by bench/cold.ts.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

const { values } = parseArgs({ options: { trivial: { type: 'string' } } });
// CPU time beside wall time: on a machine shared with other work, the wall clock measures the neighbours too.
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const c0 = cpu();
const t0 = performance.now();
const handlers = values.trivial
  ? [
      http.post(
        '*/v1/chat/completions',
        () => new HttpResponse(readFileSync(values.trivial!, 'utf8'), { headers: { 'content-type': 'application/json' } }),
      ),
    ]
  : (await import('model-gateway-mock')).createGateway().handlers;
const imported = performance.now();
const c1 = cpu();
const server = setupServer(...handlers);
server.listen();
const chat = () =>
  fetch('https://cold.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], max_tokens: 40 }),
  }).then((r) => r.text());
const t1 = performance.now();
const c2 = cpu();
const body = await chat();
const t2 = performance.now();
const c3 = cpu();
await chat();
const t3 = performance.now();
server.close();
console.log(
  // fromStartMs: the process's own start (performance's time origin) to the first reply, node's start-up and msw's import included.
  JSON.stringify({
    importMs: imported - t0,
    firstMs: t2 - t1,
    secondMs: t3 - t2,
    importCpuMs: c1 - c0,
    firstCpuMs: c3 - c2,
    fromStartMs: t2,
    body,
  }),
);
