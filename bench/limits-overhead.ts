// What rate limiting and cost add to a request: the admission and the charge (pipeline/limits.ts) timed
// alone, per call, and a chat request in-process with the default (generous) limits for scale.
// Usage: node bench/limits-overhead.ts  (run by hand; not part of the suite)
import { setupServer } from 'msw/node';
import { createGateway } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';
import { admitRequest, chargeReply } from '../src/pipeline/limits.ts';
import type { JournalEntry } from '../src/core/journal.ts';

const gateway = createGateway({});
const runtime = runtimeOf(gateway);
const N = 200_000;
const usage = { inputTokens: 120, outputTokens: 300, cachedInputTokens: 0, reasoningTokens: 0 };
for (const model of ['gpt-4o', 'claude-sonnet-5-5', 'gemini-2.5-flash', 'my-model-without-a-price']) {
  const entry = { model, usage } as unknown as JournalEntry;
  const started = performance.now();
  for (let i = 0; i < N; i++) {
    admitRequest(runtime, 'sk-test', 'sk-test');
    chargeReply(runtime, 'sk-test', entry, 'sk-test');
  }
  console.log(`${model}: admit + charge ${(((performance.now() - started) * 1000) / N).toFixed(2)} µs a request (cost ${entry.costUsd})`);
}

const server = setupServer(...gateway.handlers);
server.listen();
const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] });
const started = performance.now();
const M = 500;
for (let i = 0; i < M; i++) {
  await (
    await fetch('http://127.0.0.1:2/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body,
    })
  ).text();
}
console.log(`a whole chat request in-process: ${(((performance.now() - started) * 1000) / M).toFixed(0)} µs`);
server.close();
