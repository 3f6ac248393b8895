// Image generation (/v1/images/generations) and the image files its `url` answers point at
// (/v1/images/files/{name}, public like the real service's signed URLs). Pictures come from the
// core's image synthesizer; each model family has its own sizes, counts and fields, as the API does.
import { GatewayError } from '../../core/errors.ts';
import { operationRequest } from '../../core/request.ts';
import { deriveKey, hashValue, makeId } from '../../core/seed.ts';
import { countTokens } from '../../core/tokens.ts';
import { pieceTimes } from '../../core/timing.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import {
  decodeImage,
  drawPicture,
  encodeImage,
  MIME_TYPES,
  promptWords,
  shapeCount,
  sniffImage,
  type ImageFormat,
  type RgbaImage,
} from '../../core/synthesize/image.ts';
import type { Decision } from '../../pipeline/decide.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import type { Outbound } from '../../pipeline/exchange.ts';
import { decidedReply, decidedStream } from '../../pipeline/delivery.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import { requestOrigin } from '../../pipeline/paths.ts';
import { checkFields, invalid, invalidValue } from './validate.ts';
import { type CheckedFields, type FieldRules, type JsonObject, optional } from '../fields.ts';
import { decide, isForward, type Forward, requireModel } from '../../pipeline/decide.ts';
import { yieldToLoop } from '../../core/slices.ts';
import { gptImageTokens } from './image-tokens.ts';
import { defineStore } from '../../core/stores.ts';
import { heldFor } from '../../scope.ts';

/** A picture served by URL (`response_format: "url"`), by file name. */
interface ImageFile {
  bytes: Uint8Array;
  contentType: string;
}

/** The pictures `url` answers point at: any client may fetch one (no token); 1000 and 256 MiB at most, the oldest dropped first. */
const IMAGE_FILES = defineStore<ImageFile>({
  name: 'openai.image-files',
  title: 'Generated image files (served by URL)',
  maxCount: 1000,
  maxBytes: 256 * 1024 * 1024,
  whenFull: 'drop-oldest',
  describe: (file) => ({ content_type: file.contentType }),
});

/** Model families: the dall-e models keep their legacy rules, every other image model follows the GPT image models'. */
type Family = 'dall-e-2' | 'dall-e-3' | 'gpt-image';

interface FamilyRules {
  sizes: string[];
  defaultSize: string;
  maxN: number;
  qualities: string[];
  maxPrompt: number;
}

export const RULES: Record<Family, FamilyRules> = {
  'dall-e-2': {
    sizes: ['256x256', '512x512', '1024x1024'],
    defaultSize: '1024x1024',
    maxN: 10,
    qualities: ['standard', 'auto'],
    maxPrompt: 1000,
  },
  'dall-e-3': {
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    defaultSize: '1024x1024',
    maxN: 1,
    qualities: ['standard', 'hd', 'auto'],
    maxPrompt: 4000,
  },
  'gpt-image': {
    sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'],
    defaultSize: 'auto',
    maxN: 10,
    qualities: ['low', 'medium', 'high', 'auto'],
    maxPrompt: 32000,
  },
};

/** Fields only the GPT image models take, and fields only the dall-e models take. */
const GPT_ONLY = ['background', 'moderation', 'output_format', 'output_compression', 'partial_images', 'stream', 'input_fidelity'];
const DALLE_ONLY = ['response_format', 'style'];

export function familyOf(model: string): Family {
  return model === 'dall-e-2' || model === 'dall-e-3' ? model : 'gpt-image';
}

export const GENERATION_FIELDS = {
  prompt: { types: ['string'], required: true },
  model: optional('string'),
  n: { types: ['integer'], nullable: true, min: 1, max: 10 },
  quality: { types: ['string'], nullable: true, values: ['standard', 'hd', 'low', 'medium', 'high', 'auto'] },
  response_format: { types: ['string'], nullable: true, values: ['url', 'b64_json'] },
  output_format: { types: ['string'], nullable: true, values: ['png', 'jpeg', 'webp'] },
  output_compression: { types: ['integer'], nullable: true, min: 0, max: 100 },
  stream: optional('boolean'),
  partial_images: { types: ['integer'], nullable: true, min: 0, max: 3 },
  size: optional('string'),
  moderation: { types: ['string'], nullable: true, values: ['low', 'auto'] },
  background: { types: ['string'], nullable: true, values: ['transparent', 'opaque', 'auto'] },
  style: { types: ['string'], nullable: true, values: ['vivid', 'natural'] },
  user: { types: ['string'] },
  // The SDK's newer name for `user`.
  safety_identifier: optional('string'),
  // Accepted, not emulated: animation frames, SVG output and its complexity.
  complexity: { types: ['string'], nullable: true, values: ['low', 'medium', 'high'] },
  frame_count: { types: ['integer'], nullable: true, min: 1 },
  frame_duration_ms: { types: ['integer'], nullable: true, min: 1 },
  svg: optional('object'),
} as const satisfies FieldRules;

