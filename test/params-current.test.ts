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
import {
  FeatureSelectionPreference,
  FunctionCallingConfigMode,
  GoogleGenAI,
  HarmBlockThreshold,
  HarmCategory,
  MediaResolution,
  Modality,
  PersonGeneration,
  ProminentPeople,
  ServiceTier,
  Type,
} from '@google/genai';
import { encode as encodePng } from 'fast-png';
import { OAuth2Client } from 'google-auth-library';
import { createGateway, type GatewayOptions } from '../src/index.ts';
import { strictListen } from './helpers/modes.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';

/** The top-level members of `export [declare] interface <name>` in a package's .d.ts, with those of the page params it extends. */
function members(pkg: string, file: string, name: string): string[] {
  const text = readFileSync(fileURLToPath(new URL(`../node_modules/${pkg}/${file}`, import.meta.url)), 'utf8').replace(/\r\n/g, '\n');
  const found = new RegExp(`export (?:declare )?interface ${name}\\b([^{]*)\\{\\n([\\s\\S]*?)\\n\\}\\n`).exec(text);
  if (!found) throw new Error(`${pkg}/${file}: no interface ${name} (did the SDK move it?)`);
  const own = [...found[2].matchAll(/^ {4}(?:readonly )?([A-Za-z_]\w*)\??:/gm)].map((m) => m[1]);
  // List params extend the cursor params of the SDK's pagination module.
  const base = /extends (\w*PageParams)\b/.exec(found[1])?.[1];
  return base ? [...members(pkg, 'core/pagination.d.ts', base), ...own] : own;
}

const user = [{ role: 'user' as const, content: 'Hi' }];
const tool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

// A valid value for every parameter of each params type (the SDK's own types check them).
const CHAT = {
  messages: user,
  model: 'gpt-4o',
  audio: { voice: 'alloy', format: 'wav' },
  frequency_penalty: 0.1,
  logit_bias: { '50256': -100 },
  logprobs: true,
  max_completion_tokens: 20,
  max_tokens: 20,
  metadata: { team: 'a' },
  modalities: ['text'],
  moderation: { model: 'omni-moderation-latest' },
  n: 1,
  parallel_tool_calls: true,
  prediction: { type: 'content', content: 'Hello' },
  presence_penalty: 0.1,
  prompt_cache_key: 'k',
  prompt_cache_options: { mode: 'implicit' },
  prompt_cache_retention: 'in_memory',
  reasoning_effort: 'low',
  response_format: { type: 'text' },
  safety_identifier: 'u1',
  seed: 1,
  service_tier: 'auto',
  stop: ['zzz'],
  store: false,
  stream: false,
  stream_options: null,
  temperature: 1,
  tool_choice: 'auto',
  tools: [tool],
  top_logprobs: 2,
  top_p: 1,
  user: 'u1',
  verbosity: 'low',
  web_search_options: {},
  // Deprecated forms of tools, not sent with `tools` (the service refuses both at once).
  function_call: undefined,
  functions: undefined,
} satisfies Record<string, unknown>;

const RESPONSES = {
  model: 'gpt-5',
  input: 'Hi',
  access_programs: { cyber: 'standard' },
  background: false,
  background_options: { completion_window: 'soonest', continuation_id: 'c1' },
  context_management: [{ type: 'compaction', compact_threshold: 1000 }],
  conversation: undefined,
  image: { context_compression: 'auto' },
  include: ['message.output_text.logprobs'],
  instructions: 'Be brief.',
  max_output_tokens: 64,
  max_tool_calls: 2,
  metadata: { team: 'a' },
  moderation: { model: 'omni-moderation-latest' },
  parallel_tool_calls: true,
  previous_response_id: undefined,
  prompt: { id: 'pmpt_1' },
  prompt_cache_key: 'k',
  prompt_cache_options: { mode: 'implicit', ttl: '30m' },
  prompt_cache_retention: 'in_memory',
  reasoning: { effort: 'low' },
  safety_identifier: 'u1',
  service_tier: 'auto',
  store: false,
  stream: false,
  stream_options: null,
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
  top_logprobs: 2,
  top_p: 1,
  truncation: 'auto',
  user: 'u1',
} satisfies Record<string, unknown>;

const COMPACT = {
  model: 'gpt-5',
  input: 'Hi',
  image: { context_compression: 'auto' },
  instructions: 'Be brief.',
  previous_response_id: undefined,
  prompt_cache_key: 'k',
  prompt_cache_options: { mode: 'implicit', ttl: '30m' },
  prompt_cache_retention: 'in_memory',
  service_tier: 'auto',
} satisfies Record<string, unknown>;

const EMBEDDINGS = { input: 'Hi', model: 'text-embedding-3-small', dimensions: 256, encoding_format: 'float', user: 'u1' } satisfies Record<
  string,
  unknown
>;

const IMAGES = {
  prompt: 'a red square',
  model: 'gpt-image-1',
  background: 'auto',
  complexity: 'low',
  frame_count: 1,
  frame_duration_ms: 100,
  moderation: 'auto',
  n: 1,
  output_compression: 50,
  output_format: 'jpeg',
  partial_images: undefined,
  quality: 'low',
  response_format: undefined,
  safety_identifier: 'u1',
  size: '1024x1024',
  stream: false,
  style: undefined,
  svg: null,
  user: 'u1',
} satisfies Record<string, unknown>;

