// The Anthropic messages format through @anthropic-ai/sdk 1.x and 0.x and the AI SDK, in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { modes, retriesWork, type Running } from './helpers/modes.ts';

const MODEL = 'claude-sonnet-5-5';
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const fixtures = [
  { name: 'overloaded', match: { userMessage: 'overload me' }, error: { status: 529, message: 'Overloaded' } },
  {
    name: 'rate-limited',
    match: { userMessage: 'rate limit me' },
    error: { status: 429, message: 'Number of requests has exceeded your rate limit.' },
  },
  {
    name: 'forbidden',
    match: { userMessage: 'forbid me' },
    error: { status: 403, message: 'Your API key does not have permission to use the specified resource.' },
  },
  {
    name: 'too-large',
    match: { userMessage: 'too large' },
    error: { status: 413, message: 'Request exceeds the maximum allowed number of bytes.' },
  },
  { name: 'broken', match: { userMessage: 'break' }, error: { status: 500, message: 'Internal server error' } },
  { name: 'paused', match: { userMessage: 'pause your turn' }, reply: { text: 'Searching…', vendorFinishReason: 'pause_turn' } },
  { name: 'gemini-only', match: { userMessage: 'a gemini reason' }, reply: { text: 'Fine.', vendorFinishReason: 'SPII' } },
];

const SDKS = [
  { sdk: '1.x', Client: Anthropic },
  { sdk: '0.x', Client: Anthropic0 as unknown as typeof Anthropic },
];

