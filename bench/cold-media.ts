// What a first media request costs now that its handler loads with it (routes-media.ts): in fresh
// processes, the in-process gateway answers a chat request, then a speech request twice; prints the
// medians of the first speech request's CPU and wall time and of the second's wall time, as one JSON line.
// Usage: node bench/cold-media.ts [--runs 5] [--dist <checkout whose dist/ to load, default this one>]
import { probeFresh } from './spawn.ts';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadavg } from 'node:os';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, dist: { type: 'string' }, probe: { type: 'boolean' } } });
const root = values.dist ? pathToFileURL(`${values.dist.replace(/\/$/, '')}/`).href : new URL('../', import.meta.url).href;

async function probe(): Promise<void> {
  const { setupServer } = await import('msw/node');
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const { createGateway } = (await import(new URL('dist/src/index.js', root).href)) as typeof import('../src/index.ts');
  const server = setupServer(...createGateway().handlers);
  server.listen();
  const headers = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`https://cold.test${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
  const speech = () => post('/v1/audio/speech', { model: 'tts-1', input: 'Hello there.', voice: 'alloy', response_format: 'wav' });
  await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }] });
  const c0 = cpu();
  const t0 = performance.now();
  await speech();
  const c1 = cpu();
  const t1 = performance.now();
  await speech();
  const t2 = performance.now();
  server.close();
  console.log(JSON.stringify({ firstCpuMs: c1 - c0, firstMs: t1 - t0, secondMs: t2 - t1 }));
}

interface Row {
  firstCpuMs: number;
  firstMs: number;
  secondMs: number;
}

const fresh = () => probeFresh<Row>([fileURLToPath(import.meta.url), '--probe', ...(values.dist ? ['--dist', values.dist] : [])]);

if (values.probe) await probe();
else {
  const loadBefore = loadavg()[0];
  const rows: Row[] = [];
  for (let i = 0; i < Number(values.runs); i++) rows.push(await fresh());
  // cold.ts runs when imported: its median is not shared.
  const m = (key: keyof Row) => Math.round(rows.map((r) => r[key]).sort((a, b) => a - b)[rows.length >> 1]);
  const load = [loadBefore, loadavg()[0]].map((l) => Math.round(l * 10) / 10);
  console.log(
    JSON.stringify({
      runs: rows.length,
      firstSpeechCpuMs: m('firstCpuMs'),
      firstSpeechMs: m('firstMs'),
      secondSpeechMs: m('secondMs'),
      load,
    }),
  );
}
