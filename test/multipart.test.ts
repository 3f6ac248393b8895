// Multipart bodies in the endpoint pipeline, through both adapters: an echo endpoint shows what a
// handler receives, the journal what it keeps.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { Runtime } from '../src/runtime.ts';
import { openaiFormat } from '../src/formats/openai/format.ts';
import type { EndpointSpec } from '../src/pipeline/call.ts';
import { isUpload, json, type FormBody, type Upload } from '../src/pipeline/exchange.ts';
import { mswHandlers } from '../src/adapters/msw.ts';
import { NodeRouter } from '../src/adapters/node.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';

const echo: EndpointSpec = {
  method: 'POST',
  path: '/v1/echo',
  format: openaiFormat,
  auth: ['bearer'],
  handle({ body }) {
    const show = (v: string | Upload) =>
      isUpload(v) ? { filename: v.filename, type: v.type, text: new TextDecoder().decode(v.bytes) } : v;
    const form = body as FormBody;
    return json(Object.fromEntries(Object.entries(form).map(([k, v]) => [k, Array.isArray(v) ? v.map(show) : show(v)])));
  },
};

const LIMIT = 64 * 1024;

interface Adapter {
  name: string;
  start(runtime: Runtime): Promise<{ root: string; stop(): Promise<void> }>;
}

const adapters: Adapter[] = [
  {
    name: 'in-process',
    async start(runtime) {
      const server = setupServer(...mswHandlers(runtime, '*', [echo], openaiFormat));
      strictListen(server);
      return { root: 'http://127.0.0.1:2', stop: async () => server.close() };
    },
  },
  ...(!socketSuites
    ? []
    : [
        {
          name: 'node:http',
          async start(runtime: Runtime) {
            const router = new NodeRouter(runtime, [echo], openaiFormat);
            const server: Server = createServer((req, res) => void router.handle(req, res, {}));
            await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
            const { port } = server.address() as AddressInfo;
            return { root: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
          },
        },
      ]),
];

function form(): FormData {
  const f = new FormData();
  f.append('model', 'whisper-1');
  f.append('tag', 'a');
  f.append('tag', 'b');
  f.append('include[]', 'logprobs');
  f.append('file', new File(['hello bytes'], 'clip.wav', { type: 'audio/wav' }));
  return f;
}

describe.each(adapters)('multipart bodies ($name)', (adapter) => {
  const runtime = new Runtime({ maxBodyBytes: LIMIT });
  let root = '';
  let stop: () => Promise<void>;
  beforeAll(async () => ({ root, stop } = await adapter.start(runtime)));
  afterAll(() => stop());
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${root}/v1/echo`, { method: 'POST', body, headers: { authorization: 'Bearer sk-test', ...headers } });

  it('parses fields, repeated fields, x[] arrays and files into the body', async () => {
    const res = await post(form());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      model: 'whisper-1',
      tag: ['a', 'b'],
      include: ['logprobs'],
      file: { filename: 'clip.wav', type: 'audio/wav', text: 'hello bytes' },
    });
  });

  it('journals uploads by name, type and size, never their bytes', async () => {
    runtime.journal.clear();
    await post(form());
    const [entry] = runtime.journal.held();
    expect(entry.body).toEqual({
      model: 'whisper-1',
      tag: ['a', 'b'],
      include: ['logprobs'],
      file: { filename: 'clip.wav', type: 'audio/wav', bytes: 11 },
    });
    expect(JSON.stringify(entry.body)).not.toContain('hello');
  });

  it('gives the same form the same request id, whatever boundary the client drew', async () => {
    const a = await post(form());
    const b = await post(form());
    expect(a.headers.get('x-request-id')).toMatch(/^req_/);
    expect(a.headers.get('x-request-id')).toBe(b.headers.get('x-request-id'));
  });

  it('answers a malformed multipart body with the vendor 400', async () => {
    const res = await post('--nope\r\nthis is not multipart', { 'content-type': 'multipart/form-data; boundary=xyz' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/multipart/);
  });

  it('applies the body limit before parsing', async () => {
    const f = new FormData();
    f.append('file', new File([new Uint8Array(LIMIT + 1)], 'big.wav', { type: 'audio/wav' }));
    const res = await post(f);
    expect(res.status).toBe(413);
  });

  it('still takes JSON bodies as before', async () => {
    const res = await post(JSON.stringify({ model: 'x', n: 1 }), { 'content-type': 'application/json' });
    expect(await res.json()).toEqual({ model: 'x', n: 1 });
  });
});
