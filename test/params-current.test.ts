// Current with the vendors' request types: every parameter the installed SDKs' params types define is
// accepted (read from their .d.ts files at test time, so an SDK bump fails here until the gateway and
// the value table below follow); a parameter nobody defines passes with a warning, or gets the
// vendor's 400 under strictParams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setupServer } from 'msw/node';
import OpenAI, { toFile } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { encode as encodePng } from 'fast-png';
import { createGateway, type GatewayOptions } from '../src/index.ts';
import { strictListen } from './helpers/modes.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';

/** The top-level members of `export interface <name>` in a package's .d.ts. */
function members(pkg: string, file: string, name: string): string[] {
  const text = readFileSync(fileURLToPath(new URL(`../node_modules/${pkg}/${file}`, import.meta.url)), 'utf8');
  const body = new RegExp(`export interface ${name}\\b[^{]*\\{\\n([\\s\\S]*?)\\n\\}\\n`).exec(text)?.[1];
  if (!body) throw new Error(`${pkg}/${file}: no interface ${name} (did the SDK move it?)`);
  return [...body.matchAll(/^ {4}(?:readonly )?([A-Za-z_]\w*)\??:/gm)].map((m) => m[1]);
}

const user = [{ role: 'user' as const, content: 'Hi' }];
const tool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

// A valid value for every parameter of each params type (the SDK's own types check them).
const CHAT = {
  messages: user, model: 'gpt-4o', audio: { voice: 'alloy', format: 'wav' }, frequency_penalty: 0.1, logit_bias: { '50256': -100 }, logprobs: true,
  max_completion_tokens: 20, max_tokens: 20, metadata: { team: 'a' }, modalities: ['text'], moderation: { model: 'omni-moderation-latest' }, n: 1,
  parallel_tool_calls: true, prediction: { type: 'content', content: 'Hello' }, presence_penalty: 0.1, prompt_cache_key: 'k', prompt_cache_options: { mode: 'implicit' },
  prompt_cache_retention: 'in_memory', reasoning_effort: 'low', response_format: { type: 'text' }, safety_identifier: 'u1', seed: 1, service_tier: 'auto', stop: ['zzz'],
  store: false, stream: false, stream_options: null, temperature: 1, tool_choice: 'auto', tools: [tool], top_logprobs: 2, top_p: 1, user: 'u1', verbosity: 'low',
  web_search_options: {},
  // Deprecated forms of tools, not sent with `tools` (the service refuses both at once).
  function_call: undefined, functions: undefined,
} satisfies Record<string, unknown>;

const RESPONSES = {
  model: 'gpt-5', input: 'Hi', access_programs: { cyber: 'standard' }, background: false, context_management: [{ type: 'compaction', compact_threshold: 1000 }], conversation: undefined,
  image: { context_compression: 'auto' }, include: ['message.output_text.logprobs'], instructions: 'Be brief.', max_output_tokens: 64, max_tool_calls: 2, metadata: { team: 'a' },
  moderation: { model: 'omni-moderation-latest' }, parallel_tool_calls: true, previous_response_id: undefined, prompt: { id: 'pmpt_1' }, prompt_cache_key: 'k',
  prompt_cache_options: { mode: 'implicit', ttl: '30m' }, prompt_cache_retention: 'in_memory', reasoning: { effort: 'low' }, safety_identifier: 'u1', service_tier: 'auto', store: false,
  stream: false, stream_options: null, temperature: 1, text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
  top_logprobs: 2, top_p: 1, truncation: 'auto', user: 'u1',
} satisfies Record<string, unknown>;

const COMPACT = {
  model: 'gpt-5', input: 'Hi', image: { context_compression: 'auto' }, instructions: 'Be brief.', previous_response_id: undefined, prompt_cache_key: 'k',
  prompt_cache_options: { mode: 'implicit', ttl: '30m' }, prompt_cache_retention: 'in_memory', service_tier: 'auto',
} satisfies Record<string, unknown>;

