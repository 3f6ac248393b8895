// Gemini on Vertex AI. Where Vertex's request is the Gemini API's under another path (generateContent,
// streamGenerateContent, countTokens, embedContent), the Gemini endpoint answers it (routes.ts mounts
// it), and this module translates around it: Vertex's model ids (models.ts), the fields only Vertex
// takes (checked here, then taken out), countTokens' and embedContent's bodies and the fields Vertex adds
// to their replies, and its reply fields on generateContent (createTime, modelVersion as asked,
// usageMetadata.trafficType). computeTokens and :predict have no Gemini API counterpart: they are
// answered here, as are the publisher model listings.
import { GatewayError } from '../../core/errors.ts';
import { hashString } from '../../core/seed.ts';
import { inSlices } from '../../core/slices.ts';
import { countEachInSlices, EXACT_CHARS, tokensInSlices } from '../../core/tokens.ts';
import type { ModelInfo } from '../../core/models.ts';
import type { ImageFormat } from '../../core/synthesize/image.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import type { Call } from '../../pipeline/call.ts';
import { decidedReply } from '../../pipeline/delivery.ts';
import { isForward, type Forward } from '../../pipeline/decide.ts';
import { json, mayBeBig, type Inbound, type JsonObject, type Outbound } from '../../pipeline/exchange.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { touchPayloads } from '../../pipeline/touch.ts';
import { type FieldRules, fieldsOf, isJsonObject } from '../fields.ts';
import { parseGenerateRequest } from '../gemini/parse.ts';
import { embedOne, inputTokens, pictureFiles } from '../gemini/routes.ts';
import { checkField, checkFields, invalid } from '../gemini/validate.ts';
import { noPublisherModel, PUBLISHERS, vertexModel, type VertexModel } from './models.ts';

/** The Gemini endpoint Vertex's Gemini methods are mounted over, and its path before the `:call` parameter. */
export const GEMINI_ENDPOINT = 'gemini POST /v1beta/models/:call';
const GEMINI_MODELS = '/v1beta/models/';

