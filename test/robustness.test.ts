// Requests that once crashed, hung or slowed the server (found in review), over a real socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';

describe.runIf(socketSuites)('robustness (socket)', () => {
  let cli: Spawned;
  let client: OpenAI;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${cli.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

  beforeAll(async () => {
    cli = await spawnCli();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => cli.stop());

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
    const res = await post('/v1/chat/completions', chat, { [header]: value });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe(header);
  });

  it('sends a fixture name in any script as a header, percent-encoded', async () => {
    await fetch(`${cli.url}/__admin/fixtures`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'weather → 天气', match: { userMessage: 'unicode fixture' }, reply: { text: 'ok' } }) });
    const res = await post('/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'unicode fixture' }] });
    expect(res.status).toBe(200);
    expect(decodeURIComponent(res.headers.get('x-mock-fixture')!)).toBe('weather → 天气');
    expect((await fetch(`${cli.url}/__admin/health`)).status).toBe(200);
  });

  it('refuses a body nested deeper than 128 levels, and the journal stays readable', async () => {
    const nested = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(5000)}1${']'.repeat(5000)}}`;
    const res = await fetch(`${cli.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body: nested });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('deeper than 128');
    expect((await fetch(`${cli.url}/__admin/requests`)).status).toBe(200);
  });

  it('refuses completions asking for more than 2048 choices', async () => {
    const error = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: Array.from({ length: 100 }, (_, i) => `p${i}`), n: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('n');
  });

  it('keeps huge schema bounds cheap: maxLength 1e8 answers with a valid value of bounded size', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'json please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'big', schema: { type: 'object', properties: { s: { type: 'string', maxLength: 100_000_000 }, a: { type: 'array', maxItems: 100_000_000, items: { type: 'integer' } } }, required: ['s', 'a'] } } },
    });
    const value = JSON.parse(r.choices[0].message.content!);
    expect(typeof value.s).toBe('string');
    expect(Array.isArray(value.a)).toBe(true);
    // Sizes, not time: the synthesized value stays far below the bounds it was allowed.
    expect(value.s.length).toBeLessThan(100_000);
    expect(value.a.length).toBeLessThan(100_000);
    const pattern = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object', properties: { s: { type: 'string', pattern: 'a{50000000}' } }, required: ['s'] } } } })
      .catch((e) => e);
    expect(pattern).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('gives the same synthesized tool call whatever the key order of the tool schema', async () => {
    const ask = (parameters: Record<string, unknown>) =>
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'What is the weather in Oslo?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters } }] });
    const a = await ask({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    const b = await ask({ required: ['city'], properties: { city: { type: 'string' } }, type: 'object' });
    expect(b.choices[0].message.tool_calls).toEqual(a.choices[0].message.tool_calls);
  });

  it('keeps reasoning out of streamed chat content', async () => {
    await fetch(`${cli.url}/__admin/fixtures`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match: { userMessage: 'think first' }, reply: { thinking: 'Let me ponder.', text: 'Hi there.' } }) });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'think first' }], stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hi there.');
  });

  it('ends a Gemini JSON-array stream with a valid array when it fails part-way', async () => {
    const res = await fetch(`${cli.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?key=sk-test`, {
      method: 'POST',
      headers: { 'x-mock-fault': 'STREAM_ERROR,after=2,status=503' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    const array = JSON.parse(await res.text());
    expect(array).toHaveLength(3);
    expect(array[2].error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
  });

  it.each([
    [{ contents: [{ parts: [{ functionCall: null }] }] }, 'functionCall'],
    [{ contents: [{ parts: [{ text: 'x' }] }], systemInstruction: { parts: 'x' } }, 'systemInstruction.parts'],
    [{ contents: [{ parts: [{ text: 'x' }] }], toolConfig: { functionCallingConfig: { allowedFunctionNames: 5 } } }, 'allowedFunctionNames'],
  ])('answers a malformed Gemini body with 400 naming the field (%#)', async (body, field) => {
    const res = await fetch(`${cli.url}/v1beta/models/gemini-2.5-flash:generateContent?key=sk-test`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain(field);
  });

  it('answers a wrong method on a shared path in the path default (OpenAI) shape', async () => {
    const res = await fetch(`${cli.url}/v1/models/gpt-4o`, { method: 'PUT', headers: { authorization: 'Bearer sk-test' } });
    expect(res.status).toBe(405);
    expect((await res.json()).error.type).toBe('invalid_request_error');
  });
});