const EMBEDDINGS = { input: 'Hi', model: 'text-embedding-3-small', dimensions: 256, encoding_format: 'float', user: 'u1' } satisfies Record<string, unknown>;

const IMAGES = {
  prompt: 'a red square', model: 'gpt-image-1', background: 'auto', complexity: 'low', frame_count: 1, frame_duration_ms: 100, moderation: 'auto', n: 1, output_compression: 50,
  output_format: 'jpeg', partial_images: undefined, quality: 'low', response_format: undefined, safety_identifier: 'u1', size: '1024x1024', stream: false, style: undefined, svg: null, user: 'u1',
} satisfies Record<string, unknown>;

// The image is filled in by the test (an upload).
const VARIATION = { image: undefined, model: 'dall-e-2', n: 1, response_format: 'b64_json', size: '256x256', user: 'u1' } satisfies Record<string, unknown>;

const SPEECH = { input: 'Hi', model: 'gpt-4o-mini-tts', voice: 'alloy', instructions: 'Calmly.', response_format: 'wav', speed: 1.2, stream_format: 'audio' } satisfies Record<string, unknown>;

// The file is filled in by the test (an upload).
const TRANSCRIPTION = {
  file: undefined, model: 'gpt-4o-transcribe', chunking_strategy: 'auto', include: ['logprobs'], keywords: ['emulator'], known_speaker_names: undefined, known_speaker_references: undefined,
  language: 'en', languages: ['en'], prompt: 'Hello', response_format: 'json', stream: false, temperature: 0, timestamp_granularities: undefined,
} satisfies Record<string, unknown>;

const MESSAGES = {
  max_tokens: 20, messages: user, model: 'claude-sonnet-4-5', cache_control: { type: 'ephemeral' }, container: undefined, diagnostics: {}, inference_geo: 'us', metadata: { user_id: 'u1' },
  output_config: {}, service_tier: 'auto', speed: 'standard', stop_sequences: ['zzz'], stream: false, system: 'Be brief.', thinking: { type: 'disabled' }, tool_choice: { type: 'auto' },
  tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }], user_profile_id: 'up_1', workspace_id: 'ws_1',
} satisfies Record<string, unknown>;

const OPENAI_TYPES = 'resources';
const TYPES = [
  ['chat completions', CHAT, 'openai', `${OPENAI_TYPES}/chat/completions/completions.d.ts`, 'ChatCompletionCreateParamsBase'],
  ['responses', RESPONSES, 'openai', `${OPENAI_TYPES}/responses/responses.d.ts`, 'ResponseCreateParamsBase'],
  ['responses.compact', COMPACT, 'openai', `${OPENAI_TYPES}/responses/responses.d.ts`, 'ResponseCompactParams'],
  ['image variations', VARIATION, 'openai', `${OPENAI_TYPES}/images.d.ts`, 'ImageCreateVariationParams'],
  ['embeddings', EMBEDDINGS, 'openai', `${OPENAI_TYPES}/embeddings.d.ts`, 'EmbeddingCreateParams'],
  ['images', IMAGES, 'openai', `${OPENAI_TYPES}/images.d.ts`, 'ImageGenerateParamsBase'],
  ['speech', SPEECH, 'openai', `${OPENAI_TYPES}/audio/speech.d.ts`, 'SpeechCreateParams'],
  ['transcriptions', TRANSCRIPTION, 'openai', `${OPENAI_TYPES}/audio/transcriptions.d.ts`, 'TranscriptionCreateParamsBase'],
  ['Anthropic messages', MESSAGES, '@anthropic-ai/sdk', 'resources/messages/messages.d.ts', 'MessageCreateParamsBase'],
] as const;

describe.each(TYPES)('%s: the params type of the installed SDK', (_name, values, pkg, file, type) => {
  it('has a value here for every parameter it defines', () => {
    const defined = members(pkg, file, type);
    expect(defined.length).toBeGreaterThan(3);
    expect(defined.filter((name) => !(name in values))).toEqual([]);
  });
});

