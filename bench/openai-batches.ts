// OpenAI batches (issue 34): how long a batch of N chat lines takes to create (every line answered by
// the chat endpoint's own handler), how many times it lets the event loop run meanwhile (a setImmediate
// ticker counts turns), and the bytes of its output file; with the time N direct requests take, for
// comparison. In-process through the openai SDK. Prints one JSON line.
// Usage: node bench/openai-batches.ts [--lines 10000] [--max-tokens 200]
import { parseArgs } from 'node:util';
import OpenAI, { toFile } from 'openai';
import { setupServer } from 'msw/node';
import { createGateway } from '../dist/src/index.js';
import { countLoopTurns } from './load.ts';

const { values } = parseArgs({
  options: { lines: { type: 'string', default: '10000' }, 'max-tokens': { type: 'string', default: '200' } },
});
const N = Number(values.lines);
const gateway = createGateway();
const server = setupServer(...gateway.handlers);
server.listen();
const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
const bodies = Array.from({ length: N }, (_, i) => ({
  model: 'gpt-4o-mini',
  max_tokens: Number(values['max-tokens']),
  messages: [{ role: 'user' as const, content: `Question number ${i}: what is a batch?` }],
}));
// Warm-up: the tokenizer and faker load with the first request.
await client.chat.completions.create(bodies[0]);
const jsonl = bodies.map((body, i) => JSON.stringify({ custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions', body })).join('\n');
const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'lines.jsonl'), purpose: 'batch' });
const stopCounting = countLoopTurns();
const started = performance.now();
const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
const createMs = performance.now() - started;
const turns = stopCounting();
gateway.advanceClock(3);
const done = await client.batches.retrieve(batch.id);
const outputBytes = (await (await client.files.content(done.output_file_id!)).arrayBuffer()).byteLength;
const directStarted = performance.now();
for (const body of bodies) await client.chat.completions.create(body);
const directMs = performance.now() - directStarted;
server.close();
console.log(
  JSON.stringify({
    lines: N,
    createMs: Math.round(createMs),
    msPerLine: +(createMs / N).toFixed(3),
    loopTurnsDuringCreate: turns,
    outputBytes,
    inputBytes: Buffer.byteLength(jsonl),
    directMs: Math.round(directMs),
    msPerDirectRequest: +(directMs / N).toFixed(3),
    status: done.status,
  }),
);
