const V = process.env.V!;
const dir = V === 'new' ? '/work/wt/bp-write' : '/tmp/bpw-base';
const gw = await import(`${dir}/src/gateway.ts`);
const ep = await import(`${dir}/src/pipeline/endpoint.ts`);
const pb = await import(V === 'new' ? `${dir}/src/pipeline/playback.ts` : `${dir}/src/pipeline/sse.ts`);
const idx = await import(`${dir}/src/index.ts`);
const text = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Benchmark me, please.' }], stream: true, max_tokens: 40 });
const headers: Record<string, string> = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const inbound = () => ({ method: 'POST', url: new URL('http://localhost/v1/chat/completions'), header: (n: string) => headers[n], headers: () => headers, text: async () => text, bytes: async () => new Uint8Array(), signal: new AbortController().signal });
const gateway = idx.createGateway(); const runtime = gw.runtimeOf(gateway); const spec = gw.endpoints.find((e: any) => e.path === '/v1/chat/completions');
let t = 0; let n = 0;
for (let k = 0; k < 30000; k++) {
  const out = await ep.runEndpoint(runtime, spec, inbound(), {});
  const t0 = performance.now();
  if (V === 'new') pb.playFramed(out.body, { write: () => true, whenDrained: () => {}, end: () => {}, drop: () => {} }, 60000);
  else pb.playEvents(out.body.events, { write: () => {}, end: () => {} }, out.body.hooks, pb.utf8);
  if (k > 5000) { t += performance.now() - t0; n++; }
}
console.log(V, 'play µs', ((t / n) * 1000).toFixed(2));
