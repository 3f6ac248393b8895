// Usage figures as the vendors report them (issues 27 and 24): prompt caching (Anthropic breakpoints,
// OpenAI and Gemini automatic prefixes), reasoning tokens growing with the effort asked, Responses
// reasoning items, Gemini thoughts and token counts, through each official SDK in both modes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, ThinkingLevel, Type } from '@google/genai';
import { setupServer } from 'msw/node';
import { modes, strictListen, type Mode } from './helpers/modes.ts';
import { createGateway } from '../src/index.ts';
import { countPromptTokens } from '../src/core/tokens.ts';
import { PromptCache } from '../src/core/cache.ts';
import type { CanonicalRequest } from '../src/core/request.ts';
import { canonicalRequest, userMessage } from './helpers/canonical.ts';

/** A system prompt of about 1,800 tokens, the same every run. */
const SYSTEM = Array.from({ length: 128 }, (_, i) => `Rule ${i + 1}: answer the customer politely and cite the handbook section.`).join(
  '\n',
);
const systemTokens = countPromptTokens([{ role: 'system', parts: [{ type: 'text', text: SYSTEM }] }], [], {
  priming: 0,
  perMessage: 0,
  roles: false,
});

describe('the shared system prompt', () => {
  it('is about 1,800 tokens: over the 1,024 minimum of Sonnet, Opus, Flash and OpenAI, under Haiku and Pro at 2,048', () => {
    expect(systemTokens).toBeGreaterThan(1700);
    expect(systemTokens).toBeLessThan(2000);
  });
});

/** The gateway in `mode`, with a reset: the gateway's own in-process, POST /__admin/reset over the socket. */
async function start(mode: Mode): Promise<{ root: string; reset(): Promise<void>; stop(): Promise<void> }> {
  if (mode.name === 'in-process') {
    const gateway = createGateway();
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    return { root: 'http://127.0.0.1:2', reset: async () => gateway.reset(), stop: async () => server.close() };
  }
  const running = await mode.start();
  return {
    root: running.root,
    reset: async () => expect((await fetch(`${running.root}/__admin/reset`, { method: 'POST' })).status).toBe(200),
    stop: running.stop,
  };
}

