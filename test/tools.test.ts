// Tool calls and structured output through the openai SDK's helpers and the AI SDK, in both modes.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { generateObject, generateText, stepCountIs, streamObject, streamText, tool } from 'ai';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-4o-mini';
const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherParameters },
};
const stocks = {
  type: 'function' as const,
  function: { name: 'get_stock_price', parameters: { type: 'object', properties: { ticker: { type: 'string' } }, required: ['ticker'] } },
};
const Person = z.object({ name: z.string(), email: z.email(), age: z.number().int().min(0).max(120), tags: z.array(z.string()).max(3) });
const ask = (content: string) => [{ role: 'user' as const, content }];

describe.each(modes)('tools and structured output ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('calls a tool when the user plainly asks for what it does, with arguments valid for its schema', async () => {
    const r = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('What is the weather in Paris?'),
      tools: [weather, stocks],
    });
    assertSchema('CreateChatCompletionResponse', r);
    const choice = r.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0] as { id: string; type: string; function: { name: string; arguments: string } };
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments);
    expect(Object.keys(args).sort()).toEqual(['city', 'unit']);
    expect(['celsius', 'fahrenheit']).toContain(args.unit);
    expect(r.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('makes the same fixture-free tool decision, with the same arguments, in every format', async () => {
    const content = 'What is the weather in Paris?';
    const chat = await ctx.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }], tools: [weather] });
    const viaChat = (chat.choices[0].message.tool_calls![0] as { function: { name: string; arguments: string } }).function;
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'gpt-4o',
      max_tokens: 200,
      messages: [{ role: 'user', content }],
      tools: [{ name: 'get_weather', description: weather.function.description, input_schema: weatherParameters as never }],
    });
    const use = message.content.find((b) => b.type === 'tool_use') as { name: string; input: unknown };
    const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, apiVersion: 'v1beta' } });
    const generated = await google.models.generateContent({
      model: 'gpt-4o',
      contents: content,
      config: {
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', description: weather.function.description, parametersJsonSchema: weatherParameters },
            ],
          },
        ],
      },
    });
    expect(use.name).toBe(viaChat.name);
    expect(generated.functionCalls![0].name).toBe(viaChat.name);
    expect(use.input).toEqual(JSON.parse(viaChat.arguments));
    expect(generated.functionCalls![0].args).toEqual(JSON.parse(viaChat.arguments));
  });

  it('answers in text when no tool fits, and never calls with tool_choice none', async () => {
    const unrelated = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Tell me a joke'), tools: [weather] });
    expect(unrelated.choices[0].finish_reason).toBe('stop');
    expect(unrelated.choices[0].message.tool_calls).toBeUndefined();
    const none = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('What is the weather?'),
      tools: [weather],
      tool_choice: 'none',
    });
    expect(none.choices[0].message.content).toBeTruthy();
  });

  it('always calls under a forced choice: required, or a named tool', async () => {
    const required = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('Tell me a joke'),
      tools: [weather, stocks],
      tool_choice: 'required',
    });
    expect(required.choices[0].message.tool_calls).toHaveLength(1);
    const named = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('What is the weather?'),
      tools: [weather, stocks],
      tool_choice: { type: 'function', function: { name: 'get_stock_price' } },
    });
    expect((named.choices[0].message.tool_calls![0] as { function: { name: string } }).function.name).toBe('get_stock_price');
  });

  it('calls matching tools in parallel unless parallel_tool_calls is false', async () => {
    const messages = ask('Weather in Oslo and the stock price of ACME, please');
    const parallel = await ctx.client.chat.completions.create({ model: MODEL, messages, tools: [weather, stocks] });
    expect(parallel.choices[0].message.tool_calls!.map((c) => (c as { function: { name: string } }).function.name)).toEqual([
      'get_weather',
      'get_stock_price',
    ]);
    const ids = parallel.choices[0].message.tool_calls!.map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    const single = await ctx.client.chat.completions.create({
      model: MODEL,
      messages,
      tools: [weather, stocks],
      parallel_tool_calls: false,
    });
    expect(single.choices[0].message.tool_calls).toHaveLength(1);
  });

  it("streams tool calls as the SDK's stream helper reassembles them", async () => {
    const messages = ask('What is the weather in Paris?');
    const plain = await ctx.client.chat.completions.create({ model: MODEL, messages, tools: [weather] });
    const stream = ctx.client.chat.completions.stream({ model: MODEL, messages, tools: [weather] });
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (e) => done.push(e.arguments));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.tool_calls).toEqual(plain.choices[0].message.tool_calls);
    expect(done).toEqual([(plain.choices[0].message.tool_calls![0] as { function: { arguments: string } }).function.arguments]);
  });

  it('ends an agent loop: runTools calls the tool, then gets text that uses its result', async () => {
    let calls = 0;
    const runner = ctx.client.chat.completions.runTools({
      model: MODEL,
      messages: ask('What is the weather in Paris?'),
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: weatherParameters as never,
            parse: (input: string) => JSON.parse(input) as { city: string },
            function: (_args: { city: string }) => (calls++, { temperature: 21 }),
          },
        },
      ],
    });
    const content = await runner.finalContent();
    expect(calls).toBe(1);
    expect(content).toContain('{"temperature":21}');
  });

  it('refuses a tool message that answers no call, and a call left unanswered', async () => {
    const orphan = await ctx.client.chat.completions
      .create({ model: MODEL, messages: [...ask('hi'), { role: 'tool', tool_call_id: 'call_nope', content: '42' }], tools: [weather] })
      .catch((e) => e);
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
    expect(orphan.param).toBe('messages[1].tool_call_id');
    const unanswered = await ctx.client.chat.completions
      .create({
        model: MODEL,
        messages: [
          ...ask('hi'),
          { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          ...ask('and?'),
        ],
        tools: [weather],
      })
      .catch((e) => e);
    expect(unanswered).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unanswered.message).toContain('call_1');
  });

  it('gives the same synthesized tool call whatever the key order of the tool schema', async () => {
    const askWith = (parameters: Record<string, unknown>) =>
      ctx.client.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'What is the weather in Oslo?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
      });
    const a = await askWith({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    const b = await askWith({ required: ['city'], properties: { city: { type: 'string' } }, type: 'object' });
    expect(b.choices[0].message.tool_calls).toEqual(a.choices[0].message.tool_calls);
  });

  it('answers legacy functions with function_call', async () => {
    const r = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('What is the weather in Rome?'),
      functions: [weather.function],
    });
    expect(r.choices[0].finish_reason).toBe('function_call');
    expect(r.choices[0].message.function_call!.name).toBe('get_weather');
  });

  it('parses structured output with a zod schema (chat.completions.parse)', async () => {
    const r = await ctx.client.chat.completions.parse({
      model: MODEL,
      messages: ask('Invent a person'),
      response_format: zodResponseFormat(Person, 'person'),
    });
    const parsed = r.choices[0].message.parsed!;
    expect(Person.parse(parsed)).toEqual(parsed);
    expect(parsed.name).toMatch(/^[A-Z][a-z'-]+( [A-Z][a-z'-]+)+/);
  });

  it("gives an object in json_object mode, and refuses it without the word 'json'", async () => {
    const r = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('Reply in JSON'),
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(r.choices[0].message.content!)).toEqual(expect.any(Object));
    const error = await ctx.client.chat.completions
      .create({ model: MODEL, messages: ask('hi'), response_format: { type: 'json_object' } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("the word 'json'");
  });

  it('serves the AI SDK: generateObject, streamObject and a multi-step generateText with tools', async () => {
    const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1` });
    const { object } = await generateObject({ model: openai.chat(MODEL), schema: Person, prompt: 'Invent a person' });
    expect(Person.parse(object)).toEqual(object);
    const streamed = streamObject({ model: openai.chat(MODEL), schema: Person, prompt: 'Invent a person' });
    let partials = 0;
    for await (const _ of streamed.partialObjectStream) partials++;
    expect(partials).toBeGreaterThan(1);
    expect(await streamed.object).toEqual(object);
    const executed: string[] = [];
    const result = await generateText({
      model: openai.chat(MODEL),
      prompt: 'What is the weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Current weather',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => (executed.push(city), { city, temperature: 19 }),
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(2);
    expect(executed).toHaveLength(1);
    expect(result.text).toContain('"temperature":19');
    const stream = streamText({
      model: openai.chat(MODEL),
      prompt: 'What is the weather in Oslo?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ temperature: 3 }) }) },
      stopWhen: stepCountIs(5),
    });
    expect(await stream.text).toContain('"temperature":3');
  });
});