/** The methods the Gemini endpoint answers for Vertex AI (its request the Gemini API's, translated here). */
const MOUNTED = new Set(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent']);
/** Every method of Vertex AI's Gemini models served here. */
const METHODS = [...MOUNTED, 'computeTokens', 'predict'];

/** The method a request's last segment names (`…/models/gemini-2.5-flash:generateContent`). */
export function methodOf(inbound: Pick<Inbound, 'url'>): string {
  const path = inbound.url.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const name = last.includes('%') ? safeDecode(last) : last;
  const at = name.lastIndexOf(':');
  return at < 0 ? '' : name.slice(at + 1);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether the Gemini endpoint answers the request (routes.ts's `accepts`). */
export const geminiMounted = (inbound: Inbound) => MOUNTED.has(methodOf(inbound));

/** Where a request is: the model's resource name (Vertex's messages name it), the id asked for, and the method. */
interface Target {
  resource: string;
  id: string;
  method: string;
}

function targetOf(call: Call, publisher: string): Target {
  const target = String(call.params.call);
  const at = target.lastIndexOf(':');
  const id = at < 0 ? target : target.slice(0, at);
  const { project, location } = call.params;
  const where = project === undefined ? '' : `projects/${String(project)}/locations/${String(location)}/`;
  return { resource: `${where}publishers/${publisher}/models/${id}`, id, method: at < 0 ? '' : target.slice(at + 1) };
}

// What Vertex AI takes beyond the Gemini API (the fields @google/genai sends only in Vertex mode).
const OBJECT = { types: ['object'] } as const;
export const VERTEX_REQUEST = { modelArmorConfig: OBJECT, outputConfig: OBJECT } as const satisfies FieldRules;
export const VERTEX_GENERATION = {
  routingConfig: OBJECT,
  modelConfig: OBJECT,
  audioTimestamp: { types: ['boolean'] },
} as const satisfies FieldRules;
const VERTEX_IMAGE = {
  personGeneration: { types: ['string'] },
  prominentPeople: { types: ['string'] },
  imageOutputOptions: OBJECT,
} as const satisfies FieldRules;

/** `object` checked for `rules`' fields and without them (itself when it has none). */
function taken(object: JsonObject, rules: FieldRules, prefix: string): JsonObject {
  if (!Object.keys(rules).some((name) => object[name] !== undefined)) return object;
  const rest: JsonObject = {};
  for (const [name, value] of Object.entries(object)) {
    const rule = rules[name];
    if (rule === undefined) rest[name] = value;
    else if (value !== undefined) checkField(`${prefix}${name}`, value, rule);
  }
  return rest;
}

const IMAGE_MIME_TYPES: Record<string, ImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/** imageConfig.imageOutputOptions: the file format the pictures are asked in, if any. */
function imageFileOf(options: unknown): { format: ImageFormat; quality?: number } | undefined {
  if (options === undefined) return undefined;
  const at = 'generationConfig.imageConfig.imageOutputOptions';
  checkField(at, options, OBJECT);
  checkFields(
    options,
    {
      mimeType: { types: ['string'], values: Object.keys(IMAGE_MIME_TYPES) },
      compressionQuality: { types: ['integer'], min: 0, max: 100 },
    },
    `${at}.`,
  );
  return { format: IMAGE_MIME_TYPES[options.mimeType ?? 'image/png'], quality: options.compressionQuality };
}

/** A generateContent body as the Gemini API takes it: Vertex's own fields checked and taken out. */
function geminiBody(call: Call, body: JsonObject): JsonObject {
  const own = taken(body, VERTEX_REQUEST, '');
  const config = own.generationConfig;
  if (!isJsonObject(config)) return own;
  const generation = taken(config, VERTEX_GENERATION, 'generationConfig.');
  const image = generation.imageConfig;
  if (isJsonObject(image)) {
    const file = imageFileOf(image.imageOutputOptions);
    if (file) pictureFiles.set(call, file);
    generation.imageConfig = taken(image, VERTEX_IMAGE, 'generationConfig.imageConfig.');
  }
  return generation === config ? own : { ...own, generationConfig: generation };
}

/** Google's word for the quota a request's serviceTier draws on (ON_DEMAND for any other). */
const TRAFFIC = new Map([
  ['flex', 'ON_DEMAND_FLEX'],
  ['priority', 'ON_DEMAND_PRIORITY'],
]);

/** A time as Vertex AI writes it, to the microsecond: `2026-01-01T00:00:00.000000Z`. */
const createTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/Z$/, '000Z');

/** What a request's answer adds, by method (filled on the way in, read on the way out). */
type Additions =
  | { method: 'generate'; asked: string; createTime: string; trafficType: string }
  | { method: 'countTokens'; billable: number }
  | { method: 'embedContent'; tokens: number };

const additions = new WeakMap<Call, Additions>();

/**
 * Vertex's request into the Gemini endpoint's: the model its id stands for (also in the canonical
 * path, which fixtures match), the body as the Gemini API takes it, and what the answer will add.
 */
export async function enterGemini(call: Call): Promise<void> {
  const target = targetOf(call, 'google');
  const model = vertexModel(call.runtime, 'google', target.id, target.resource);
  call.params.call = `${model.id}:${target.method}`;
  call.canonicalPath = GEMINI_MODELS + call.params.call;
  const body = call.body ?? {};
  let own: JsonObject;
  switch (target.method) {
    case 'countTokens':
      own = await countRequest(call, body);
      break;
    case 'embedContent':
      own = await embedRequest(call, target, model, body);
      break;
    default: {
      own = geminiBody(call, body);
      const tier = body.serviceTier;
      additions.set(call, {
        method: 'generate',
        asked: target.id,
        createTime: createTime(call.runtime.now()),
        trafficType: (typeof tier === 'string' && TRAFFIC.get(tier)) || 'ON_DEMAND',
      });
    }
  }
  if (own !== body) lenientAlike(body, own);
  call.body = own;
}

/** The Gemini endpoint's answer with what Vertex AI adds to it. */
export function leaveGemini(call: Call, out: Outbound): Outbound {
  const add = additions.get(call);
  if (!add) return out;
  return touchPayloads(out, (payload) => {
    // An error chunk passes as it is.
    if ('error' in payload) return undefined;
    switch (add.method) {
      case 'generate':
        payload.createTime = add.createTime;
        payload.modelVersion = add.asked;
        payload.usageMetadata = { ...fieldsOf(payload.usageMetadata), trafficType: add.trafficType };
        return undefined;
      case 'countTokens':
        return [
          { totalTokens: payload.totalTokens, totalBillableCharacters: add.billable, promptTokensDetails: payload.promptTokensDetails },
        ];
      case 'embedContent':
        return [
          {
            ...payload,
            usageMetadata: { promptTokenCount: add.tokens, totalTokenCount: add.tokens },
            truncated: false,
          },
        ];
    }
  });
}

/** Characters Vertex AI bills for text (every one but whitespace), counted a slice at a time. */
async function billableCharacters(texts: readonly string[]): Promise<number> {
  let count = 0;
  for (const text of texts)
    await inSlices(text.length, (from, to) => {
      // Code points: a pair's low surrogate does not count again.
      count += text.slice(from, to).replace(/[\s\udc00-\udfff]+/g, '').length;
    });
  return count;
}

/** The texts of Gemini contents' parts (a systemInstruction is one more content). */
function textsOf(contents: unknown[]): string[] {
  return contents.flatMap((c) => {
    const parts = fieldsOf(c).parts;
    return Array.isArray(parts) ? parts.map((p) => fieldsOf(p).text).filter((t): t is string => typeof t === 'string') : [];
  });
}

/** The fields of a countTokens request on Vertex AI (its systemInstruction, tools and generationConfig are counted). */
const COUNT_FIELDS = {
  contents: { types: ['array'], required: true, min: 1 },
  systemInstruction: OBJECT,
  tools: { types: ['array'] },
  generationConfig: OBJECT,
  model: { types: ['string'] },
  instances: { types: ['array'] },
} as const;

/** Vertex's countTokens body (a generateContent request's fields at the top) as the Gemini API's `generateContentRequest`. */
async function countRequest(call: Call, body: JsonObject): Promise<JsonObject> {
  checkFields(body, COUNT_FIELDS);
  const { model: _model, instances: _instances, ...request } = body;
  const texts = textsOf(body.systemInstruction ? [body.systemInstruction, ...body.contents] : body.contents);
  additions.set(call, { method: 'countTokens', billable: await billableCharacters(texts) });
  return { generateContentRequest: geminiBody(call, request) };
}

/** An output dimensionality, checked against the model's size. */
function checkDimensions(param: string, value: unknown, model: VertexModel): asserts value is number | undefined {
  checkField(param, value, { types: ['integer'], min: 1, max: model.info.dimensions ?? 768 });
}

/** Fails unless the model embeds (predict and embedContent serve embedding models here). */
function requireEmbedding(target: Target, info: ModelInfo): void {
  if (info.capabilities.includes('embedding')) return;
  throw new GatewayError(
    'invalid_request',
    `${target.resource} does not support ${target.method} (it supports: ${info.capabilities.join(', ')}). ${target.method} serves embedding models here, such as text-embedding-004 or gemini-embedding-001; Imagen models are not in the catalogue: make pictures with generateContent and an image model such as gemini-2.5-flash-image.`,
  );
}

/** Vertex's embedContent body (`content`, `embedContentConfig`) as the Gemini API's (`content`, `outputDimensionality`). */
async function embedRequest(call: Call, target: Target, model: VertexModel, body: JsonObject): Promise<JsonObject> {
  requireEmbedding(target, model.info);
  checkFields(body, { content: { types: ['object'], required: true }, embedContentConfig: OBJECT, model: { types: ['string'] } });
  const config = body.embedContentConfig ?? {};
  checkFields(
    config,
    {
      taskType: { types: ['string'] },
      title: { types: ['string'] },
      outputDimensionality: { types: ['integer'] },
      autoTruncate: { types: ['boolean'] },
      documentOcr: { types: ['boolean'] },
      audioTrackExtraction: { types: ['boolean'] },
    },
    'embedContentConfig.',
  );
  checkDimensions('embedContentConfig.outputDimensionality', config.outputDimensionality, model);
  checkField('content.parts', body.content.parts, { types: ['array'], required: true, min: 1 });
  additions.set(call, { method: 'embedContent', tokens: await inputTokens([textsOf([body.content]).join(' ')]) });
  return { content: body.content, outputDimensionality: config.outputDimensionality };
}

/** What to call instead of a method Vertex AI's Gemini models do not have. */
const INSTEAD = new Map([
  ['rawPredict', 'rawPredict is how Claude models are called (publishers/anthropic); call Gemini models with generateContent.'],
  [
    'streamRawPredict',
    'streamRawPredict is how Claude models are called (publishers/anthropic); call Gemini models with streamGenerateContent.',
  ],
  ['batchEmbedContents', "batchEmbedContents is the Gemini API's; on Vertex AI embed several texts with predict (instances[].content)."],
]);

function unknownMethod({ resource, method }: Target): GatewayError {
  return new GatewayError(
    'not_found',
    `${method ? `Method "${method}"` : 'No method'} on ${resource}. ${INSTEAD.get(method) ?? `Vertex AI's Gemini models take: ${METHODS.join(', ')} (as models/{model}:{method}).`}`,
  );
}

/**
 * POST …/publishers/google/models/{model}:{method} for what the Gemini endpoint does not answer:
 * computeTokens, :predict, and a method Vertex AI's Gemini models do not have.
 */
export async function geminiOwnMethod(call: Call<JsonObject>) {
  const target = targetOf(call, 'google');
  if (target.method !== 'computeTokens' && target.method !== 'predict') throw unknownMethod(target);
  const model = vertexModel(call.runtime, 'google', target.id, target.resource);
  call.entry.model = model.id;
  if (target.method === 'computeTokens') return computeTokens(call, model);
  requireEmbedding(target, model.info);
  return predict(call, model);
}

/** POST …/publishers/{publisher}/models/{model}:{method} for a publisher with no models of its own here. */
export function otherPublisher(call: Call): never {
  const publisher = String(call.params.publisher);
  const target = targetOf(call, publisher);
  if (publisher === 'anthropic') {
    throw noPublisherModel(
      target.resource,
      'Claude models are called under a project and location: /v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:rawPredict.',
    );
  }
  throw noPublisherModel(target.resource, `This gateway serves the publishers ${PUBLISHERS.join(' and ')}.`);
}

/** Characters of text computeTokens lists the tokens of, at most, in one request (its reply grows with them). */
const COMPUTE_CHARS = 8 * EXACT_CHARS;

/** Each content's tokens: its role, their ids (as strings) and their bytes (base64), as Vertex AI lists them. */
async function computeTokens(call: Call<JsonObject>, model: VertexModel) {
  const body = call.body;
  checkFields(body, { contents: COUNT_FIELDS.contents, model: COUNT_FIELDS.model, instances: COUNT_FIELDS.instances });
  const texts = body.contents.map((c) => textsOf([c]).join(''));
  const chars = texts.reduce((n, t) => n + t.length, 0);
  if (chars > COMPUTE_CHARS) {
    throw invalid(
      'contents',
      `computeTokens lists the tokens of at most ${COMPUTE_CHARS} characters of text in one request here (this one has ${chars}); count a longer prompt with countTokens.`,
    );
  }
  // The contents are checked as generateContent checks them.
  parseGenerateRequest({ contents: body.contents }, model.id, false);
  const tokensInfo = [];
  for (const [i, text] of texts.entries()) {
    const tokens = await tokensInSlices(text);
    tokensInfo.push({
      role: fieldsOf(body.contents[i]).role ?? 'user',
      tokenIds: tokens.map((t) => String(t.id)),
      tokens: tokens.map((t) => toBase64(t.bytes)),
    });
  }
  return json(mayBeBig({ tokensInfo }));
}

/** Texts one :predict embeds at most (Vertex AI's limit for text embedding models). */
const MAX_INSTANCES = 250;

/** :predict for text embedding models: `instances[].content` in, `predictions[].embeddings` out. */
async function predict(call: Call<JsonObject>, model: VertexModel) {
  const body = call.body;
  checkFields(body, { instances: { types: ['array'], required: true, min: 1, max: MAX_INSTANCES }, parameters: OBJECT });
  const parameters = body.parameters ?? {};
  checkFields(parameters, { outputDimensionality: { types: ['integer'] }, autoTruncate: { types: ['boolean'] } }, 'parameters.');
  checkDimensions('parameters.outputDimensionality', parameters.outputDimensionality, model);
  const texts = body.instances.map((instance, i) => {
    const at = `instances[${i}]`;
    checkField(at, instance, { types: ['object'], required: true });
    checkFields(
      instance,
      {
        content: { types: ['string'], required: true },
        task_type: { types: ['string'] },
        title: { types: ['string'] },
        mimeType: { types: ['string'] },
      },
      `${at}.`,
    );
    return instance.content;
  });
  // Each text is embedded as the Gemini API's embedContent embeds it (its decision, its vector).
  const all: Exclude<ReturnType<typeof embedOne>, Forward>[] = [];
  for (const [i, text] of texts.entries()) {
    const one = embedOne(
      call,
      model.id,
      { content: { parts: [{ text }] }, outputDimensionality: parameters.outputDimensionality },
      `instances[${i}].`,
    );
    if (isForward(one)) return one;
    all.push(one);
  }
  const counts = await countEachInSlices(texts);
  const billable = await billableCharacters(texts);
  return decidedReply(
    call,
    all.map((e) => e.decision),
    all.length === 1 ? all[0].key : hashString(texts.join('\n'), all[0].decision.seed),
    () =>
      mayBeBig({
        predictions: all.map((e, i) => ({
          embeddings: { values: e.embedding.values, statistics: { truncated: false, token_count: counts[i] } },
        })),
        metadata: { billableCharacterCount: billable },
      }),
    counts.reduce((a, b) => a + b, 0),
  );
}

/** A publisher model as Vertex AI lists it. */
function publisherModel(publisher: string, m: ModelInfo) {
  return {
    name: `publishers/${publisher}/models/${m.id}`,
    versionId: 'default',
    openSourceCategory: 'PROPRIETARY',
    launchStage: 'GA',
    versionState: 'VERSION_STATE_STABLE',
  };
}

function requirePublisher(call: Call): string {
  const publisher = String(call.params.publisher);
  if (!(PUBLISHERS as readonly string[]).includes(publisher))
    throw noPublisherModel(`publishers/${publisher}`, `This gateway serves the publishers ${PUBLISHERS.join(' and ')}.`);
  return publisher;
}

/** GET …/publishers/{publisher}/models: the catalogue's models of that vendor, a page at a time. */
export function listPublisherModels(call: Call) {
  const publisher = requirePublisher(call);
  const params = call.inbound.url.searchParams;
  const size = Math.min(Number(params.get('pageSize') ?? 100) || 100, 1000);
  const start = Number(params.get('pageToken') ?? 0) || 0;
  const all = call.runtime.catalogue.list().filter((m) => m.owned_by === publisher);
  const page = all.slice(start, start + size);
  return json({
    publisherModels: page.map((m) => publisherModel(publisher, m)),
    ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
  });
}

/** GET …/publishers/{publisher}/models/{model}. */
export function getPublisherModel(call: Call) {
  const publisher = String(call.params.publisher);
  const id = String(call.params.model);
  const model = vertexModel(call.runtime, publisher, id, `publishers/${publisher}/models/${id}`);
  return json(publisherModel(publisher, { ...model.info, id: model.id }));
}