// The image is filled in by the test (an upload).
const VARIATION = { image: undefined, model: 'dall-e-2', n: 1, response_format: 'b64_json', size: '256x256', user: 'u1' } satisfies Record<
  string,
  unknown
>;

const SPEECH = {
  input: 'Hi',
  model: 'gpt-4o-mini-tts',
  voice: 'alloy',
  instructions: 'Calmly.',
  response_format: 'wav',
  speed: 1.2,
  stream_format: 'audio',
} satisfies Record<string, unknown>;

// The file is filled in by the test (an upload).
const TRANSCRIPTION = {
  file: undefined,
  model: 'gpt-4o-transcribe',
  chunking_strategy: 'auto',
  include: ['logprobs'],
  keywords: ['emulator'],
  known_speaker_names: undefined,
  known_speaker_references: undefined,
  language: 'en',
  languages: ['en'],
  prompt: 'Hello',
  response_format: 'json',
  stream: false,
  temperature: 0,
  timestamp_granularities: undefined,
} satisfies Record<string, unknown>;

const MESSAGES = {
  max_tokens: 20,
  messages: user,
  model: 'claude-sonnet-4-5',
  cache_control: { type: 'ephemeral' },
  container: undefined,
  diagnostics: {},
  inference_geo: 'us',
  metadata: { user_id: 'u1' },
  output_config: {},
  service_tier: 'auto',
  speed: 'standard',
  stop_sequences: ['zzz'],
  stream: false,
  system: 'Be brief.',
  thinking: { type: 'disabled' },
  tool_choice: { type: 'auto' },
  tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }],
  user_profile_id: 'up_1',
  workspace_id: 'ws_1',
} satisfies Record<string, unknown>;

const COMPLETIONS = {
  model: 'gpt-3.5-turbo-instruct',
  prompt: 'Hi',
  best_of: 1,
  echo: false,
  frequency_penalty: 0.1,
  logit_bias: { '50256': -100 },
  logprobs: 2,
  max_tokens: 16,
  n: 1,
  presence_penalty: 0.1,
  seed: 1,
  stop: ['zzz'],
  stream: false,
  stream_options: null,
  suffix: 'The end.',
  temperature: 1,
  top_p: 1,
  user: 'u1',
} satisfies Record<string, unknown>;

// The file is filled in by the test (an upload).
const TRANSLATION = { file: undefined, model: 'whisper-1', prompt: 'Hello', response_format: 'json', temperature: 0 } satisfies Record<
  string,
  unknown
>;

// The image, mask and markup are filled in by the test (uploads); partial_images goes with stream only.
const EDIT = {
  image: undefined,
  prompt: 'a hat',
  background: 'auto',
  complexity: 'low',
  frame_count: 1,
  frame_duration_ms: 100,
  input_fidelity: 'low',
  markup: undefined,
  mask: undefined,
  model: 'gpt-image-1',
  n: 1,
  output_compression: 50,
  output_format: 'jpeg',
  partial_images: undefined,
  quality: 'low',
  response_format: undefined,
  safety_identifier: 'u1',
  size: '1024x1024',
  stream: false,
  svg: null,
  user: 'u1',
} satisfies Record<string, unknown>;

const STORED_UPDATE = { metadata: { team: 'b' } } satisfies Record<string, unknown>;
// The cursors (`after`) are ids the test reads from a first page.
const STORED_LIST = { after: undefined, limit: 5, metadata: { team: 'b' }, model: 'gpt-4o', order: 'asc' } satisfies Record<
  string,
  unknown
>;
const STORED_MESSAGES = { after: undefined, limit: 5, order: 'asc' } satisfies Record<string, unknown>;
const INPUT_ITEMS = { after: undefined, limit: 5, include: ['message.input_image.image_url'], order: 'asc' } satisfies Record<
  string,
  unknown
>;

const CLIENT_SECRET = {
  expires_after: { anchor: 'created_at', seconds: 600 },
  session: { type: 'realtime', model: 'gpt-realtime', instructions: 'Be brief.' },
} satisfies Record<string, unknown>;

const COUNT_TOKENS = {
  messages: user,
  model: 'claude-sonnet-4-5',
  cache_control: { type: 'ephemeral' },
  output_config: {},
  speed: 'standard',
  system: 'Be brief.',
  thinking: { type: 'disabled' },
  tool_choice: { type: 'auto' },
  tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }],
  user_profile_id: 'up_1',
  workspace_id: 'ws_1',
} satisfies Record<string, unknown>;

// user_profile_id and workspace_id of a batch request's params are headers of messages.create, not body members.
const BATCH = { requests: undefined, user_profile_id: 'up_1', workspace_id: 'ws_1' } satisfies Record<string, unknown>;
// The cursors are ids the test reads from a first page.
const BATCH_LIST = { limit: 5, after_id: undefined, before_id: undefined, workspace_id: 'ws_1' } satisfies Record<string, unknown>;
const ANTHROPIC_MODELS = {
  limit: 5,
  after_id: undefined,
  before_id: undefined,
  lifecycle: ['active'],
  workspace_id: 'ws_1',
} satisfies Record<string, unknown>;
const ANTHROPIC_MODEL = { workspace_id: 'ws_1' } satisfies Record<string, unknown>;