describe.each(modes)('usage figures ($name)', (mode) => {
  let gw: Awaited<ReturnType<typeof start>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let google: GoogleGenAI;
  beforeAll(async () => {
    gw = await start(mode);
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root } });
  });
  afterAll(() => gw.stop());
  const reset = () => gw.reset();
  beforeEach(() => gw.reset());

  describe('Anthropic cache_control', () => {
    const ask = (question: string, model = 'claude-sonnet-4-6', ttl?: '1h') =>
      anthropic.messages.create({
        model,
        max_tokens: 200,
        system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } }],
        messages: [{ role: 'user', content: question }],
      });

    it('writes the cached system prompt on the first request and reads it on the next; input_tokens excludes both', async () => {
      const first = await ask('Where is my order?');
      const written = first.usage.cache_creation_input_tokens!;
      expect(written).toBeGreaterThan(1700);
      expect(first.usage.cache_read_input_tokens).toBe(0);
      expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 });
      expect(first.usage.input_tokens).toBeLessThan(30);
      const second = await ask('Can I return it?');
      expect(second.usage).toMatchObject({ cache_read_input_tokens: written, cache_creation_input_tokens: 0 });
      expect(second.usage.input_tokens).toBeLessThan(30);
      // The same prompt counted whole by count_tokens: the three parts add up to it.
      const { input_tokens } = await anthropic.messages.countTokens({
        model: 'claude-sonnet-4-6',
        system: SYSTEM,
        messages: [{ role: 'user', content: 'Can I return it?' }],
      });
      expect(second.usage.input_tokens + second.usage.cache_read_input_tokens!).toBe(input_tokens);
    });

    it('reports the read in the streamed message_start too, with the same figures as the plain reply', async () => {
      const plain = await ask('Where is my order?');
      expect(plain.usage.cache_creation_input_tokens).toBeGreaterThan(1700);
      const stream = anthropic.messages.stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 200,
        system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Where is my order?' }],
      });
      let start: Anthropic.Usage | undefined;
      stream.on('streamEvent', (e) => {
        if (e.type === 'message_start') start = e.message.usage;
      });
      const final = await stream.finalMessage();
      expect(start).toMatchObject({
        cache_read_input_tokens: plain.usage.cache_creation_input_tokens,
        cache_creation_input_tokens: 0,
        input_tokens: plain.usage.input_tokens,
      });
      expect(final.usage.cache_read_input_tokens).toBe(plain.usage.cache_creation_input_tokens);
      expect(final.usage.output_tokens).toBe(plain.usage.output_tokens);
    });

    it("writes a ttl: '1h' breakpoint as ephemeral_1h_input_tokens", async () => {
      const r = await ask('Hello', 'claude-sonnet-4-6', '1h');
      expect(r.usage.cache_creation).toEqual({
        ephemeral_5m_input_tokens: 0,
        ephemeral_1h_input_tokens: r.usage.cache_creation_input_tokens,
      });
      expect(r.usage.cache_creation_input_tokens).toBeGreaterThan(1700);
    });

    it('caches nothing under the model minimum: Haiku needs 2,048 tokens', async () => {
      for (const q of ['one', 'two']) {
        const r = await ask(q, 'claude-haiku-4-5');
        expect(r.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
        expect(r.usage.input_tokens).toBeGreaterThan(1700);
      }
    });

    it('is cleared by reset', async () => {
      await ask('first');
      expect((await ask('second')).usage.cache_read_input_tokens).toBeGreaterThan(0);
      await reset();
      const again = await ask('third');
      expect(again.usage.cache_read_input_tokens).toBe(0);
      expect(again.usage.cache_creation_input_tokens).toBeGreaterThan(1700);
    });

    it('refuses a fifth breakpoint and an unknown ttl, naming the field', async () => {
      const block = { type: 'text' as const, text: 'x', cache_control: { type: 'ephemeral' as const } };
      await expect(
        anthropic.messages.create({
          model: 'claude-sonnet-4-6',
          max_tokens: 10,
          system: [block, block, block, block, block],
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('A maximum of 4 blocks with cache_control'),
      });
      const bad = { ...block, cache_control: { type: 'ephemeral', ttl: '2h' } } as unknown as Anthropic.TextBlockParam;
      await expect(
        anthropic.messages.create({
          model: 'claude-sonnet-4-6',
          max_tokens: 10,
          system: [bad],
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('system.0.cache_control.ttl'),
      });
    });
  });

  describe('OpenAI automatic prefix caching', () => {
    const chat = (question: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}, system = SYSTEM) =>
      openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: question },
        ],
        ...extra,
      });

    it('reports cached_tokens for a repeated long prefix, in 128-token steps from 1,024', async () => {
      const first = await chat('Where is my order?');
      expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
      const second = await chat('Can I return it?');
      const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
      expect(cached).toBeGreaterThanOrEqual(1024);
      expect(cached % 128).toBe(0);
      // The system prompt's prefix, rounded down: never the new question.
      expect(cached).toBeLessThanOrEqual(second.usage!.prompt_tokens - 5);
      expect(second.usage!.prompt_tokens - cached).toBeLessThan(128 + 20);
    });

    it('caches nothing under 1,024 tokens', async () => {
      const short = 'You are a helpful assistant. '.repeat(100);
      await chat('one', {}, short);
      const r = await chat('two', {}, short);
      expect(r.usage!.prompt_tokens).toBeGreaterThan(500);
      expect(r.usage!.prompt_tokens).toBeLessThan(1024);
      expect(r.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    });

    it('routes by prompt_cache_key: another key misses, the same key hits', async () => {
      await chat('one', { prompt_cache_key: 'tenant-a' });
      expect((await chat('two', { prompt_cache_key: 'tenant-b' })).usage!.prompt_tokens_details!.cached_tokens).toBe(0);
      expect((await chat('three', { prompt_cache_key: 'tenant-a' })).usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(
        1024,
      );
    });

    it('reports the same in the streamed usage chunk and in Responses input_tokens_details', async () => {
      await chat('one');
      const plain = await chat('two');
      expect(plain.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(1024);
      await reset();
      await chat('one');
      let streamed: OpenAI.CompletionUsage | undefined;
      const stream = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: 'two' },
        ],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
      expect(streamed).toEqual(plain.usage);
      await reset();
      const ask = (input: string) => openai.responses.create({ model: 'gpt-4o-mini', instructions: SYSTEM, input });
      expect((await ask('one')).usage!.input_tokens_details.cached_tokens).toBe(0);
      const again = await ask('two');
      expect(again.usage!.input_tokens_details.cached_tokens).toBe(plain.usage!.prompt_tokens_details!.cached_tokens);
    });
  });

  describe('Gemini implicit caching and token counts', () => {
    const ask = (question: string, model = 'gemini-2.5-flash') =>
      google.models.generateContent({ model, contents: question, config: { systemInstruction: SYSTEM } });

    it('reports cachedContentTokenCount for a repeated prefix: the whole system instruction', async () => {
      const first = await ask('Where is my order?');
      expect(first.usageMetadata!.cachedContentTokenCount).toBeUndefined();
      const second = await ask('Can I return it?');
      expect(second.usageMetadata!.cachedContentTokenCount).toBe(systemTokens);
      expect(second.usageMetadata!.cacheTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: systemTokens }]);
    });

    it('caches nothing under Pro’s 2,048-token minimum', async () => {
      await ask('one', 'gemini-2.5-pro');
      expect((await ask('two', 'gemini-2.5-pro')).usageMetadata!.cachedContentTokenCount).toBeUndefined();
    });

    it('counts text as Google does, without per-turn framing: countTokens and promptTokenCount agree', async () => {
      const contents = 'The quick brown fox jumps over the lazy dog.';
      // Google's own documentation: 10 for this sentence (11 in a generateContent prompt).
      const { totalTokens } = await google.models.countTokens({ model: 'gemini-2.5-flash', contents });
      expect(totalTokens).toBe(10);
      const r = await google.models.generateContent({ model: 'gemini-2.0-flash', contents });
      expect(r.usageMetadata!.promptTokenCount).toBe(10);
      expect(r.usageMetadata!.promptTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: 10 }]);
      expect(r.usageMetadata!.candidatesTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: r.usageMetadata!.candidatesTokenCount }]);
    });
  });

  describe('reasoning tokens', () => {
    const QUESTION = 'Plan a three-day trip to Lisbon on a small budget.';
    const chat = (model: string, effort?: OpenAI.ReasoningEffort) =>
      openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: QUESTION }],
        ...(effort ? { reasoning_effort: effort } : {}),
      });

    it('grow with reasoning_effort on a reasoning model, and are part of completion_tokens', async () => {
      const counts: number[] = [];
      for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh'] as const) {
        const r = await chat('gpt-5', effort);
        const details = r.usage!.completion_tokens_details!;
        counts.push(details.reasoning_tokens!);
        expect(r.usage!.completion_tokens).toBe(details.reasoning_tokens! + (details as { text_tokens?: number }).text_tokens!);
      }
      for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThan(counts[i - 1]);
      expect(counts[0]).toBeGreaterThan(0);
      // No effort named is the default, medium; none thinks not at all.
      expect((await chat('gpt-5')).usage!.completion_tokens_details!.reasoning_tokens).toBe(counts[2]);
      expect((await chat('gpt-5', 'none')).usage!.completion_tokens_details!.reasoning_tokens).toBe(0);
    });

    it('grow with the prompt’s length', async () => {
      const short = await chat('gpt-5', 'low');
      const long = await openai.chat.completions.create({
        model: 'gpt-5',
        reasoning_effort: 'low',
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: QUESTION },
        ],
      });
      expect(long.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(
        short.usage!.completion_tokens_details!.reasoning_tokens!,
      );
    });

    it('are 0 on a model that does not reason, whatever the effort', async () => {
      for (const effort of [undefined, 'high'] as const)
        expect((await chat('gpt-4o-mini', effort)).usage!.completion_tokens_details!.reasoning_tokens).toBe(0);
    });

    it('are the same streamed and not, and the same in Responses', async () => {
      const plain = await chat('gpt-5', 'high');
      expect(plain.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(3000 * 0.8);
      let streamed: OpenAI.CompletionUsage | undefined;
      const stream = await openai.chat.completions.create({
        model: 'gpt-5',
        reasoning_effort: 'high',
        messages: [{ role: 'user', content: QUESTION }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
      expect(streamed).toEqual(plain.usage);
      const response = await openai.responses.create({ model: 'gpt-5', input: QUESTION, reasoning: { effort: 'high' } });
      expect(response.usage!.output_tokens_details.reasoning_tokens).toBe(plain.usage!.completion_tokens_details!.reasoning_tokens);
      expect(response.usage!.output_tokens).toBe(plain.usage!.completion_tokens);
    });

    it('lead a Responses output with a reasoning item, its summary only when reasoning.summary asks', async () => {
      const hidden = await openai.responses.create({ model: 'gpt-5', input: QUESTION });
      expect(hidden.output[0]).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [] });
      expect(hidden.output[1].type).toBe('message');
      const summarized = await openai.responses.create({ model: 'gpt-5', input: QUESTION, reasoning: { effort: 'low', summary: 'auto' } });
      const item = summarized.output[0] as OpenAI.Responses.ResponseReasoningItem;
      expect(item.summary).toHaveLength(1);
      expect(item.summary[0].type).toBe('summary_text');
      expect(item.summary[0].text.length).toBeGreaterThan(10);
      expect(summarized.reasoning).toEqual({ effort: 'low', summary: 'auto' });
      expect(summarized.output_text).toBe(hidden.output_text);
      const none = await openai.responses.create({ model: 'gpt-4o-mini', input: QUESTION });
      expect(none.output.map((o) => o.type)).toEqual(['message']);
      expect(none.usage!.output_tokens_details.reasoning_tokens).toBe(0);
    });

    it('stream the reasoning summary in the SDK’s event order, ending in the same response', async () => {
      const params = { model: 'gpt-5', input: QUESTION, reasoning: { effort: 'low' as const, summary: 'auto' as const } };
      const plain = await openai.responses.create(params);
      const types: string[] = [];
      let summary = '';
      let done: OpenAI.Responses.Response | undefined;
      for await (const e of await openai.responses.create({ ...params, stream: true })) {
        types.push(e.type);
        if (e.type === 'response.reasoning_summary_text.delta') summary += e.delta;
        if (e.type === 'response.completed') done = e.response;
      }
      const reasoning = types.filter((t) => t.includes('reasoning') || t.startsWith('response.output_item')).slice(0, 6);
      expect(reasoning[0]).toBe('response.output_item.added');
      expect(reasoning[1]).toBe('response.reasoning_summary_part.added');
      expect(types.indexOf('response.reasoning_summary_text.done')).toBeGreaterThan(types.indexOf('response.reasoning_summary_text.delta'));
      expect(types.indexOf('response.reasoning_summary_part.done')).toBeGreaterThan(types.indexOf('response.reasoning_summary_text.done'));
      expect(types.indexOf('response.output_text.delta')).toBeGreaterThan(types.indexOf('response.reasoning_summary_part.done'));
      expect(summary).toBe((plain.output[0] as OpenAI.Responses.ResponseReasoningItem).summary[0].text);
      expect(done!.usage).toEqual(plain.usage);
      expect(done!.output).toEqual(plain.output);
    });

    it('show as Anthropic thinking_tokens, growing with budget_tokens and within it', async () => {
      const think = (budget: number) =>
        anthropic.messages.create({
          model: 'claude-sonnet-4-6',
          max_tokens: budget + 1000,
          thinking: { type: 'enabled', budget_tokens: budget },
          messages: [{ role: 'user', content: QUESTION }],
        });
      const small = await think(1024);
      const large = await think(16000);
      const tokens = (m: Anthropic.Message) => m.usage.output_tokens_details!.thinking_tokens;
      expect(tokens(small)).toBeGreaterThan(0);
      expect(tokens(small)).toBeLessThanOrEqual(1024);
      expect(tokens(large)).toBeGreaterThan(tokens(small));
      expect(tokens(large)).toBeLessThanOrEqual(16000);
      // The thinking block is a summary of them; output_tokens holds them all and the answer.
      expect(small.content[0].type).toBe('thinking');
      expect(small.usage.output_tokens).toBeGreaterThan(tokens(small));
      const stream = anthropic.messages.stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 2024,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: QUESTION }],
      });
      expect((await stream.finalMessage()).usage).toEqual(small.usage);
      const plain = await anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 1000,
        messages: [{ role: 'user', content: QUESTION }],
      });
      expect(plain.usage.output_tokens_details).toBeNull();
    });

    it('show as Gemini thoughtsTokenCount on thinking models, by thinkingLevel and thinkingBudget, and sign function calls', async () => {
      const ask = (model: string, thinkingConfig?: Record<string, unknown>) =>
        google.models.generateContent({ model, contents: QUESTION, config: thinkingConfig ? { thinkingConfig } : {} });
      const dynamic = await ask('gemini-2.5-flash');
      expect(dynamic.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
      const low = await ask('gemini-3-flash-preview', { thinkingLevel: ThinkingLevel.LOW });
      const high = await ask('gemini-3-flash-preview', { thinkingLevel: ThinkingLevel.HIGH });
      expect(high.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(low.usageMetadata!.thoughtsTokenCount!);
      const budget = await ask('gemini-2.5-flash', { thinkingBudget: 512 });
      expect(budget.usageMetadata!.thoughtsTokenCount).toBeLessThanOrEqual(512);
      expect((await ask('gemini-2.5-flash', { thinkingBudget: 0 })).usageMetadata!.thoughtsTokenCount).toBeUndefined();
      expect((await ask('gemini-2.0-flash')).usageMetadata!.thoughtsTokenCount).toBeUndefined();
      const u = dynamic.usageMetadata!;
      expect(u.totalTokenCount).toBe(u.promptTokenCount! + u.candidatesTokenCount! + u.thoughtsTokenCount!);
      let streamed: typeof u | undefined;
      for await (const c of await google.models.generateContentStream({ model: 'gemini-2.5-flash', contents: QUESTION }))
        streamed = c.usageMetadata;
      expect(streamed).toEqual(u);
      const tools = [
        { functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] },
      ];
      const call = await google.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather in Lisbon?', config: { tools } });
      const part = call.candidates![0].content!.parts![0];
      expect(part.functionCall?.name).toBe('get_weather');
      expect(part.thoughtSignature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const old = await google.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Weather in Lisbon?', config: { tools } });
      expect(old.candidates![0].content!.parts![0].thoughtSignature).toBeUndefined();
    });
  });
});

