// Tool arguments that follow the prompt, through the openai and Anthropic SDKs in both modes: what the
// user names (a place, an enum member, a number in range, an ISO date, an email, a quoted string) fills
// the parameter it fits; the rest is synthesized from the schema as before; the same prompt, the same
// arguments.
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { modes, withGateway } from './helpers/modes.ts';

const parameters = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    start: { type: 'string', format: 'date' },
    email: { type: 'string' },
    note: { type: 'string' },
  },
  required: ['city', 'unit', 'days', 'start', 'email', 'note'],
  additionalProperties: false,
};
const PROMPT =
  'Forecast for New York in Fahrenheit for 5 days from 2026-12-01, mail it to ann@example.com with the note "bring an umbrella"';

describe.each(modes)('tool arguments from the prompt ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('fills each parameter the prompt gives a value for (chat completions), the same every time', async () => {
    const ask = (content: string) =>
      ctx.client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        tools: [{ type: 'function', function: { name: 'get_forecast', parameters } }],
        tool_choice: 'required',
      });
    const args = (r: Awaited<ReturnType<typeof ask>>) =>
      JSON.parse((r.choices[0].message.tool_calls![0] as { function: { arguments: string } }).function.arguments);
    expect(args(await ask(PROMPT))).toEqual({
      city: 'New York',
      unit: 'fahrenheit',
      days: 5,
      start: '2026-12-01',
      email: 'ann@example.com',
      note: 'bring an umbrella',
    });
    expect(args(await ask(PROMPT))).toEqual(args(await ask(PROMPT)));
    const paris = args(await ask("What's the weather in Paris?"));
    expect(paris.city).toBe('Paris');
    // Nothing else given: synthesized from the schema, within its limits.
    expect(paris.days).toBeGreaterThanOrEqual(1);
    expect(paris.email).toMatch(/@/);
    // A number out of the parameter's range is not taken.
    expect(args(await ask('Weather in Oslo for 40 days')).days).not.toBe(40);
  });

  it('fills Anthropic tool_use input the same way', async () => {
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0 });
    const r = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 500,
      messages: [{ role: 'user', content: "What's the weather in Paris in celsius?" }],
      tools: [
        {
          name: 'get_weather',
          input_schema: {
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
            required: ['city', 'unit'],
          },
        },
      ],
      tool_choice: { type: 'any' },
    });
    const use = r.content.find((b) => b.type === 'tool_use');
    expect(use?.input).toEqual({ city: 'Paris', unit: 'celsius' });
  });
});
