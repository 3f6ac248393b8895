// Gemini on Vertex AI: the Gemini format's handlers under Vertex's paths, with what Vertex takes and
// answers beyond the Gemini API (its request fields, createTime and trafficType on replies,
// computeTokens, embeddings by :predict and :embedContent) and its model ids (models.ts).
import { GatewayError } from '../../core/errors.ts';
import type { CanonicalReply } from '../../core/reply.ts';
import { hashString } from '../../core/seed.ts';
import { inSlices } from '../../core/slices.ts';
import { countEachInSlices, EXACT_CHARS, tokensInSlices } from '../../core/tokens.ts';
import type { ModelInfo } from '../../core/models.ts';
import type { Call } from '../../pipeline/call.ts';
import { decidedReply } from '../../pipeline/delivery.ts';
import { isForward, type Forward } from '../../pipeline/decide.ts';
import { json, mayBeBig, type JsonObject } from '../../pipeline/exchange.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import { fieldsOf } from '../fields.ts';
import { GEMINI_RULES, type GenerateResponse, type GenerateRules } from '../gemini/parse.ts';
import { embedOne, generate, type GenerateDialect, inputTokens, promptTokens } from '../gemini/routes.ts';
import { checkField, checkFields, invalid } from '../gemini/validate.ts';
import { noPublisherModel, PUBLISHERS, vertexModel, type VertexModel } from './models.ts';

// What Vertex AI takes beyond the Gemini API (the fields @google/genai sends only in Vertex mode).
const request = { ...GEMINI_RULES.request, modelArmorConfig: { types: ['object'] }, outputConfig: { types: ['object'] } } as const;
const generation = {
  ...GEMINI_RULES.generation,
  routingConfig: { types: ['object'] },
  modelConfig: { types: ['object'] },
  audioTimestamp: { types: ['boolean'] },
} as const;
const image = {
  ...GEMINI_RULES.image,
  personGeneration: { types: ['string'] },
  prominentPeople: { types: ['string'] },
  imageOutputOptions: { types: ['object'] },
} as const;
const VERTEX_RULES: GenerateRules = { request, generation, image };

/** Google's word for the quota a request's serviceTier draws on (ON_DEMAND for any other). */
const TRAFFIC = new Map([
  ['flex', 'ON_DEMAND_FLEX'],
  ['priority', 'ON_DEMAND_PRIORITY'],
]);

/** A time as Vertex AI writes it, to the microsecond: `2026-01-01T00:00:00.000000Z`. */
const createTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/Z$/, '000Z');

/** Vertex AI's fields on each GenerateContentResponse: its createTime, the model as asked, the quota it drew on. */
function vertexReply(asked: string, serviceTier: unknown): GenerateDialect {
  const trafficType = TRAFFIC.get(serviceTier as string) ?? 'ON_DEMAND';
  return {
    rules: VERTEX_RULES,
    decorate: (body: GenerateResponse, _request, reply: CanonicalReply) => ({
      ...body,
      createTime: createTime(reply.created),
      modelVersion: asked,
      usageMetadata: { ...body.usageMetadata, trafficType },
    }),
  };
}

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

const METHODS = ['generateContent', 'streamGenerateContent', 'countTokens', 'computeTokens', 'embedContent', 'predict'];

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

/** Fails unless the model embeds (predict and embedContent serve embedding models here). */
function requireEmbedding(target: Target, info: ModelInfo): void {
  if (info.capabilities.includes('embedding')) return;
  throw new GatewayError(
    'invalid_request',
    `${target.resource} does not support ${target.method} (it supports: ${info.capabilities.join(', ')}). ${target.method} serves embedding models here, such as text-embedding-004 or gemini-embedding-001; Imagen models are not in the catalogue: make pictures with generateContent and an image model such as gemini-2.5-flash-image.`,
  );
}

