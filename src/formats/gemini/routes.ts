// The Gemini-format endpoints: `models/{model}:action` under /v1beta (and /v1), and the models list.
import { checkFileUris, geminiFileEndpoints, readGeminiFileParts } from './files.ts';
import { geminiCacheEndpoints, withCachedContent } from './caches.ts';
import { createBatch, geminiBatchEndpoints } from './batches.ts';
import { GatewayError } from '../../core/errors.ts';
import type { ModelInfo } from '../../core/models.ts';
import { countEachInSlices, countPromptTokensInSlices } from '../../core/tokens.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json, mayBeBig } from '../../pipeline/exchange.ts';
import { liveRefusal } from './live-refusal.ts';
import { decidedReply, deliver } from '../../pipeline/delivery.ts';
import { jsonArray, sse } from '../../pipeline/framing.ts';
import { operationRequest } from '../../core/request.ts';
import { hashString } from '../../core/seed.ts';
import { fromGoogleClient, geminiFormat, KEY_WAYS } from './format.ts';
import { checkField } from './validate.ts';
import { isJsonObject, type JsonObject } from '../fields.ts';
import { embed, embeddingSpace } from '../../core/synthesize/vectors.ts';
import { parseGenerateRequest } from './parse.ts';
import type { OutputFormat } from '../../core/request.ts';
import type { Block, CanonicalReply } from '../../core/reply.ts';
import { encodeImage, type ImageFormat, MIME_TYPES, sniffImage } from '../../core/synthesize/image.ts';
import { generateStreamEvents, renderGenerate } from './render.ts';
import { answer, isForward, decide, type Forward } from '../../pipeline/decide.ts';
import { lazyImport } from '../../core/lazy.ts';
import { later } from '../../pipeline/later.ts';
import { decisionEndpoints } from './decisions.ts';

/** Gemini Live's handlers (speech synthesis, the session): loaded on the first request to one of its routes. */
const live = lazyImport('Live handlers', () => import('./live-routes.ts'));

const MAX_BATCH = 100;
const ACTIONS = ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents', 'batchGenerateContent'];

function modelObject(m: ModelInfo) {
  const methods = m.capabilities.includes('embedding')
    ? ['embedContent', 'batchEmbedContents', 'countTokens']
    : ['generateContent', 'countTokens'];
  return {
    name: `models/${m.id}`,
    version: '001',
    displayName: m.display_name ?? m.id,
    inputTokenLimit: m.context_window ?? 32768,
    outputTokenLimit: m.max_output_tokens ?? 8192,
    supportedGenerationMethods: methods,
  };
}

function apiVersion(call: Call): string {
  return call.inbound.url.pathname.split('/')[1];
}

/** The model of `models/{model}:action`, required to exist and to do what the request asks. */
function requireModel(call: Call, model: string, action: string, output: OutputFormat['type']): void {
  const audio = output === 'audio';
  const info = call.runtime.catalogue.get(model);
  if (!info) {
    throw new GatewayError(
      'not_found',
      `models/${model} is not found for API version ${apiVersion(call)}, or is not supported for ${action}. Call ListModels to see the list of available models and their supported methods.`,
    );
  }
  const speech = info.capabilities.includes('speech');
  if (!info.capabilities.includes('chat') && !speech) {
    throw new GatewayError('not_found', `models/${model} is not supported for ${action} (it supports: ${info.capabilities.join(', ')}).`);
  }
  if (audio !== speech) {
    const asked = audio ? 'AUDIO' : 'TEXT';
    throw new GatewayError(
      'invalid_request',
      `The requested combination of response modalities (${asked}) is not supported by the model. models/${model} accepts the following combination of response modalities: * ${speech ? 'AUDIO' : 'TEXT'}`,
    );
  }
  if (output === 'image' && !info.capabilities.includes('image')) {
    throw new GatewayError(
      'invalid_request',
      `The requested combination of response modalities (TEXT, IMAGE) is not supported by the model. models/${model} accepts the following combination of response modalities: * TEXT`,
    );
  }
}

