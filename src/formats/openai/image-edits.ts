// Image edits (/v1/images/edits, multipart): the uploaded images (one, or several as `image[]`) and
// an optional mask, redrawn by the prompt. The result derives from the uploaded bytes and the prompt,
// so the same upload gives the same picture; uploads are sniffed by their magic bytes, not their names.
import { GatewayError } from '../../core/errors.ts';
import { operationRequest } from '../../core/request.ts';
import { deriveKey, hashString, hashValue } from '../../core/seed.ts';
import { IMAGE_WORK_LIMITS, ImageQueueFull, ImageWork, ImageWorkExceeded, imageDecodeGate } from '../../core/synthesize/image-work.ts';
import { DecodeAbandoned } from '../../core/synthesize/image-pool.ts';
import {
  decodeImage,
  editLayout,
  editPictureOffThread,
  imageSize,
  MAX_PIXELS,
  sniffImage,
  type ImageFormat,
  type RgbaImage,
} from '../../core/synthesize/image.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { isUpload, type Outbound, type Upload } from '../../pipeline/exchange.ts';
import { answerImages, familyOf, GENERATION_FIELDS, produce, requestedModel, resolveAsk } from './images.ts';
import { checkFields, invalid, invalidValue, missing } from './validate.ts';
import { decide, isForward, type Forward, requireModel } from '../../pipeline/decide.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import type { FieldRules, JsonObject as Raw } from '../fields.ts';

const { style: _style, moderation: _moderation, ...shared } = GENERATION_FIELDS;

const EDIT_FIELDS = {
  ...shared,
  // Uploads are checked (and named in errors) as files below.
  image: { types: ['object', 'array', 'string'], required: true },
  mask: { types: ['object', 'string'] },
  input_fidelity: { types: ['string'], nullable: true, values: ['high', 'low'] },
  markup: { types: ['object', 'string'] },
} as const satisfies FieldRules;

/** At most this many input images (the GPT image models' limit). */
const MAX_IMAGES = 16;

