// Amazon Bedrock's runtime through the clients teams run: @aws-sdk/client-bedrock-runtime (over a
// socket with its defaults, which speak HTTP/2; in-process with a fetch handler, since msw does not
// intercept node:http2), @anthropic-ai/bedrock-sdk (InvokeModel and Mantle), @ai-sdk/amazon-bedrock
// and LangChain's ChatBedrockConverse, in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BedrockRuntimeClient,
  BedrockRuntimeServiceException,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  ModelStreamErrorException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
  type BedrockRuntimeClientConfig,
  type ConverseStreamOutput,
  type Message,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import { FetchHttpHandler } from '@smithy/fetch-http-handler';
import { AnthropicBedrock, AnthropicBedrockMantle } from '@anthropic-ai/bedrock-sdk';
import Anthropic from '@anthropic-ai/sdk';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { ChatBedrockConverse } from '@langchain/aws';
import { tool as langchainTool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcess, modes, socketSuites, type Mode, type Running } from './helpers/modes.ts';
import type { Fixture } from '../src/index.ts';
import { startServer } from '../src/server.ts';
import { loadFixtureDir } from '../src/fixtures/load.ts';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const DUMMY = { accessKeyId: 'sk-test', secretAccessKey: 'any-secret' };
const weather: Tool = {
  toolSpec: {
    name: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
};
const fixtures: Fixture[] = [
  {
    name: 'paris',
    match: { model: 'claude-sonnet-4-5', userMessage: 'What is the capital of France?' },
    reply: { text: 'Paris is the capital of France.' },
  },
  {
    name: 'throttled',
    match: { userMessage: 'throttle me' },
    error: { status: 429, message: 'Too many requests, please wait before trying again.' },
  },
  { name: 'overloaded', match: { userMessage: 'overload me' }, fault: { type: 'OVERLOADED' } },
  { name: 'stream-throttled', match: { userMessage: 'throttle my stream' }, fault: { type: 'STREAM_ERROR', status: 429, after: 2 } },
  { name: 'stream-fails', match: { userMessage: 'fail my stream' }, fault: { type: 'STREAM_ERROR', after: 2 } },
  {
    name: 'raw-converse',
    match: { format: 'bedrock', userMessage: 'raw please' },
    raw: {
      bedrock: {
        output: { message: { role: 'assistant', content: [{ text: 'Verbatim.' }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
        metrics: { latencyMs: 7 },
      },
    },
  },
  {
    name: 'raw-converse-stream',
    match: { format: 'bedrock', userMessage: 'raw stream please' },
    raw: {
      bedrock: [
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { delta: { text: 'Verba' }, contentBlockIndex: 0 } },
        { contentBlockDelta: { delta: { text: 'tim.' }, contentBlockIndex: 0 } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'end_turn' } },
        { metadata: { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 7 } } },
      ],
    },
  },
];

const user = (text: string): Message => ({ role: 'user', content: [{ text }] });

/** The events of a ConverseStream, as the SDK parsed them. */
async function eventsOf(stream: AsyncIterable<ConverseStreamOutput> | undefined): Promise<ConverseStreamOutput[]> {
  const out: ConverseStreamOutput[] = [];
  for await (const event of stream!) out.push(event);
  return out;
}

/** The name of each event (its one member). */
const names = (events: ConverseStreamOutput[]) => events.map((e) => Object.keys(e).find((k) => e[k as keyof typeof e] !== undefined));

/**
 * The AWS SDK's client on the gateway with dummy credentials: over a socket exactly as built by
 * default (HTTP/2), in-process with a fetch handler (msw intercepts fetch, not node:http2).
 */
function runtimeClient(mode: Mode, gw: Running, config: BedrockRuntimeClientConfig = {}): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint: gw.root,
    region: 'us-east-1',
    credentials: DUMMY,
    maxAttempts: 1,
    ...(mode === inProcess ? { requestHandler: new FetchHttpHandler() } : {}),
    ...config,
  });
}