/**
 * A generation, edit or variation body once checked against its rule set: edits and variations give
 * the fields they share with generations the same rules, and lack the others.
 */
type ImageBody = Partial<CheckedFields<typeof GENERATION_FIELDS>> & { prompt: string };

/** What an image request asks for, with every default resolved. */
interface ImageAsk {
  model: string;
  family: Family;
  prompt: string;
  n: number;
  width: number;
  height: number;
  /** As reported back: `WIDTHxHEIGHT`. */
  size: string;
  quality: string;
  style?: string;
  background: 'transparent' | 'opaque';
  format: ImageFormat;
  compression: number;
  /** `url` or `b64_json` (the GPT image models always answer base64). */
  responseFormat: 'url' | 'b64_json';
  stream: boolean;
  partialImages: number;
}

const given = (body: JsonObject, name: string) => body[name] !== undefined && body[name] !== null;

const unknownParameter = (param: string) =>
  new GatewayError('invalid_request', `Unknown parameter: '${param}'.`, { param, code: 'unknown_parameter' });

/** The model a request names, or the API's default: dall-e-2, unless a GPT-image-only field is used (`edit` defaults to the GPT image model). */
export function requestedModel(body: ImageBody, edit: boolean): string {
  if (body.model != null) return body.model;
  return edit || GPT_ONLY.some((f) => given(body, f) && body[f] !== false) ? 'gpt-image-1' : 'dall-e-2';
}

/** Checks the fields against the model's rules and resolves the defaults. */
export function resolveAsk(body: ImageBody, model: string, fallbackSize?: string): ImageAsk {
  const family = familyOf(model);
  const rules = RULES[family];
  for (const field of family === 'gpt-image' ? DALLE_ONLY : GPT_ONLY)
    if (given(body, field) && body[field] !== false) throw unknownParameter(field);
  if (family === 'dall-e-2' && given(body, 'style')) throw unknownParameter('style');
  const prompt = body.prompt;
  if (!prompt.trim())
    throw invalid(
      'prompt',
      "Invalid 'prompt': empty string. Expected a string with minimum length 1, but got an empty string instead.",
      'empty_string',
    );
  if (prompt.length > rules.maxPrompt) {
    throw invalid(
      'prompt',
      `Invalid 'prompt': string too long. Expected a string with maximum length ${rules.maxPrompt}, but got a string with length ${prompt.length} instead.`,
      'string_above_max_length',
    );
  }
  const n = body.n ?? 1;
  if (n > rules.maxN)
    throw invalid(
      'n',
      `Invalid 'n': integer above maximum value. Expected a value <= ${rules.maxN} for ${model}, but got ${n} instead.`,
      'integer_above_max_value',
    );
  const sizeAsked = body.size ?? rules.defaultSize;
  if (!rules.sizes.includes(sizeAsked)) throw invalidValue('size', sizeAsked, rules.sizes);
  const size = sizeAsked === 'auto' ? (fallbackSize ?? '1024x1024') : sizeAsked;
  const [width, height] = size.split('x').map(Number);
  const qualityAsked = body.quality ?? 'auto';
  if (!rules.qualities.includes(qualityAsked)) throw invalidValue('quality', qualityAsked, rules.qualities);
  const quality = qualityAsked !== 'auto' ? qualityAsked : family === 'gpt-image' ? 'high' : 'standard';
  const format: ImageFormat = body.output_format ?? 'png';
  const backgroundAsked = body.background ?? 'auto';
  if (backgroundAsked === 'transparent' && format === 'jpeg') {
    throw invalid(
      'background',
      "Transparent background is not supported for the 'jpeg' output format; use 'png' or 'webp'.",
      'invalid_value',
    );
  }
  const compression = body.output_compression ?? 100;
  if (compression < 100 && format === 'png')
    throw invalid(
      'output_compression',
      "'output_compression' is only supported for the 'jpeg' and 'webp' output formats.",
      'invalid_value',
    );
  const stream = body.stream === true;
  if (given(body, 'partial_images') && !stream)
    throw invalid('partial_images', "'partial_images' is only supported with 'stream': true.", 'invalid_value');
  return {
    model,
    family,
    prompt,
    n,
    width,
    height,
    size,
    quality,
    style: family === 'dall-e-3' ? (body.style ?? 'vivid') : undefined,
    background: backgroundAsked === 'transparent' ? 'transparent' : 'opaque',
    format,
    compression,
    responseFormat: family === 'gpt-image' ? 'b64_json' : (body.response_format ?? 'url'),
    stream,
    partialImages: body.partial_images ?? 0,
  };
}