/** Form fields arrive as text: numbers and booleans as the JSON API would have them. */
function coerce(form: Raw): Raw {
  const out: Raw = {};
  for (const [name, value] of Object.entries(form)) {
    if (typeof value !== 'string') out[name] = value;
    else if (['n', 'output_compression', 'partial_images', 'frame_count', 'frame_duration_ms'].includes(name) && /^-?\d+$/.test(value))
      out[name] = Number(value);
    else if (name === 'stream' && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}

const badFile = (param: string, why: string) =>
  new GatewayError('invalid_request', `Invalid file '${param}': ${why}`, { param, code: 'invalid_image_format' });

interface Checked {
  param: string;
  upload: Upload;
  format: ImageFormat;
  size: { width: number; height: number };
}

/** The uploaded file at `param`, checked by its header (nothing decoded yet), or the 400 that names it. */
export function checkUpload(param: string, value: unknown): Checked {
  if (!isUpload(value)) throw badFile(param, 'expected an image file upload (multipart/form-data), but got a text field.');
  if (!value.bytes.length) throw badFile(param, 'the file is empty.');
  const format = sniffImage(value.bytes);
  if (!format) throw badFile(param, "unsupported file format. Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.");
  const size = imageSize(value.bytes);
  if (!size) throw badFile(param, `the ${format.toUpperCase()} file could not be decoded (no readable header).`);
  if (!size.width || !size.height || size.width * size.height > MAX_PIXELS)
    throw badFile(param, `image of ${size.width}x${size.height} pixels is over the limit of ${MAX_PIXELS}.`);
  return { param, upload: value, format, size };
}

/**
 * The upload decoded straight to the size it is drawn at, its work counted on the request's `work`,
 * when the process-wide gate gives it a turn; or the 400 (429 when too many wait) that says why.
 */
export async function decodeUpload(
  file: Checked,
  into: { width: number; height: number },
  work: ImageWork,
  signal: AbortSignal,
): Promise<RgbaImage> {
  try {
    // A client that left ends its decode on a thread, and starts no other.
    return await imageDecodeGate.run(() => decodeImage(file.upload.bytes, { into, work, signal }));
  } catch (error) {
    if (error instanceof ImageQueueFull) {
      throw new GatewayError(
        'rate_limit',
        `Too many image uploads are being decoded: ${IMAGE_WORK_LIMITS.concurrent} at a time, with ${IMAGE_WORK_LIMITS.waiting} requests waiting, is this gateway's limit. Retry shortly.`,
      );
    }
    if (error instanceof DecodeAbandoned) throw error;
    if (error instanceof ImageWorkExceeded) throw invalid(file.param, `Invalid '${file.param}': ${error.message}.`, 'image_too_large');
    throw badFile(file.param, `${(error as Error).message}.`);
  }
}

/** The standard size closest in shape to the first image, for `size: auto`. */
function autoSize(first: { width: number; height: number }): string {
  const ratio = first.width / first.height;
  return ratio > 1.2 ? '1536x1024' : ratio < 1 / 1.2 ? '1024x1536' : '1024x1024';
}

/** Input image tokens of one picture: 65 plus 129 per 512-pixel tile once scaled to fit 2048 and then to a 512-pixel short side. */
function inputImageTokens(image: { width: number; height: number }): number {
  let { width, height } = image;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 512 / Math.min(width, height));
  return 65 + 129 * Math.ceil((width * shrink) / 512) * Math.ceil((height * shrink) / 512);
}

/** The multipart form's fields, coerced, or the 400 `notForm` says when the body is not a form. */
export function imageForm(call: Call<Raw>, notForm: string): Raw {
  if (!/^\s*multipart\/form-data/i.test(call.inbound.header('content-type') ?? ''))
    throw new GatewayError('invalid_request', notForm, { param: 'image' });
  const body = coerce(call.body);
  // Unknown fields are checked on the converted copy: it reports them as the form would.
  lenientAlike(call.body, body);
  if (body.image === undefined) throw missing('image');
  return body;
}

/** dall-e-2 takes one square PNG. */
export function requireSquarePng(model: string, file: Checked): void {
  const { format, size } = file;
  if (format !== 'png' || size.width !== size.height)
    throw badFile(file.param, `${model} takes a square PNG image; this one is a ${format.toUpperCase()} of ${size.width}x${size.height}.`);
}

/** What a picture depends on of an uploaded file; latin1 maps each byte to one character. */
export const uploadDigest = (bytes: Uint8Array) => hashString(new TextDecoder('latin1').decode(bytes));

async function edits(call: Call<Raw>): Promise<Outbound | Forward> {
  const body = imageForm(
    call,
    "This gateway takes image edits as multipart/form-data ('image' or 'image[]' file uploads); JSON bodies with 'images' references are not emulated.",
  );
  checkFields(body, EDIT_FIELDS);
  const model = requestedModel(body, true);
  call.entry.model = model;
  requireModel(call, model, 'image');
  const family = familyOf(model);
  if (family === 'dall-e-3') throw invalidValue('model', model, ['dall-e-2', 'gpt-image-1', 'gpt-image-1-mini', 'gpt-image-1.5']);
  const uploads = [body.image].flat();
  if (!uploads.length) throw missing('image');
  if (uploads.length > (family === 'dall-e-2' ? 1 : MAX_IMAGES)) {
    throw invalid(
      'image',
      `Invalid 'image': too many images. ${model} takes at most ${family === 'dall-e-2' ? 1 : MAX_IMAGES}, but got ${uploads.length}.`,
      'array_above_max_length',
    );
  }
  const images = uploads.map((upload, i) => checkUpload(uploads.length > 1 ? `image[${i}]` : 'image', upload));
  if (family === 'dall-e-2') requireSquarePng(model, images[0]);
  const mask = body.mask === undefined ? undefined : checkUpload('mask', body.mask);
  if (mask) {
    if (mask.format !== 'png') throw badFile('mask', 'the mask must be a PNG file (its fully transparent pixels mark where to edit).');
    const first = images[0].size;
    if (mask.size.width !== first.width || mask.size.height !== first.height) {
      throw invalid(
        'mask',
        `Invalid mask: the mask must have the same dimensions as the image (the mask is ${mask.size.width}x${mask.size.height}, the image ${first.width}x${first.height}).`,
        'invalid_image_dimensions',
      );
    }
  }
  if (model === 'gpt-image-1-mini' && body.input_fidelity === 'high') throw invalidValue('input_fidelity', 'high', ['low']);
  const ask = resolveAsk(body, model, autoSize(images[0].size));
  // Each upload is decoded to the cell it is drawn in (the mask to the whole picture), one at a time:
  // memory stays that of the output, and the request's work is counted against one ceiling.
  const work = new ImageWork();
  const cells = editLayout(images.length, ask.width, ask.height);
  const sources: RgbaImage[] = [];
  const signal = call.inbound.signal;
  for (const [i, file] of images.entries()) sources.push(await decodeUpload(file, { width: cells[i].w, height: cells[i].h }, work, signal));
  const maskPixels = mask && (await decodeUpload(mask, { width: ask.width, height: ask.height }, work, signal));
  const request = operationRequest('openai', 'image', model, ask.prompt);
  request.messages[0].parts.push(...sources.map(() => ({ type: 'image' as const })));
  const decision = decide(call, { ...request, n: ask.n, stream: ask.stream });
  if (isForward(decision)) return decision;
  // The uploads' bytes are part of what the picture depends on.
  const key = hashValue(
    [
      model,
      ask.prompt,
      ask.size,
      ask.quality,
      ask.background,
      images.map((i) => uploadDigest(i.upload.bytes)),
      mask ? uploadDigest(mask.upload.bytes) : null,
    ],
    decision.seed,
  );
  const transparent = ask.background === 'transparent';
  const produced = await produce(ask, decision, (i, shapes) =>
    editPictureOffThread(sources, ask.prompt, ask.width, ask.height, deriveKey(key, i), maskPixels, { transparent, shapes }),
  );
  const imageTokens = ask.family === 'gpt-image' ? images.reduce((n, s) => n + inputImageTokens(s.size), 0) : 0;
  return answerImages(call, ask, decision, key, produced, 'image_edit', imageTokens);
}

/** The handler of the image edits route (routes-media.ts: loaded on its first request). */
export const imageEditHandlers = { edits } satisfies Record<string, EndpointSpec['handle']>;
