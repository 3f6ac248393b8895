// Two routes the openai SDK and the Agents SDK post beside responses: token counting
// (`responses.inputTokens.count`, counted as a create request's input is charged) and the Agents SDK's
// trace export (accepted and dropped, 204, shown in the journal as dropped), in both modes.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { OpenAITracingExporter } from '@openai/agents-openai';
import { modes, withGateway } from './helpers/modes.ts';

const MODEL = 'gpt-4o-mini';
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

describe.each(modes)('responses input_tokens and traces ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('counts input tokens as a create request with the same input is charged', async () => {
    const ask = { model: MODEL, input: 'How warm is it in Lisbon today?', instructions: 'Be brief.', tools: [weather] };
    const counted = await ctx.client.responses.inputTokens.count(ask);
    expect(counted.object).toBe('response.input_tokens');
    const created = await ctx.client.responses.create({ ...ask, tool_choice: 'none' });
    expect(counted.input_tokens).toBe(created.usage!.input_tokens);
    // A longer input counts more; earlier turns (previous_response_id) count too.
    const longer = await ctx.client.responses.inputTokens.count({ ...ask, input: `${ask.input} And tomorrow, and the day after?` });
    expect(longer.input_tokens).toBeGreaterThan(counted.input_tokens);
    const follow = await ctx.client.responses.inputTokens.count({ model: MODEL, input: 'And tomorrow?', previous_response_id: created.id });
    expect(follow.input_tokens).toBeGreaterThan(
      (await ctx.client.responses.inputTokens.count({ model: MODEL, input: 'And tomorrow?' })).input_tokens,
    );
    const bad = await ctx.client.responses.inputTokens.count({ model: 'gpt-nope', input: 'x' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.NotFoundError);
    const badTool = await ctx.client.responses.inputTokens
      .count({ model: MODEL, input: 'x', tools: [{ type: 'nope' } as never] })
      .catch((e: unknown) => e);
    expect(badTool).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("accepts the Agents SDK's trace export and drops it, shown in the journal", async () => {
    const before = (await ctx.gw.requests()).length;
    const exporter = new OpenAITracingExporter({ apiKey: 'sk-test', endpoint: `${ctx.gw.root}/v1/traces/ingest`, maxRetries: 1 });
    const item = { toJSON: () => ({ object: 'trace', id: 'trace_0123456789abcdef0123456789abcdef', workflow_name: 'test' }) };
    await exporter.export([item as never, item as never]);
    const entries = (await ctx.gw.requests()).slice(before);
    const ingest = entries.find((e) => e.path === '/v1/traces/ingest');
    expect(ingest).toMatchObject({ method: 'POST', status: 204, dropped: 2 });
  });
});
