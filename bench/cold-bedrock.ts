// What the first Bedrock stream costs now that the event-stream codec (@smithy/eventstream-codec, with
// @smithy/core/event-streams) loads with it: in fresh processes, the in-process gateway answers a chat
// request and a Converse request, then a ConverseStream twice; prints the medians of the first stream's
// CPU and wall time, the second's wall time, and the heap the codec's modules keep, as one JSON line.
// Usage: node --expose-gc bench/cold-bedrock.ts [--runs 5]
import { probeFresh } from './spawn.ts';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, probe: { type: 'boolean' } } });

async function probe(): Promise<void> {
  const { setupServer } = await import('msw/node');
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const heap = () => {
    (globalThis as { gc?: () => void }).gc?.();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const { createGateway } = (await import(new URL('../dist/src/index.js', import.meta.url).href)) as typeof import('../src/index.ts');
  const server = setupServer(...createGateway().handlers);
  server.listen();
  const headers = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`https://cold.test${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
  const converse = (stream: boolean) =>
    post(`/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse${stream ? '-stream' : ''}`, {
      messages: [{ role: 'user', content: [{ text: 'Benchmark me, please.' }] }],
    });
  await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }] });
  await converse(false);
  const h0 = heap();
  const c0 = cpu();
  const t0 = performance.now();
  await converse(true);
  const c1 = cpu();
  const t1 = performance.now();
  await converse(true);
  const t2 = performance.now();
  const h1 = heap();
  server.close();
  console.log(JSON.stringify({ firstCpuMs: c1 - c0, firstMs: t1 - t0, secondMs: t2 - t1, heapMiB: h1 - h0 }));
}

interface Row {
  firstCpuMs: number;
  firstMs: number;
  secondMs: number;
  heapMiB: number;
}

const fresh = () => probeFresh<Row>(['--expose-gc', fileURLToPath(import.meta.url), '--probe']);

if (values.probe) await probe();
else {
  const loadBefore = loadavg()[0];
  const rows: Row[] = [];
  for (let i = 0; i < Number(values.runs); i++) rows.push(await fresh());
  const m = (key: keyof Row) => rows.map((r) => r[key]).sort((a, b) => a - b)[rows.length >> 1];
  console.log(
    JSON.stringify({
      runs: rows.length,
      firstStreamCpuMs: Math.round(m('firstCpuMs')),
      firstStreamMs: Math.round(m('firstMs')),
      secondStreamMs: Math.round(m('secondMs') * 10) / 10,
      codecHeapMiB: Math.round(m('heapMiB') * 100) / 100,
      load: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0] * 100) / 100],
    }),
  );
}
