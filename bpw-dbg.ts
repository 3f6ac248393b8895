import { request, Agent } from 'node:http';
const url = 'http://127.0.0.1:4582';
const t0 = performance.now(); const t = () => Math.round(performance.now() - t0);
const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: process.argv[3] !== 'json', n: 128, logprobs: true, top_logprobs: 20, seed: Number(process.argv[2]) });
let done = false; let chunks = 0; let first = 0;
const req = request(url + '/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
  res.on('data', () => { if (chunks++ === 0) first = t(); });
  res.on('end', () => { done = true; });
});
req.end(body);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const get = (p: string) => new Promise<void>((resolve) => request(url + p, { agent }, (r) => { r.resume(); r.on('end', resolve); }).end());
let n = 0; let worst = 0;
while (!done) { const s = t(); await get('/__admin/health'); n++; worst = Math.max(worst, t() - s); }
console.log('first', first, 'end', t(), 'reads', n, 'worst', worst);
agent.destroy();
