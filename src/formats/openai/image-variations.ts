// Image variations (/v1/images/variations, multipart, dall-e-2 only): the uploaded square PNG redrawn
// by the edit synthesizer with no prompt, each picture with its own key, so the same upload gives the
// same variations. Uploads are checked, decoded and counted exactly as edits do.
import { operationRequest } from '../../core/request.ts';
import { deriveKey, hashValue } from '../../core/seed.ts';
import { ImageWork } from '../../core/synthesize/image-work.ts';
import { editPictureOffThread } from '../../core/synthesize/image.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { decide, isForward, type Forward, requireModel } from '../../pipeline/decide.ts';
import type { JsonObject, Outbound } from '../../pipeline/exchange.ts';
import { type FieldRules, optional } from '../fields.ts';
import { checkUpload, decodeUpload, imageForm, requireSquarePng, uploadDigest } from './image-edits.ts';
import { answerImages, produce, resolveAsk } from './images.ts';
import { checkFields, invalid, invalidValue } from './validate.ts';

/** Every field of ImageCreateVariationParams. */
const VARIATION_FIELDS = {
  // Checked (and named in errors) as a file below.
  image: { types: ['object', 'array', 'string'], required: true },
  model: optional('string'),
  n: { types: ['integer'], nullable: true, min: 1, max: 10 },
  response_format: { types: ['string'], nullable: true, values: ['url', 'b64_json'] },
  size: optional('string'),
  user: { types: ['string'] },
} as const satisfies FieldRules;

async function variations(call: Call<JsonObject>): Promise<Outbound | Forward> {
  const body = imageForm(call, "This gateway takes image variations as multipart/form-data (one 'image' file upload, a square PNG).");
  checkFields(body, VARIATION_FIELDS);
  const model = body.model ?? 'dall-e-2';
  call.entry.model = model;
  requireModel(call, model, 'image');
  if (model !== 'dall-e-2') throw invalidValue('model', model, ['dall-e-2']);
  const uploads = [body.image].flat();
  if (uploads.length !== 1)
    throw invalid('image', `Invalid 'image': ${model} makes variations of one image, but got ${uploads.length}.`, 'array_above_max_length');
  const image = checkUpload('image', uploads[0]);
  requireSquarePng(model, image);
  // resolveAsk applies dall-e-2's rules to n, size and response_format; a variation has no prompt of its own.
  const ask = { ...resolveAsk({ ...body, prompt: 'variation' }, model), prompt: '' };
  const source = await decodeUpload(image, { width: ask.width, height: ask.height }, new ImageWork(), call.inbound.signal);
  const request = operationRequest('openai', 'image', model, '');
  request.messages[0].parts.push({ type: 'image' });
  const decision = decide(call, { ...request, n: ask.n });
  if (isForward(decision)) return decision;
  const key = hashValue(['variation', model, ask.size, uploadDigest(image.upload.bytes)], decision.seed);
  const produced = await produce(ask, decision, (i) => editPictureOffThread([source], '', ask.width, ask.height, deriveKey(key, i)));
  return answerImages(call, ask, decision, key, produced, 'image_variation');
}

/** The handler of the image variations route (routes-media.ts: loaded on its first request). */
export const imageVariationHandlers = { variations } satisfies Record<string, EndpointSpec['handle']>;
