// Message Batches (issue 24): how long a batch of N ordinary requests takes to create, and how many
// times it lets the event loop run meanwhile (a setImmediate ticker counts turns), in-process through
// @anthropic-ai/sdk, plus the bytes of its results. Prints one JSON line.
// Usage: node bench/batches.ts [--requests 10000] [--max-tokens 200]
import { parseArgs } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { setupServer } from 'msw/node';
import { createGateway } from '../dist/src/index.js';
import { countLoopTurns } from './load.ts';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '10000' }, 'max-tokens': { type: 'string', default: '200' } },
});
const N = Number(values.requests);
const server = setupServer(...createGateway().handlers);
server.listen();
const client = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
const requests = Array.from({ length: N }, (_, i) => ({
  custom_id: `r${i}`,
  params: {
    model: 'claude-sonnet-5-5',
    max_tokens: Number(values['max-tokens']),
    messages: [{ role: 'user' as const, content: `Question number ${i}: what is a batch?` }],
  },
}));
// Warm-up: the tokenizer and faker load with the first request.
await client.messages.create(requests[0].params);
const stopCounting = countLoopTurns();
const started = performance.now();
const batch = await client.messages.batches.create({ requests });
const createMs = performance.now() - started;
const turns = stopCounting();
let bytes = 0;
for await (const line of await client.messages.batches.results(batch.id)) bytes += JSON.stringify(line).length + 1;
server.close();
console.log(
  JSON.stringify({
    requests: N,
    createMs: Math.round(createMs),
    msPerRequest: +(createMs / N).toFixed(3),
    loopTurnsDuringCreate: turns,
    resultBytes: bytes,
  }),
);
