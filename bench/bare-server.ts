// The baseline: a bare node:http server answering a canned chat completion (JSON) or stream (SSE).
import { createServer } from 'node:http';

const json = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1767225600,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Sure. The quick brown fox jumps over the lazy dog, twice over.', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 8, completion_tokens: 16, total_tokens: 24 },
});
const sse = Array.from({ length: 40 }, (_, i) => `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" token${i}"},"finish_reason":null}]}\n\n`).join('') + 'data: [DONE]\n\n';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGINT', () => process.exit(0));