describe.each(modes)('Amazon Bedrock runtime ($name)', (mode) => {
  let gw: Running;
  let client: BedrockRuntimeClient;
  beforeAll(async () => {
    gw = await mode.start({ fixtures });
    client = runtimeClient(mode, gw);
  });
  afterAll(async () => {
    client.destroy();
    await gw.stop();
  });

  it('answers Converse with the assistant message, stop reason, usage and metrics', async () => {
    const out = await client.send(
      new ConverseCommand({ modelId: MODEL, messages: [user('Hello there')], inferenceConfig: { maxTokens: 300 } }),
    );
    expect(out.$metadata.httpStatusCode).toBe(200);
    expect(out.$metadata.requestId).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(out.output?.message?.role).toBe('assistant');
    expect(out.output?.message?.content?.[0].text).toBeTruthy();
    expect(out.stopReason).toBe('end_turn');
    expect(out.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(out.usage!.totalTokens).toBe(out.usage!.inputTokens! + out.usage!.outputTokens!);
    expect(out.metrics?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('streams ConverseStream in order, parsed by the SDK, with the same text as Converse', async () => {
    const plain = await client.send(new ConverseCommand({ modelId: MODEL, messages: [user('Stream please')] }));
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [user('Stream please')] }));
    const events = await eventsOf(out.stream);
    const kinds = names(events);
    expect(kinds[0]).toBe('messageStart');
    expect(kinds.slice(-3)).toEqual(['contentBlockStop', 'messageStop', 'metadata']);
    expect(new Set(kinds.slice(1, -3))).toEqual(new Set(['contentBlockDelta']));
    const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
    expect(text).toBe(plain.output?.message?.content?.[0].text);
    expect(events.at(-2)?.messageStop?.stopReason).toBe('end_turn');
    expect(events.at(-1)?.metadata?.usage).toEqual(plain.usage);
  });

  it('streams a tool use whose toolUse.input deltas join into valid JSON, then answers the tool result', async () => {
    const ask = user('What is the weather in Paris?');
    const first = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [ask], toolConfig: { tools: [weather] } }));
    const events = await eventsOf(first.stream);
    const start = events.find((e) => e.contentBlockStart)?.contentBlockStart;
    expect(start?.start?.toolUse?.name).toBe('get_weather');
    const index = start!.contentBlockIndex;
    const deltas = events.filter((e) => e.contentBlockDelta?.contentBlockIndex === index).map((e) => e.contentBlockDelta!.delta!);
    expect(deltas.length).toBeGreaterThan(1);
    // Each delta has exactly one member.
    for (const delta of deltas) expect(Object.keys(delta).filter((k) => delta[k as keyof typeof delta] !== undefined)).toEqual(['toolUse']);
    const input = JSON.parse(deltas.map((d) => d.toolUse!.input).join(''));
    expect(typeof input.city).toBe('string');
    expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('tool_use');

    const toolUseId = start!.start!.toolUse!.toolUseId!;
    const messages: Message[] = [
      ask,
      { role: 'assistant', content: [{ toolUse: { toolUseId, name: 'get_weather', input } }] },
      { role: 'user', content: [{ toolResult: { toolUseId, content: [{ json: { sky: 'clear', celsius: 21 } }], status: 'success' } }] },
    ];
    const second = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig: { tools: [weather] } }));
    expect(second.stopReason).toBe('end_turn');
    expect(second.output?.message?.content?.[0].text).toBeTruthy();
  });

  it('answers the same fixture on the direct Anthropic path, on Converse and on InvokeModel', async () => {
    const question = 'What is the capital of France?';
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    const direct = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: question }],
    });
    expect(direct.content[0]).toMatchObject({ type: 'text', text: 'Paris is the capital of France.' });
    for (const modelId of [
      MODEL,
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]) {
      const out = await client.send(new ConverseCommand({ modelId, messages: [user(question)] }));
      expect(out.output?.message?.content?.[0].text, modelId).toBe('Paris is the capital of France.');
    }
    const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: question }] };
    const invoked = await client.send(
      new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body: JSON.stringify(body) }),
    );
    const message = JSON.parse(new TextDecoder().decode(invoked.body));
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Paris is the capital of France.' }],
    });
    expect(invoked.contentType).toBe('application/json');
    const entries = (await gw.requests()).filter((e) => e.fixture === 'paris');
    expect(entries.map((e) => e.model)).toEqual(Array(5).fill('claude-sonnet-4-5'));
    // The journal names the way each came: direct, then Bedrock's paths (Converse's own, InvokeModel's mount).
    expect(entries.map((e) => e.dialect)).toEqual([undefined, 'bedrock', 'bedrock', 'bedrock', 'bedrock']);
  });

  // A second gateway: in-process, msw serves one at a time.
  it.runIf(mode !== inProcess)(
    'reads a model id the deployments option names (an application inference profile) on Converse and InvokeModel',
    async () => {
      const own = await mode.start({ fixtures, deployments: { 'my-claude-profile': 'claude-sonnet-4-5' } });
      const profiled = runtimeClient(mode, own);
      try {
        const question = 'What is the capital of France?';
        const out = await profiled.send(new ConverseCommand({ modelId: 'my-claude-profile', messages: [user(question)] }));
        expect(out.output?.message?.content?.[0].text).toBe('Paris is the capital of France.');
        const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: question }] };
        const invoked = await profiled.send(new InvokeModelCommand({ modelId: 'my-claude-profile', body: JSON.stringify(body) }));
        expect(JSON.parse(new TextDecoder().decode(invoked.body)).content[0].text).toBe('Paris is the capital of France.');
        // Without the option the same id is Bedrock's 400.
        await expect(client.send(new ConverseCommand({ modelId: 'my-claude-profile', messages: [user(question)] }))).rejects.toThrow(
          /model identifier is invalid/,
        );
      } finally {
        profiled.destroy();
        await own.stop();
      }
    },
  );

  it("answers any chat model of the catalogue on Converse, by its Bedrock id or the catalogue's name", async () => {
    for (const modelId of [
      'amazon.nova-pro-v1:0',
      'us.meta.llama3-3-70b-instruct-v1:0',
      'mistral.mistral-large-2407-v1:0',
      'gpt-4o',
      'gemini-2.5-flash',
    ]) {
      const out = await client.send(new ConverseCommand({ modelId, messages: [user('Hi')] }));
      expect(out.output?.message?.content?.[0].text, modelId).toBeTruthy();
    }
  });

  it('takes images, documents, guard content and cache points; reports cache writes, then reads', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const system = [
      { text: `You are a careful assistant. ${'Keep every answer short and exact. '.repeat(300)}` },
      { cachePoint: { type: 'default' as const } },
    ];
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { text: 'Describe these.' },
          { image: { format: 'png', source: { bytes: png } } },
          { document: { format: 'txt', name: 'notes', source: { bytes: new TextEncoder().encode('Some notes.') } } },
          { guardContent: { text: { text: 'Check this too.' } } },
        ],
      },
    ];
    const first = await client.send(
      new ConverseCommand({ modelId: MODEL, system, messages, guardrailConfig: { guardrailIdentifier: 'gr-1', guardrailVersion: '1' } }),
    );
    expect(first.usage?.cacheWriteInputTokens).toBeGreaterThan(1000);
    expect(first.usage?.cacheReadInputTokens).toBe(0);
    const second = await client.send(new ConverseCommand({ modelId: MODEL, system, messages }));
    expect(second.usage?.cacheReadInputTokens).toBe(first.usage?.cacheWriteInputTokens);
    expect(second.usage?.totalTokens).toBe(
      second.usage!.inputTokens! + second.usage!.outputTokens! + second.usage!.cacheReadInputTokens! + second.usage!.cacheWriteInputTokens!,
    );
  });

  it("shows Claude's thinking as reasoningContent when asked, text then signature when streamed", async () => {
    const ask = {
      modelId: MODEL,
      messages: [user('Think first')],
      inferenceConfig: { maxTokens: 4096 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
    };
    const plain = await client.send(new ConverseCommand(ask));
    const reasoning = plain.output?.message?.content?.[0].reasoningContent?.reasoningText;
    expect(reasoning?.text).toBeTruthy();
    expect(reasoning?.signature).toBeTruthy();
    const events = await eventsOf((await client.send(new ConverseStreamCommand(ask))).stream);
    const deltas = events
      .filter((e) => e.contentBlockDelta?.contentBlockIndex === 0)
      .map((e) => e.contentBlockDelta!.delta!.reasoningContent!);
    expect(
      deltas
        .slice(0, -1)
        .map((d) => d.text)
        .join(''),
    ).toBe(reasoning?.text);
    expect(deltas.at(-1)).toEqual({ signature: reasoning?.signature });
  });

  it('answers JSON that fits outputConfig.textFormat’s schema', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'integer' } },
      required: ['city', 'celsius'],
      additionalProperties: false,
    };
    const out = await client.send(
      new ConverseCommand({
        modelId: 'amazon.nova-pro-v1:0',
        messages: [user('Weather as JSON')],
        outputConfig: {
          textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'weather' } } },
        },
      }),
    );
    const value = JSON.parse(out.output!.message!.content![0].text!);
    expect(Object.keys(value).sort()).toEqual(['celsius', 'city']);
    expect(Number.isInteger(value.celsius)).toBe(true);
  });

  it('counts tokens (CountTokens) for a Converse input and an InvokeModel body', async () => {
    const converse = await client.send(
      new CountTokensCommand({ modelId: MODEL, input: { converse: { messages: [user('Count these words please')] } } }),
    );
    expect(converse.inputTokens).toBeGreaterThan(0);
    const body = new TextEncoder().encode(
      JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Count these words please' }],
      }),
    );
    const invoke = await client.send(new CountTokensCommand({ modelId: MODEL, input: { invokeModel: { body } } }));
    expect(invoke.inputTokens).toBe(converse.inputTokens);
  });

  it('raises errors as the SDK’s own classes: ThrottlingException, ServiceUnavailableException, ValidationException', async () => {
    const fail = (messages: Message[], modelId = MODEL) =>
      client.send(new ConverseCommand({ modelId, messages })).then(
        () => undefined,
        (e: unknown) => e,
      );
    const throttled = await fail([user('throttle me')]);
    expect(throttled).toBeInstanceOf(ThrottlingException);
    expect((throttled as ThrottlingException).message).toBe('Too many requests, please wait before trying again.');
    expect((throttled as ThrottlingException).$metadata.httpStatusCode).toBe(429);
    expect(await fail([user('overload me')])).toBeInstanceOf(ServiceUnavailableException);
    const unknown = await fail([user('Hi')], 'acme.rocket-v1:0');
    expect(unknown).toBeInstanceOf(ValidationException);
    expect((unknown as Error).message).toMatch(/^The provided model identifier is invalid\./);
    const twoMembers = await fail([
      { role: 'user', content: [{ text: 'Look', image: { format: 'png', source: { bytes: new Uint8Array([1, 2]) } } } as never] },
    ]);
    expect(twoMembers).toBeInstanceOf(ValidationException);
    expect((twoMembers as Error).message).toMatch(/at 'messages\.1\.member\.content\.1\.member' .*exactly one of .*found 2: text, image/);
    const assistantFirst = await fail([{ role: 'assistant', content: [{ text: 'Hi' }] }]);
    expect((assistantFirst as Error).message).toBe(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
    const noToolConfig = await fail([
      user('Hi'),
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'sunny' }] } }] },
    ]);
    expect((noToolConfig as Error).message).toBe('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  });

  it('sends a failure part-way through a stream as an exception frame the SDK raises', async () => {
    const run = async (text: string) => {
      const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [user(text)] }));
      const seen: string[] = [];
      try {
        for await (const event of out.stream!) seen.push(names([event])[0]!);
      } catch (error) {
        return { seen, error };
      }
      return { seen, error: undefined };
    };
    const throttled = await run('throttle my stream');
    expect(throttled.seen).toEqual(['messageStart', 'contentBlockDelta']);
    expect(throttled.error).toBeInstanceOf(ThrottlingException);
    const failed = await run('fail my stream');
    expect(failed.error).toBeInstanceOf(ModelStreamErrorException);
    expect((failed.error as ModelStreamErrorException).originalStatusCode).toBe(500);
  });

  it("replays a fixture's raw Converse body and raw stream events", async () => {
    const plain = await client.send(new ConverseCommand({ modelId: MODEL, messages: [user('raw please')] }));
    expect(plain.output?.message?.content?.[0].text).toBe('Verbatim.');
    expect(plain.metrics?.latencyMs).toBe(7);
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [user('raw stream please')] }));
    const events = await eventsOf(out.stream);
    expect(events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('')).toBe('Verbatim.');
    expect(events.at(-1)?.metadata?.usage?.totalTokens).toBe(5);
  });

  it('takes a Bedrock API key as a bearer token, and refuses an unknown access key as AWS does', async () => {
    const bearer = runtimeClient(mode, gw, { token: { token: 'sk-test' }, authSchemePreference: ['httpBearerAuth'] });
    expect((await bearer.send(new ConverseCommand({ modelId: MODEL, messages: [user('Hi')] }))).stopReason).toBe('end_turn');
    bearer.destroy();
    const stranger = runtimeClient(mode, gw, { credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'x' } });
    const error = await stranger.send(new ConverseCommand({ modelId: MODEL, messages: [user('Hi')] })).then(
      () => undefined,
      (e: unknown) => e,
    );
    stranger.destroy();
    expect(error).toBeInstanceOf(BedrockRuntimeServiceException);
    expect((error as BedrockRuntimeServiceException).name).toBe('UnrecognizedClientException');
    expect((error as BedrockRuntimeServiceException).$metadata.httpStatusCode).toBe(403);
  });

  it('refuses a malformed SigV4 header with 403 and a body naming what is wrong; bad input never reaches a 500', async () => {
    const send = (
      headers: Record<string, string>,
      body: unknown = { messages: [user('Hi')] },
      path = `/model/${encodeURIComponent(MODEL)}/converse`,
    ) =>
      fetch(`${gw.root}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const date = '20261128T101500Z';
    const sig = 'a'.repeat(64);
    const cases: [Record<string, string>, number, string, RegExp][] = [
      [
        { authorization: 'AWS4-HMAC-SHA256 Credential=sk-test/20261128/us-east-1/bedrock/aws4_request', 'x-amz-date': date },
        403,
        'IncompleteSignatureException',
        /requires 'Signature' parameter\. .*requires 'SignedHeaders' parameter\./,
      ],
      [
        {
          authorization: `AWS4-HMAC-SHA256 Credential=sk-test/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=${sig}`,
        },
        403,
        'IncompleteSignatureException',
        /existence of either a 'X-Amz-Date' or a 'Date' header/,
      ],
      [
        {
          authorization: `AWS4-HMAC-SHA256 Credential=sk-test/20261128/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
          'x-amz-date': date,
        },
        403,
        'InvalidSignatureException',
        /scoped to correct service: 'bedrock'/,
      ],
      [
        {
          authorization: `AWS4-HMAC-SHA256 Credential=sk-test/20200101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=${sig}`,
          'x-amz-date': date,
        },
        403,
        'InvalidSignatureException',
        /Date in Credential scope does not match/,
      ],
      [
        {
          authorization: `AWS4-HMAC-SHA256 Credential=sk-test/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=zz`,
          'x-amz-date': date,
        },
        403,
        'InvalidSignatureException',
        /64 hexadecimal digits/,
      ],
      [{ authorization: 'Basic c2stdGVzdDp4', 'x-amz-date': date }, 403, 'IncompleteSignatureException', /Unsupported algorithm 'Basic'/],
      [{}, 403, 'UnrecognizedClientException', /didn't provide an API key/],
    ];
    for (const [headers, status, type, message] of cases) {
      const res = await send(headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(res.headers.get('x-amzn-errortype')?.split(':')[0]).toBe(type);
      expect(res.headers.get('x-amzn-requestid')).toBeTruthy();
      expect((await res.json()).message).toMatch(message);
    }
    // A well-formed signature with the token as its access key id passes; its value is not checked.
    const signed = {
      authorization: `AWS4-HMAC-SHA256 Credential=sk-test/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=${sig}`,
      'x-amz-date': date,
    };
    expect((await send(signed)).status).toBe(200);
    const bad: [unknown, string?][] = [
      [{ messages: [{ role: 'user', content: [] }] }],
      [{ messages: [{ role: 'robot', content: [{ text: 'Hi' }] }] }],
      [{ messages: [user('Hi')], inferenceConfig: { maxTokens: 0 } }],
      [{ messages: [user('Hi')], inferenceConfig: { temperature: 'hot' } }],
      [{ messages: [user('Hi')], toolConfig: { tools: [] } }],
      [{ messages: [user('Hi')], toolConfig: { tools: [weather], toolChoice: { tool: { name: 'other' } } } }],
      [{ messages: [{ role: 'user', content: [{ image: { format: 'bmp', source: { bytes: 'AA==' } } }] }] }],
      [{ messages: 'Hi' }],
      [{ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], model: 'x' }, 'invoke'],
      [{ max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, 'invoke'],
      [
        { anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] },
        'invoke:amazon.nova-pro-v1:0',
      ],
    ];
    for (const [body, operation = 'converse'] of bad) {
      const [op, model = MODEL] = operation.split(/:(.*)/);
      const res = await send(signed, body, `/model/${encodeURIComponent(model)}/${op}`);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('x-amzn-errortype')?.split(':')[0]).toBe('ValidationException');
      expect(typeof (await res.json()).message).toBe('string');
    }
    const notJson = await fetch(`${gw.root}/model/${encodeURIComponent(MODEL)}/converse`, {
      method: 'POST',
      headers: { ...signed, 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(notJson.status).toBe(400);
    const unknownOperation = await send(signed, {}, `/model/${encodeURIComponent(MODEL)}/converse-later`);
    expect(unknownOperation.status).toBe(404);
    expect(unknownOperation.headers.get('x-amzn-errortype')).toMatch(/^\w+Exception:/);
  });

  it('@anthropic-ai/bedrock-sdk: messages through InvokeModel, plain and streamed (chunk frames)', async () => {
    const bedrock = new AnthropicBedrock({
      baseURL: gw.root,
      awsRegion: 'us-east-1',
      awsAccessKey: DUMMY.accessKeyId,
      awsSecretKey: DUMMY.secretAccessKey,
      maxRetries: 0,
    });
    const message = await bedrock.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Paris is the capital of France.' });
    const stream = bedrock.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Stream please' }] });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect((final.content[0] as { text: string }).text).toBeTruthy();
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    const keyed = new AnthropicBedrock({ baseURL: gw.root, awsRegion: 'us-east-1', apiKey: 'sk-test', maxRetries: 0 });
    expect((await keyed.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] })).type).toBe(
      'message',
    );
  });

  it('@anthropic-ai/bedrock-sdk: AnthropicBedrockMantle on /anthropic, signed for bedrock-mantle or with a key', async () => {
    for (const auth of [{ awsAccessKey: DUMMY.accessKeyId, awsSecretAccessKey: DUMMY.secretAccessKey }, { apiKey: 'sk-test' }]) {
      const mantle = new AnthropicBedrockMantle({ baseURL: `${gw.root}/anthropic`, awsRegion: 'us-east-1', maxRetries: 0, ...auth });
      const message = await mantle.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
      });
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Paris is the capital of France.' });
      const stream = mantle.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Stream please' }] });
      expect((await stream.finalMessage()).stop_reason).toBe('end_turn');
    }
  });

  it('@ai-sdk/amazon-bedrock completes a tool loop, plain and streamed', async () => {
    const bedrock = createAmazonBedrock({ baseURL: gw.root, region: 'us-east-1', ...DUMMY });
    const calls: string[] = [];
    const tools = {
      get_weather: tool({
        description: 'Current weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          calls.push(city);
          return `Sunny in ${city}`;
        },
      }),
    };
    const result = await generateText({ model: bedrock(MODEL), prompt: 'What is the weather in Paris?', tools, stopWhen: stepCountIs(4) });
    expect(result.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(calls).toHaveLength(1);
    expect(result.text).toContain(`Sunny in ${calls[0]}`);
    expect(result.response.id).toBeTruthy();
    const streamed = streamText({ model: bedrock(MODEL), prompt: 'What is the weather in Paris?', tools, stopWhen: stepCountIs(4) });
    expect(await streamed.text).toBe(result.text);
    expect((await streamed.steps).length).toBe(2);
  });

  it("LangChain's ChatBedrockConverse completes a tool loop", async () => {
    const weatherTool = langchainTool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
      name: 'get_weather',
      description: 'Current weather in a city',
      schema: z.object({ city: z.string() }),
    });
    const model = new ChatBedrockConverse({ model: MODEL, region: 'us-east-1', client: runtimeClient(mode, gw) }).bindTools([weatherTool]);
    const messages: BaseMessage[] = [new HumanMessage('What is the weather in Paris?')];
    const first = await model.invoke(messages);
    expect(first.tool_calls?.map((c) => c.name)).toEqual(['get_weather']);
    messages.push(first);
    for (const call of first.tool_calls!)
      messages.push(new ToolMessage({ content: await weatherTool.invoke(call.args as { city: string }), tool_call_id: call.id! }));
    const second = await model.invoke(messages);
    expect(second.tool_calls ?? []).toEqual([]);
    expect(String(second.content)).toContain('Sunny in');
    let streamed = '';
    for await (const chunk of await model.stream([new HumanMessage('Hello')])) streamed += String(chunk.content);
    expect(streamed).toBeTruthy();
  });
});

