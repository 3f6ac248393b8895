// OpenRouter under /api/v1 through the clients teams point at it: the openai SDK with baseURL
// …/api/v1 and @openrouter/ai-sdk-provider, in-process and over a socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { APIError, BadRequestError, AuthenticationError } from 'openai';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { APICallError, generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { modes, type Running } from './helpers/modes.ts';

const ask = (content: string) => [{ role: 'user' as const, content }];

/** OpenRouter's reply fields over OpenAI's. */
type Routed = {
  provider: string;
  model: string;
  id: string;
  choices: { native_finish_reason: string | null }[];
  usage?: { cost?: number };
};

const FIXTURES = [
  {
    name: 'same on both doors',
    match: { model: 'gpt-4o-mini', userMessage: 'Which door?' },
    reply: { text: 'The same answer, whichever door.' },
  },
  {
    name: 'weather tool',
    match: { userMessage: 'What is the weather in Oslo?', hasToolResult: false },
    reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  },
];

describe.each(modes)('OpenRouter ($name)', (mode) => {
  let gw: Running;
  let client: OpenAI;
  beforeAll(async () => {
    gw = await mode.start({ fixtures: FIXTURES });
    client = new OpenAI({ baseURL: `${gw.root}/api/v1`, apiKey: 'sk-test', maxRetries: 0 });
  });
  afterAll(() => gw.stop());
  const last = async () => (await gw.requests()).at(-1)!;

  it('answers vendor/model ids with the provider, the native finish reason and the generation id', async () => {
    const data = (await client.chat.completions.create({
      model: 'anthropic/claude-sonnet-4.5',
      messages: ask('Hello'),
    })) as unknown as Routed;
    expect(data).toMatchObject({
      model: 'anthropic/claude-sonnet-4.5',
      provider: 'Anthropic',
      choices: [{ native_finish_reason: 'end_turn' }],
    });
    expect(data.id).toMatch(/^gen-/);
    // Usage accounting is always on at OpenRouter: the cost comes unasked.
    expect(data.usage!.cost).toBeGreaterThan(0);
    expect(await last()).toMatchObject({
      path: '/api/v1/chat/completions',
      dialect: 'openrouter',
      model: 'claude-sonnet-4-5',
      status: 200,
    });
    const google = (await client.chat.completions.create({
      model: 'google/gemini-2.5-flash',
      messages: ask('Hello'),
    })) as unknown as Routed;
    expect(google).toMatchObject({ provider: 'Google AI Studio', choices: [{ native_finish_reason: 'STOP' }] });
  });

  it('falls back through models[] to the first that exists, and takes its other extensions', async () => {
    const body = {
      model: 'meta-llama/llama-9-nonexistent',
      models: ['nobody/none', 'openai/gpt-4o-mini', 'anthropic/claude-haiku-4.5'],
      messages: ask('Hello'),
      usage: { include: true },
      provider: { order: ['Azure'], allow_fallbacks: false },
      transforms: ['middle-out'],
      route: 'fallback',
      reasoning: { effort: 'low' },
    };
    const data = (await client.chat.completions.create(body as never)) as unknown as Routed & {
      usage: { cost: number; prompt_tokens: number; completion_tokens: number };
    };
    expect(data).toMatchObject({ model: 'openai/gpt-4o-mini', provider: 'Azure' });
    // gpt-4o-mini at the shipped price table: $0.15 and $0.60 per million tokens.
    expect(data.usage.cost).toBeCloseTo((data.usage.prompt_tokens * 0.15 + data.usage.completion_tokens * 0.6) / 1e6, 12);
    const entry = await last();
    expect(entry).toMatchObject({ model: 'gpt-4o-mini', costUsd: data.usage.cost });
    // OpenRouter's own fields are known: none is reported as unrecognized.
    expect(entry.warnings).toBeUndefined();
  });

  it('streams with its processing comment, the provider on each chunk and the usage and cost in the last, asked or not', async () => {
    const raw = await fetch(`${gw.root}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: ask('Stream me'), stream: true }),
    }).then((r) => r.text());
    expect(raw.startsWith(': OPENROUTER PROCESSING\n\n')).toBe(true);
    expect(raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(raw).toContain('"cost":');
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: ask('Stream me'),
      stream: true,
      usage: { include: true },
    } as never);
    const chunks: (Routed & { choices: { delta: { content?: string }; finish_reason: string | null }[] })[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<(typeof chunks)[number]>) chunks.push(chunk);
    expect(chunks.every((c) => c.provider === 'OpenAI' && c.model === 'openai/gpt-4o-mini')).toBe(true);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0].native_finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage!.cost).toBeGreaterThan(0);
    const plain = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('Stream me') });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(plain.choices[0].message.content);
  });

  it('answers the same fixture for the same prompt on the direct path and through OpenRouter', async () => {
    const direct = await new OpenAI({ baseURL: `${gw.root}/v1`, apiKey: 'sk-test', maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('Which door?'),
    });
    const routed = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: ask('Which door?') });
    expect(direct.choices[0].message.content).toBe('The same answer, whichever door.');
    expect(routed.choices[0].message.content).toBe(direct.choices[0].message.content);
    expect((await last()).fixture).toBe('same on both doors');
  });

  it('lists its models by OpenRouter id, with per-token prices, without a key', async () => {
    const res = await fetch(`${gw.root}/api/v1/models`);
    const { data } = (await res.json()) as {
      data: { id: string; pricing: { prompt: string; completion: string }; context_length: number }[];
    };
    expect(res.status).toBe(200);
    const ids = data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'anthropic/claude-haiku-4.5', 'google/gemini-2.5-flash']));
    expect(data.find((m) => m.id === 'openai/gpt-4o-mini')).toMatchObject({
      pricing: { prompt: '0.00000015', completion: '0.0000006' },
      context_length: 128000,
    });
    // Every listed id is one the chat endpoint takes.
    const listed = await client.chat.completions.create({ model: 'anthropic/claude-haiku-4.5', messages: ask('Hi') });
    expect(listed.model).toBe('anthropic/claude-haiku-4.5');
  });

  it("raises the SDK's own errors in OpenRouter's body: an unknown model, a model of another vendor, a bad key, a bad extension", async () => {
    for (const model of ['gpt-4o-mini', 'anthropic/gpt-4o', 'openai/no-such-model']) {
      const error = await client.chat.completions.create({ model, messages: ask('Hi') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).code).toBe(400);
      expect((error as APIError).message).toMatch(new RegExp(`${model} is not a valid model ID: OpenRouter's ids are vendor/model`));
    }
    const badKey = await new OpenAI({ baseURL: `${gw.root}/api/v1`, apiKey: 'sk-wrong', maxRetries: 0 }).chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: ask('Hi') })
      .catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(AuthenticationError);
    expect((badKey as APIError).code).toBe(401);
    const badProvider = await client.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: ask('Hi'), provider: { sort: 'cheapest' } } as never)
      .catch((e: unknown) => e);
    expect(badProvider).toBeInstanceOf(BadRequestError);
    expect((badProvider as APIError).message).toMatch(/provider\.sort: expected one of price, throughput, latency, got "cheapest"/);
  });

  it('serves @openrouter/ai-sdk-provider: text, a stream, a tool loop, an object, and its error', async () => {
    const openrouter = createOpenRouter({ apiKey: 'sk-test', baseURL: `${gw.root}/api/v1` });
    const text = await generateText({ model: openrouter('openai/gpt-4o-mini'), prompt: 'Which door?' });
    expect(text.text).toBe('The same answer, whichever door.');
    const stream = streamText({ model: openrouter.chat('anthropic/claude-haiku-4.5'), prompt: 'Say something' });
    expect((await stream.text).length).toBeGreaterThan(10);
    expect((await stream.usage).outputTokens).toBeGreaterThan(0);
    const loop = await generateText({
      model: openrouter('openai/gpt-4o-mini'),
      prompt: 'What is the weather in Oslo?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ temperature: 3 }) }) },
      stopWhen: stepCountIs(4),
    });
    expect(loop.steps).toHaveLength(2);
    expect(loop.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Oslo' } });
    const { object } = await generateObject({
      model: openrouter('google/gemini-2.5-flash'),
      schema: z.object({ city: z.string(), rain: z.boolean() }),
      prompt: 'Report the weather',
    });
    expect(typeof object.rain).toBe('boolean');
    const failed = await generateText({ model: openrouter('nobody/none'), prompt: 'Hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(failed)).toBe(true);
    expect((failed as APICallError).statusCode).toBe(400);
    expect((failed as APICallError).message).toMatch(/nobody\/none is not a valid model ID/);
  });

  it('answers the Responses API by OpenRouter id, streamed too', async () => {
    const response = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'Which door?' });
    expect(response.output_text).toBe('The same answer, whichever door.');
    expect(await last()).toMatchObject({ path: '/api/v1/responses', dialect: 'openrouter', model: 'gpt-4o-mini' });
    const events: string[] = [];
    for await (const event of await client.responses.create({ model: 'google/gemini-2.5-flash', input: 'Hi', stream: true }))
      events.push(event.type);
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect((await last()).warnings).toBeUndefined();
  });

  it('embeds through OpenRouter', async () => {
    const data = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hello', encoding_format: 'float' });
    expect(data.data[0].embedding).toHaveLength(1536);
    expect((data as unknown as Routed).provider).toBe('OpenAI');
    expect(data.model).toBe('openai/text-embedding-3-small');
  });
});