function imageOutputTokens(ask: ImageAsk): number {
  return gptImageTokens(ask.quality, ask.size, ask.width, ask.height);
}

interface ImageUsage {
  input_tokens: number;
  input_tokens_details: { text_tokens: number; image_tokens: number };
  output_tokens: number;
  total_tokens: number;
}

function imageUsage(ask: ImageAsk, images: number, inputImageTokens = 0): ImageUsage {
  const text = countTokens(ask.prompt);
  const output = imageOutputTokens(ask) * images;
  return {
    input_tokens: text + inputImageTokens,
    input_tokens_details: { text_tokens: text, image_tokens: inputImageTokens },
    output_tokens: output,
    total_tokens: text + inputImageTokens + output,
  };
}

/** dall-e-3 rewrites prompts; ours says what was drawn, the same for the same request. */
function revisedPrompt(ask: ImageAsk): string {
  const subject = ask.prompt.trim().replace(/[.!?\s]+$/, '');
  const words = promptWords(ask.prompt);
  const tone = ask.style === 'natural' ? 'natural, true-to-life' : 'vivid, dramatic';
  return `A ${tone} ${ask.width}x${ask.height} picture of ${subject}, drawn as ${shapeCount(ask.prompt)} bold shape${words.length === 1 ? '' : 's'} over a soft colour gradient.`;
}

/** The files of one request's pictures and their partial images, produced by `picture(index, shapes)`. */
interface Produced {
  files: Uint8Array[];
  /** Per picture, its partial images (streaming only). */
  partials: Uint8Array[][];
}

/** Pictures drawn by `draw` (or the fixture's pinned file), encoded as the request asks. */
export async function produce(
  ask: ImageAsk,
  decision: Decision,
  draw: (index: number, shapes?: number) => RgbaImage | Promise<RgbaImage>,
): Promise<Produced> {
  const pinned = decision.pinned?.image;
  let pinnedPicture: RgbaImage | undefined;
  let pinnedFile: Uint8Array | undefined;
  if (pinned !== undefined) {
    pinnedFile = Uint8Array.from(atob(pinned), (c) => c.charCodeAt(0));
    if (sniffImage(pinnedFile) !== ask.format || ask.stream) {
      pinnedPicture = await decodeImage(pinnedFile).catch((error: Error) => {
        throw new GatewayError(
          'server',
          `The fixture "${decision.pinned?.name}" pins reply.image, which is not a readable image: ${error.message}.`,
        );
      });
    }
  }
  const encode = async (picture: RgbaImage | Promise<RgbaImage>, handOver: boolean) => {
    // Each file takes a while (about 0.4 s for 1536x1024 PNG, on a worker thread where there is one):
    // let other requests run in between.
    const pixels = await picture;
    await yieldToLoop();
    return encodeImage(pixels, ask.format, ask.compression, handOver);
  };
  // A drawn picture is the encoder's to keep (its pixels move to the thread); a pinned one is reused.
  const picture = (i: number, shapes?: number) => encode(pinnedPicture ?? draw(i, shapes), !pinnedPicture);
  const files: Uint8Array[] = [];
  const partials: Uint8Array[][] = [];
  const total = shapeCount(ask.prompt);
  for (let i = 0; i < ask.n; i++) {
    files.push(pinnedFile && !pinnedPicture ? pinnedFile : await picture(i));
    const steps: Uint8Array[] = [];
    // Each partial image shows more of the final picture's shapes.
    for (let p = 0; ask.stream && p < ask.partialImages; p++)
      steps.push(await picture(i, Math.floor((total * (p + 1)) / (ask.partialImages + 1))));
    partials.push(steps);
  }
  return { files, partials };
}

