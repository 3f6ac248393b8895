// Chat completions through the official openai SDK, in-process and over a real socket.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { FIXED_EPOCH_SECONDS } from '../src/index.ts';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-4o-mini';
const ask = (content: string) => [{ role: 'user' as const, content }];

describe.each(modes)('chat completions ($name)', (mode) => {
  const ctx = withGateway(mode, {
    fixtures: [{ match: { userMessage: 'think first' }, reply: { thinking: 'Let me ponder.', text: 'Hi there.' } }],
  });

  it('creates a completion that validates against the OpenAPI spec, with counted usage', async () => {
    const { data, response } = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('What is a mock?') }).withResponse();
    assertSchema('CreateChatCompletionResponse', data);
    expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{32}$/);
    expect(data.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
    expect(data.created).toBe(FIXED_EPOCH_SECONDS);
    const choice = data.choices[0];
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content!.length).toBeGreaterThan(10);
    expect(choice.finish_reason).toBe('stop');
    expect(data.usage!.completion_tokens).toBe(countTokens(choice.message.content!));
    expect(data.usage!.prompt_tokens).toBe(3 + 3 + countTokens('user') + countTokens('What is a mock?'));
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
  });

  it('streams role, content deltas and a finish chunk that add up to the same reply', async () => {
    const messages = ask('Stream me something');
    const plain = await ctx.client.chat.completions.create({ model: MODEL, messages });
    const stream = await ctx.client.chat.completions.create({ model: MODEL, messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const c of chunks) assertSchema('CreateChatCompletionStreamResponse', c);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set([plain.id]));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(plain.choices[0].message.content);
  });

  it('keeps reasoning out of streamed chat content', async () => {
    const stream = await ctx.client.chat.completions.create({ model: 'gpt-4o', messages: ask('think first'), stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hi there.');
  });

  it("works with the SDK's stream helper", async () => {
    const deltas: string[] = [];
    const stream = ctx.client.chat.completions.stream({ model: MODEL, messages: ask('Use the helper') });
    stream.on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(5);
    expect(final.choices[0].message.content).toBe(deltas.join(''));
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('appends a usage chunk with include_usage', async () => {
    const stream = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('Count me'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + last.usage!.completion_tokens);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(last.usage!.completion_tokens).toBe(countTokens(text));
  });

  it('splits usage by modality as the gateway does, the parts summing to each side (JSON and stream)', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
    ];
    const r = await ctx.client.chat.completions.create({ model: MODEL, messages });
    const u = r.usage!;
    const p = u.prompt_tokens_details as Record<string, number>;
    const c = u.completion_tokens_details as Record<string, number>;
    expect(p.image_tokens).toBeGreaterThan(0);
    expect(p.text_tokens + p.audio_tokens + p.image_tokens).toBe(u.prompt_tokens);
    expect(p.cached_tokens).toBe(0);
    expect(c.text_tokens + c.audio_tokens + c.reasoning_tokens).toBe(u.completion_tokens);
    expect(c.text_tokens).toBe(countTokens(r.choices[0].message.content!));
    const stream = await ctx.client.chat.completions.create({
      model: MODEL,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)!.usage).toEqual(u);
  });

  it('interleaves n = 2 choices in a stream, each opened and finished once', async () => {
    const stream = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Two please'), n: 2, stream: true });
    const seen: { index: number; role?: string; content?: string | null; finish: string | null }[] = [];
    for await (const chunk of stream) {
      for (const c of chunk.choices) seen.push({ index: c.index, role: c.delta.role, content: c.delta.content, finish: c.finish_reason });
    }
    for (const index of [0, 1]) {
      const own = seen.filter((s) => s.index === index);
      expect(own[0].role).toBe('assistant');
      expect(own.filter((s) => s.role).length).toBe(1);
      expect(own.filter((s) => s.finish).map((s) => s.finish)).toEqual(['stop']);
    }
    const firstFinish = seen.findIndex((s) => s.finish);
    expect(new Set(seen.slice(0, firstFinish).map((s) => s.index))).toEqual(new Set([0, 1]));
    const texts = [0, 1].map((i) =>
      seen
        .filter((s) => s.index === i)
        .map((s) => s.content ?? '')
        .join(''),
    );
    expect(texts[0]).not.toBe(texts[1]);
  });

  it('ends before a stop sequence (string or array) with finish_reason stop', async () => {
    const messages = ask('Tell me about stop sequences');
    const full = (await ctx.client.chat.completions.create({ model: MODEL, messages })).choices[0].message.content!;
    const word = full.split(' ')[3];
    const expected = full.slice(0, full.indexOf(word));
    for (const stop of [word, ['zzz-never', word]]) {
      const r = await ctx.client.chat.completions.create({ model: MODEL, messages, stop });
      expect(r.choices[0].message.content).toBe(expected);
      expect(r.choices[0].finish_reason).toBe('stop');
    }
  });

  it('cuts at max_tokens / max_completion_tokens with finish_reason length', async () => {
    for (const limit of [{ max_tokens: 5 }, { max_completion_tokens: 7 }]) {
      const r = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Be long'), ...limit });
      const max = Object.values(limit)[0];
      expect(r.choices[0].finish_reason).toBe('length');
      expect(r.usage!.completion_tokens).toBe(max);
      expect(countTokens(r.choices[0].message.content!)).toBe(max);
    }
  });

  it('returns logprobs with top alternatives when asked', async () => {
    const r = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Odds?'), logprobs: true, top_logprobs: 3 });
    assertSchema('CreateChatCompletionResponse', r);
    const content = r.choices[0].logprobs!.content!;
    expect(content.map((t) => t.token).join('')).toBe(r.choices[0].message.content);
    for (const t of content) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.top_logprobs).toHaveLength(3);
      expect(t.top_logprobs[0].token).toBe(t.token);
    }
  });

  it('answers an unknown token with AuthenticationError naming how tokens are set', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong-token', baseURL: `${ctx.gw.root}/v1`, maxRetries: 0 });
    const error = await bad.chat.completions.create({ model: MODEL, messages: ask('hi') }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.code).toBe('invalid_api_key');
    expect(error.message).toContain('--token');
    expect(error.requestID).toMatch(/^req_/);
  });

  it('answers an unknown model with NotFoundError', async () => {
    const error = await ctx.client.chat.completions.create({ model: 'gpt-nope', messages: ask('hi') }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain('gpt-nope');
  });

  it.each([
    ['messages[0].role', { messages: [{ role: 'wizard', content: 'hi' }] }],
    ['messages', { messages: [] }],
    ['temperature', { messages: ask('hi'), temperature: 3 }],
    ['n', { messages: ask('hi'), n: 0 }],
    ['messages[0].content', { messages: [{ role: 'user' }] }],
    ['stop', { messages: ask('hi'), stop: ['a', 'b', 'c', 'd', 'e'] }],
  ])('answers a bad %s with BadRequestError naming it', async (param, body) => {
    const error = await ctx.client.chat.completions.create({ model: MODEL, ...body } as never).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
  });

  it('lists and retrieves models from the catalogue', async () => {
    const ids = [];
    for await (const m of ctx.client.models.list()) ids.push(m.id);
    expect(ids).toEqual(
      expect.arrayContaining(['gpt-4o-mini', 'text-embedding-3-small', 'claude-sonnet-5-5', 'gemini-2.5-flash-preview-tts', 'whisper-1']),
    );
    const model = await ctx.client.models.retrieve('gpt-4o');
    expect(model).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'openai' });
    await expect(ctx.client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('records each request in the journal', async () => {
    await ctx.client.chat.completions.create({ model: MODEL, messages: ask('journal me') });
    const last = (await ctx.gw.requests()).at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: '/v1/chat/completions', model: MODEL, status: 200, format: 'openai' });
    expect((last.body as { messages: unknown }).messages).toEqual(ask('journal me'));
  });
});