async function generate(call: Call<JsonObject>, model: string, action: string) {
  const stream = action === 'streamGenerateContent';
  const { body, cachedTokens } = withCachedContent(call, call.body, model);
  const { request, options } = parseGenerateRequest(body, model, stream);
  if (cachedTokens !== undefined) request.cache = { ...request.cache, held: cachedTokens };
  requireModel(call, model, action, request.output.type);
  checkFileUris(call, body);
  await readGeminiFileParts(call, request.messages);
  // Counted with the event loop served between slices; answer() then finds the count.
  await countPromptTokensInSlices(request.messages, request.tools, request.framing);
  const answered = answer(call, request);
  if (isForward(answered)) return answered;
  const { reply, latency } = answered;
  if (request.output.type === 'image') options.files = await imageFiles(reply, pictureFiles.get(call));
  const altSse = call.inbound.url.searchParams.get('alt') === 'sse';
  return deliver(call, answered, stream, {
    json: () => renderGenerate(reply, request, options),
    events: () => generateStreamEvents(reply, request, options, latency),
    // Without alt=sse the API streams one JSON array, an element at a time.
    framing: altSse ? sse : jsonArray,
    contentType: altSse ? 'text/event-stream' : undefined,
  });
}

/**
 * The file format a dialect asks a request's pictures in (Vertex AI's imageOutputOptions; the Gemini
 * API has no such field): PNG when it asks none.
 */
export const pictureFiles = new WeakMap<Call, { format: ImageFormat; quality?: number }>();

/** The file of each synthesized picture (PNG unless `file` says otherwise); a fixture's pinned file as it is. */
async function imageFiles(
  reply: CanonicalReply,
  file: { format: ImageFormat; quality?: number } = { format: 'png' },
): Promise<Map<Block, { bytes: Uint8Array; mimeType: string }>> {
  const files = new Map<Block, { bytes: Uint8Array; mimeType: string }>();
  for (const block of reply.choices.flatMap((c) => c.blocks)) {
    if (block.type !== 'image') continue;
    const bytes = block.file ?? (await encodeImage(block.pixels!, file.format, file.quality));
    files.set(block, { bytes, mimeType: MIME_TYPES[sniffImage(bytes) ?? 'png'] });
  }
  return files;
}

/** One EmbedContentRequest's vector, in the same space the OpenAI format embeds in. */
export function embedOne(call: Call, model: string, body: JsonObject, at: string) {
  const info = call.runtime.catalogue.get(model);
  if (!info?.capabilities.includes('embedding')) {
    throw new GatewayError(
      'not_found',
      `models/${model} is not found for API version ${apiVersion(call)}, or is not supported for embedContent. Call ListModels to see the list of available models and their supported methods.`,
    );
  }
  checkField(`${at}content`, body.content, { types: ['object'], required: true });
  const parts = body.content.parts ?? [];
  checkField(`${at}content.parts`, parts, { types: ['array'], required: true, min: 1 });
  const text = parts.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  const dims = info.dimensions ?? 768;
  const size = body.outputDimensionality;
  checkField(`${at}outputDimensionality`, size, { types: ['integer'], min: 1, max: dims });
  // Each content is its own request to the fixtures: one may pin its vector, fail it, or break it.
  const decision = decide(call, operationRequest('gemini', 'embedding', model, text));
  if (isForward(decision)) return decision;
  const values = decision.pinned?.embedding ?? Array.from(embed(text, embeddingSpace(model, decision.seed), dims, size));
  return { embedding: { values }, decision, key: hashString(text, decision.seed), text };
}

async function countTokens(call: Call<JsonObject>, model: string) {
  const body = call.body;
  // countTokens takes the contents directly, or a whole generateContentRequest.
  // Unchecked: parseGenerateRequest's checks answer whatever it is, as they always have (a string's
  // characters are unknown names, a number or list has no contents); a type check of its own here
  // would change those replies.
  const inner = (body.generateContentRequest as JsonObject | undefined) ?? { contents: body.contents };
  const { request } = parseGenerateRequest(inner, model, false);
  if (!call.runtime.catalogue.get(model)) requireModel(call, model, 'countTokens', 'text');
  checkFileUris(call, inner);
  await readGeminiFileParts(call, request.messages);
  const tokens = await countPromptTokensInSlices(request.messages, request.tools, request.framing);
  return json({ totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] });
}

/**
 * What an embedding request is charged: its texts' tokens (Google bills embeddings by input tokens,
 * though the reply tells none), counted with the event loop served between slices.
 */
export async function inputTokens(texts: string[]): Promise<number> {
  return (await countEachInSlices(texts)).reduce((a, b) => a + b, 0);
}

