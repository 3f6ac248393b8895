// Azure OpenAI through the clients teams run against it: the `openai` package's AzureOpenAI (the
// deployment paths with a dated api-version, and its responses call without a deployment) and
// @ai-sdk/azure (the v1 paths, and deployment URLs), in-process and over a socket.
import { describe, expect, it } from 'vitest';
import { AzureOpenAI, type APIError, AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import { createAzure } from '@ai-sdk/azure';
import { APICallError, embed, generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { modes, type Running } from './helpers/modes.ts';
import { maskKey } from '../src/auth/keys.ts';
import { beforeAll, afterAll } from 'vitest';

const API_VERSION = '2024-10-21';
const ask = (content: string) => [{ role: 'user' as const, content }];

const FIXTURES = [
  {
    name: 'same on both doors',
    match: { model: 'gpt-4o-mini', userMessage: 'Which door?' },
    reply: { text: 'The same answer, whichever door.' },
  },
  { name: 'filtered prompt', match: { userMessage: 'Say something awful' }, error: { status: 400, code: 'content_filter' } },
  {
    name: 'weather tool',
    match: { userMessage: 'What is the weather in Oslo?', hasToolResult: false },
    reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  },
];

describe.each(modes)('Azure OpenAI ($name)', (mode) => {
  let gw: Running;
  const azure = (deployment?: string) =>
    new AzureOpenAI({ endpoint: gw.root, apiKey: 'sk-test', apiVersion: API_VERSION, ...(deployment && { deployment }), maxRetries: 0 });
  beforeAll(async () => {
    gw = await mode.start({ fixtures: FIXTURES, deployments: { 'prod-chat': 'gpt-4o-mini', 'prod-embed': 'text-embedding-3-small' } });
  });
  afterAll(() => gw.stop());
  const last = async () => (await gw.requests()).at(-1)!;

  it('answers a deployment named for a catalogue model, with the content filter results and headers Azure sends', async () => {
    const { data, response } = await azure('gpt-4o-mini')
      .chat.completions.create({ model: 'ignored', messages: ask('Hello') })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('gpt-4o-mini');
    expect(data.choices[0].message.content!.length).toBeGreaterThan(5);
    const extra = data as unknown as { prompt_filter_results: unknown[]; choices: { content_filter_results: Record<string, unknown> }[] };
    expect(extra.prompt_filter_results).toEqual([
      {
        prompt_index: 0,
        content_filter_results: {
          hate: { filtered: false, severity: 'safe' },
          jailbreak: { filtered: false, detected: false },
          self_harm: { filtered: false, severity: 'safe' },
          sexual: { filtered: false, severity: 'safe' },
          violence: { filtered: false, severity: 'safe' },
        },
      },
    ]);
    expect(Object.keys(extra.choices[0].content_filter_results)).toEqual([
      'hate',
      'protected_material_code',
      'protected_material_text',
      'self_harm',
      'sexual',
      'violence',
    ]);
    const id = response.headers.get('apim-request-id');
    expect(id).toMatch(/^req_\w{32}$/);
    expect(response.headers.get('x-request-id')).toBe(id);
    expect(response.headers.get('x-ms-region')).toBe('East US');
    expect(response.headers.get('x-ms-deployment-name')).toBe('gpt-4o-mini');
    const entry = await last();
    expect(entry).toMatchObject({
      path: '/openai/deployments/gpt-4o-mini/chat/completions',
      query: `?api-version=${API_VERSION}`,
      dialect: 'azure',
      format: 'openai',
      model: 'gpt-4o-mini',
      status: 200,
    });
    // The key travelled as api-key, masked in the journal like any credential.
    expect(entry.headers['api-key']).toBe(maskKey('sk-test'));
  });

  it('answers a deployment of any name mapped to a model (deployments option, --deployment flag)', async () => {
    const data = await azure('prod-chat').chat.completions.create({ model: 'prod-chat', messages: ask('Hello') });
    expect(data.model).toBe('gpt-4o-mini');
    expect((await last()).model).toBe('gpt-4o-mini');
  });

  it('streams as Azure does: the prompt filter results first, then chunks with their own results', async () => {
    const client = azure('gpt-4o-mini');
    const plain = await client.chat.completions.create({ model: 'x', messages: ask('Stream me') });
    const stream = await client.chat.completions.create({
      model: 'x',
      messages: ask('Stream me'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk as typeof chunk & { prompt_filter_results?: unknown });
    expect(chunks[0]).toMatchObject({ id: '', object: '', created: 0, model: '', choices: [] });
    expect(chunks[0].prompt_filter_results).toHaveLength(1);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(plain.choices[0].message.content);
    const withText = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(withText.length).toBeGreaterThan(3);
    for (const c of withText)
      expect((c.choices[0] as unknown as { content_filter_results: object }).content_filter_results).toHaveProperty('violence');
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(plain.usage!.completion_tokens);
    // The SDK's stream helper takes the first chunk in its stride.
    const final = await client.chat.completions.stream({ model: 'x', messages: ask('Stream me') }).finalChatCompletion();
    expect(final.choices[0].message.content).toBe(plain.choices[0].message.content);
  });

  it('completes a tool loop, and answers structured output that parses', async () => {
    const client = azure('gpt-4o-mini');
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    ];
    const first = await client.chat.completions.create({ model: 'x', messages: ask('What is the weather in Oslo?'), tools });
    const call = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
    const second = await client.chat.completions.create({
      model: 'x',
      tools,
      messages: [
        ...ask('What is the weather in Oslo?'),
        first.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: '{"temperature":3}' },
      ],
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, rain: { type: 'boolean' } },
      required: ['city', 'rain'],
      additionalProperties: false,
    };
    const structured = await client.chat.completions.create({
      model: 'x',
      messages: ask('Report the weather as JSON'),
      response_format: { type: 'json_schema', json_schema: { name: 'report', schema, strict: true } },
    });
    const parsed = JSON.parse(structured.choices[0].message.content!);
    expect(Object.keys(parsed).sort()).toEqual(['city', 'rain']);
    expect(typeof parsed.rain).toBe('boolean');
  });

  it('embeds on a deployment, and answers the responses API without one', async () => {
    const client = azure();
    const vectors = await client.embeddings.create({ model: 'prod-embed', input: ['a', 'b'] });
    expect(vectors.data).toHaveLength(2);
    expect(vectors.data[0].embedding).toHaveLength(1536);
    expect((await last()).path).toBe('/openai/deployments/prod-embed/embeddings');
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hello' });
    expect(response.output_text.length).toBeGreaterThan(5);
    expect(await last()).toMatchObject({ path: '/openai/responses', dialect: 'azure', model: 'gpt-4o-mini' });
    const again = await client.responses.retrieve(response.id);
    expect(again.id).toBe(response.id);
  });

  it('answers the same fixture for the same prompt on the direct path and the Azure path', async () => {
    const direct = await fetch(`${gw.root}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: ask('Which door?') }),
    }).then((r) => r.json() as Promise<{ choices: { message: { content: string } }[] }>);
    const viaAzure = await azure('gpt-4o-mini').chat.completions.create({ model: 'x', messages: ask('Which door?') });
    expect(direct.choices[0].message.content).toBe('The same answer, whichever door.');
    expect(viaAzure.choices[0].message.content).toBe(direct.choices[0].message.content);
    expect((await last()).fixture).toBe('same on both doors');
  });

  it("raises the SDK's own errors, in Azure's bodies: an unknown deployment, a bad key, the content filter", async () => {
    const unknown = await azure('no-such-deployment')
      .chat.completions.create({ model: 'x', messages: ask('Hi') })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as APIError).code).toBe('DeploymentNotFound');
    expect((unknown as APIError).message).toMatch(/no deployment "no-such-deployment".*--deployment no-such-deployment=<model>/);

    const badKey = await new AzureOpenAI({
      endpoint: gw.root,
      apiKey: 'sk-wrong',
      apiVersion: API_VERSION,
      deployment: 'gpt-4o-mini',
      maxRetries: 0,
    }).chat.completions
      .create({ model: 'x', messages: ask('Hi') })
      .catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(AuthenticationError);
    expect((badKey as APIError).code).toBe('401');

    for (const [messages, headers] of [
      [ask('Say something awful'), {}],
      [ask('Anything'), { 'x-mock-fault': 'PROMPT_BLOCKED' }],
    ] as const) {
      const filtered = await azure('gpt-4o-mini')
        .chat.completions.create({ model: 'x', messages: [...messages] }, { headers })
        .catch((e: unknown) => e);
      expect(filtered).toBeInstanceOf(BadRequestError);
      const error = filtered as APIError & {
        error: { innererror: { code: string; content_filter_result: Record<string, { filtered: boolean }> } };
      };
      expect(error.code).toBe('content_filter');
      expect(error.param).toBe('prompt');
      expect(error.error.innererror.code).toBe('ResponsibleAIPolicyViolation');
      expect(error.error.innererror.content_filter_result.violence.filtered).toBe(true);
    }
  });

  it('reports a reply its filter blocked: finish_reason content_filter, the category filtered', async () => {
    const data = await azure('gpt-4o-mini').chat.completions.create(
      { model: 'x', messages: ask('Hi') },
      { headers: { 'x-mock-fault': 'CONTENT_FILTER' } },
    );
    expect(data.choices[0].finish_reason).toBe('content_filter');
    expect((data.choices[0] as unknown as { content_filter_results: { violence: unknown } }).content_filter_results.violence).toEqual({
      filtered: true,
      severity: 'high',
    });
  });

  it("answers bad input with Azure's status and a body naming what to fix, never a 500", async () => {
    const post = (path: string, body: object = { messages: ask('Hi') }) =>
      fetch(`${gw.root}${path}`, {
        method: 'POST',
        headers: { 'api-key': 'sk-test', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: { code: string; message: string } } }));
    const missing = await post('/openai/deployments/gpt-4o-mini/chat/completions');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      code: '404',
      message: expect.stringMatching(/^Resource not found: the api-version query parameter is missing; add \?api-version=/),
    });
    const wrongKind = await post('/openai/deployments/gpt-4o-mini/chat/completions?api-version=v1');
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.error).toMatchObject({
      code: 'BadRequest',
      message: expect.stringMatching(/^API version not supported: .*2024-10-21/),
    });
    const datedOnV1 = await post('/openai/v1/chat/completions?api-version=2024-10-21', { model: 'gpt-4o-mini', messages: ask('Hi') });
    expect(datedOnV1.status).toBe(400);
    expect(datedOnV1.body.error.code).toBe('BadRequest');
    const unknownDeployment = await post('/openai/v1/chat/completions', { model: 'nope', messages: ask('Hi') });
    expect(unknownDeployment).toMatchObject({ status: 404, body: { error: { code: 'DeploymentNotFound' } } });
    const unknownPath = await post(`/openai/deployments/gpt-4o-mini/nope?api-version=${API_VERSION}`);
    expect(unknownPath).toMatchObject({
      status: 404,
      body: { error: { code: '404', message: expect.stringMatching(/^Resource not found/) } },
    });
    const badBody = await post(`/openai/deployments/gpt-4o-mini/chat/completions?api-version=${API_VERSION}`, { messages: 'Hi' });
    expect(badBody.status).toBe(400);
    const noKey = await fetch(`${gw.root}/openai/v1/models`);
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string } }).error.code).toBe('401');
  });

  it("lists models in Azure's shape", async () => {
    const listed = await fetch(`${gw.root}/openai/models?api-version=${API_VERSION}`, { headers: { 'api-key': 'sk-test' } }).then(
      (r) => r.json() as Promise<{ object: string; data: Record<string, unknown>[] }>,
    );
    expect(listed.object).toBe('list');
    const mini = listed.data.find((m) => m.id === 'gpt-4o-mini')!;
    expect(mini).toMatchObject({ object: 'model', status: 'succeeded', lifecycle_status: 'generally-available' });
    expect(mini.capabilities).toMatchObject({ chat_completion: true, embeddings: false });
    const one = await azure().models.retrieve('text-embedding-3-small');
    expect((one as unknown as { capabilities: { embeddings: boolean } }).capabilities.embeddings).toBe(true);
  });

  it('serves @ai-sdk/azure on the v1 paths: text, stream, a tool loop, an object, an embedding', async () => {
    const provider = createAzure({ baseURL: `${gw.root}/openai/v1`, apiKey: 'sk-test' });
    const text = await generateText({ model: provider('gpt-4o-mini'), prompt: 'Which door?' });
    expect(text.text).toBe('The same answer, whichever door.');
    expect((await last()).path).toBe('/openai/v1/responses');
    const chat = await generateText({ model: provider.chat('gpt-4o-mini'), prompt: 'Which door?' });
    expect(chat.text).toBe('The same answer, whichever door.');
    expect((await last()).path).toBe('/openai/v1/chat/completions');
    const stream = streamText({ model: provider.chat('prod-chat'), prompt: 'Say something' });
    expect((await stream.text).length).toBeGreaterThan(10);
    const loop = await generateText({
      model: provider.chat('gpt-4o-mini'),
      prompt: 'What is the weather in Oslo?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ temperature: 3 }) }) },
      stopWhen: stepCountIs(4),
    });
    expect(loop.steps).toHaveLength(2);
    const { object } = await generateObject({
      model: provider.chat('gpt-4o-mini'),
      schema: z.object({ city: z.string(), rain: z.boolean() }),
      prompt: 'Report the weather',
    });
    expect(typeof object.rain).toBe('boolean');
    const { embedding } = await embed({ model: provider.embedding('prod-embed'), value: 'hello' });
    expect(embedding).toHaveLength(1536);
    const failed = await generateText({ model: provider.chat('nope'), prompt: 'Hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(failed)).toBe(true);
    expect((failed as APICallError).statusCode).toBe(404);
  });

  it('serves @ai-sdk/azure with deployment URLs', async () => {
    const provider = createAzure({
      baseURL: `${gw.root}/openai`,
      apiKey: 'sk-test',
      useDeploymentBasedUrls: true,
      apiVersion: API_VERSION,
    });
    const { text } = await generateText({ model: provider.chat('prod-chat'), prompt: 'Hello' });
    expect(text.length).toBeGreaterThan(5);
    expect(await last()).toMatchObject({ path: '/openai/deployments/prod-chat/chat/completions', model: 'gpt-4o-mini' });
  });
});