// @google/genai: what its Gemini API mode refuses before sending (routingConfig, modelSelectionConfig, audioTimestamp,
// modelArmorConfig, generationOutputConfig; countTokens' systemInstruction, tools, generationConfig; embedContent's mimeType,
// autoTruncate, documentOcr, audioTrackExtraction) is left undefined, and so are those that exclude another sent here: they are
// sent in calls of their own (responseJsonSchema in the stream, speechConfig to a TTS model, imageConfig to an image model,
// cachedContent naming a cache made first, which excludes systemInstruction and tools).
// continuationToken is accepted, not emulated (docs/not-emulated-yet.md); so is Vertex AI's cachedContent.
const GENERATE = {
  httpOptions: { timeout: 60_000 },
  abortSignal: new AbortController().signal,
  serviceTier: ServiceTier.STANDARD,
  systemInstruction: 'Be brief.',
  temperature: 1,
  topP: 0.9,
  topK: 40,
  candidateCount: 1,
  maxOutputTokens: 64,
  stopSequences: ['zzz'],
  responseLogprobs: true,
  logprobs: 2,
  presencePenalty: 0.1,
  frequencyPenalty: 0.1,
  seed: 1,
  responseMimeType: 'application/json',
  responseSchema: { type: Type.OBJECT, properties: { answer: { type: Type.STRING } } },
  responseJsonSchema: undefined,
  routingConfig: undefined,
  modelSelectionConfig: undefined,
  safetySettings: [{ category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_NONE }],
  tools: [
    { functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] },
  ],
  toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
  labels: { team: 'a' },
  cachedContent: undefined,
  responseModalities: ['TEXT'],
  mediaResolution: MediaResolution.MEDIA_RESOLUTION_LOW,
  speechConfig: undefined,
  audioTimestamp: undefined,
  automaticFunctionCalling: { disable: true },
  thinkingConfig: { thinkingBudget: 0, includeThoughts: false },
  audioTranscriptionConfig: {},
  imageConfig: undefined,
  enableEnhancedCivicAnswers: false,
  modelArmorConfig: undefined,
  continuationToken: 'c1',
  automaticContinuation: false,
  generationOutputConfig: undefined,
  store: false,
} satisfies Record<string, unknown>;

const COUNT_CONFIG = {
  httpOptions: { timeout: 60_000 },
  abortSignal: new AbortController().signal,
  systemInstruction: undefined,
  tools: undefined,
  generationConfig: undefined,
} satisfies Record<string, unknown>;

const EMBED_CONFIG = {
  httpOptions: { timeout: 60_000 },
  abortSignal: new AbortController().signal,
  taskType: 'RETRIEVAL_DOCUMENT',
  title: 'A title',
  outputDimensionality: 256,
  mimeType: undefined,
  autoTruncate: undefined,
  documentOcr: undefined,
  audioTrackExtraction: undefined,
} satisfies Record<string, unknown>;

// pageToken is read from a first page.
const GEMINI_MODELS = {
  httpOptions: { timeout: 60_000 },
  abortSignal: new AbortController().signal,
  pageSize: 2,
  pageToken: undefined,
  filter: '',
  queryBase: true,
} satisfies Record<string, unknown>;
const GEMINI_MODEL = { httpOptions: { timeout: 60_000 }, abortSignal: new AbortController().signal } satisfies Record<string, unknown>;

