// One fresh process's cold figures, printed as one JSON line: importing the package, the first and the
// second in-process chat reply (msw's setupServer with the gateway's handlers, loaded before the clock
// starts: a test file loads msw anyway). Run by bench/cold.ts.
import { setupServer } from 'msw/node';

const t0 = performance.now();
const { createGateway } = await import('../dist/src/index.js');
const imported = performance.now();
const server = setupServer(...createGateway().handlers);
server.listen();
const chat = () =>
  fetch('https://cold.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], max_tokens: 40 }),
  }).then((r) => r.text());
const t1 = performance.now();
await chat();
const t2 = performance.now();
await chat();
const t3 = performance.now();
server.close();
console.log(JSON.stringify({ importMs: imported - t0, firstMs: t2 - t1, secondMs: t3 - t2 }));
