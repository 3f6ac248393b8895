// What a test id costs: the openai SDK against one standalone server (1) without x-mock-test-id, (2) with
// one, its test holding one fixture, (3) the same with 256 live tests holding a fixture each, and (4) through
// an msw handler that adds the header as setupGateway({ url }) does. Prints one JSON line of requests per
// second for each (the median of three interleaved runs).
// Usage: node bench/test-scopes.ts [--seconds 2] [--concurrency 8]
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { bypass, http } from 'msw';
import { setupServer } from 'msw/node';
import { start } from './spawn.ts';
import { rate as measure } from './rate.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '8' } } });
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const CLI = fileURLToPath(new URL('../bin/model-gateway-mock.js', import.meta.url));
const REQUEST = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Benchmark me, please.' }], max_tokens: 40 };

const rate = (client: OpenAI) =>
  measure(() => client.chat.completions.create(REQUEST), { seconds: SECONDS, concurrency: CONCURRENCY, warmupMs: 500 });

const { url, child } = await start([CLI, '--port', '0']);
const sdk = (test?: string) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: test ? { 'x-mock-test-id': test } : undefined });
const addFixture = (test: string) =>
  fetch(`${url}/__admin/fixtures?test=${test}`, {
    method: 'POST',
    body: JSON.stringify({ match: { userMessage: { contains: 'Benchmark' } }, reply: { text: `Test ${test}.` } }),
  });
await addFixture('bench');
// (4) The helper's mechanism: every request to the server's origin sent on with the header added.
const tagging = setupServer(
  http.all(`${new URL(url).origin}/*`, ({ request }) => {
    const headers = new Headers(request.headers);
    headers.set('x-mock-test-id', 'bench');
    return fetch(bypass(request, { headers }));
  }),
);

const runs: Record<string, number[]> = { plain: [], testId: [], testId256: [], throughMsw: [] };
for (let i = 0; i < 3; i++) {
  runs.plain.push(await rate(sdk()));
  runs.testId.push(await rate(sdk('bench')));
  tagging.listen();
  // Built after msw patched fetch (the SDK keeps the fetch it finds).
  runs.throughMsw.push(await rate(sdk()));
  tagging.close();
}
for (let t = 0; t < 255; t++) await addFixture(`other-${t}`);
for (let i = 0; i < 3; i++) runs.testId256.push(await rate(sdk('bench')));
child.kill();
const median = (xs: number[]) => Math.round(xs.sort((a, b) => a - b)[1]);
console.log(
  JSON.stringify({
    ...Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)])),
    concurrency: CONCURRENCY,
    seconds: SECONDS,
  }),
);
