// The Responses API through the openai SDK and the AI SDK's default OpenAI model, in both modes.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-4o-mini';
const EVENT_SCHEMAS: Record<string, string> = {
  'response.created': 'ResponseCreatedEvent',
  'response.in_progress': 'ResponseInProgressEvent',
  'response.output_item.added': 'ResponseOutputItemAddedEvent',
  'response.output_item.done': 'ResponseOutputItemDoneEvent',
  'response.content_part.added': 'ResponseContentPartAddedEvent',
  'response.content_part.done': 'ResponseContentPartDoneEvent',
  'response.output_text.delta': 'ResponseTextDeltaEvent',
  'response.output_text.done': 'ResponseTextDoneEvent',
  'response.completed': 'ResponseCompletedEvent',
};
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

describe.each(modes)('Responses API ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('creates a response that validates against the OpenAPI spec', async () => {
    const r = await ctx.client.responses.create({ model: MODEL, input: 'Hello there', instructions: 'Be brief.' });
    assertSchema('Response', r);
    expect(r.id).toMatch(/^resp_/);
    expect(r.status).toBe('completed');
    expect(r.output_text.length).toBeGreaterThan(10);
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + r.usage!.output_tokens);
  });

  it("fails a stream part-way with the service's numbered error event, which the SDK raises as its APIError", async () => {
    const fault = { headers: { 'x-mock-fault': 'STREAM_ERROR,after=3,status=500' } };
    const raw = await fetch(`${ctx.gw.root}/v1/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...fault.headers },
      body: JSON.stringify({ model: MODEL, input: 'Stream it', stream: true }),
    });
    const frames = (await raw.text()).trim().split('\n\n');
    expect(frames).toHaveLength(4);
    const last = frames.at(-1)!.split('\n');
    expect(last[0]).toBe('event: error');
    const error = JSON.parse(last[1].slice('data: '.length));
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'sequence_number', 'type']);
    expect(error).toMatchObject({ type: 'error', code: null, param: null, sequence_number: 3 });
    assertSchema('ResponseErrorEvent', error);
    const seen: string[] = [];
    const stream = ctx.client.responses.stream({ model: MODEL, input: 'Stream it' }, fault);
    stream.on('event', (e) => seen.push(e.type));
    const failed = await stream.finalResponse().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain('injected');
    expect(seen).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    const iterated = await (async () => {
      for await (const _ of await ctx.client.responses.create({ model: MODEL, input: 'Stream it', stream: true }, fault));
    })().catch((e: unknown) => e);
    expect(iterated).toBeInstanceOf(OpenAI.APIError);
  });

  it('streams the full event sequence, numbered, ending in the same response', async () => {
    const plain = await ctx.client.responses.create({ model: MODEL, input: 'Stream it' });
    const stream = ctx.client.responses.stream({ model: MODEL, input: 'Stream it' });
    const events: { type: string; sequence_number: number }[] = [];
    stream.on('event', (e) => events.push(e));
    const final = await stream.finalResponse();
    for (const e of events) assertSchema(EVENT_SCHEMAS[e.type], e);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final.output_text).toBe(plain.output_text);
    expect(final.id).toBe(plain.id);
  });

  it('stops at max_output_tokens as incomplete', async () => {
    const r = await ctx.client.responses.create({ model: MODEL, input: 'Go long', max_output_tokens: 16 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.usage!.output_tokens).toBe(16);
  });

  it('runs a function-call round trip, streamed arguments included', async () => {
    const first = await ctx.client.responses.create({ model: MODEL, input: 'What is the weather in Paris?', tools: [weather] });
    const call = first.output.find((o) => o.type === 'function_call') as { call_id: string; name: string; arguments: string };
    expect(call.name).toBe('get_weather');
    expect(call.call_id).toMatch(/^call_/);
    expect(typeof JSON.parse(call.arguments).city).toBe('string');
    const deltas: string[] = [];
    const stream = ctx.client.responses.stream({ model: MODEL, input: 'What is the weather in Paris?', tools: [weather] });
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
    await stream.finalResponse();
    expect(deltas.join('')).toBe(call.arguments);
    const second = await ctx.client.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature":17}' }],
      tools: [weather],
    });
    expect(second.output_text).toContain('{"temperature":17}');
  });

  it('continues a three-turn conversation through previous_response_id, counting earlier turns', async () => {
    const one = await ctx.client.responses.create({ model: MODEL, input: 'Turn one' });
    const two = await ctx.client.responses.create({ model: MODEL, input: 'Turn two', previous_response_id: one.id });
    const three = await ctx.client.responses.create({ model: MODEL, input: 'Turn three', previous_response_id: two.id });
    expect(two.previous_response_id).toBe(one.id);
    expect(two.usage!.input_tokens).toBeGreaterThan(one.usage!.input_tokens + one.usage!.output_tokens);
    expect(three.usage!.input_tokens).toBeGreaterThan(two.usage!.input_tokens + two.usage!.output_tokens);
    const missing = await ctx.client.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_nope' }).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError);
    expect(missing.code).toBe('previous_response_not_found');
  });

  it('retrieves, lists input items, and deletes a stored response', async () => {
    const r = await ctx.client.responses.create({ model: MODEL, input: [{ role: 'user', content: 'Keep me' }] });
    expect((await ctx.client.responses.retrieve(r.id)).output_text).toBe(r.output_text);
    const items = await ctx.client.responses.inputItems.list(r.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Keep me' }] });
    await ctx.client.responses.delete(r.id);
    await expect(ctx.client.responses.retrieve(r.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const unstored = await ctx.client.responses.create({ model: MODEL, input: 'Forget me', store: false });
    await expect(ctx.client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('cancels a background response through the SDK (a POST with no body and no content type)', async () => {
    const r = await ctx.client.responses.create({ model: MODEL, input: 'Work on it', background: true });
    // Still queued, it is cancelled (test/background-responses.test.ts follows the whole run).
    const cancelled = await ctx.client.responses.cancel(r.id);
    expect(cancelled).toMatchObject({ id: r.id, object: 'response', status: 'cancelled', background: true });
    // One that was not created in the background: the service's 400, not a complaint about the (absent) body.
    const plain = await ctx.client.responses.create({ model: MODEL, input: 'Done already' });
    const refused = await ctx.client.responses.cancel(plain.id).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.message).toMatch(/background=true/);
  });

  it('answers structured output through text.format (responses.parse with zod)', async () => {
    const City = z.object({ city: z.string(), population: z.number().int().min(0) });
    const r = await ctx.client.responses.parse({ model: MODEL, input: 'A city', text: { format: zodTextFormat(City, 'city') } });
    expect(City.parse(r.output_parsed)).toEqual(r.output_parsed);
  });

  it('refuses bad input naming the field', async () => {
    const error = await ctx.client.responses.create({ model: MODEL, input: [{ role: 'wizard', content: 'hi' }] as never }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('input[0].role');
  });

  it("serves the AI SDK's openai('…') model (Responses API), tools over two steps and streaming", async () => {
    const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1` });
    const result = await generateText({
      model: openai(MODEL),
      prompt: 'What is the weather in Rome?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ temperature: 26 }) }) },
      stopWhen: stepCountIs(4),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain('"temperature":26');
    const stream = streamText({ model: openai(MODEL), prompt: 'Say hi' });
    expect((await stream.text).length).toBeGreaterThan(10);
  });
});