// The same configs through Vertex AI (@google/genai's Vertex mode): what the Gemini API mode refuses is sent
// there, and what Vertex mode refuses (enableEnhancedCivicAnswers and store, the Gemini API's) is left out.
const VERTEX_GENERATE = {
  ...GENERATE,
  routingConfig: { autoMode: { modelRoutingPreference: 'BALANCED' as const } },
  modelSelectionConfig: { featureSelectionPreference: FeatureSelectionPreference.BALANCED },
  audioTimestamp: true,
  toolConfig: { ...GENERATE.toolConfig, retrievalConfig: { latLng: { latitude: 48.85, longitude: 2.35 }, languageCode: 'fr' } },
  cachedContent: 'projects/my-project/locations/us-central1/cachedContents/c1',
  modelArmorConfig: { promptTemplateName: 'projects/my-project/locations/us-central1/templates/t1' },
  generationOutputConfig: { outputUriPrefix: 'gs://my-bucket/out/' },
  enableEnhancedCivicAnswers: undefined,
  store: undefined,
} satisfies Record<string, unknown>;
const VERTEX_COUNT_CONFIG = {
  ...COUNT_CONFIG,
  systemInstruction: 'Be brief.',
  tools: GENERATE.tools,
  generationConfig: { temperature: 0.5 },
} satisfies Record<string, unknown>;
// mimeType and autoTruncate go to :predict (text-embedding-004), documentOcr and audioTrackExtraction to :embedContent (gemini-embedding-2).
const VERTEX_EMBED_CONFIG = { ...EMBED_CONFIG, mimeType: 'text/plain', autoTruncate: true } satisfies Record<string, unknown>;

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
  ['completions', COMPLETIONS, 'openai', `${OPENAI_TYPES}/completions.d.ts`, 'CompletionCreateParamsBase'],
  ['translations', TRANSLATION, 'openai', `${OPENAI_TYPES}/audio/translations.d.ts`, 'TranslationCreateParams'],
  ['image edits', EDIT, 'openai', `${OPENAI_TYPES}/images.d.ts`, 'ImageEditParamsBase'],
  [
    'stored chat completions: update',
    STORED_UPDATE,
    'openai',
    `${OPENAI_TYPES}/chat/completions/completions.d.ts`,
    'ChatCompletionUpdateParams',
  ],
  ['stored chat completions: list', STORED_LIST, 'openai', `${OPENAI_TYPES}/chat/completions/completions.d.ts`, 'ChatCompletionListParams'],
  ['stored chat completions: messages', STORED_MESSAGES, 'openai', `${OPENAI_TYPES}/chat/completions/messages.d.ts`, 'MessageListParams'],
  ['responses input items', INPUT_ITEMS, 'openai', `${OPENAI_TYPES}/responses/input-items.d.ts`, 'InputItemListParams'],
  ['realtime client secrets', CLIENT_SECRET, 'openai', `${OPENAI_TYPES}/realtime/client-secrets.d.ts`, 'ClientSecretCreateParams'],
  ['Anthropic count_tokens', COUNT_TOKENS, '@anthropic-ai/sdk', 'resources/messages/messages.d.ts', 'MessageCountTokensParams'],
  ['Anthropic batches: create', BATCH, '@anthropic-ai/sdk', 'resources/messages/batches.d.ts', 'BatchCreateParams'],
  ['Anthropic batches: list', BATCH_LIST, '@anthropic-ai/sdk', 'resources/messages/batches.d.ts', 'BatchListParams'],
  ['Anthropic models: list', ANTHROPIC_MODELS, '@anthropic-ai/sdk', 'resources/models.d.ts', 'ModelListParams'],
  ['Anthropic models: retrieve', ANTHROPIC_MODEL, '@anthropic-ai/sdk', 'resources/models.d.ts', 'ModelRetrieveParams'],
  ['Gemini generateContent', GENERATE, '@google/genai', 'dist/genai.d.ts', 'GenerateContentConfig'],
  ['Gemini countTokens', COUNT_CONFIG, '@google/genai', 'dist/genai.d.ts', 'CountTokensConfig'],
  ['Gemini embedContent', EMBED_CONFIG, '@google/genai', 'dist/genai.d.ts', 'EmbedContentConfig'],
  ['Gemini models: list', GEMINI_MODELS, '@google/genai', 'dist/genai.d.ts', 'ListModelsConfig'],
  ['Gemini models: get', GEMINI_MODEL, '@google/genai', 'dist/genai.d.ts', 'GetModelConfig'],
  ['Vertex AI generateContent', VERTEX_GENERATE, '@google/genai', 'dist/genai.d.ts', 'GenerateContentConfig'],
  ['Vertex AI countTokens', VERTEX_COUNT_CONFIG, '@google/genai', 'dist/genai.d.ts', 'CountTokensConfig'],
  ['Vertex AI embedContent', VERTEX_EMBED_CONFIG, '@google/genai', 'dist/genai.d.ts', 'EmbedContentConfig'],
] as const;

describe.each(TYPES)('%s: the params type of the installed SDK', (_name, values, pkg, file, type) => {
  it('has a value here for every parameter it defines', () => {
    const defined = members(pkg, file, type);
    expect(defined.length).toBeGreaterThan(0);
    expect(defined.filter((name) => !(name in values))).toEqual([]);
  });
});

/** Without the parameters left undefined: those that exclude another sent here (functions, partial_images without stream…), or need what the test makes (the file). */
const sent = <T extends Record<string, unknown>>(values: T) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as T;

interface Clients {
  root: string;
  openai: OpenAI;
  anthropic: Anthropic;
  google: GoogleGenAI;
  /** @google/genai in Vertex mode, its access token the gateway's. */
  vertex: GoogleGenAI;
  wav: Uint8Array;
}

/** The three SDKs pointed at `root`, and a recording made there to upload. */
async function clients(root: string): Promise<Clients> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${root}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: root, maxRetries: 0 });
  const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: root, apiVersion: 'v1beta' } });
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: 'sk-test' });
  const vertex = new GoogleGenAI({
    vertexai: true,
    project: 'my-project',
    location: 'us-central1',
    httpOptions: { baseUrl: root },
    googleAuthOptions: { authClient },
  });
  const wav = new Uint8Array(
    await (
      await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'wav' })
    ).arrayBuffer(),
  );
  return { root, openai, anthropic, google, vertex, wav };
}

