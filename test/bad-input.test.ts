// Invalid requests over a real socket: malformed or invalid bodies, bad x-mock-* headers, unknown routes,
// wrong methods and broken connections each get the vendor's status and error body, with a message naming
// the field, and never crash or wedge the server. (Costly but valid input, bounded: the budget-* suites.
// Random bad input: fuzz.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { assertSchema } from './helpers/openapi.ts';

const AUTH = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const good = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('bad input (socket)', () => {
  let cli: Spawned;
  let client: OpenAI;
  beforeAll(async () => {
    cli = await spawnCli(['--max-body', '4096']);
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => cli.stop());

  async function send(init: RequestInit & { path?: string }) {
    const res = await fetch(`${cli.url}${init.path ?? '/v1/chat/completions'}`, { method: 'POST', headers: AUTH, ...init });
    const body = await res.json();
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    assertSchema('ErrorResponse', body);
    return { status: res.status, error: body.error };
  }

  it.each([
    ['malformed JSON', 400, '{"model": "gpt-4o-mini", ', null, /could not parse the JSON body/],
    ['an empty body', 400, '', null, /could not parse the JSON body/],
    ['a JSON array', 400, '[1,2]', null, /must be a JSON object/],
    ['no model', 400, JSON.stringify({ messages: good.messages }), 'model', /Missing required parameter: 'model'/],
    ['messages as a string', 400, JSON.stringify({ ...good, messages: 'hi' }), 'messages', /expected an array, but got a string/],
    ['temperature too high', 400, JSON.stringify({ ...good, temperature: 2.5 }), 'temperature', /'temperature'.*<= 2, but got 2.5/],
    ['top_p below zero', 400, JSON.stringify({ ...good, top_p: -0.1 }), 'top_p', /'top_p'.*>= 0/],
    ['n as a float', 400, JSON.stringify({ ...good, n: 1.5 }), 'n', /expected an integer, but got a number/],
    ['max_tokens zero', 400, JSON.stringify({ ...good, max_tokens: 0 }), 'max_tokens', /'max_tokens'.*>= 1/],
    ['stream as a string', 400, JSON.stringify({ ...good, stream: 'yes' }), 'stream', /expected a boolean/],
    // An unknown top-level field is accepted with a warning, or refused under --strict-params: params-current.test.ts.
    [
      'a tool message without tool_call_id',
      400,
      JSON.stringify({ ...good, messages: [{ role: 'tool', content: 'x' }] }),
      'messages[0].tool_call_id',
      /tool_call_id/,
    ],
    [
      'an image part without url',
      400,
      JSON.stringify({ ...good, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }),
      'messages[0].content[0].image_url.url',
      /image_url\.url/,
    ],
    [
      'stream_options without stream',
      400,
      JSON.stringify({ ...good, stream_options: { include_usage: true } }),
      'stream_options',
      /only allowed when 'stream' is enabled/,
    ],
  ])('%s ⇒ %i', async (_what, status, body, param, message) => {
    const { status: got, error } = await send({ body });
    expect(got).toBe(status);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe(param);
    expect(error.message).toMatch(message);
  });

  // These once crashed or hung the server (found in review).
  it.each([
    ['x-mock-fault', 'STREAM_ERROR,status=0'],
    ['x-mock-fault', 'STALL,ms=99999999999'],
    ['x-mock-latency', 'constructor'],
    ['x-mock-latency', 'toString=5'],
    ['x-mock-status', '0x1f4'],
    ['x-mock-status', '5e2'],
    ['x-mock-seed', ''],
    ['x-mock-fault', 'STALL,ms='],
    ['x-mock-fault', 'STREAM_ERROR,probability=0x1'],
  ])('refuses %s: %s with a 400 instead of crashing or hanging', async (header, value) => {
    const { status, error } = await send({ headers: { ...AUTH, [header]: value }, body: JSON.stringify(good) });
    expect(status).toBe(400);
    expect(error.param).toBe(header);
  });

  it('refuses completions asking for more than 2048 choices', async () => {
    const error = await client.completions
      .create({ model: 'gpt-3.5-turbo-instruct', prompt: Array.from({ length: 100 }, (_, i) => `p${i}`), n: 50 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('n');
  });

  it.each([
    [{ contents: [{ parts: [{ functionCall: null }] }] }, 'functionCall'],
    [{ contents: [{ parts: [{ text: 'x' }] }], systemInstruction: { parts: 'x' } }, 'systemInstruction.parts'],
    // A text whose String() throws was a 500.
    [
      { contents: [{ parts: [{ text: 'x' }] }], systemInstruction: { parts: [{ text: { toString: 1 } }] } },
      'systemInstruction.parts[0].text',
    ],
    [
      { contents: [{ parts: [{ text: 'x' }] }], toolConfig: { functionCallingConfig: { allowedFunctionNames: 5 } } },
      'allowedFunctionNames',
    ],
  ])('answers a malformed Gemini body with 400 naming the field (%#)', async (body, field) => {
    const res = await fetch(`${cli.url}/v1beta/models/gemini-2.5-flash:generateContent?key=sk-test`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain(field);
  });

  it('refuses a body over the limit with 413, declared or streamed', async () => {
    const big = JSON.stringify({ ...good, messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    expect((await send({ body: big })).status).toBe(413);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const { status, error } = await send({ body: chunked, duplex: 'half' } as RequestInit);
    expect(status).toBe(413);
    expect(error.message).toContain('4096');
  });

  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    const unknown = await send({ path: '/v1/chat/complete', body: JSON.stringify(good) });
    expect(unknown.status).toBe(404);
    expect(unknown.error.message).toBe('Invalid URL (POST /v1/chat/complete)');
    const res = await fetch(`${cli.url}/v1/embeddings`, { headers: AUTH });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await res.json()).error.message).toContain('use POST');
  });

  it('answers a wrong method on a shared path in the path default (OpenAI) shape', async () => {
    const res = await fetch(`${cli.url}/v1/models/gpt-4o`, { method: 'PUT', headers: { authorization: 'Bearer sk-test' } });
    expect(res.status).toBe(405);
    expect((await res.json()).error.type).toBe('invalid_request_error');
  });

  it('answers a missing token with 401 before looking at the body', async () => {
    const { status, error } = await send({ headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect(status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
  });

  it('answers CORS preflights for browser SDKs, and marks every API response cross-origin readable', async () => {
    const preflight = await fetch(`${cli.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,anthropic-version,anthropic-dangerous-direct-browser-access,x-stainless-os',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('anthropic-dangerous-direct-browser-access');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const res = await fetch(`${cli.url}/v1/chat/completions`, { method: 'POST', headers: AUTH, body: JSON.stringify(good) });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toBe('*');
  });

  it('survives a malformed Host header', async () => {
    const { connect } = await import('node:net');
    const port = Number(new URL(cli.url).port);
    const reply = await new Promise<string>((resolve) => {
      let data = '';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write('GET /v1/models HTTP/1.1\r\nHost: [bad\r\nAuthorization: Bearer sk-test\r\nConnection: close\r\n\r\n'),
      );
      socket.on('data', (d) => (data += d));
      socket.on('close', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1.1 200/);
    expect((await fetch(`${cli.url}/__admin/health`)).status).toBe(200);
  });

  it('survives a client that hangs up mid-body, and keeps serving', async () => {
    const { connect } = await import('node:net');
    const port = Number(new URL(cli.url).port);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-test\r\nContent-Length: 1000\r\n\r\n{"model":',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    const health = await fetch(`${cli.url}/__admin/health`);
    expect(health.status).toBe(200);
    const ok = await fetch(`${cli.url}/v1/chat/completions`, { method: 'POST', headers: AUTH, body: JSON.stringify(good) });
    expect(ok.status).toBe(200);
  });
});
