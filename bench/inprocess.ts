// In-process cost: the official openai SDK against (1) the standalone server over a socket, (2) a
// trivial msw handler returning the gateway's own reply bytes (the floor msw itself sets), and (3)
// `setupServer(...gateway.handlers)`. Prints one JSON line of requests per second for each.
// Usage: node bench/inprocess.ts [--seconds 4] [--concurrency 8] [--runs 10]
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createGateway } from '../dist/src/index.js';
import { start } from './spawn.ts';
import { rate as measure } from './rate.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
    runs: { type: 'string', default: '10' },
  },
});
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const RUNS = Number(values.runs);
const CLI = fileURLToPath(new URL('../bin/model-gateway-mock.js', import.meta.url));
const REQUEST = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Benchmark me, please.' }], max_tokens: 40 };

const rate = (client: OpenAI) =>
  measure(() => client.chat.completions.create(REQUEST), { seconds: SECONDS, concurrency: CONCURRENCY, warmupMs: 1000 });

const sdk = (baseURL: string) => new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0 });

// (1) The standalone server, over a socket.
const { url, child } = await start([CLI, '--port', '0']);
const standalone = await rate(sdk(`${url}/v1`));
child.kill();

// (2) msw's floor: a handler that returns the gateway's reply as fixed bytes.
const gateway = createGateway();
const probe = setupServer(...gateway.handlers);
probe.listen();
const res = await fetch('https://bench.test/v1/chat/completions', {
  method: 'POST',
  headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
  body: JSON.stringify(REQUEST),
});
const bytes = await res.text();
const headers = Object.fromEntries(res.headers);
probe.close();
const trivial = setupServer(http.post('*/v1/chat/completions', () => new HttpResponse(bytes, { headers })));
// (3) The gateway's handlers.
const handlers = setupServer(...gateway.handlers);

/** The median of RUNS runs of each (ten: the measure), interleaved, so that JIT warm-up and the shared machine's load fall on both alike. */
async function interleaved(): Promise<{ floor: number; inProcess: number }> {
  const floors: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [server, into] of [
      [trivial, floors],
      [handlers, ours],
    ] as const) {
      server.listen();
      into.push(await rate(sdk('https://bench.test/v1')));
      server.close();
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  return { floor: median(floors), inProcess: median(ours) };
}
const { floor, inProcess } = await interleaved();

console.log(JSON.stringify({ standalone, floor, inProcess, concurrency: CONCURRENCY, seconds: SECONDS, runs: RUNS }));