describe.runIf(socketSuites)('recordings made on the direct Anthropic path replay on InvokeModel as they are', () => {
  it('answers InvokeModel and InvokeModelWithResponseStream from fixtures recorded by /v1/messages', async () => {
    // The "real service" synthesizes with another seed than the replaying gateway: a replay is told apart.
    const upstream = await startServer({ port: 0, seed: 7 });
    const dir = mkdtempSync(join(tmpdir(), 'mgm-bedrock-replay-'));
    const recorder = await startServer({ port: 0, record: { dir, upstreams: { default: upstream.url } } });
    const ask = { model: 'claude-sonnet-4-5', max_tokens: 200, messages: [{ role: 'user' as const, content: 'Tell me about Lisbon' }] };
    const direct = new Anthropic({ apiKey: 'sk-test', baseURL: recorder.url, maxRetries: 0 });
    const recorded = await direct.messages.create(ask);
    const recordedStream = await direct.messages.stream(ask).finalMessage();
    await recorder.close();
    await upstream.close();
    // Record mode pins the path it recorded on (match.endpoint, /v1/messages): InvokeModel is that
    // endpoint mounted on Bedrock's paths, so the recordings answer it unchanged.
    const fixtures = loadFixtureDir(dir);
    expect(fixtures.map((f) => f.match?.endpoint)).toEqual(['/v1/messages', '/v1/messages']);
    const replay = await startServer({ port: 0, fixtures, strict: true });
    try {
      const bedrock = new AnthropicBedrock({ baseURL: replay.url, awsRegion: 'us-east-1', apiKey: 'sk-test', maxRetries: 0 });
      const { model: _model, ...body } = ask;
      const replayed = await bedrock.messages.create({ ...body, model: MODEL });
      expect(replayed.content).toEqual(recorded.content);
      expect(replayed.usage.output_tokens).toBe(recorded.usage.output_tokens);
      const streamed = await bedrock.messages.stream({ ...body, model: MODEL }).finalMessage();
      expect(streamed.content).toEqual(recordedStream.content);
      expect(replay.gateway.requests().map((e) => [e.path.split('/').pop(), e.status, e.fixture?.startsWith('recorded ')])).toEqual([
        ['invoke', 200, true],
        ['invoke-with-response-stream', 200, true],
      ]);
    } finally {
      await replay.close();
    }
  });
});
