// Vertex AI through the clients teams run on it, in both modes: @google/genai in Vertex mode (a project
// and location, the global location, express mode with an API key), @anthropic-ai/vertex-sdk, and
// @ai-sdk/google-vertex (Gemini and its Anthropic provider). Their credentials are dummies: an access
// token that is the gateway's token, handed over by an auth client that never calls Google.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { createVertex } from '@ai-sdk/google-vertex';
import { createVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import { APICallError, embedMany, generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai';
import { OAuth2Client } from 'google-auth-library';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { setupServer } from 'msw/node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '../src/index.ts';
import { loadFixtureDir } from '../src/fixtures/load.ts';
import { spawnCli } from './helpers/cli.ts';
import { modes, socketSuites, strictListen, type Running } from './helpers/modes.ts';

const PROJECT = 'my-project';
const MODEL = 'gemini-2.5-flash';
const CLAUDE = 'claude-haiku-4-5@20251001';
/** The catalogue's model that CLAUDE names. */
const CLAUDE_MODEL = 'claude-haiku-4-5';

const fixtures = [
  // `endpoint` is the Gemini endpoint's own path: Vertex's paths reach that endpoint, so it matches there too.
  {
    name: 'pinned-gemini',
    match: { userMessage: 'Pin me on Gemini', endpoint: `/v1beta/models/${MODEL}:generateContent` },
    reply: { text: 'Pinned for Gemini.' },
  },
  {
    name: 'pinned-claude',
    match: { userMessage: 'Pin me on Claude', model: CLAUDE_MODEL, endpoint: '/v1/messages' },
    reply: { text: 'Pinned for Claude.' },
  },
  {
    name: 'exhausted',
    match: { userMessage: 'quota please' },
    error: { status: 429, message: 'Resource exhausted. Please try again later.' },
  },
  { name: 'overloaded', match: { userMessage: 'overload please' }, error: { status: 529, message: 'Overloaded' } },
];

/** An auth client holding a fixed access token: google-auth-library hands it over without calling Google. */
function accessToken(token: string): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: token });
  return client;
}