function inProcess(options: GatewayOptions) {
  const ctx = {} as Clients;
  const gateway = createGateway(options);
  const server = setupServer(...gateway.handlers);
  beforeAll(async () => {
    strictListen(server);
    Object.assign(ctx, await clients('http://127.0.0.1:2'));
  });
  afterAll(() => server.close());
  return { ctx, gateway };
}

const png = (name: string, alpha = 255) =>
  toFile(
    encodePng({ width: 8, height: 8, data: new Uint8Array(256).fill(200).map((v, i) => (i % 4 === 3 ? alpha : v)), channels: 4, depth: 8 }),
    name,
    { type: 'image/png' },
  );

/** Each SDK method of the resources we claim, called with every parameter of its params type; each checks what it parsed. */
const CALLS: [string, (c: Clients) => Promise<void>][] = [
  [
    'chat completions',
    async ({ openai }) => {
      const r = await openai.chat.completions.create(sent(CHAT) as OpenAI.ChatCompletionCreateParamsNonStreaming);
      expect(r.choices).toHaveLength(1);
    },
  ],
  [
    'stored chat completions: retrieve, update, list, messages, delete',
    async ({ openai }) => {
      // Two different requests: the same one twice is the same completion (same id), as determinism wants.
      const made = await Promise.all(
        ['Hi', 'Hello'].map((content) =>
          openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }], store: true, metadata: { team: 'a' } }),
        ),
      );
      for (const m of made)
        expect(
          (await openai.chat.completions.update(m.id, sent(STORED_UPDATE) as OpenAI.Chat.ChatCompletionUpdateParams)).metadata,
        ).toEqual({ team: 'b' });
      expect((await openai.chat.completions.retrieve(made[0].id)).id).toBe(made[0].id);
      const first = await openai.chat.completions.list({ ...sent(STORED_LIST), limit: 1 } as OpenAI.Chat.ChatCompletionListParams);
      expect(first.data).toHaveLength(1);
      const rest = await openai.chat.completions.list({
        ...sent(STORED_LIST),
        after: first.data[0].id,
      } as OpenAI.Chat.ChatCompletionListParams);
      expect([...first.data, ...rest.data].map((c) => c.id).filter((id) => made.some((m) => m.id === id))).toHaveLength(2);
      const messages = await openai.chat.completions.messages.list(
        made[0].id,
        sent(STORED_MESSAGES) as OpenAI.Chat.Completions.MessageListParams,
      );
      expect(messages.data.map((m) => m.content)).toEqual(['Hi']);
      const after = await openai.chat.completions.messages.list(made[0].id, {
        ...sent(STORED_MESSAGES),
        after: messages.data[0].id,
      } as OpenAI.Chat.Completions.MessageListParams);
      expect(after.data).toEqual([]);
      expect((await openai.chat.completions.delete(made[1].id)).deleted).toBe(true);
    },
  ],
  [
    'completions',
    async ({ openai }) => {
      const r = await openai.completions.create(sent(COMPLETIONS) as OpenAI.CompletionCreateParamsNonStreaming);
      expect(r.choices[0].logprobs?.tokens?.length).toBeGreaterThan(0);
    },
  ],
  [
    'embeddings',
    async ({ openai }) => {
      const r = await openai.embeddings.create(sent(EMBEDDINGS) as OpenAI.EmbeddingCreateParams);
      expect(r.data[0].embedding).toHaveLength(256);
    },
  ],
  [
    'images',
    async ({ openai }) => {
      const r = await openai.images.generate(sent(IMAGES) as OpenAI.ImageGenerateParamsNonStreaming);
      expect(r.output_format).toBe('jpeg');
    },
  ],
  [
    'image edits',
    async ({ openai }) => {
      const r = await openai.images.edit({
        ...sent(EDIT),
        image: await png('in.png'),
        mask: await png('mask.png', 0),
        markup: await png('markup.png'),
      } as OpenAI.ImageEditParamsNonStreaming);
      expect(r.data).toHaveLength(1);
      expect(r.output_format).toBe('jpeg');
    },
  ],
  [
    'image variations',
    async ({ openai }) => {
      const r = await openai.images.createVariation({
        ...sent(VARIATION),
        image: await png('in.png'),
      } as OpenAI.ImageCreateVariationParams);
      expect(r.data).toHaveLength(1);
    },
  ],
  [
    'speech',
    async ({ openai }) => {
      const r = await openai.audio.speech.create(sent(SPEECH) as OpenAI.Audio.SpeechCreateParams);
      expect(r.headers.get('content-type')).toBe('audio/wav');
    },
  ],
  [
    'transcriptions',
    async ({ openai, wav }) => {
      const file = await toFile(wav, 'hello.wav', { type: 'audio/wav' });
      const r = await openai.audio.transcriptions.create({
        ...sent(TRANSCRIPTION),
        file,
      } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
      expect(typeof r.text).toBe('string');
    },
  ],
  [
    'translations',
    async ({ openai, wav }) => {
      const file = await toFile(wav, 'hello.wav', { type: 'audio/wav' });
      const r = await openai.audio.translations.create({ ...sent(TRANSLATION), file } as OpenAI.Audio.TranslationCreateParams<'json'>);
      expect(typeof r.text).toBe('string');
    },
  ],
  [
    'responses and input items',
    async ({ openai }) => {
      const r = await openai.responses.create(sent(RESPONSES) as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      expect(r.status).toBe('completed');
      const stored = await openai.responses.create({
        model: 'gpt-5',
        input: [
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'And again' },
        ],
        store: true,
      });
      const first = await openai.responses.inputItems.list(stored.id, {
        ...sent(INPUT_ITEMS),
        limit: 1,
      } as OpenAI.Responses.InputItemListParams);
      expect(first.data).toHaveLength(1);
      const rest = await openai.responses.inputItems.list(stored.id, {
        ...sent(INPUT_ITEMS),
        after: first.data[0].id,
      } as OpenAI.Responses.InputItemListParams);
      expect(rest.data).toHaveLength(1);
      expect(rest.data[0].id).not.toBe(first.data[0].id);
    },
  ],
  [
    'responses.compact',
    async ({ openai }) => {
      const r = await openai.responses.compact(sent(COMPACT) as OpenAI.Responses.ResponseCompactParams);
      expect(r.object).toBe('response.compaction');
    },
  ],
  [
    'models: list and retrieve',
    async ({ openai }) => {
      const ids = (await openai.models.list()).data.map((m) => m.id);
      expect(ids).toContain('gpt-4o');
      expect((await openai.models.retrieve('gpt-4o')).object).toBe('model');
    },
  ],
  [
    'realtime client secrets',
    async ({ openai }) => {
      const r = await openai.realtime.clientSecrets.create(sent(CLIENT_SECRET) as OpenAI.Realtime.ClientSecretCreateParams);
      expect(r.value).toMatch(/^ek_/);
      expect(r.session.type).toBe('realtime');
    },
  ],
  [
    'Anthropic messages',
    async ({ anthropic }) => {
      const r = await anthropic.messages.create(sent(MESSAGES) as Anthropic.MessageCreateParamsNonStreaming);
      expect(r.type).toBe('message');
    },
  ],
  [
    'Anthropic count_tokens',
    async ({ anthropic }) => {
      const r = await anthropic.messages.countTokens(sent(COUNT_TOKENS) as Anthropic.MessageCountTokensParams);
      expect(r.input_tokens).toBeGreaterThan(0);
    },
  ],
  [
    'Anthropic batches: create, retrieve, list, results',
    async ({ anthropic }) => {
      const { user_profile_id: _p, workspace_id: _w, ...params } = sent(MESSAGES);
      const requests = (tag: string) =>
        [
          { custom_id: `${tag}1`, params },
          { custom_id: `${tag}2`, params: { ...params, system: 'Be terse.' } },
        ] as Anthropic.Messages.BatchCreateParams['requests'];
      const made = await Promise.all(
        ['a', 'b'].map((tag) =>
          anthropic.messages.batches.create({ ...sent(BATCH), requests: requests(tag) } as Anthropic.Messages.BatchCreateParams),
        ),
      );
      expect(made[0].type).toBe('message_batch');
      expect((await anthropic.messages.batches.retrieve(made[0].id, { workspace_id: 'ws_1' })).id).toBe(made[0].id);
      const first = await anthropic.messages.batches.list({ ...sent(BATCH_LIST), limit: 1 } as Anthropic.Messages.BatchListParams);
      expect(first.data).toHaveLength(1);
      const after = await anthropic.messages.batches.list({
        ...sent(BATCH_LIST),
        after_id: first.data[0].id,
      } as Anthropic.Messages.BatchListParams);
      const before = await anthropic.messages.batches.list({
        ...sent(BATCH_LIST),
        before_id: after.data[0].id,
      } as Anthropic.Messages.BatchListParams);
      expect(before.data.map((b) => b.id)).toContain(first.data[0].id);
    },
  ],
  [
    'Anthropic models: list and retrieve',
    async ({ anthropic }) => {
      const first = await anthropic.models.list({ ...sent(ANTHROPIC_MODELS), limit: 1 } as Anthropic.ModelListParams);
      expect(first.data).toHaveLength(1);
      const after = await anthropic.models.list({ ...sent(ANTHROPIC_MODELS), after_id: first.data[0].id } as Anthropic.ModelListParams);
      expect(after.data[0].id).not.toBe(first.data[0].id);
      const before = await anthropic.models.list({ ...sent(ANTHROPIC_MODELS), before_id: after.data[0].id } as Anthropic.ModelListParams);
      expect(before.data.map((m) => m.id)).toContain(first.data[0].id);
      expect((await anthropic.models.retrieve('claude-sonnet-4-5', sent(ANTHROPIC_MODEL))).type).toBe('model');
    },
  ],
  [
    'Gemini generateContent',
    async ({ google }) => {
      const r = await google.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi', config: sent(GENERATE) });
      expect(r.candidates).toHaveLength(1);
      expect(r.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    },
  ],
  [
    'Gemini generateContentStream, with responseJsonSchema',
    async ({ google }) => {
      const { responseSchema: _s, ...config } = sent(GENERATE);
      const chunks = [];
      const stream = await google.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Hi',
        config: { ...config, responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } } },
      });
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.at(-1)?.candidates?.[0].finishReason).toBeDefined();
    },
  ],
  [
    'Gemini cachedContent',
    async ({ google }) => {
      const text = Array.from({ length: 300 }, (_, i) => `Line ${i} of the manual.`).join(' ');
      const cache = await google.caches.create({ model: 'gemini-2.5-flash', config: { contents: [{ role: 'user', parts: [{ text }] }] } });
      const r = await google.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi', config: { cachedContent: cache.name } });
      expect(r.usageMetadata?.cachedContentTokenCount).toBe(cache.usageMetadata?.totalTokenCount);
    },
  ],
  [
    'Gemini speechConfig and imageConfig',
    async ({ google }) => {
      const speech = await google.models.generateContent({
        model: 'gemini-2.5-flash-preview-tts',
        contents: 'Say hi',
        config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      });
      expect(speech.candidates?.[0].content?.parts?.[0].inlineData?.mimeType).toMatch(/^audio\//);
      const image = await google.models.generateContent({
        model: 'gemini-2.5-flash-image',
        contents: 'A red square',
        config: { responseModalities: [Modality.IMAGE], imageConfig: { aspectRatio: '1:1' } },
      });
      expect(image.candidates?.[0].content?.parts?.some((p) => p.inlineData?.mimeType?.startsWith('image/'))).toBe(true);
    },
  ],
  [
    'Gemini countTokens',
    async ({ google }) => {
      const r = await google.models.countTokens({ model: 'gemini-2.5-flash', contents: 'The quick brown fox', config: sent(COUNT_CONFIG) });
      expect(r.totalTokens).toBeGreaterThan(0);
    },
  ],
  [
    'Gemini embedContent',
    async ({ google }) => {
      const r = await google.models.embedContent({ model: 'gemini-embedding-001', contents: 'Hi', config: sent(EMBED_CONFIG) });
      expect(r.embeddings?.[0].values).toHaveLength(256);
    },
  ],
  [
    'Gemini models: list and get',
    async ({ root, google }) => {
      // The SDK's pager keeps its page token to itself: the first page is read raw for one to send.
      const { nextPageToken } = (await (
        await fetch(`${root}/v1beta/models?pageSize=2`, { headers: { 'x-goog-api-key': 'sk-test' } })
      ).json()) as { nextPageToken?: string };
      expect(nextPageToken).toBeTruthy();
      const pager = await google.models.list({ config: { ...sent(GEMINI_MODELS), pageToken: nextPageToken } });
      expect(pager.page.length).toBeGreaterThan(0);
      expect(pager.page[0].name).toMatch(/^models\//);
      expect((await google.models.get({ model: 'gemini-2.5-flash', config: sent(GEMINI_MODEL) })).name).toBe('models/gemini-2.5-flash');
    },
  ],
  [
    'Vertex AI generateContent, with what only Vertex takes',
    async ({ vertex }) => {
      const r = await vertex.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi', config: sent(VERTEX_GENERATE) });
      expect(r.candidates).toHaveLength(1);
      expect(r.usageMetadata?.trafficType).toBe('ON_DEMAND');
    },
  ],
  [
    'Vertex AI speechConfig, and imageConfig with its image output options',
    async ({ vertex }) => {
      const speech = await vertex.models.generateContent({
        model: 'gemini-2.5-flash-preview-tts',
        contents: 'Say hi',
        config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } },
      });
      expect(speech.candidates?.[0].content?.parts?.[0].inlineData?.mimeType).toMatch(/^audio\//);
      const picture = await vertex.models.generateContent({
        model: 'gemini-2.5-flash-image',
        contents: 'A red square',
        config: {
          responseModalities: [Modality.IMAGE],
          imageConfig: {
            aspectRatio: '1:1',
            personGeneration: PersonGeneration.DONT_ALLOW,
            prominentPeople: ProminentPeople.BLOCK_PROMINENT_PEOPLE,
            outputMimeType: 'image/jpeg',
            outputCompressionQuality: 80,
          },
        },
      });
      const image = picture.candidates![0].content!.parts!.find((p) => p.inlineData)!.inlineData!;
      // The file is what the output options asked for: a JPEG.
      expect(image.mimeType).toBe('image/jpeg');
      expect([...Buffer.from(image.data!, 'base64').subarray(0, 2)]).toEqual([0xff, 0xd8]);
    },
  ],
  [
    'Vertex AI countTokens, which counts the system instruction and tools too',
    async ({ vertex }) => {
      const plain = await vertex.models.countTokens({ model: 'gemini-2.5-flash', contents: 'The quick brown fox' });
      const r = await vertex.models.countTokens({
        model: 'gemini-2.5-flash',
        contents: 'The quick brown fox',
        config: sent(VERTEX_COUNT_CONFIG),
      });
      expect(r.totalTokens).toBeGreaterThan(plain.totalTokens!);
    },
  ],
  [
    'Vertex AI embedContent, by :predict and by :embedContent',
    async ({ vertex }) => {
      const predicted = await vertex.models.embedContent({
        model: 'text-embedding-004',
        contents: 'Hi',
        config: sent(VERTEX_EMBED_CONFIG),
      });
      expect(predicted.embeddings?.[0].values).toHaveLength(256);
      const { mimeType: _m, ...config } = sent(VERTEX_EMBED_CONFIG);
      const embedded = await vertex.models.embedContent({
        model: 'gemini-embedding-2',
        contents: 'Hi',
        config: { ...config, documentOcr: true, audioTrackExtraction: true },
      });
      expect(embedded.embeddings?.[0].values).toHaveLength(256);
    },
  ],
];