/** Without the parameters left undefined: those that exclude another sent here (functions, partial_images without stream…), or need what the test makes (the file). */
const sent = <T extends Record<string, unknown>>(values: T) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as T;

function inProcess(options: GatewayOptions) {
  const ctx = {} as { openai: OpenAI; anthropic: Anthropic; wav: Uint8Array };
  const gateway = createGateway(options);
  const server = setupServer(...gateway.handlers);
  beforeAll(async () => {
    strictListen(server);
    ctx.openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
    ctx.anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
    ctx.wav = new Uint8Array(await (await ctx.openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'wav' })).arrayBuffer());
  });
  afterAll(() => server.close());
  return { ctx, gateway };
}

describe('every SDK parameter is accepted, even under strictParams (in-process)', () => {
  const { ctx, gateway } = inProcess({ strictParams: true });

  it('chat completions', async () => {
    const r = await ctx.openai.chat.completions.create(sent(CHAT) as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.choices).toHaveLength(1);
  });
  it('responses', async () => {
    const r = await ctx.openai.responses.create(sent(RESPONSES) as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(r.status).toBeDefined();
  });
  it('responses.compact', async () => {
    const r = await ctx.openai.responses.compact(sent(COMPACT) as OpenAI.Responses.ResponseCompactParams);
    expect(r.object).toBe('response.compaction');
  });
  it('image variations', async () => {
    const image = await toFile(encodePng({ width: 8, height: 8, data: new Uint8Array(256).fill(200), channels: 4, depth: 8 }), 'in.png', { type: 'image/png' });
    const r = await ctx.openai.images.createVariation({ ...sent(VARIATION), image } as OpenAI.ImageCreateVariationParams);
    expect(r.data).toHaveLength(1);
  });
  it('embeddings', async () => {
    const r = await ctx.openai.embeddings.create(sent(EMBEDDINGS) as OpenAI.EmbeddingCreateParams);
    expect(r.data[0].embedding).toHaveLength(256);
  });
  it('images', async () => {
    const r = await ctx.openai.images.generate(sent(IMAGES) as OpenAI.ImageGenerateParamsNonStreaming);
    expect(r.output_format).toBe('jpeg');
  });
  it('speech', async () => {
    const r = await ctx.openai.audio.speech.create(sent(SPEECH) as OpenAI.Audio.SpeechCreateParams);
    expect(r.headers.get('content-type')).toBe('audio/wav');
  });
  it('transcriptions', async () => {
    const file = await toFile(ctx.wav, 'hello.wav', { type: 'audio/wav' });
    const r = await ctx.openai.audio.transcriptions.create({ ...sent(TRANSCRIPTION), file } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
    expect(typeof r.text).toBe('string');
  });
  it('Anthropic messages', async () => {
    const r = await ctx.anthropic.messages.create(sent(MESSAGES) as Anthropic.MessageCreateParamsNonStreaming);
    expect(r.type).toBe('message');
  });
  it('none of them was journaled as unrecognized', () => {
    expect(gateway.requests().filter((e) => e.warnings)).toEqual([]);
  });

  it('refuses an unknown parameter with the vendor’s own 400 under strictParams', async () => {
    await expect(ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, foo: 1 } as never)).rejects.toMatchObject({ status: 400, param: 'foo', message: expect.stringContaining('Unrecognized request argument supplied: foo') });
    await expect(ctx.anthropic.messages.create({ ...sent(MESSAGES), foo: 1 } as never)).rejects.toMatchObject({ status: 400 });
  });
});

const UNKNOWN = { bar: 1, foo: 'x' };

