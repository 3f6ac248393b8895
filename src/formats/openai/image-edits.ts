// Image edits (/v1/images/edits, multipart): the uploaded images (one, or several as `image[]`) and
// an optional mask, redrawn by the prompt. The result derives from the uploaded bytes and the prompt,
// so the same upload gives the same picture; uploads are sniffed by their magic bytes, not their names.
import { GatewayError } from '../../core/errors.ts';
import { operationRequest } from '../../core/request.ts';
import { deriveKey, hashString, hashValue } from '../../core/seed.ts';
import { decodeImage, editPicture, sniffImage, type RgbaImage } from '../../core/synthesize/image.ts';
import type { Call, EndpointSpec } from '../../transport/endpoint.ts';
import { isUpload, type FormBody, type Outbound, type Upload } from '../../transport/exchange.ts';
import { openaiFormat } from './errors.ts';
import { answerImages, familyOf, GENERATION_FIELDS, produce, requestedModel, resolveAsk } from './images.ts';
import { checkFields, invalid, invalidValue, missing, type FieldRule } from './validate.ts';

type Raw = Record<string, unknown>;

const { style: _style, moderation: _moderation, ...shared } = GENERATION_FIELDS;

const EDIT_FIELDS: Record<string, FieldRule> = {
  ...shared,
  // Uploads are checked (and named in errors) as files below.
  image: { types: ['object', 'array', 'string'], required: true },
  mask: { types: ['object', 'string'] },
  input_fidelity: { types: ['string'], nullable: true, values: ['high', 'low'] },
  markup: { types: ['object', 'string'] },
};

/** At most this many input images (the GPT image models' limit). */
const MAX_IMAGES = 16;

/** Form fields arrive as text: numbers and booleans as the JSON API would have them. */
function coerce(form: FormBody): Raw {
  const out: Raw = {};
  for (const [name, value] of Object.entries(form)) {
    if (typeof value !== 'string') out[name] = value;
    else if (['n', 'output_compression', 'partial_images', 'frame_count', 'frame_duration_ms'].includes(name) && /^-?\d+$/.test(value)) out[name] = Number(value);
    else if (name === 'stream' && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}

const badFile = (param: string, why: string) => new GatewayError('invalid_request', `Invalid file '${param}': ${why}`, { param, code: 'invalid_image_format' });

/** The uploaded file at `param`, decoded, or the 400 that names it. */
async function decodeUpload(param: string, value: unknown): Promise<{ upload: Upload; pixels: RgbaImage }> {
  if (!isUpload(value)) throw badFile(param, 'expected an image file upload (multipart/form-data), but got a text field.');
  if (!value.bytes.length) throw badFile(param, 'the file is empty.');
  if (!sniffImage(value.bytes)) throw badFile(param, "unsupported file format. Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.");
  try {
    return { upload: value, pixels: await decodeImage(value.bytes) };
  } catch (error) {
    throw badFile(param, `${(error as Error).message}.`);
  }
}

/** The standard size closest in shape to the first image, for `size: auto`. */
function autoSize(first: RgbaImage): string {
  const ratio = first.width / first.height;
  return ratio > 1.2 ? '1536x1024' : ratio < 1 / 1.2 ? '1024x1536' : '1024x1024';
}

/** Input image tokens of one picture: 65 plus 129 per 512-pixel tile once scaled to fit 2048 and then to a 512-pixel short side. */
function inputImageTokens(image: RgbaImage): number {
  let { width, height } = image;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 512 / Math.min(width, height));
  return 65 + 129 * Math.ceil((width * shrink) / 512) * Math.ceil((height * shrink) / 512);
}

async function edits(call: Call): Promise<Outbound> {
  if (!/^\s*multipart\/form-data/i.test(call.inbound.header('content-type') ?? '')) {
    throw new GatewayError('invalid_request', "This gateway takes image edits as multipart/form-data ('image' or 'image[]' file uploads); JSON bodies with 'images' references are not emulated.", { param: 'image' });
  }
  const body = coerce(call.body as FormBody);
  if (body.image === undefined) throw missing('image');
  checkFields(body, EDIT_FIELDS);
  const model = requestedModel(body, true);
  call.entry.model = model;
  call.runtime.requireModel(model, 'image');
  const family = familyOf(model);
  if (family === 'dall-e-3') throw invalidValue('model', model, ['dall-e-2', 'gpt-image-1', 'gpt-image-1-mini', 'gpt-image-1.5']);
  const uploads = [body.image].flat();
  if (!uploads.length) throw missing('image');
  if (uploads.length > (family === 'dall-e-2' ? 1 : MAX_IMAGES)) {
    throw invalid('image', `Invalid 'image': too many images. ${model} takes at most ${family === 'dall-e-2' ? 1 : MAX_IMAGES}, but got ${uploads.length}.`, 'array_above_max_length');
  }
  const images = [];
  for (const [i, upload] of uploads.entries()) images.push(await decodeUpload(uploads.length > 1 ? `image[${i}]` : 'image', upload));
  if (family === 'dall-e-2') {
    const { upload, pixels } = images[0];
    if (sniffImage(upload.bytes) !== 'png' || pixels.width !== pixels.height) throw badFile('image', `${model} edits a square PNG image; this one is a ${sniffImage(upload.bytes)?.toUpperCase()} of ${pixels.width}x${pixels.height}.`);
  }
  const mask = body.mask === undefined ? undefined : await decodeUpload('mask', body.mask);
  if (mask) {
    if (sniffImage(mask.upload.bytes) !== 'png') throw badFile('mask', 'the mask must be a PNG file (its fully transparent pixels mark where to edit).');
    const first = images[0].pixels;
    if (mask.pixels.width !== first.width || mask.pixels.height !== first.height) {
      throw invalid('mask', `Invalid mask: the mask must have the same dimensions as the image (the mask is ${mask.pixels.width}x${mask.pixels.height}, the image ${first.width}x${first.height}).`, 'invalid_image_dimensions');
    }
  }
  if (model === 'gpt-image-1-mini' && body.input_fidelity === 'high') throw invalidValue('input_fidelity', 'high', ['low']);
  const ask = resolveAsk(body, model, autoSize(images[0].pixels));
  const sources = images.map((i) => i.pixels);
  const request = operationRequest('openai', 'image', model, ask.prompt);
  request.messages[0].parts.push(...sources.map(() => ({ type: 'image' as const })));
  const decision = call.runtime.decide(call, { ...request, n: ask.n, stream: ask.stream });
  // The uploads' bytes are part of what the picture depends on; latin1 maps each byte to one character.
  const digest = (bytes: Uint8Array) => hashString(new TextDecoder('latin1').decode(bytes));
  const key = hashValue([model, ask.prompt, ask.size, ask.quality, ask.background, images.map((i) => digest(i.upload.bytes)), mask ? digest(mask.upload.bytes) : null], decision.seed);
  const transparent = ask.background === 'transparent';
  const produced = await produce(ask, decision, (i, shapes) => editPicture(sources, ask.prompt, ask.width, ask.height, deriveKey(key, i), mask?.pixels, { transparent, shapes }));
  const imageTokens = ask.family === 'gpt-image' ? sources.reduce((n, s) => n + inputImageTokens(s), 0) : 0;
  return answerImages(call, ask, decision, key, produced, 'image_edit', imageTokens);
}

export const imageEditEndpoints: EndpointSpec[] = [{ method: 'POST', path: '/v1/images/edits', format: openaiFormat, auth: ['bearer'], handle: edits }];
