// Every kind of synthesis, answered by the service worker in real Chromium through the official SDKs: JSON from
// a schema, tool calls, token counts, embeddings (base64, decoded by the SDK), Anthropic messages, Gemini speech (PCM audio).
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { BASE, useWorkerGateway } from './worker.ts';

const gateway = useWorkerGateway();
const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${BASE}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 });

it('returns JSON that follows the requested schema', async () => {
  const reply = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'A city' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'city',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, population: { type: 'integer', minimum: 1 } },
          required: ['name', 'population'],
          additionalProperties: false,
        },
      },
    },
  });
  const city = JSON.parse(reply.choices[0].message.content!);
  expect(typeof city.name).toBe('string');
  expect(Number.isInteger(city.population) && city.population >= 1).toBe(true);
});

it('calls a tool with arguments for its parameters', async () => {
  const reply = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    ],
    tool_choice: 'required',
  });
  const call = reply.choices[0].message.tool_calls![0];
  expect(call.type === 'function' && call.function.name).toBe('get_weather');
  expect(typeof JSON.parse(call.type === 'function' ? call.function.arguments : '{}').city).toBe('string');
});

it('counts tokens and synthesizes text as in Node, byte for byte (the o200k tables packed for the browser)', async () => {
  const reply = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Grüß Gott! 東京の天気は？ 😀 naïve café — count me.' }],
  });
  // What the same request gets from the gateway in Node (createGateway() under msw/node, no options).
  expect(reply.usage).toMatchObject({ prompt_tokens: 26, completion_tokens: 31, total_tokens: 57 });
  expect(reply.choices[0].message.content).toBe(
    'Short answer: it depends. Universal 24/7 instruction set is what Constance would suggest here. Reactive logistical matrix is what Ivan would suggest here.',
  );
});

it('embeds texts into unit vectors of the model size, the same in the browser as anywhere', async () => {
  const reply = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['red apple', 'green apple'] });
  expect(reply.data).toHaveLength(2);
  const v = reply.data[0].embedding;
  expect(v).toHaveLength(1536);
  expect(Math.hypot(...v)).toBeCloseTo(1, 4);
  const again = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['red apple', 'green apple'] });
  expect(again.data[0].embedding).toEqual(v);
});

it('answers the Anthropic SDK, streaming', async () => {
  const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: BASE, dangerouslyAllowBrowser: true, maxRetries: 0 });
  gateway.use({ reply: { text: 'Bonjour depuis le worker.' } });
  const stream = anthropic.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Salut' }] });
  const message = await stream.finalMessage();
  expect(message.content).toEqual([{ type: 'text', text: 'Bonjour depuis le worker.', citations: null }]);
});

it('speaks: Gemini returns PCM audio that decodes to samples', async () => {
  const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: BASE } });
  const reply = await google.models.generateContent({
    model: 'gemini-2.5-flash-preview-tts',
    contents: 'Say: have a wonderful day',
    config: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  });
  const audio = reply.candidates![0].content!.parts![0].inlineData!;
  expect(audio.mimeType).toMatch(/^audio\/L16;codec=pcm;rate=24000$/);
  const bytes = Uint8Array.from(atob(audio.data!), (c) => c.charCodeAt(0));
  const samples = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
  expect(samples.length).toBeGreaterThan(24000 * 0.5);
  expect(samples.some((s) => Math.abs(s) > 1000)).toBe(true);
  expect(gateway.requests().map((r) => r.format)).toEqual(['gemini']);
});