/** The JSON answer (ImagesResponse), keeping url files in the gateway's store. */
function imagesResponse(call: Call, ask: ImageAsk, produced: Produced, key: number, created: number, inputImageTokens = 0): JsonObject {
  const data = produced.files.map((file, i) => {
    const item: JsonObject = {};
    if (ask.responseFormat === 'url') {
      const name = `${makeId('img-', 24, deriveKey(key, `file:${i}`))}.${ask.format === 'jpeg' ? 'jpg' : ask.format}`;
      heldFor(call, IMAGE_FILES).set(name, { bytes: file, contentType: MIME_TYPES[ask.format] }, file.byteLength);
      item.url = `${requestOrigin(call.inbound)}/v1/images/files/${name}`;
    } else item.b64_json = toBase64(file);
    if (ask.family === 'dall-e-3') item.revised_prompt = revisedPrompt(ask);
    return item;
  });
  if (ask.family !== 'gpt-image') return { created, data };
  return {
    created,
    background: ask.background,
    data,
    output_format: ask.format,
    quality: ask.quality,
    size: ask.size,
    usage: imageUsage(ask, produced.files.length, inputImageTokens),
  };
}

/**
 * The image stream: each picture's partial images, then it completed (`prefix` is image_generation or
 * image_edit); each event's base64 made as it is written.
 */
function* imageStreamEvents(
  ask: ImageAsk,
  produced: Produced,
  prefix: string,
  key: number,
  created: number,
  latency: Decision['latency'],
  inputImageTokens = 0,
): Generator<StreamEvent> {
  const common = { created_at: created, size: ask.size, quality: ask.quality, background: ask.background, output_format: ask.format };
  const count = produced.files.reduce((n, _, i) => n + produced.partials[i].length + 1, 0);
  const times = pieceTimes(latency, count, deriveKey(key, 'timing'));
  let at = 0;
  const event = (p: JsonObject & { type: string }): StreamEvent => ({ due: times[at++], data: JSON.stringify(p), event: p.type });
  for (const [i, file] of produced.files.entries()) {
    for (const [index, partial] of produced.partials[i].entries())
      yield event({ type: `${prefix}.partial_image`, b64_json: toBase64(partial), ...common, partial_image_index: index });
    yield event({
      type: `${prefix}.completed`,
      b64_json: toBase64(file),
      ...common,
      usage: imageUsage(ask, 1, i === 0 ? inputImageTokens : 0),
    });
  }
}

/** The answer to an image request: streamed events, or the JSON response after the decision's delay. */
export function answerImages(
  call: Call,
  ask: ImageAsk,
  decision: Decision,
  key: number,
  produced: Produced,
  prefix: string,
  inputImageTokens = 0,
): Outbound | Promise<Outbound> {
  const created = call.runtime.now();
  if (ask.stream)
    return decidedStream(call, decision, key, () =>
      imageStreamEvents(ask, produced, prefix, key, created, decision.latency, inputImageTokens),
    );
  return decidedReply(call, decision, key, () => imagesResponse(call, ask, produced, key, created, inputImageTokens));
}

async function generations(call: Call<JsonObject>): Promise<Outbound | Forward> {
  const body = call.body;
  checkFields(body, GENERATION_FIELDS);
  const model = requestedModel(body, false);
  call.entry.model = model;
  requireModel(call, model, 'image');
  const ask = resolveAsk(body, model);
  const decision = decide(call, { ...operationRequest('openai', 'image', model, ask.prompt), n: ask.n, stream: ask.stream });
  if (isForward(decision)) return decision;
  // What the pictures depend on: not how they are delivered (url or base64, streamed or not).
  const key = hashValue([model, ask.prompt, ask.size, ask.quality, ask.style ?? null, ask.background], decision.seed);
  const transparent = ask.background === 'transparent';
  const produced = await produce(ask, decision, (i, shapes) =>
    drawPicture(ask.prompt, ask.width, ask.height, deriveKey(key, i), { transparent, shapes }),
  );
  return answerImages(call, ask, decision, key, produced, 'image_generation');
}

function imageFile(call: Call): Outbound {
  const name = String(call.params.file);
  // Public, like a signed URL: whichever test made it, whoever has the URL fetches it.
  const file = call.runtime.stores.of(IMAGE_FILES).find(name)?.value;
  if (!file)
    throw new GatewayError(
      'not_found',
      `No image file '${name}': image URLs last until the gateway is reset (or until newer images push it out of the store).`,
      { param: 'file' },
    );
  return { status: 200, headers: { 'content-type': file.contentType, 'cache-control': 'private, max-age=3600' }, body: file.bytes };
}

/** The handlers of the image routes (routes-media.ts: loaded on the first request to one). */
export const imageHandlers = { generations, imageFile } satisfies Record<string, EndpointSpec['handle']>;
