// LangChain's three chat providers against the emulator: a tool loop (the model calls a tool, the
// result goes back, the model answers in text) with current model ids, in-process and over a socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { z } from 'zod';
import { inProcess, socket, socketSuites, type Mode, type Running } from './helpers/modes.ts';

const TOKEN = 'sk-test';

const weather = tool(async ({ city }: { city: string }) => `It is sunny and 21 °C in ${city}.`, {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: z.object({ city: z.string() }),
});

const providers: Record<string, (root: string) => BaseChatModel> = {
  'ChatAnthropic (claude-sonnet-4-5)': (root) =>
    new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: TOKEN, anthropicApiUrl: root, maxRetries: 0 }),
  'ChatOpenAI (gpt-5.4)': (root) =>
    new ChatOpenAI({ model: 'gpt-5.4', apiKey: TOKEN, configuration: { baseURL: `${root}/v1` }, maxRetries: 0 }),
  'ChatGoogleGenerativeAI (gemini-2.5-flash)': (root) =>
    new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', apiKey: TOKEN, baseUrl: root, maxRetries: 0 }),
};

const modes: Mode[] = socketSuites ? [inProcess, socket] : [inProcess];

describe.each(modes)('LangChain tool loops ($name)', (mode) => {
  let running: Running;
  beforeAll(async () => {
    running = await mode.start({ tokens: [TOKEN] });
  });
  afterAll(() => running.stop());

  it.each(Object.keys(providers))('%s calls the tool, takes its result and answers in text', async (name) => {
    const model = providers[name](running.root).bindTools!([weather]);
    const messages: BaseMessage[] = [new HumanMessage('What is the weather in Paris? Use the weather tool.')];
    const first = await model.invoke(messages);
    expect(first.tool_calls).toHaveLength(1);
    expect(first.tool_calls![0]).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) } });
    messages.push(first);
    messages.push(await weather.invoke({ ...first.tool_calls![0], type: 'tool_call' }));
    const final = await model.invoke(messages);
    expect(final.tool_calls ?? []).toEqual([]);
    expect(final.text.length).toBeGreaterThan(0);
    // The second turn reached the emulator with the tool's result in it.
    const bodies = JSON.stringify((await running.requests()).at(-1)?.body);
    expect(bodies).toContain('sunny and 21');
  });
});