describe('every SDK parameter is accepted, even under strictParams (in-process)', () => {
  const { ctx, gateway } = inProcess({ strictParams: true });

  it.each(CALLS)('%s', (_name, call) => call(ctx));
  it('none of them was journaled as unrecognized', () => {
    expect(gateway.requests().length).toBeGreaterThan(CALLS.length);
    expect(gateway.requests().filter((e) => e.warnings)).toEqual([]);
  });

  it('refuses an unknown parameter with the vendor’s own 400 under strictParams', async () => {
    await expect(ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, foo: 1 } as never)).rejects.toMatchObject({
      status: 400,
      param: 'foo',
      message: expect.stringContaining('Unrecognized request argument supplied: foo'),
    });
    await expect(ctx.anthropic.messages.create({ ...sent(MESSAGES), foo: 1 } as never)).rejects.toMatchObject({ status: 400 });
  });
});

describe('every SDK parameter is accepted over a socket, under --strict-params', () => {
  let cli: Spawned;
  const ctx = {} as Clients;
  beforeAll(async () => {
    cli = await spawnCli(['--strict-params']);
    Object.assign(ctx, await clients(cli.url));
  });
  afterAll(() => cli?.stop());

  it.each(CALLS)('%s', (_name, call) => call(ctx));
  it('none of them was journaled as unrecognized', async () => {
    const { requests } = (await (await fetch(`${cli.url}/__admin/requests`)).json()) as { requests: { warnings?: string[] }[] };
    expect(requests.length).toBeGreaterThan(CALLS.length);
    expect(requests.filter((e) => e.warnings)).toEqual([]);
  });
});

