// Legacy completions (/v1/completions) through the openai SDK, in both modes.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { countTokens, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-3.5-turbo-instruct';

describe.each(modes)('legacy completions ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('completes a prompt, 16 tokens by default, validating against the OpenAPI spec', async () => {
    const r = await ctx.client.completions.create({ model: MODEL, prompt: 'Once upon a time' });
    assertSchema('CreateCompletionResponse', r);
    expect(r.object).toBe('text_completion');
    expect(r.id).toMatch(/^cmpl-/);
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.usage!.completion_tokens).toBe(16);
    expect(r.usage!.prompt_tokens).toBe(countTokens('Once upon a time'));
  });

  it('orders choices prompt × n, and takes token-array prompts', async () => {
    const r = await ctx.client.completions.create({ model: MODEL, prompt: ['first prompt', 'second prompt'], n: 2, max_tokens: 5 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    const single = await ctx.client.completions.create({ model: MODEL, prompt: 'second prompt', n: 2, max_tokens: 5 });
    expect(r.choices.slice(2).map((c) => c.text)).toEqual(single.choices.map((c) => c.text));
    const tokens = await ctx.client.completions.create({ model: MODEL, prompt: encode('second prompt'), n: 2, max_tokens: 5 });
    expect(tokens.choices.map((c) => c.text)).toEqual(single.choices.map((c) => c.text));
    const nested = await ctx.client.completions.create({
      model: MODEL,
      prompt: [encode('first prompt'), encode('second prompt')],
      n: 2,
      max_tokens: 5,
    });
    expect(nested.choices.map((c) => c.text)).toEqual(r.choices.map((c) => c.text));
  });

  it('echoes the prompt, accepts a suffix, and excludes stop strings', async () => {
    const plain = await ctx.client.completions.create({ model: MODEL, prompt: 'Tell me', max_tokens: 30 });
    const echoed = await ctx.client.completions.create({
      model: MODEL,
      prompt: 'Tell me',
      max_tokens: 30,
      echo: true,
      suffix: ' The end.',
    });
    expect(echoed.choices[0].text).toBe(`Tell me${plain.choices[0].text}`);
    const word = plain.choices[0].text.trim().split(' ')[2];
    for (const stop of [word, ['zzz', word]]) {
      const stopped = await ctx.client.completions.create({ model: MODEL, prompt: 'Tell me', max_tokens: 30, stop });
      expect(stopped.choices[0].text).toBe(plain.choices[0].text.slice(0, plain.choices[0].text.indexOf(word)));
      expect(stopped.choices[0].finish_reason).toBe('stop');
    }
  });

  it('returns legacy logprobs with text offsets', async () => {
    const r = await ctx.client.completions.create({ model: MODEL, prompt: 'Odds', max_tokens: 8, logprobs: 3 });
    const lp = r.choices[0].logprobs!;
    expect(lp.tokens!.join('')).toBe(r.choices[0].text);
    expect(lp.token_logprobs).toHaveLength(lp.tokens!.length);
    expect(Object.keys(lp.top_logprobs![0])).toHaveLength(3);
    let offset = 0;
    lp.tokens!.forEach((t, i) => {
      expect(lp.text_offset![i]).toBe(offset);
      offset += t.length;
    });
  });

  it('reports usage in the gateway shape: each side split by modality, the parts summing to its total (JSON and stream)', async () => {
    const r = await ctx.client.completions.create({ model: MODEL, prompt: 'Split my usage', max_tokens: 12 });
    const u = r.usage!;
    expect(u.prompt_tokens_details).toEqual({ cached_tokens: 0, text_tokens: u.prompt_tokens, audio_tokens: 0, image_tokens: 0 });
    expect(u.completion_tokens_details).toMatchObject({ text_tokens: u.completion_tokens, audio_tokens: 0, reasoning_tokens: 0 });
    const stream = await ctx.client.completions.create({
      model: MODEL,
      prompt: 'Split my usage',
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let last: OpenAI.Completions.Completion | undefined;
    for await (const chunk of stream) last = chunk;
    expect(last!.usage).toEqual(u);
  });

  it('streams text_completion chunks with the same text, include_usage and [DONE]', async () => {
    const plain = await ctx.client.completions.create({ model: MODEL, prompt: 'Stream it', max_tokens: 20, n: 2 });
    const stream = await ctx.client.completions.create({
      model: MODEL,
      prompt: 'Stream it',
      max_tokens: 20,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts = ['', ''];
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      for (const c of chunk.choices) texts[c.index] += c.text;
    }
    expect(chunks.every((c) => c.object === 'text_completion' && c.id === plain.id)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => !('usage' in c))).toBe(true);
    expect(texts).toEqual(plain.choices.map((c) => c.text));
    expect(chunks.at(-1)!.usage).toEqual(plain.usage);
  });

  it.each([
    ['best_of below n', { prompt: 'x', n: 3, best_of: 2 }, 'best_of'],
    ['best_of with stream', { prompt: 'x', best_of: 2, stream: true }, 'best_of'],
    ['logprobs over 5', { prompt: 'x', logprobs: 6 }, 'logprobs'],
    ['five stop strings', { prompt: 'x', stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['a bad token id', { prompt: [-1, 5] }, 'prompt'],
    ['no prompt', {}, 'prompt'],
  ])('refuses %s naming the field', async (_what, body, param) => {
    const error = await ctx.client.completions.create({ model: MODEL, ...body } as never).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe(param);
  });

  it("refuses a chat model with NotFoundError in OpenAI's words", async () => {
    const error = await ctx.client.completions.create({ model: 'gpt-4o', prompt: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.message).toContain('This is a chat model and not supported in the v1/completions endpoint');
  });

  it('counts a token-id prompt as the ids sent', async () => {
    const ids = [9906, 1917, 0, 0];
    const r = await ctx.client.completions.create({ model: MODEL, prompt: ids, max_tokens: 3 });
    expect(r.usage!.prompt_tokens).toBe(ids.length);
  });
});
