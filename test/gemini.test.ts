// The Gemini generate-content format through @google/genai, @ai-sdk/google and plain fetch, in both modes.
import { readText } from '../src/core/audio/watermark.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, FinishReason, type GenerateContentResponse, GoogleGenAI, Modality, Type } from '@google/genai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { modes, type Running } from './helpers/modes.ts';

const MODEL = 'gemini-2.5-flash';
const TTS = 'gemini-2.5-flash-preview-tts';
const fixtures = [
  {
    name: 'exhausted',
    match: { userMessage: 'quota please' },
    error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).' },
  },
  {
    name: 'unavailable',
    match: { userMessage: 'unavailable please' },
    error: { status: 503, message: 'The model is overloaded. Please try again later.' },
  },
  { name: 'denied', match: { userMessage: 'deny me' }, error: { status: 403, message: 'Permission denied.' } },
  { name: 'internal', match: { userMessage: 'fail please' }, error: { status: 500, message: 'An internal error has occurred.' } },
  { name: 'malformed', match: { userMessage: 'call it badly' }, reply: { text: '', vendorFinishReason: 'MALFORMED_FUNCTION_CALL' } },
  { name: 'spii', match: { userMessage: 'tell me secrets' }, reply: { blocked: 'output' as const, vendorFinishReason: 'SPII' } },
  {
    name: 'part one',
    match: { userMessage: 'write a long one' },
    once: true,
    reply: { text: 'Part one. ', vendorFinishReason: 'CONTINUATION' },
  },
  { name: 'again', match: { userMessage: 'write another' }, once: true, reply: { text: 'Part one. ', vendorFinishReason: 'CONTINUATION' } },
  // Four samples: 1, -1, 256, -32768, as base64 little-endian PCM.
  {
    name: 'clip',
    match: { userMessage: 'play the clip' },
    reply: { audio: Buffer.from(new Int16Array([1, -1, 256, -32768]).buffer).toString('base64') },
  },
];

function pcm(base64: string): Int16Array {
  const bytes = Buffer.from(base64, 'base64');
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
}