describe('PromptCache', () => {
  const request = (text: string, ttlSeconds = 300): CanonicalRequest =>
    canonicalRequest({
      format: 'anthropic',
      model: 'm',
      messages: [{ role: 'system', parts: [{ type: 'text', text }] }, userMessage('q')],
      cache: { breakpoints: [{ after: 0, ttlSeconds }] },
    });
  const prefix = [0, 2000, 2010];

  it('expires a prefix on the clock it is given, and refreshes it on a hit', () => {
    const cache = new PromptCache();
    expect(cache.account('k', 1000, request('a'), prefix, 1024)).toEqual({ read: 0, written: 2000, writtenLong: 0 });
    expect(cache.account('k', 1299, request('a'), prefix, 1024).read).toBe(2000);
    // Refreshed at 1299: still there at 1598, gone 300 s after the last use.
    expect(cache.account('k', 1598, request('a'), prefix, 1024).read).toBe(2000);
    expect(cache.account('k', 1898, request('a'), prefix, 1024)).toEqual({ read: 0, written: 2000, writtenLong: 0 });
    expect(cache.account('k', 1899, request('a', 3600), prefix, 1024).read).toBe(2000);
  });

  it('keeps scopes apart, and holds at most its entry bound', () => {
    const cache = new PromptCache();
    cache.account('k1', 0, request('a'), prefix, 1024);
    expect(cache.account('k2', 0, request('a'), prefix, 1024).read).toBe(0);
    for (let i = 0; i < 10_500; i++) cache.account('k', 0, request(`p${i}`), prefix, 1024);
    expect(cache.size).toBe(10_000);
  });
});