describe.each(modes)('Anthropic messages ($name)', (mode) => {
  let gw: Running;
  beforeAll(async () => {
    gw = await mode.start({ fixtures });
  });
  afterAll(() => gw.stop());

  describe.each(SDKS)('@anthropic-ai/sdk $sdk', ({ Client }) => {
    const client = () => new Client({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    const ask = (content: string) => [{ role: 'user' as const, content }];

    it('creates a message with counted usage', async () => {
      const m = await client().messages.create({ model: MODEL, max_tokens: 300, messages: ask('Hello there') });
      expect(m).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, stop_reason: 'end_turn', stop_sequence: null });
      expect(m.id).toMatch(/^msg_01[A-Za-z0-9]{22}$/);
      expect(m.content).toHaveLength(1);
      expect(m.content[0].type).toBe('text');
      expect(m.usage.input_tokens).toBeGreaterThan(0);
      expect(m.usage.output_tokens).toBeGreaterThan(0);
      expect(m.usage.cache_read_input_tokens).toBe(0);
    });

    it("ends with a fixture's own Anthropic stop reason, plain and streamed; another vendor's is not sent", async () => {
      const m = await client().messages.create({ model: MODEL, max_tokens: 300, messages: ask('pause your turn') });
      expect(m.stop_reason).toBe('pause_turn');
      const streamed = await client()
        .messages.stream({ model: MODEL, max_tokens: 300, messages: ask('pause your turn') })
        .finalMessage();
      expect(streamed.stop_reason).toBe('pause_turn');
      const other = await client().messages.create({ model: MODEL, max_tokens: 300, messages: ask('a gemini reason') });
      expect(other.stop_reason).toBe('end_turn');
    });

    it('streams with messages.stream(): text events add up to finalMessage()', async () => {
      const plain = await client().messages.create({ model: MODEL, max_tokens: 300, messages: ask('Stream please') });
      const stream = client().messages.stream({ model: MODEL, max_tokens: 300, messages: ask('Stream please') });
      const types: string[] = [];
      let text = '';
      stream.on('streamEvent', (e) => types.push(e.type));
      stream.on('text', (t) => (text += t));
      const final = await stream.finalMessage();
      expect(final.content).toEqual(plain.content);
      expect(text).toBe((plain.content[0] as { text: string }).text);
      expect(types[0]).toBe('message_start');
      expect(types.slice(1, 2)).toEqual(['content_block_start']);
      expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
      expect(final.usage.output_tokens).toBe(plain.usage.output_tokens);
    });

    it('stops at max_tokens and at a stop sequence', async () => {
      const short = await client().messages.create({ model: MODEL, max_tokens: 3, messages: ask('Go on') });
      expect(short.stop_reason).toBe('max_tokens');
      expect(short.usage.output_tokens).toBe(3);
      const full = await client().messages.create({ model: MODEL, max_tokens: 500, messages: ask('Go on') });
      const word = (full.content[0] as { text: string }).text.split(' ')[2];
      const stopped = await client().messages.create({ model: MODEL, max_tokens: 500, messages: ask('Go on'), stop_sequences: [word] });
      expect(stopped.stop_reason).toBe('stop_sequence');
      expect(stopped.stop_sequence).toBe(word);
    });

    it('runs a two-turn tool loop: tool_use, then a tool_result answered in text', async () => {
      const first = await client().messages.create({
        model: MODEL,
        max_tokens: 500,
        messages: ask('What is the weather in Paris?'),
        tools: [weatherTool],
      });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b) => b.type === 'tool_use') as { id: string; name: string; input: { city: string } };
      expect(use.id).toMatch(/^toolu_01/);
      expect(use.name).toBe('get_weather');
      expect(typeof use.input.city).toBe('string');
      const second = await client().messages.create({
        model: MODEL,
        max_tokens: 500,
        tools: [weatherTool],
        messages: [
          ...ask('What is the weather in Paris?'),
          { role: 'assistant', content: first.content as never },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 24 degrees' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect((second.content[0] as { text: string }).text).toContain('Sunny, 24 degrees');
    });

    it('forces a tool with tool_choice any / tool, and streams its input as input_json_delta', async () => {
      const any = await client().messages.create({
        model: MODEL,
        max_tokens: 500,
        messages: ask('Tell me a joke'),
        tools: [weatherTool],
        tool_choice: { type: 'any' },
      });
      expect(any.stop_reason).toBe('tool_use');
      const forced = await client().messages.create({
        model: MODEL,
        max_tokens: 500,
        messages: ask('Tell me a joke'),
        tools: [weatherTool],
        tool_choice: { type: 'tool', name: 'get_weather' },
      });
      const stream = client().messages.stream({
        model: MODEL,
        max_tokens: 500,
        messages: ask('Tell me a joke'),
        tools: [weatherTool],
        tool_choice: { type: 'tool', name: 'get_weather' },
      });
      const partials: string[] = [];
      stream.on('inputJson', (partial) => partials.push(partial));
      const final = await stream.finalMessage();
      expect(partials.length).toBeGreaterThan(0);
      const fields = (b: unknown) => {
        const { type, id, name, input } = b as Record<string, unknown>;
        return { type, id, name, input };
      };
      expect(final.content.map(fields)).toEqual(forced.content.map(fields));
    });

    it('thinks when thinking is enabled: a signed thinking block first, streamed as thinking and signature deltas', async () => {
      const body = {
        model: MODEL,
        max_tokens: 4000,
        messages: ask('Why is the sky blue?'),
        thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      };
      const m = await client().messages.create(body);
      expect(m.content.map((b) => b.type)).toEqual(['thinking', 'text']);
      const thinking = m.content[0] as { thinking: string; signature: string };
      expect(thinking.thinking.length).toBeGreaterThan(20);
      expect(thinking.signature).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
      const stream = client().messages.stream(body);
      let thought = '';
      let signature = '';
      stream.on('thinking', (delta) => (thought += delta));
      stream.on('signature', (s) => (signature = s));
      const final = await stream.finalMessage();
      expect(thought).toBe(thinking.thinking);
      expect(signature).toBe(thinking.signature);
      expect(final.content).toEqual(m.content);
    });

    it('counts tokens', async () => {
      const { input_tokens } = await client().messages.countTokens({ model: MODEL, messages: ask('Count these words') });
      const m = await client().messages.create({ model: MODEL, max_tokens: 50, messages: ask('Count these words') });
      expect(input_tokens).toBe(m.usage.input_tokens);
    });

    it.each([
      [
        'bad request',
        { max_tokens: 10, messages: ask('hi'), temperature: 3 },
        Anthropic.BadRequestError,
        400,
        'temperature: Input should be less than or equal to 1',
      ],
      ['missing max_tokens', { messages: ask('hi') }, Anthropic.BadRequestError, 400, 'max_tokens: Field required'],
      ['unknown model', { model: 'claude-nope', max_tokens: 10, messages: ask('hi') }, Anthropic.NotFoundError, 404, 'model: claude-nope'],
      ['forbidden', { max_tokens: 10, messages: ask('forbid me') }, Anthropic.PermissionDeniedError, 403, 'permission'],
      ['too large', { max_tokens: 10, messages: ask('too large') }, 'ContentTooLargeError', 413, 'maximum allowed'],
      ['rate limit', { max_tokens: 10, messages: ask('rate limit me') }, Anthropic.RateLimitError, 429, 'rate limit'],
      ['server error', { max_tokens: 10, messages: ask('break') }, Anthropic.InternalServerError, 500, 'Internal server error'],
      ['overloaded', { max_tokens: 10, messages: ask('overload me') }, 'OverloadedError', 529, 'Overloaded'],
    ])('maps %s to the SDK error class', async (_what, body, ErrorClass, status, message) => {
      const error = await client()
        .messages.create({ model: MODEL, ...body } as never)
        .catch((e) => e);
      expect(error.status).toBe(status);
      expect(error).toBeInstanceOf(Client.APIError);
      // 1.x added classes for 413 and 529; 0.x reports them as APIError and InternalServerError.
      const fallback: Record<string, string> = { ContentTooLargeError: 'APIError', OverloadedError: 'InternalServerError' };
      const wanted =
        typeof ErrorClass === 'string' ? (ErrorClass in Client ? ErrorClass : fallback[ErrorClass]) : (ErrorClass as { name: string }).name;
      expect(error.constructor.name).toBe(wanted);
      expect(error.message).toContain(message);
      expect(error.requestID ?? error.request_id ?? error.headers?.get?.('request-id')).toMatch(/^req_011/);
      if (status === 429) {
        expect(error.headers.get('retry-after')).toBe('1');
        expect(error.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      }
    });

    it('answers an unknown key with AuthenticationError, by x-api-key or by bearer', async () => {
      const bad = new Client({ apiKey: 'sk-nope', baseURL: gw.root, maxRetries: 0 });
      const error = await bad.messages.create({ model: MODEL, max_tokens: 10, messages: ask('hi') }).catch((e) => e);
      expect(error.status).toBe(401);
      expect(error.message).toContain('authentication_error');
    });

    it('pages through the models list', async () => {
      const first = await client().models.list({ limit: 2 });
      expect(first.data).toHaveLength(2);
      expect(first.data[0]).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String) });
      expect(first.data[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const all: string[] = [];
      for await (const m of client().models.list({ limit: 5 })) all.push(m.id);
      expect(all.slice(0, 2)).toEqual(first.data.map((m) => m.id));
      expect(new Set(all).size).toBe(all.length);
      expect(all).toContain(MODEL);
      const model = await client().models.retrieve(MODEL);
      expect(model.display_name).toBe('Claude Sonnet 5.5');
    });
  });

  it.runIf(retriesWork)('retries a 529 automatically, as the SDK does against the real service', async () => {
    const before = (await gw.requests()).length;
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 2 });
    const error = await client.messages
      .create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'overload me' }] })
      .catch((e) => e);
    expect(error.status).toBe(529);
    const overloaded = (await gw.requests()).slice(before).filter((r) => r.status === 529);
    expect(overloaded).toHaveLength(3);
  });

  it('requires anthropic-version, and allows role system in messages only from 2026-10-21', async () => {
    const post = (headers: Record<string, string>, messages: unknown[]) =>
      fetch(`${gw.root}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'sk-test', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: MODEL, max_tokens: 20, messages }),
      });
    const missing = await post({}, [{ role: 'user', content: 'hi' }]);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('anthropic-version') },
    });
    const system = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ];
    expect((await post({ 'anthropic-version': '2023-06-01' }, system)).status).toBe(400);
    expect((await post({ 'anthropic-version': '2026-10-21' }, system)).status).toBe(200);
  });

  it('gives the same bytes for the same request, streamed or not', async () => {
    const send = (stream: boolean) =>
      fetch(`${gw.root}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, max_tokens: 100, stream, messages: [{ role: 'user', content: 'Same again' }] }),
      }).then(async (r) => [r.headers.get('request-id'), await r.text()]);
    for (const stream of [false, true]) expect(await send(stream)).toEqual(await send(stream));
  });

  it('serves the AI SDK Anthropic provider: generateText with tools over two steps, and streamText', async () => {
    const anthropic = createAnthropic({ apiKey: 'sk-test', baseURL: `${gw.root}/v1` });
    const result = await generateText({
      model: anthropic(MODEL),
      prompt: 'What is the weather in Lisbon?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ temperature: 18 }) }) },
      stopWhen: stepCountIs(4),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain('"temperature":18');
    const stream = streamText({ model: anthropic(MODEL), prompt: 'Say something' });
    const text = await stream.text;
    expect(text.length).toBeGreaterThan(10);
    expect((await stream.usage).outputTokens).toBeGreaterThan(0);
  });
});