const UNKNOWN = { bar: 1, foo: 'x' };

describe('an unknown parameter passes with a warning by default (in-process)', () => {
  const { ctx, gateway } = inProcess({});

  it.each([
    ['chat completions', (o: OpenAI) => o.chat.completions.create({ model: 'gpt-4o', messages: user, ...UNKNOWN } as never).withResponse()],
    ['responses', (o: OpenAI) => o.responses.create({ model: 'gpt-5', input: 'Hi', ...UNKNOWN } as never).withResponse()],
    [
      'embeddings',
      (o: OpenAI) => o.embeddings.create({ model: 'text-embedding-3-small', input: 'Hi', ...UNKNOWN } as never).withResponse(),
    ],
    ['images', (o: OpenAI) => o.images.generate({ model: 'gpt-image-1', prompt: 'a dot', ...UNKNOWN } as never).withResponse()],
    ['speech', (o: OpenAI) => o.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi', ...UNKNOWN } as never).withResponse()],
    [
      'completions',
      (o: OpenAI) => o.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', ...UNKNOWN } as never).withResponse(),
    ],
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
    const m = await ctx.anthropic.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: user, foo: 'x' } as never)
      .withResponse();
    expect(m.response.headers.get('x-mock-warning')).toBe('unrecognized request argument "foo"');
  });

  it('answers as without it, and still refuses a bad value of a known parameter', async () => {
    const plain = await ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user });
    const extra = await ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, foo: 1 } as never);
    expect(extra.choices).toEqual(plain.choices);
    await expect(
      ctx.openai.chat.completions.create({ model: 'gpt-4o', messages: user, temperature: 9, foo: 1 } as never),
    ).rejects.toMatchObject({ status: 400, param: 'temperature' });
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
    const ask = (root: string) =>
      fetch(`${root}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
        body,
      });
    const ok = await ask(lenient.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-mock-warning')).toBe('unrecognized request argument "foo"');
    // A name is the client's text: control characters and the like are escaped, a long one cut (found by the fuzz suite: a NUL broke the header).
    const odd = await fetch(`${lenient.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: user, 'a\u0000é': 1, ['x'.repeat(300)]: 2 }),
    });
    expect(odd.status).toBe(200);
    expect(odd.headers.get('x-mock-warning')).toBe(
      `unrecognized request argument "a\\u0000\\u00e9", unrecognized request argument "${'x'.repeat(100)}\\u2026"`,
    );
    // Named one by one up to ten, then counted: a body may hold 10 000 keys, and a header must stay small.
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`unknown_${String(i).padStart(3, '0')}_${'y'.repeat(80)}`, i]));
    const crowded = await fetch(`${lenient.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: user, ...many }),
    });
    expect(crowded.status).toBe(200);
    const warned = crowded.headers.get('x-mock-warning')!.split(', ');
    expect(warned).toHaveLength(11);
    expect(warned.at(-1)).toBe('and 390 more unrecognized request arguments');
    const refused = await ask(strict.url);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('Unrecognized request argument supplied: foo');
  });
});