describe.each(modes)('Gemini generate-content ($name)', (mode) => {
  let gw: Running;
  const clients: Record<string, GoogleGenAI> = {};
  beforeAll(async () => {
    gw = await mode.start({ fixtures });
    clients.v1beta = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
    clients.v1 = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root } });
  });
  afterAll(() => gw.stop());

  describe.each(['v1beta', 'v1'])('API version %s', (version) => {
    it('generates content, and streams the same text', async () => {
      const ai = clients[version];
      const r = await ai.models.generateContent({ model: MODEL, contents: 'Hello there' });
      expect(r.text!.length).toBeGreaterThan(10);
      expect(r.candidates![0]).toMatchObject({ finishReason: 'STOP', index: 0, content: { role: 'model' } });
      // Safety ratings come only with a block, as the recorded service sends them (test/gemini-figures.test.ts).
      expect(r.candidates![0].safetyRatings).toBeUndefined();
      // A thinking model counts its thoughts in the total too.
      expect(r.usageMetadata!.totalTokenCount).toBe(
        r.usageMetadata!.promptTokenCount! + r.usageMetadata!.candidatesTokenCount! + r.usageMetadata!.thoughtsTokenCount!,
      );
      expect(r.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
      expect(r.modelVersion).toBe(MODEL);
      let text = '';
      let chunks = 0;
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'Hello there' })) {
        text += c.text ?? '';
        chunks++;
      }
      expect(chunks).toBeGreaterThan(3);
      expect(text).toBe(r.text);
    });

    it('counts tokens', async () => {
      const { totalTokens } = await clients[version].models.countTokens({ model: MODEL, contents: 'Count these words' });
      const r = await clients[version].models.generateContent({ model: MODEL, contents: 'Count these words' });
      expect(totalTokens).toBe(r.usageMetadata!.promptTokenCount);
    });

    it('lists models in Gemini shape', async () => {
      const pager = await clients[version].models.list({ config: { pageSize: 4 } });
      expect(pager.page).toHaveLength(4);
      expect(pager.page[0].name).toMatch(/^models\//);
      const names: string[] = [];
      for await (const m of pager) names.push(m.name!);
      expect(names).toContain(`models/${TTS}`);
      const model = await clients[version].models.get({ model: MODEL });
      expect(model.displayName).toBe('Gemini 2.5 Flash');
    });
  });

  it('runs a function-calling round trip', async () => {
    const ai = clients.v1beta;
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
          },
        ],
      },
    ];
    const first = await ai.models.generateContent({ model: MODEL, contents: 'What is the weather in Paris?', config: { tools } });
    const call = first.functionCalls![0];
    expect(call.name).toBe('get_weather');
    expect(typeof (call.args as { city: string }).city).toBe('string');
    const second = await ai.models.generateContent({
      model: MODEL,
      config: { tools },
      contents: [
        { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: call }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 22 } } }] },
      ],
    });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text).toContain('"temperature":22');
    const forced = await ai.models.generateContent({
      model: MODEL,
      contents: 'Tell me a joke',
      config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never } } },
    });
    expect(forced.functionCalls).toHaveLength(1);
  });

  it('answers JSON that validates against responseSchema and responseJsonSchema', async () => {
    const responseJsonSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 120 } },
      required: ['name', 'age'],
      additionalProperties: false,
    };
    const a = await clients.v1beta.models.generateContent({
      model: MODEL,
      contents: 'A person',
      config: { responseMimeType: 'application/json', responseJsonSchema },
    });
    expect(new Ajv2020().validate(responseJsonSchema, JSON.parse(a.text!))).toBe(true);
    const b = await clients.v1beta.models.generateContent({
      model: MODEL,
      contents: 'A list of colours',
      config: {
        responseMimeType: 'application/json',
        responseSchema: { type: Type.ARRAY, items: { type: Type.STRING, enum: ['red', 'green'] }, minItems: '1' },
      },
    });
    const colours = JSON.parse(b.text!);
    expect(colours.length).toBeGreaterThan(0);
    expect(colours.every((c: string) => ['red', 'green'].includes(c))).toBe(true);
  });

  it("ends with a fixture's own Gemini finish reasons; a CONTINUATION's token is followed by the SDK", async () => {
    const ai = clients.v1beta;
    const malformed = await ai.models.generateContent({ model: MODEL, contents: 'call it badly' });
    expect(malformed.candidates![0].finishReason).toBe(FinishReason.MALFORMED_FUNCTION_CALL);
    const spii = await ai.models.generateContent({ model: MODEL, contents: 'tell me secrets' });
    expect(spii.candidates![0].finishReason).toBe(FinishReason.SPII);
    expect(spii.candidates![0].content).toBeUndefined();
    let last: GenerateContentResponse | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'call it badly' })) last = chunk;
    expect(last!.candidates![0].finishReason).toBe(FinishReason.MALFORMED_FUNCTION_CALL);
    // Told not to continue, the SDK hands back the CONTINUATION and its token.
    const cut = await ai.models.generateContent({ model: MODEL, contents: 'write a long one', config: { automaticContinuation: false } });
    expect(cut.candidates![0]).toMatchObject({ finishReason: FinishReason.CONTINUATION, content: { parts: [{ text: 'Part one. ' }] } });
    const token = cut.candidates![0].continuationToken!;
    expect(Buffer.from(token, 'base64').toString('base64')).toBe(token);
    // By default it sends the token back and the emulator goes on (the fixture was for one reply only).
    const before = (await gw.requests()).length;
    const whole = await ai.models.generateContent({ model: MODEL, contents: 'write another' });
    expect(whole.candidates![0].finishReason).toBe(FinishReason.STOP);
    expect(whole.text).toMatch(/^Part one\. ./);
    const sent = (await gw.requests()).slice(before);
    expect(sent).toHaveLength(2);
    expect((sent[0].body as { continuationToken?: string }).continuationToken).toBeUndefined();
    expect((sent[1].body as { continuationToken?: string }).continuationToken).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  describe('speech', () => {
    const speak = (text: string, voiceName = 'Kore') =>
      clients.v1beta.models.generateContent({
        model: TTS,
        contents: text,
        config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } },
      });

    it('returns 24 kHz 16-bit PCM whose length grows with the text, the same per voice and different between voices', async () => {
      const short = await speak('Hello there.');
      const part = short.candidates![0].content!.parts![0].inlineData!;
      expect(part.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
      const samples = pcm(part.data!);
      expect(samples.length).toBeGreaterThan(24000 * 0.3);
      const long = pcm(
        (await speak('Hello there. This sentence is a good deal longer, so it should take a good deal longer to say.')).data!,
      );
      expect(long.length).toBeGreaterThan(samples.length * 3);
      expect((await speak('Hello there.')).data).toBe(short.data);
      const puck = pcm((await speak('Hello there.', 'Puck')).data!);
      expect(Buffer.from(puck.buffer).equals(Buffer.from(samples.buffer))).toBe(false);
      expect(Math.max(...samples.slice(0, 20000).map(Math.abs))).toBeGreaterThan(1000);
      expect(short.usageMetadata!.candidatesTokensDetails![0].modality).toBe('AUDIO');
    });

    it("refuses text longer than the speech model's context window instead of synthesizing hours of audio", async () => {
      const error = await speak('word '.repeat(9000)).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(400);
      expect(error.message).toContain('maximum context length is 8192 tokens');
    });

    it('ends speech at maxOutputTokens (25 audio tokens a second) after the last word that fits, with MAX_TOKENS', async () => {
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
      const r = await clients.v1beta.models.generateContent({
        model: TTS,
        contents: text,
        config: {
          maxOutputTokens: 100,
          responseModalities: [Modality.AUDIO],
          speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
        },
      });
      expect(r.candidates![0].finishReason).toBe('MAX_TOKENS');
      const samples = pcm(r.data!);
      expect(samples.length / 24000).toBeLessThanOrEqual(4);
      expect(samples.length / 24000).toBeGreaterThan(3);
      // What the clip carries is the words it speaks: a prefix of the prompt.
      const said = readText(samples)!;
      expect(said.length).toBeGreaterThan(10);
      expect(text.startsWith(said)).toBe(true);
      expect(said.length).toBeLessThan(text.trim().length);
    });

    it("answers with a fixture's pinned clip", async () => {
      const r = await speak('play the clip');
      expect(Array.from(pcm(r.data!))).toEqual([1, -1, 256, -32768]);
    });

    it('speaks two speakers with multiSpeakerVoiceConfig, and refuses one speaker short', async () => {
      const config = (speakers: string[]) => ({
        responseModalities: [Modality.AUDIO],
        speechConfig: {
          multiSpeakerVoiceConfig: {
            speakerVoiceConfigs: speakers.map((speaker, i) => ({
              speaker,
              voiceConfig: { prebuiltVoiceConfig: { voiceName: ['Kore', 'Puck'][i] } },
            })),
          },
        },
      });
      const r = await clients.v1beta.models.generateContent({
        model: TTS,
        contents: 'Joe: Hi Jane.\nJane: Hello Joe.',
        config: config(['Joe', 'Jane']),
      });
      expect(r.candidates![0].content!.parts![0].inlineData!.data!.length).toBeGreaterThan(1000);
      const error = await clients.v1beta.models
        .generateContent({ model: TTS, contents: 'Joe: Hi.', config: config(['Joe']) })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(400);
      expect(error.message).toContain('exactly 2 speakers');
      // A list that is no list: the vendor's 400 naming it (it once threw a TypeError, a 500).
      const notList = { responseModalities: [Modality.AUDIO], speechConfig: { multiSpeakerVoiceConfig: { speakerVoiceConfigs: 'ab' } } };
      const listError = await clients.v1beta.models
        .generateContent({ model: TTS, contents: 'Joe: Hi.', config: notList as never })
        .catch((e) => e);
      expect(listError).toBeInstanceOf(ApiError);
      expect(listError.status).toBe(400);
      expect(listError.message).toContain('speakerVoiceConfigs');
    });

    it.each([
      [
        'an unknown voice',
        TTS,
        { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Nobody' } } } },
        'Voice name Nobody is not supported',
      ],
      ['AUDIO of a text model', MODEL, { responseModalities: [Modality.AUDIO] }, 'response modalities (AUDIO)'],
      ['TEXT of a speech model', TTS, {}, 'response modalities (TEXT)'],
    ])('refuses %s with 400 INVALID_ARGUMENT', async (_what, model, config, message) => {
      const error = await clients.v1beta.models.generateContent({ model, contents: 'Hello', config }).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(400);
      expect(error.message).toContain('INVALID_ARGUMENT');
      expect(error.message).toContain(message);
    });
  });

  it('works with plain fetch and ?key=, as the gateway tells its users', async () => {
    const url = `${gw.root}/v1beta/models/${TTS}:generateContent?key=sk-test`;
    const body = {
      contents: [{ parts: [{ text: 'Say cheerfully: have a wonderful day!' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    };
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const reply = await res.json();
    expect(reply.candidates[0].content.parts[0].inlineData.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
    const stream = await fetch(`${gw.root}/v1beta/models/${MODEL}:streamGenerateContent?key=sk-test`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }] }),
    });
    const array = JSON.parse(await stream.text());
    expect(Array.isArray(array)).toBe(true);
    expect(array.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('ends a JSON-array stream with a valid array when it fails part-way', async () => {
    const res = await fetch(`${gw.root}/v1beta/models/${MODEL}:streamGenerateContent?key=sk-test`, {
      method: 'POST',
      headers: { 'x-mock-fault': 'STREAM_ERROR,after=2,status=503' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    const array = JSON.parse(await res.text());
    expect(array).toHaveLength(3);
    expect(array[2].error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
  });

  it.each([
    ['a bad key', 'bad-key', 'hi', 400, 'INVALID_ARGUMENT', 'API_KEY_INVALID'],
    ['an unknown model', 'sk-test', 'hi', 404, 'NOT_FOUND', 'gemini-nope'],
    ['a quota error', 'sk-test', 'quota please', 429, 'RESOURCE_EXHAUSTED', 'exhausted'],
    ['a permission error', 'sk-test', 'deny me', 403, 'PERMISSION_DENIED', 'Permission denied'],
    ['an internal error', 'sk-test', 'fail please', 500, 'INTERNAL', 'internal error'],
    ['an overloaded model', 'sk-test', 'unavailable please', 503, 'UNAVAILABLE', 'overloaded'],
  ])('maps %s to ApiError with Google status', async (what, key, text, status, name, message) => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
    const model = what === 'an unknown model' ? 'gemini-nope' : MODEL;
    const error = await ai.models.generateContent({ model, contents: text }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    const body = JSON.parse(error.message);
    expect(body.error).toMatchObject({ code: status, status: name });
    expect(error.message).toContain(message);
  });

  it('refuses bad requests naming the field', async () => {
    const post = (body: unknown) =>
      fetch(`${gw.root}/v1beta/models/${MODEL}:generateContent?key=sk-test`, { method: 'POST', body: JSON.stringify(body) }).then(
        async (r) => [r.status, (await r.json()).error],
      );
    const [status, error] = await post({ contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { temperature: 5 } });
    expect(status).toBe(400);
    expect(error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('generationConfig.temperature') });
    const [, role] = await post({ contents: [{ role: 'bot', parts: [{ text: 'hi' }] }] });
    expect(role.message).toBe('Please use a valid role: user, model.');
    const [, unknown] = await post({ contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { temprature: 1 } });
    expect(unknown.message).toContain('Unknown name "temprature"');
    const [, empty] = await post({ contents: [] });
    expect(empty.message).toContain('contents');
  });

  it('serves the AI SDK Google provider: generateText and streamText', async () => {
    const google = createGoogleGenerativeAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1beta` });
    const { text, usage } = await generateText({ model: google(MODEL), prompt: 'Say something' });
    expect(text.length).toBeGreaterThan(10);
    expect(usage.outputTokens).toBeGreaterThan(0);
    const stream = streamText({ model: google(MODEL), prompt: 'Say something' });
    expect(await stream.text).toBe(text);
  });

  it('runs a multi-step generateText with tools through the AI SDK Google provider', async () => {
    const google = createGoogleGenerativeAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1beta` });
    const executed: string[] = [];
    const result = await generateText({
      model: google(MODEL),
      prompt: 'What is the weather in Madrid?',
      tools: {
        get_weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => (executed.push(city), { temperature: 31 }),
        }),
      },
      stopWhen: stepCountIs(4),
    });
    expect(executed).toHaveLength(1);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain('"temperature":31');
  });
});
