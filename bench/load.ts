// Loading one server with the benchmark's chat request: its rate, p99 and the server's CPU time per
// request (on a shared machine the rate swings with the neighbours' load, the CPU time much less).
import autocannon from 'autocannon';
import { cpuMs, type Running } from './spawn.ts';

export const HEADERS = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };

/** The benchmark request: a short chat, plain or streamed (40 tokens at most). */
export const chatBody = (stream: boolean) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], stream, max_tokens: 40 });

export interface Load {
  rps: number;
  p99: number;
  cpuUs: number;
}

/** Two seconds of warm-up, then `seconds` of `connections` clients sending the chat request. */
export async function load(server: Running, stream: boolean, seconds: number, connections: number): Promise<Load> {
  const opts = {
    url: `${server.url}/v1/chat/completions`,
    method: 'POST' as const,
    headers: HEADERS,
    body: chatBody(stream),
    connections,
  };
  await autocannon({ ...opts, duration: 2 }); // warm-up
  const cpu0 = cpuMs(server.child.pid!);
  const r = await autocannon({ ...opts, duration: seconds });
  const cpuUs = ((cpuMs(server.child.pid!) - cpu0) * 1000) / r.requests.total;
  if (r.non2xx || r.errors) throw new Error(`${server.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99, cpuUs };
}

/** Counts the event loop's turns from now on (a setImmediate ticker); the returned function stops it and gives the count. */
export function countLoopTurns(): () => number {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    ticking = false;
    return turns;
  };
}