/** The error a promise rejects with. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error & Record<string, unknown>,
  );

describe.each(modes)('Vertex AI ($name)', (mode) => {
  let gw: Running;
  let vertex: GoogleGenAI;
  let express: GoogleGenAI;
  let global: GoogleGenAI;
  let direct: GoogleGenAI;
  let claude: AnthropicVertex;
  beforeAll(async () => {
    gw = await mode.start({ fixtures, deployments: { 'my-gemini': MODEL, 'my-claude': CLAUDE_MODEL } });
    const httpOptions = { baseUrl: gw.root };
    const googleAuthOptions = { authClient: accessToken('sk-test') };
    vertex = new GoogleGenAI({ vertexai: true, project: PROJECT, location: 'us-central1', httpOptions, googleAuthOptions });
    global = new GoogleGenAI({ vertexai: true, project: PROJECT, location: 'global', httpOptions, googleAuthOptions });
    express = new GoogleGenAI({ vertexai: true, apiKey: 'sk-test', httpOptions });
    direct = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { ...httpOptions, apiVersion: 'v1beta' } });
    claude = new AnthropicVertex({
      region: 'us-east5',
      projectId: PROJECT,
      baseURL: `${gw.root}/v1`,
      authClient: accessToken('sk-test'),
      maxRetries: 0,
    });
  });
  afterAll(() => gw.stop());

  describe('Gemini through @google/genai', () => {
    it('generates and streams content with Vertex AI reply fields, the same under a region, the global location and in express mode', async () => {
      const r = await vertex.models.generateContent({ model: MODEL, contents: 'Tell me about the sea' });
      expect(r.text!.length).toBeGreaterThan(10);
      expect(r.candidates![0]).toMatchObject({ finishReason: 'STOP', content: { role: 'model' } });
      expect(r.modelVersion).toBe(MODEL);
      expect(r.createTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(r.responseId).toMatch(/^[\w-]{23}$/);
      expect(r.usageMetadata).toMatchObject({ trafficType: 'ON_DEMAND', promptTokenCount: expect.any(Number) });
      let streamed = '';
      let chunks = 0;
      for await (const c of await vertex.models.generateContentStream({ model: MODEL, contents: 'Tell me about the sea' })) {
        streamed += c.text ?? '';
        chunks++;
        expect(c.createTime).toBe(r.createTime);
      }
      expect(chunks).toBeGreaterThan(3);
      expect(streamed).toBe(r.text);
      for (const client of [global, express])
        expect((await client.models.generateContent({ model: MODEL, contents: 'Tell me about the sea' })).text).toBe(r.text);
      // The same prompt on the direct Gemini API: the same reply (one canonical request).
      expect((await direct.models.generateContent({ model: MODEL, contents: 'Tell me about the sea' })).text).toBe(r.text);
      const flex = await vertex.models.generateContent({ model: MODEL, contents: 'Hi', config: { serviceTier: 'flex' as never } });
      expect(flex.usageMetadata!.trafficType).toBe('ON_DEMAND_FLEX');
    });

    it('serves a stable version (-001) as its model, and says in modelVersion what was asked', async () => {
      const asked = await vertex.models.generateContent({ model: 'gemini-2.0-flash-001', contents: 'Hello' });
      const base = await vertex.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Hello' });
      expect(asked.modelVersion).toBe('gemini-2.0-flash-001');
      expect(asked.text).toBe(base.text);
      const embedding = await express.models.embedContent({ model: 'gemini-embedding-001', contents: 'Hello' });
      expect(embedding.embeddings![0].values!.length).toBe(3072);
    });

    it('answers what one fixture pins on the direct Gemini path and on Vertex, whatever the version asked', async () => {
      for (const [client, model] of [
        [direct, MODEL],
        [vertex, MODEL],
        [express, MODEL],
        [vertex, `${MODEL}-001`],
      ] as const) {
        const r = await client.models.generateContent({ model, contents: 'Pin me on Gemini' });
        expect(r.text).toBe('Pinned for Gemini.');
        expect(r.sdkHttpResponse!.headers!['x-mock-fixture']).toBe('pinned-gemini');
      }
      const journal = (await gw.requests()).filter((e) => e.fixture === 'pinned-gemini');
      expect(journal.map((e) => [e.format, e.model, e.dialect])).toEqual([
        ['gemini', MODEL, undefined],
        ...Array(3).fill(['gemini', MODEL, 'vertex']),
      ]);
    });

    it('runs a function-calling round trip', async () => {
      const tools = [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
            },
          ],
        },
      ];
      const question = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] };
      const first = await vertex.models.generateContent({ model: MODEL, contents: [question], config: { tools } });
      const call = first.functionCalls![0];
      expect(call.name).toBe('get_weather');
      expect(typeof (call.args as { city: string }).city).toBe('string');
      const second = await vertex.models.generateContent({
        model: MODEL,
        config: { tools },
        contents: [
          question,
          { role: 'model', parts: [{ functionCall: call }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 22 } } }] },
        ],
      });
      expect(second.functionCalls).toBeUndefined();
      expect(second.text).toContain('"temperature":22');
    });

    it('answers JSON that validates against responseSchema', async () => {
      const r = await vertex.models.generateContent({
        model: MODEL,
        contents: 'A person',
        config: {
          responseMimeType: 'application/json',
          responseSchema: {
            type: Type.OBJECT,
            properties: { name: { type: Type.STRING }, age: { type: Type.INTEGER, minimum: 0, maximum: 120 } },
            required: ['name', 'age'],
          },
        },
      });
      const schema = {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 120 } },
        required: ['name', 'age'],
      };
      expect(new Ajv2020().validate(schema, JSON.parse(r.text!))).toBe(true);
    });

    it('embeds by :predict and by :embedContent, in the vector space of the direct path', async () => {
      const predicted = await vertex.models.embedContent({
        model: 'text-embedding-004',
        contents: ['first text', 'second text'],
        config: { outputDimensionality: 16 },
      });
      expect(predicted.embeddings!.map((e) => e.values!.length)).toEqual([16, 16]);
      expect(predicted.embeddings![0].statistics!.tokenCount).toBe(2);
      expect(predicted.metadata!.billableCharacterCount).toBe(19);
      const one = await direct.models.embedContent({
        model: 'text-embedding-004',
        contents: 'first text',
        config: { outputDimensionality: 16 },
      });
      expect(predicted.embeddings![0].values).toEqual(one.embeddings![0].values);
      const content = await express.models.embedContent({ model: 'gemini-embedding-2', contents: 'first text' });
      expect(content.embeddings![0].values!.length).toBe(3072);
      expect(content.embeddings![0].statistics!.tokenCount).toBe(2);
    });

    it('counts and computes tokens as the direct path counts them', async () => {
      const text = 'The quick brown fox jumps over the lazy dog.';
      const counted = await vertex.models.countTokens({ model: MODEL, contents: text });
      expect(counted.totalTokens).toBe((await direct.models.countTokens({ model: MODEL, contents: text })).totalTokens);
      // Vertex counts the system instruction and tools too (the Gemini API's SDK refuses to send them).
      const more = await vertex.models.countTokens({ model: MODEL, contents: text, config: { systemInstruction: 'Be brief and kind.' } });
      expect(more.totalTokens).toBeGreaterThan(counted.totalTokens!);
      const computed = await vertex.models.computeTokens({ model: MODEL, contents: text });
      const info = computed.tokensInfo![0];
      expect(info.role).toBe('user');
      expect(info.tokenIds).toHaveLength(counted.totalTokens!);
      expect(Buffer.concat(info.tokens!.map((t) => Buffer.from(t, 'base64'))).toString('utf8')).toBe(text);
    });

    it('lists and gets publisher models', async () => {
      const pager = await vertex.models.list();
      const names = pager.page.map((m) => m.name);
      expect(names).toContain(`publishers/google/models/${MODEL}`);
      expect(names.every((n) => n!.startsWith('publishers/google/models/'))).toBe(true);
      expect((await vertex.models.get({ model: MODEL })).name).toBe(`publishers/google/models/${MODEL}`);
    });

    it('raises ApiError with Google status and body for an unknown model, a quota error and a bad token', async () => {
      const unknown = await failure(vertex.models.generateContent({ model: 'gemini-nope', contents: 'Hi' }));
      expect(unknown).toBeInstanceOf(ApiError);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.message).error).toMatchObject({
        code: 404,
        status: 'NOT_FOUND',
        message: expect.stringContaining(`projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-nope`),
      });
      const quota = await failure(vertex.models.generateContent({ model: MODEL, contents: 'quota please' }));
      expect(quota).toBeInstanceOf(ApiError);
      expect(quota.status).toBe(429);
      expect(JSON.parse(quota.message).error.status).toBe('RESOURCE_EXHAUSTED');
      const stranger = new GoogleGenAI({
        vertexai: true,
        project: PROJECT,
        location: 'us-central1',
        httpOptions: { baseUrl: gw.root },
        googleAuthOptions: { authClient: accessToken('ya29.not-ours') },
      });
      const refused = await failure(stranger.models.generateContent({ model: MODEL, contents: 'Hi' }));
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.message).error).toMatchObject({
        code: 401,
        status: 'UNAUTHENTICATED',
        message: expect.stringContaining('Authorization: Bearer'),
      });
    });
  });

  describe('Claude through @anthropic-ai/vertex-sdk', () => {
    it('answers rawPredict and streams streamRawPredict, as the direct Messages API answers the same prompt', async () => {
      const ask = { max_tokens: 200, messages: [{ role: 'user' as const, content: 'Tell me about the sea' }] };
      const message = await claude.messages.create({ model: CLAUDE, ...ask });
      expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      expect(text.length).toBeGreaterThan(10);
      const events: string[] = [];
      const stream = claude.messages.stream({ model: CLAUDE, ...ask });
      for await (const e of stream) events.push(e.type);
      expect(events[0]).toBe('message_start');
      expect(events.at(-1)).toBe('message_stop');
      expect(events).toContain('content_block_delta');
      expect((await stream.finalMessage()).content).toEqual(message.content);
      const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
      expect((await anthropic.messages.create({ model: CLAUDE_MODEL, ...ask })).content).toEqual(message.content);
      const pinned = await claude.messages.create({
        model: CLAUDE,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Pin me on Claude' }],
      });
      expect(pinned.content).toEqual([{ type: 'text', text: 'Pinned for Claude.', citations: null }]);
      const pinnedDirect = await anthropic.messages.create({
        model: CLAUDE_MODEL,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Pin me on Claude' }],
      });
      expect(pinnedDirect.content).toEqual(pinned.content);
      const counted = await claude.messages.countTokens({ model: CLAUDE, messages: ask.messages });
      expect(counted.input_tokens).toBe(
        (await anthropic.messages.countTokens({ model: CLAUDE_MODEL, messages: ask.messages })).input_tokens,
      );
    });

    it("raises the Anthropic SDK's own error classes: Vertex's answers in Google's body, Claude's in Anthropic's", async () => {
      const unknown = await failure(
        claude.messages.create({ model: 'claude-nope@20250101', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      );
      expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
      expect(unknown.error).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
      const quota = await failure(
        claude.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'quota please' }] }),
      );
      expect(quota).toBeInstanceOf(Anthropic.RateLimitError);
      expect(quota.error).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
      const invalid = await failure(claude.messages.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }] } as never));
      expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
      expect(invalid.error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      });
      const overloaded = await failure(
        claude.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'overload please' }] }),
      );
      expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
      expect(overloaded.error).toMatchObject({ error: { type: 'overloaded_error' } });
      const stranger = new AnthropicVertex({
        region: 'us-east5',
        projectId: PROJECT,
        baseURL: `${gw.root}/v1`,
        authClient: accessToken('ya29.not-ours'),
        maxRetries: 0,
      });
      const refused = await failure(
        stranger.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      );
      expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(refused.error).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
    });
  });

  it('answers a name the deployments option maps (as Azure deployments are): pinned fixtures match, a wrong publisher is a 404', async () => {
    const gemini = await vertex.models.generateContent({ model: 'my-gemini', contents: 'Pin me on Gemini' });
    expect(gemini.text).toBe('Pinned for Gemini.');
    expect(gemini.modelVersion).toBe('my-gemini');
    const message = await claude.messages.create({
      model: 'my-claude',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Pin me on Claude' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Pinned for Claude.', citations: null }]);
    const wrong = await failure(vertex.models.generateContent({ model: 'my-claude', contents: 'Hi' }));
    expect(wrong).toBeInstanceOf(ApiError);
    expect(wrong.status).toBe(404);
    expect(wrong.message).toContain('publishers/anthropic');
  });

  describe('the AI SDK with @ai-sdk/google-vertex', () => {
    const weather = tool({
      description: 'Weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, temperature: 22 }),
    });

    /** The agent's loop: the model calls the tool, then answers with what it returned. */
    async function toolLoop(model: LanguageModel) {
      const result = await generateText({
        model,
        tools: { weather },
        stopWhen: stepCountIs(3),
        prompt: 'What is the weather in Paris?',
        maxRetries: 0,
      });
      expect(result.steps.length).toBeGreaterThanOrEqual(2);
      expect(result.steps[0].toolCalls[0].toolName).toBe('weather');
      expect(result.steps[0].toolResults[0].output).toMatchObject({ temperature: 22 });
      expect(result.text).toContain('22');
    }

    it('completes a tool loop with Gemini, streams, and embeds', async () => {
      const google = createVertex({
        project: PROJECT,
        location: 'us-central1',
        baseURL: `${gw.root}/v1beta1/projects/${PROJECT}/locations/us-central1/publishers/google`,
        googleAuthOptions: { authClient: accessToken('sk-test') } as never,
      });
      await toolLoop(google(MODEL));
      const streamed = streamText({ model: google(MODEL), prompt: 'Tell me about the sea', maxRetries: 0 });
      expect((await streamed.text).length).toBeGreaterThan(10);
      const { embeddings, usage } = await embedMany({
        model: google.embeddingModel('text-embedding-004'),
        values: ['first text', 'second text'],
        maxRetries: 0,
      });
      expect(embeddings).toHaveLength(2);
      expect(usage.tokens).toBe(4);
      const error = await failure(generateText({ model: google('gemini-nope'), prompt: 'Hi', maxRetries: 0 }));
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as unknown as APICallError).statusCode).toBe(404);
      expect(error.message).toContain('Publisher Model');
    });

    it('completes a tool loop with Claude through its Anthropic provider', async () => {
      const anthropic = createVertexAnthropic({
        project: PROJECT,
        location: 'us-east5',
        baseURL: `${gw.root}/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models`,
        generateAuthToken: async () => 'sk-test',
      });
      await toolLoop(anthropic(CLAUDE));
    });

    it('serves express mode with an API key', async () => {
      const google = createVertex({ apiKey: 'sk-test', baseURL: `${gw.root}/v1/publishers/google` });
      const { text } = await generateText({ model: google(MODEL), prompt: 'Tell me about the sea', maxRetries: 0 });
      expect(text).toBe((await vertex.models.generateContent({ model: MODEL, contents: 'Tell me about the sea' })).text);
    });
  });

  describe('bad input', () => {
    const root = () => gw.root;
    const post = async (path: string, body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-test' }) => {
      const res = await fetch(`${root()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
    };
    const google = (model: string, method = 'generateContent') =>
      `/v1beta1/projects/${PROJECT}/locations/us-central1/publishers/google/models/${model}:${method}`;
    const anthropic = (model: string, method = 'rawPredict') =>
      `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${model}:${method}`;
    const contents = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
    const messages = { anthropic_version: 'vertex-2023-10-16', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

    it.each([
      ['an unknown model', google('gemini-nope'), contents, 404, 'NOT_FOUND', 'gemini-nope'],
      [
        'a Claude model under publishers/google',
        google('claude-sonnet-4-5'),
        contents,
        404,
        'NOT_FOUND',
        'call it under publishers/anthropic',
      ],
      ['a Gemini model under publishers/anthropic', anthropic(MODEL), messages, 404, 'NOT_FOUND', 'call it under publishers/google'],
      [
        'a publisher not served',
        `/v1/projects/${PROJECT}/locations/us-central1/publishers/meta/models/llama-4:generateContent`,
        contents,
        404,
        'NOT_FOUND',
        'publishers google and anthropic',
      ],
      ['a Claude id dated with a dash', anthropic('claude-sonnet-4-5-20250929'), messages, 404, 'NOT_FOUND', 'claude-sonnet-4-5@20250929'],
      ['rawPredict of a Gemini model', google(MODEL, 'rawPredict'), contents, 404, 'NOT_FOUND', 'Claude'],
      [
        "the Gemini API's batchEmbedContents",
        google('text-embedding-004', 'batchEmbedContents'),
        { requests: [] },
        404,
        'NOT_FOUND',
        'predict',
      ],
      [
        'a method Claude does not have',
        anthropic(CLAUDE, 'generateContent'),
        contents,
        404,
        'NOT_FOUND',
        'rawPredict and streamRawPredict',
      ],
      [
        'embeddings of a chat model',
        google(MODEL, 'predict'),
        { instances: [{ content: 'Hi' }] },
        400,
        'INVALID_ARGUMENT',
        'embedding models',
      ],
      [
        'too many instances',
        google('text-embedding-004', 'predict'),
        { instances: Array(251).fill({ content: 'Hi' }) },
        400,
        'INVALID_ARGUMENT',
        'instances',
      ],
      [
        'a nested field Vertex does not know',
        google(MODEL),
        { ...contents, generationConfig: { temprature: 1 } },
        400,
        'INVALID_ARGUMENT',
        'Unknown name "temprature"',
      ],
      [
        'Claude in express mode',
        `/v1/publishers/anthropic/models/${CLAUDE}:rawPredict`,
        messages,
        404,
        'NOT_FOUND',
        'project and location',
      ],
    ])("answers %s with Google's status and body", async (_what, path, body, status, name, message) => {
      const res = await post(path, body);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code: status, status: name, message: expect.stringContaining(message) });
    });

    it.each([
      ['a Gemini body on rawPredict', contents, 'contents', "Anthropic's Messages body"],
      ['a missing anthropic_version', { max_tokens: 10, messages: messages.messages }, 'anthropic_version', 'vertex-2023-10-16'],
      [
        'an anthropic_version Vertex does not take',
        { ...messages, anthropic_version: 'bedrock-2023-05-31' },
        'anthropic_version',
        'bedrock-2023-05-31',
      ],
      ['a messages body Claude refuses', { ...messages, max_tokens: 0 }, 'max_tokens', 'max_tokens'],
    ])("answers %s with Anthropic's 400 as Vertex passes it on", async (_what, body, field, hint) => {
      const res = await post(anthropic(CLAUDE), body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(res.body.error.message).toContain(field);
      expect(res.body.error.message).toContain(hint);
    });

    it('asks for an access token, in Google’s 401, when none is sent', async () => {
      const gemini = await post(google(MODEL), contents, {});
      expect(gemini.status).toBe(401);
      expect(gemini.body.error).toMatchObject({ status: 'UNAUTHENTICATED', message: expect.stringContaining('Authorization: Bearer') });
      // Claude on Vertex takes no API key.
      const keyed = await post(anthropic(CLAUDE), messages, { 'x-goog-api-key': 'sk-test' });
      expect(keyed.status).toBe(401);
      expect(keyed.body.error).toMatchObject({ status: 'UNAUTHENTICATED' });
    });

    it('never answers a 500 to a malformed body', async () => {
      for (const body of [[], 'text', { contents: 'x' }, { contents: [{ parts: 'x' }] }, { instances: 'x' }, { content: 5 }]) {
        for (const method of ['generateContent', 'countTokens', 'computeTokens', 'embedContent', 'predict']) {
          const model = ['embedContent', 'predict'].includes(method)
            ? method === 'predict'
              ? 'text-embedding-004'
              : 'gemini-embedding-2'
            : MODEL;
          expect((await post(google(model, method), body)).status, `${method} ${JSON.stringify(body)}`).toBe(400);
        }
        expect((await post(anthropic(CLAUDE), body)).status).toBe(400);
        expect((await post(anthropic('count-tokens'), body)).status).toBe(400);
      }
    });
  });
});

describe('Vertex AI in-process: the pipeline applies unchanged', () => {
  const gateway = createGateway({ tokens: ['sk-test'] });
  const server = setupServer(...gateway.handlers);
  /** Every request that left the test's process through fetch or node:http, whoever made it (google-auth-library included). */
  const sent: string[] = [];
  server.events.on('request:start', ({ request }) => void sent.push(request.url));
  beforeAll(() => strictListen(server));
  afterAll(() => server.close());
  const root = 'http://127.0.0.1:2';
  const client = (token = 'sk-test', headers: Record<string, string> = {}) =>
    new GoogleGenAI({
      vertexai: true,
      project: PROJECT,
      location: 'us-central1',
      httpOptions: { baseUrl: root, headers },
      googleAuthOptions: { authClient: accessToken(token) },
    });
  const claudeClient = (token = 'sk-test', headers: Record<string, string> = {}) =>
    new AnthropicVertex({
      region: 'us-east5',
      projectId: PROJECT,
      baseURL: `${root}/v1`,
      authClient: accessToken(token),
      defaultHeaders: headers,
      maxRetries: 0,
    });

  it("keeps each test's fixtures its own (x-mock-test-id) and journals the canonical model", async () => {
    gateway.forTest('vertex-a').use({ match: { userMessage: 'Whose test?' }, reply: { text: 'Test A.' } });
    const own = await client('sk-test', { 'x-mock-test-id': 'vertex-a' }).models.generateContent({
      model: `${MODEL}-001`,
      contents: 'Whose test?',
    });
    expect(own.text).toBe('Test A.');
    const other = await client().models.generateContent({ model: MODEL, contents: 'Whose test?' });
    expect(other.text).not.toBe('Test A.');
    const claudeOwn = await claudeClient('sk-test', { 'x-mock-test-id': 'vertex-a' }).messages.create({
      model: CLAUDE,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Whose test?' }],
    });
    expect(claudeOwn.content[0]).toMatchObject({ text: 'Test A.' });
    expect(
      gateway
        .forTest('vertex-a')
        .requests()
        .map((e) => [e.format, e.model, e.fixture]),
    ).toEqual([
      ['gemini', MODEL, expect.any(String)],
      ['anthropic', CLAUDE_MODEL, expect.any(String)],
    ]);
    expect(
      gateway
        .forTest('vertex-a')
        .requests()
        .map((e) => e.dialect),
    ).toEqual(['vertex', 'vertex']);
    expect(gateway.forTest('vertex-a').costs().total.requests).toBe(2);
    expect(gateway.forTest('vertex-a').costs().total.costUsd).toBeGreaterThan(0);
  });

  it('breaks a stream with a fault: the Google and Anthropic SDKs each raise their error', async () => {
    const fault = { 'x-mock-fault': 'STREAM_ERROR,after=2,status=503' };
    const gemini = failure(
      (async () => {
        for await (const _ of await client('sk-test', fault).models.generateContentStream({
          model: MODEL,
          contents: 'Tell me about the sea',
        }));
      })(),
    );
    const error = await gemini;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    const claude = await failure(
      claudeClient('sk-test', fault)
        .messages.stream({ model: CLAUDE, max_tokens: 200, messages: [{ role: 'user', content: 'Tell me about the sea' }] })
        .finalMessage(),
    );
    expect(claude).toBeInstanceOf(Anthropic.APIError);
  });

  it("counts Vertex requests against the token's rate limits, refused as Vertex AI refuses", async () => {
    gateway.tokens.issue({ token: 'sk-one-a-minute', rpm: 1 });
    await client('sk-one-a-minute').models.generateContent({ model: MODEL, contents: 'Hi' });
    const gemini = await failure(client('sk-one-a-minute').models.generateContent({ model: MODEL, contents: 'Hi' }));
    expect(gemini).toBeInstanceOf(ApiError);
    expect(gemini.status).toBe(429);
    expect(JSON.parse(gemini.message).error.status).toBe('RESOURCE_EXHAUSTED');
    const claude = await failure(
      claudeClient('sk-one-a-minute').messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(claude).toBeInstanceOf(Anthropic.RateLimitError);
    // Vertex AI sends no anthropic-ratelimit-* headers.
    expect([...(claude.headers as Headers).keys()].filter((h) => h.startsWith('anthropic-ratelimit'))).toEqual([]);
  });

  it('sends nothing to a Google host: the dummy credentials never leave the process', async () => {
    await client().models.generateContent({ model: MODEL, contents: 'Hi' });
    await claudeClient().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    const google = createVertex({
      project: PROJECT,
      location: 'us-central1',
      baseURL: `${root}/v1beta1/projects/${PROJECT}/locations/us-central1/publishers/google`,
      googleAuthOptions: { authClient: accessToken('sk-test') } as never,
    });
    await generateText({ model: google(MODEL), prompt: 'Hi', maxRetries: 0 });
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.filter((url) => !url.startsWith(`${root}/`))).toEqual([]);
  });
});

describe.runIf(socketSuites)('Vertex AI record and replay', () => {
  it('records Gemini and Claude on Vertex paths from an upstream, and replays them with none', async () => {
    const upstream = await spawnCli(['--seed', '7']);
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-vertex-'));
    const traffic = async () => {
      const gemini = new GoogleGenAI({
        vertexai: true,
        project: PROJECT,
        location: 'us-central1',
        httpOptions: { baseUrl: 'https://gateway.test' },
        googleAuthOptions: { authClient: accessToken('sk-test') },
      });
      const claude = new AnthropicVertex({
        region: 'us-east5',
        projectId: PROJECT,
        baseURL: 'https://gateway.test/v1',
        authClient: accessToken('sk-test'),
        maxRetries: 0,
      });
      const text = (await gemini.models.generateContent({ model: MODEL, contents: 'Record me on Vertex' })).text;
      let streamed = '';
      for await (const c of await gemini.models.generateContentStream({ model: MODEL, contents: 'Stream me on Vertex' }))
        streamed += c.text ?? '';
      const message = await claude.messages.create({
        model: CLAUDE,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Record me on Vertex' }],
      });
      return { text, streamed, message: message.content };
    };
    const run = async (options: Parameters<typeof createGateway>[0]) => {
      const gateway = createGateway({ origin: 'https://gateway.test', ...options });
      const server = setupServer(...gateway.handlers);
      strictListen(server);
      try {
        return { seen: await traffic(), journal: gateway.requests() };
      } finally {
        server.close();
      }
    };
    try {
      const recorded = await run({ record: { dir, upstreams: { default: upstream.url } } });
      expect(recorded.journal.map((e) => e.fixture)).toEqual(['recording', 'recording', 'recording']);
      const replayed = await run({ fixtures: loadFixtureDir(dir), strict: true });
      expect(replayed.seen).toEqual(recorded.seen);
      expect(replayed.journal.every((e) => e.fixture && e.fixture !== 'recording')).toBe(true);
      // Recorded under the Gemini endpoint's own path, the reply answers the direct path too.
      const gateway = createGateway({ origin: 'https://gateway.test', fixtures: loadFixtureDir(dir), strict: true });
      const server = setupServer(...gateway.handlers);
      strictListen(server);
      try {
        const direct = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: 'https://gateway.test', apiVersion: 'v1beta' } });
        expect((await direct.models.generateContent({ model: MODEL, contents: 'Record me on Vertex' })).text).toBe(recorded.seen.text);
      } finally {
        server.close();
      }
    } finally {
      await upstream.stop();
    }
  });
});