async function action(call: Call<JsonObject>) {
  const target = String(call.params.call);
  const at = target.lastIndexOf(':');
  const model = target.slice(0, at);
  const name = target.slice(at + 1);
  if (at < 0 || !ACTIONS.includes(name)) {
    throw new GatewayError(
      'not_found',
      `Unknown method "${at < 0 ? target : name}" on models/${model || target}; this gateway serves ${ACTIONS.join(', ')}.`,
    );
  }
  call.entry.model = model;
  if (name === 'countTokens') return countTokens(call, model);
  if (name === 'batchGenerateContent') return createBatch(call, model, generateSpec);
  if (name === 'embedContent') {
    const one = embedOne(call, model, call.body, '');
    if (isForward(one)) return one;
    return decidedReply(call, one.decision, one.key, () => ({ embedding: one.embedding }), await inputTokens([one.text]));
  }
  if (name === 'batchEmbedContents') {
    const requests = call.body.requests;
    checkField('requests', requests, { types: ['array'], required: true, min: 1 });
    // Google's cap on one batch (each request is embedded and sent back whole).
    if (requests.length > MAX_BATCH)
      throw new GatewayError('invalid_request', `* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch`);
    const all: Exclude<ReturnType<typeof embedOne>, Forward>[] = [];
    for (const [i, r] of requests.entries()) {
      checkField(`requests[${i}]`, r, { types: ['object'], required: true });
      const one = embedOne(call, model, r, `requests[${i}].`);
      if (isForward(one)) return one;
      all.push(one);
    }
    return decidedReply(
      call,
      all.map((e) => e.decision),
      all[0].key,
      () => mayBeBig({ embeddings: all.map((e) => e.embedding) }),
      await inputTokens(all.map((e) => e.text)),
    );
  }
  return generate(call, model, name);
}

function listModels(call: Call) {
  const params = call.inbound.url.searchParams;
  const size = Math.min(Number(params.get('pageSize') ?? 50) || 50, 1000);
  const start = Number(params.get('pageToken') ?? 0) || 0;
  const all = call.runtime.catalogue.list();
  const page = all.slice(start, start + size);
  return json({ models: page.map(modelObject), ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}) });
}

function getModel(call: Call) {
  const id = String(call.params.model).replace(/^models\//, '');
  const model = call.runtime.catalogue.get(id);
  if (!model) throw new GatewayError('not_found', `models/${id} is not found for API version ${apiVersion(call)}.`);
  return json(modelObject(model));
}

const versions = ['/v1beta', '/v1'];

/** The synchronous generate-content endpoint, which answers a batch's requests. */
const generateSpec: EndpointSpec = { method: 'POST', path: '/v1beta/models/:call', format: geminiFormat, auth: KEY_WAYS, handle: action };

export const geminiEndpoints: EndpointSpec[] = geminiFileEndpoints
  .concat(decisionEndpoints, geminiCacheEndpoints, geminiBatchEndpoints)
  .concat(
    versions.flatMap((v): EndpointSpec[] => [
      { method: 'POST', path: `${v}/models/:call`, format: geminiFormat, auth: KEY_WAYS, handle: action },
      {
        method: 'GET',
        path: `${v}/models`,
        format: geminiFormat,
        auth: KEY_WAYS,
        accepts: v === '/v1' ? fromGoogleClient : undefined,
        handle: listModels,
      },
      {
        method: 'GET',
        path: `${v}/models/:model`,
        format: geminiFormat,
        auth: KEY_WAYS,
        accepts: v === '/v1' ? fromGoogleClient : undefined,
        handle: getModel,
      },
    ]),
  )
  .concat(
    // Gemini Live: the key in `?key=`; the Constrained form takes ephemeral tokens in `?access_token=`.
    ['v1beta', 'v1alpha', 'v1'].map(
      (v): EndpointSpec => ({
        method: 'GET',
        path: `/ws/google.ai.generativelanguage.${v}.GenerativeService.BidiGenerateContent`,
        format: geminiFormat,
        auth: KEY_WAYS,
        upgrade: true,
        refusedUpgrade: liveRefusal,
        handle: later(live, (m) => m.liveHandlers.upgrade),
      }),
    ),
    {
      method: 'GET',
      path: '/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained',
      format: geminiFormat,
      auth: ['access-token', ...KEY_WAYS],
      upgrade: true,
      refusedUpgrade: liveRefusal,
      ephemeral: 'live',
      handle: later(live, (m) => m.liveHandlers.upgrade),
    },
    {
      method: 'POST',
      path: '/v1alpha/auth_tokens',
      format: geminiFormat,
      auth: KEY_WAYS,
      handle: later(live, (m) => m.liveHandlers.authTokens),
    },
  );