/** POST …/publishers/{publisher}/models/{model}:{method}, under a project and location or (express mode) not. */
export async function geminiMethod(call: Call<JsonObject>) {
  const publisher = String(call.params.publisher);
  const target = targetOf(call, publisher);
  if (publisher === 'anthropic' && call.params.project === undefined) {
    throw noPublisherModel(
      target.resource,
      'Claude models are called under a project and location: /v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:rawPredict.',
    );
  }
  if (!METHODS.includes(target.method)) throw unknownMethod(target);
  // Another publisher's model, or one this gateway does not serve, is a 404 here.
  const model = vertexModel(call.runtime.catalogue, publisher, target.id, target.resource);
  call.entry.model = model.id;
  switch (target.method) {
    case 'countTokens':
      return countTokens(call, model);
    case 'computeTokens':
      return computeTokens(call, model);
    case 'embedContent':
      requireEmbedding(target, model.info);
      return embedContent(call, model);
    case 'predict':
      requireEmbedding(target, model.info);
      return predict(call, model);
    default:
      return generate(call, model.id, target.method, vertexReply(target.id, call.body.serviceTier));
  }
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
  systemInstruction: { types: ['object'] },
  tools: { types: ['array'] },
  generationConfig: { types: ['object'] },
  model: { types: ['string'] },
  instances: { types: ['array'] },
} as const;

async function countTokens(call: Call<JsonObject>, model: VertexModel) {
  const body = call.body;
  checkFields(body, COUNT_FIELDS);
  const { model: _model, instances: _instances, ...request } = body;
  const tokens = await promptTokens(call, model.id, request, VERTEX_RULES);
  const texts = textsOf(body.systemInstruction ? [body.systemInstruction, ...body.contents] : body.contents);
  return json({
    totalTokens: tokens,
    totalBillableCharacters: await billableCharacters(texts),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }],
  });
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
  await promptTokens(call, model.id, { contents: body.contents }, VERTEX_RULES);
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

/** One text's vector for `model` (the Gemini format's embedContent does the deciding and the vector). */
function embedText(call: Call, model: VertexModel, text: string, dimensions: number | undefined, at: string) {
  return embedOne(call, model.id, { content: { parts: [{ text }] }, outputDimensionality: dimensions }, at);
}

/** An output dimensionality, checked against the model's size. */
function checkDimensions(param: string, value: unknown, model: VertexModel): asserts value is number | undefined {
  checkField(param, value, { types: ['integer'], min: 1, max: model.info.dimensions ?? 768 });
}

/** :embedContent, one content (gemini-embedding-2 and later): `{embedding, usageMetadata, truncated}`. */
async function embedContent(call: Call<JsonObject>, model: VertexModel) {
  const body = call.body;
  checkFields(body, {
    content: { types: ['object'], required: true },
    embedContentConfig: { types: ['object'] },
    model: { types: ['string'] },
  });
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
  const text = textsOf([body.content]).join(' ');
  const one = embedText(call, model, text, config.outputDimensionality, '');
  if (isForward(one)) return one;
  const tokens = await inputTokens([one.text]);
  return decidedReply(
    call,
    one.decision,
    one.key,
    () => ({ embedding: one.embedding, usageMetadata: { promptTokenCount: tokens, totalTokenCount: tokens }, truncated: false }),
    tokens,
  );
}

/** Texts one :predict embeds at most (Vertex AI's limit for text embedding models). */
const MAX_INSTANCES = 250;

/** :predict for text embedding models: `instances[].content` in, `predictions[].embeddings` out. */
async function predict(call: Call<JsonObject>, model: VertexModel) {
  const body = call.body;
  checkFields(body, { instances: { types: ['array'], required: true, min: 1, max: MAX_INSTANCES }, parameters: { types: ['object'] } });
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
  const all: Exclude<ReturnType<typeof embedText>, Forward>[] = [];
  for (const [i, text] of texts.entries()) {
    const one = embedText(call, model, text, parameters.outputDimensionality, `instances[${i}].`);
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
  const model = vertexModel(call.runtime.catalogue, publisher, id, `publishers/${publisher}/models/${id}`);
  return json(publisherModel(publisher, { ...model.info, id: model.id }));
}