describe('an unknown parameter passes with a warning by default (in-process)', () => {
  const { ctx, gateway } = inProcess({});

  it.each([
    ['chat completions', (o: OpenAI) => o.chat.completions.create({ model: 'gpt-4o', messages: user, ...UNKNOWN } as never).withResponse()],
    ['responses', (o: OpenAI) => o.responses.create({ model: 'gpt-5', input: 'Hi', ...UNKNOWN } as never).withResponse()],
    ['embeddings', (o: OpenAI) => o.embeddings.create({ model: 'text-embedding-3-small', input: 'Hi', ...UNKNOWN } as never).withResponse()],
    ['images', (o: OpenAI) => o.images.generate({ model: 'gpt-image-1', prompt: 'a dot', ...UNKNOWN } as never).withResponse()],
    ['speech', (o: OpenAI) => o.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi', ...UNKNOWN } as never).withResponse()],
    ['completions', (o: OpenAI) => o.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', ...UNKNOWN } as never).withResponse()],
  ])('%s', async (_name, call) => {
    const { response } = await call(ctx.openai);
    expect(response.headers.get('x-mock-warning')).toBe('unrecognized request argument "bar", unrecognized request argument "foo"');
    const entry = gateway.requests().at(-1)!;
    expect(entry.warnings).toEqual(['unrecognized request argument "bar"', 'unrecognized request argument "foo"']);
    // The journal keeps what was sent.
    expect(entry.body).toMatchObject(UNKNOWN);
  });

  it('transcriptions (multipart) and Anthropic messages', async () => {
    const file = await toFile(ctx.wav, 'hello.wav', { type: 'audio/wav' });
    const t = await ctx.openai.audio.transcriptions.create({ model: 'whisper-1', file, foo: 'x' } as never).withResponse();
    expect(t.response.headers.get('x-mock-warning')).toBe('unrecognized request argument "foo"');
    const m = await ctx.anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: user, foo: 'x' } as never).withResponse();
    expect(m.response.headers.get('x-mock-warning')).toBe('unrecognized request argument "foo"');
  });

  it('answers as without it, and still refuses a bad value of a known parameter', async () => {
    const plain = await ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user });
    const extra = await ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, foo: 1 } as never);
    expect(extra.choices).toEqual(plain.choices);
    await expect(ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, temperature: 9, foo: 1 } as never)).rejects.toMatchObject({ status: 400, param: 'temperature' });
  });
});

describe('over a socket: --strict-params', () => {
  let lenient: Spawned;
  let strict: Spawned;
  beforeAll(async () => {
    [lenient, strict] = await Promise.all([spawnCli([]), spawnCli(['--strict-params'])]);
  });
  afterAll(() => Promise.all([lenient.stop(), strict.stop()]));

  it('warns by default and refuses with the flag', async () => {
    const body = JSON.stringify({ model: 'gpt-4o', messages: user, moderation: { model: 'omni-moderation-latest' }, foo: 1 });
    const ask = (root: string) => fetch(`${root}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body });
    const ok = await ask(lenient.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-mock-warning')).toBe('unrecognized request argument "foo"');
    // A name is the client's text: control characters and the like are escaped, a long one cut (found by the fuzz suite: a NUL broke the header).
    const odd = await fetch(`${lenient.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: user, ['a\u0000é']: 1, ['x'.repeat(300)]: 2 }) });
    expect(odd.status).toBe(200);
    expect(odd.headers.get('x-mock-warning')).toBe(`unrecognized request argument "a\\u0000\\u00e9", unrecognized request argument "${'x'.repeat(100)}\\u2026"`);
    // Named one by one up to ten, then counted: a body may hold 10 000 keys, and a header must stay small.
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`unknown_${String(i).padStart(3, '0')}_${'y'.repeat(80)}`, i]));
    const crowded = await fetch(`${lenient.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: user, ...many }) });
    expect(crowded.status).toBe(200);
    const warned = crowded.headers.get('x-mock-warning')!.split(', ');
    expect(warned).toHaveLength(11);
    expect(warned.at(-1)).toBe('and 390 more unrecognized request arguments');
    const refused = await ask(strict.url);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('Unrecognized request argument supplied: foo');
  });
});
