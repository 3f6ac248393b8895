// The baseline: a bare node:http server answering with canned bytes. Given the emulator's own reply
// (JSON and SSE, with their headers) it sends exactly those, so the ratio measures only our work.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

interface Canned {
  headers: Record<string, string>;
  body: string;
}

const canned: { json: Canned; sse: Canned } = JSON.parse(readFileSync(process.argv[2], 'utf8'));

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const reply = body.stream ? canned.sse : canned.json;
    res.writeHead(200, { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) });
    res.end(reply.body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGINT', () => process.exit(0));
