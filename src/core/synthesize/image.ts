// Pictures: a background gradient and one flat shape per salient word of the prompt, each word
// always the same shape and colour, placed by the request's key. Two prompts give pictures a person
// tells apart at a glance; the same (prompt, key) always the same pixels. Edits lay the uploaded
// images out, tint them toward the prompt's colours and draw its shapes where the mask allows.
// Encoding and decoding go through pure-JS/WASM codecs, each loaded on first use.
import { importNodeOnly, runsOnNode } from '../node-only.ts';
import { hashString, Rng } from '../seed.ts';
import { ImageWork, ImageWorkExceeded } from './image-work.ts';
import { DecodeAbandoned, decodeOnThread, editOnThread, encodeOnThread } from './image-pool.ts';
import { InflateOverrun, readPng } from './png.ts';
import type { ImageFormat, PictureOptions, RgbaImage } from './image-types.ts';

export type { ImageFormat, RgbaImage };

export const MIME_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** The largest picture drawn or decoded (pixels): bounds the cost of every request. */
export const MAX_PIXELS = 4096 * 4096;

const STOP_WORDS = new Set(
  'the and with for from that this into onto over under into its are was were has have a an of on in at to by as is it be or'.split(' '),
);

/** The prompt's salient words, first occurrence order, at most eight. */
export function promptWords(prompt: string): string[] {
  const words = (prompt.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*/gu) ?? []).filter((w) => w.length > 2 && !STOP_WORDS.has(w));
  return [...new Set(words)].slice(0, 8);
}

/** How many shapes a full picture of this prompt has. */
export function shapeCount(prompt: string): number {
  return Math.max(1, promptWords(prompt).length);
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

type Shape = 'circle' | 'square' | 'triangle' | 'ring' | 'diamond' | 'bar';
const SHAPES: Shape[] = ['circle', 'square', 'triangle', 'ring', 'diamond', 'bar'];

/** Whether the point (u, v), relative to the shape's centre in units of its radius, is inside. */
function inside(shape: Shape, u: number, v: number): boolean {
  switch (shape) {
    case 'circle':
      return u * u + v * v <= 1;
    case 'square':
      return Math.abs(u) <= 0.85 && Math.abs(v) <= 0.85;
    case 'triangle':
      return v <= 0.8 && v >= -1 + 2 * Math.abs(u) * 0.9;
    case 'ring': {
      const d = u * u + v * v;
      return d <= 1 && d >= 0.4;
    }
    case 'diamond':
      return Math.abs(u) + Math.abs(v) <= 1;
    case 'bar':
      return Math.abs(u) <= 1 && Math.abs(v) <= 0.35;
  }
}

/** Blends `rgb` over pixel `i` with opacity `alpha` (0..1). */
function blend(data: Uint8ClampedArray, i: number, rgb: readonly number[], alpha: number): void {
  data[i] += (rgb[0] - data[i]) * alpha;
  data[i + 1] += (rgb[1] - data[i + 1]) * alpha;
  data[i + 2] += (rgb[2] - data[i + 2]) * alpha;
  data[i + 3] = data[i + 3] + (255 - data[i + 3]) * alpha;
}

/** Draws the prompt's shapes onto `image`; `where(i)` says whether pixel i may change. */
function drawShapes(image: RgbaImage, prompt: string, key: number, count: number, alpha: number, where?: (pixel: number) => boolean): void {
  const { width, height, data } = image;
  const words = promptWords(prompt);
  const list = words.length ? words : [`#${key}`];
  const side = Math.min(width, height);
  for (const word of list.slice(0, count)) {
    // The word fixes shape and colour; the request's key places it.
    const own = new Rng(hashString(word));
    const shape = own.pick(SHAPES);
    const colour = hsl(own.next() * 360, 0.65 + own.next() * 0.3, 0.35 + own.next() * 0.3);
    const place = new Rng(hashString(word, key % 2147483647));
    const r = side * (0.1 + place.next() * 0.14);
    const cx = width * (0.15 + place.next() * 0.7);
    const cy = height * (0.15 + place.next() * 0.7);
    const angle = place.next() * Math.PI;
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const x0 = Math.max(0, Math.floor(cx - r * 1.5));
    const x1 = Math.min(width - 1, Math.ceil(cx + r * 1.5));
    const y0 = Math.max(0, Math.floor(cy - r * 1.5));
    const y1 = Math.min(height - 1, Math.ceil(cy + r * 1.5));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const dx = (x - cx) / r;
        const dy = (y - cy) / r;
        if (!inside(shape, dx * cos + dy * sin, dy * cos - dx * sin)) continue;
        const p = y * width + x;
        if (!where || where(p)) blend(data, p * 4, colour, alpha);
      }
    }
  }
}

/** The gradient's two colours and direction, from the prompt (colours) and key (direction). */
function gradient(prompt: string, key: number) {
  const h = hashString(prompt.trim().toLowerCase());
  const hue = (h % 3600) / 10;
  const rng = new Rng(key);
  const angle = rng.next() * Math.PI * 2;
  return { from: hsl(hue, 0.55, 0.78), to: hsl((hue + 40 + (h % 140)) % 360, 0.6, 0.32), dx: Math.cos(angle), dy: Math.sin(angle) };
}

function requireSize(width: number, height: number): void {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0 && width * height <= MAX_PIXELS)) {
    throw new RangeError(`image size ${width}x${height} is outside 1..${MAX_PIXELS} pixels`);
  }
}

/** A picture of `prompt`, exactly width × height, the same for the same (prompt, key). */
export function drawPicture(prompt: string, width: number, height: number, key: number, options: PictureOptions = {}): RgbaImage {
  requireSize(width, height);
  const data = new Uint8ClampedArray(width * height * 4);
  const image = { width, height, data };
  if (!options.transparent) {
    const { from, to, dx, dy } = gradient(prompt, key);
    // 256 steps of the gradient, written a whole pixel at a time.
    const steps = new Uint8ClampedArray(256 * 4);
    for (let s = 0; s < 256; s++) {
      for (let c = 0; c < 3; c++) steps[s * 4 + c] = from[c] + ((to[c] - from[c]) * s) / 255;
      steps[s * 4 + 3] = 255;
    }
    const lut = new Uint32Array(steps.buffer);
    const pixels = new Uint32Array(data.buffer);
    const span = Math.abs(dx) * width + Math.abs(dy) * height || 1;
    const ox = dx < 0 ? width : 0;
    const oy = dy < 0 ? height : 0;
    for (let y = 0, p = 0; y < height; y++) {
      const row = (y - oy) * dy;
      for (let x = 0; x < width; x++, p++) pixels[p] = lut[Math.min(255, Math.max(0, Math.round((((x - ox) * dx + row) / span) * 255)))];
    }
  }
  drawShapes(image, prompt, key, options.shapes ?? shapeCount(prompt), 1);
  return image;
}

/** `source` scaled (nearest neighbour) into the rectangle (x, y, w, h) of `target`. */
function place(target: RgbaImage, source: RgbaImage, x: number, y: number, w: number, h: number): void {
  for (let ty = 0; ty < h; ty++) {
    const sy = Math.min(source.height - 1, Math.floor((ty * source.height) / h));
    for (let tx = 0; tx < w; tx++) {
      const sx = Math.min(source.width - 1, Math.floor((tx * source.width) / w));
      const s = (sy * source.width + sx) * 4;
      const t = ((y + ty) * target.width + x + tx) * 4;
      target.data[t] = source.data[s];
      target.data[t + 1] = source.data[s + 1];
      target.data[t + 2] = source.data[s + 2];
      target.data[t + 3] = source.data[s + 3];
    }
  }
}

/** Where an edit puts each of `count` sources in a width × height picture: a grid, row by row. Uploads are decoded straight to these sizes. */
export function editLayout(count: number, width: number, height: number): { x: number; y: number; w: number; h: number }[] {
  const columns = Math.ceil(Math.sqrt(count));
  const rows = Math.ceil(count / columns);
  return Array.from({ length: count }, (_, i) => {
    const x = Math.floor(((i % columns) * width) / columns);
    const y = Math.floor((Math.floor(i / columns) * height) / rows);
    return {
      x,
      y,
      w: Math.floor((((i % columns) + 1) * width) / columns) - x,
      h: Math.floor(((Math.floor(i / columns) + 1) * height) / rows) - y,
    };
  });
}

/**
 * An edit of `sources` by `prompt`, width × height: the sources side by side in a grid, tinted toward
 * the prompt's colours, with its shapes drawn over them. With a mask (scaled to the output), only
 * pixels where the mask is fully transparent change, as the API documents masks.
 */
export function editPicture(
  sources: readonly RgbaImage[],
  prompt: string,
  width: number,
  height: number,
  key: number,
  mask?: RgbaImage,
  options: PictureOptions = {},
): RgbaImage {
  requireSize(width, height);
  const image: RgbaImage = { width, height, data: new Uint8ClampedArray(width * height * 4) };
  editLayout(sources.length, width, height).forEach(({ x, y, w, h }, i) => place(image, sources[i], x, y, w, h));
  let where: ((p: number) => boolean) | undefined;
  if (mask) {
    const scaled: RgbaImage = { width, height, data: new Uint8ClampedArray(width * height * 4) };
    place(scaled, mask, 0, 0, width, height);
    where = (p) => scaled.data[p * 4 + 3] === 0;
  }
  const { to } = gradient(prompt, key);
  for (let p = 0; p < width * height; p++) if (!where || where(p)) blend(image.data, p * 4, to, 0.3);
  if (options.transparent) for (let p = 0; p < width * height; p++) if (!where || where(p)) image.data[p * 4 + 3] = 0;
  drawShapes(image, prompt, key, options.shapes ?? shapeCount(prompt), 0.85, where);
  return image;
}

/** The format of an image file, from its magic bytes. */
export function sniffImage(bytes: Uint8Array): ImageFormat | undefined {
  const at = (offset: number, text: string) => [...text].every((c, i) => bytes[offset + i] === c.charCodeAt(0));
  if (bytes.length >= 8 && bytes[0] === 0x89 && at(1, 'PNG\r\n\x1a\n')) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 12 && at(0, 'RIFF') && at(8, 'WEBP')) return 'webp';
  return undefined;
}

// Codecs, each loaded on first use so start-up pays for none of them.
type Png = typeof import('fast-png');
type Jpeg = typeof import('jpeg-js');
interface WebpCodec {
  encode(
    image: { data: Uint8ClampedArray; width: number; height: number; colorSpace: 'srgb' },
    options: { quality: number; lossless?: number },
  ): Promise<ArrayBuffer>;
  decode(bytes: ArrayBuffer): Promise<{ data: Uint8ClampedArray; width: number; height: number }>;
}

let png: Promise<Png> | undefined;
let jpeg: Promise<Jpeg> | undefined;
let webp: Promise<WebpCodec> | undefined;

const loadPng = () => (png ??= import('fast-png'));
const loadJpeg = () => (jpeg ??= import('jpeg-js').then((m) => ((m as { default?: Jpeg }).default ?? m) as Jpeg));

/** In Node the Emscripten glue would fetch its .wasm by file URL, which Node's fetch refuses: compile it from disk. */
async function wasmModule(file: string): Promise<WebAssembly.Module | undefined> {
  if (!runsOnNode()) return undefined;
  const [{ readFile }, { createRequire }] = await Promise.all([
    importNodeOnly<typeof import('node:fs/promises')>('node:fs/promises'),
    importNodeOnly<typeof import('node:module')>('node:module'),
  ]);
  return WebAssembly.compile(await readFile(createRequire(import.meta.url).resolve(`@jsquash/webp/${file}`)));
}

function loadWebp(): Promise<WebpCodec> {
  return (webp ??= (async () => {
    const [enc, dec] = await Promise.all([import('@jsquash/webp/encode.js'), import('@jsquash/webp/decode.js')]);
    // Node has had WebAssembly SIMD since 16, so the encoder's glue picks its SIMD build there.
    const [encModule, decModule] = await Promise.all([wasmModule('codec/enc/webp_enc_simd.wasm'), wasmModule('codec/dec/webp_dec.wasm')]);
    await (encModule ? enc.init(encModule) : enc.init());
    await (decModule ? dec.init(decModule) : dec.init());
    return {
      encode: (image, options) => enc.default(image as ImageData, options),
      decode: async (bytes) => dec.default(bytes),
    };
  })());
}

/**
 * Pictures of at least this many pixels are drawn (edits) and encoded on a worker thread where there is
 * one: a 1024×1024 PNG takes a third of a second here in one step. Smaller ones are not worth the copies.
 */
const THREAD_DRAW_PIXELS = 512 * 512;

/**
 * An edit (see editPicture) drawn on a worker thread when large and threads exist, else here: the same
 * code either way, so the same pixels.
 */
export async function editPictureOffThread(
  sources: readonly RgbaImage[],
  prompt: string,
  width: number,
  height: number,
  key: number,
  mask?: RgbaImage,
  options: PictureOptions = {},
): Promise<RgbaImage> {
  requireSize(width, height);
  const drawn =
    width * height >= THREAD_DRAW_PIXELS
      ? await editOnThread({ sources: [...sources], prompt, width, height, key, mask, options })
      : undefined;
  return drawn ?? editPicture(sources, prompt, width, height, key, mask, options);
}

/**
 * The image as a file of `format`; `quality` 0..100 for the lossy formats (100 is WebP's lossless).
 * A large one is encoded on a worker thread where there is one (its pixels moved there when
 * `handOver`, the caller giving them up; else copied), the same bytes as here.
 */
export async function encodeImage(image: RgbaImage, format: ImageFormat, quality = 100, handOver = false): Promise<Uint8Array> {
  const file = image.width * image.height >= THREAD_DRAW_PIXELS ? await encodeOnThread(image, format, quality, handOver) : undefined;
  return file ?? encodeWhole(image, format, quality);
}

/** The image as a file of `format`, in one step on this thread: what a worker thread runs. */
export async function encodeWhole(image: RgbaImage, format: ImageFormat, quality = 100): Promise<Uint8Array> {
  if (format === 'png') {
    const { encode } = await loadPng();
    // Level 1: a fraction of the time of the default for little more size on flat pictures.
    return encode(
      {
        width: image.width,
        height: image.height,
        data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength),
        channels: 4,
        depth: 8,
      },
      { zlib: { level: 1 } },
    );
  }
  if (format === 'jpeg') {
    const codec = await loadJpeg();
    return new Uint8Array(codec.encode({ width: image.width, height: image.height, data: image.data }, Math.max(1, quality)).data);
  }
  const codec = await loadWebp();
  return new Uint8Array(
    await codec.encode(
      { data: image.data, width: image.width, height: image.height, colorSpace: 'srgb' },
      quality >= 100 ? { quality: 100, lossless: 1 } : { quality },
    ),
  );
}

/** Width and height from a file's header, before anything is decoded (so oversize files cost nothing). */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = sniffImage(bytes);
  try {
    if (format === 'png') return { width: view.getUint32(16), height: view.getUint32(20) };
    if (format === 'webp') {
      const chunk = String.fromCharCode(...bytes.subarray(12, 16));
      if (chunk === 'VP8X') return { width: 1 + (view.getUint32(24, true) & 0xffffff), height: 1 + (view.getUint32(27, true) & 0xffffff) };
      if (chunk === 'VP8L') {
        const bits = view.getUint32(21, true);
        return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
      }
      if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    }
    if (format === 'jpeg') {
      // Walk the markers to the first start-of-frame.
      let at = 2;
      while (at + 9 < bytes.length) {
        if (bytes[at] !== 0xff) return undefined;
        const marker = bytes[at + 1];
        const length = view.getUint16(at + 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
          return { width: view.getUint16(at + 7), height: view.getUint16(at + 5) };
        at += 2 + length;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Bytes jpeg-js may hold per declared pixel: its coefficient blocks (4 bytes a pixel per component) and
 * lines (1) for up to four components at full sampling, plus the RGBA output (4). A file whose
 * components or sampling ask more than a four-component picture of its declared size is refused.
 */
const JPEG_BYTES_PER_PIXEL = 4 + 4 * (4 + 1);
/** Huffman and quantization tables and the copy of the scan data jpeg-js keeps, beyond the per-pixel part. */
const JPEG_FIXED_BYTES = 16 * 1024 * 1024;

/**
 * The scans (SOS markers) of a JPEG: jpeg-js decodes each one over the whole frame, so a file that
 * repeats its scans costs that many decodes of its declared size. Linear in the file's bytes.
 */
export function jpegScans(bytes: Uint8Array): number {
  let scans = 0;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) {
      at++;
      continue;
    }
    const marker = bytes[at + 1];
    // Fill bytes, restart markers and stuffed zeros carry no length.
    if (marker === 0xff || marker === 0x00 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    if (marker === 0xd9) break;
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    at += 2 + length;
    if (marker === 0xda) scans++; // its entropy-coded data follows: skipped byte by byte above
  }
  return scans;
}

interface DecodeOptions {
  /** The size to scale the picture to (nearest neighbour, as edits place it); default its own. */
  into?: { width: number; height: number };
  /** The request's counted work; default a fresh count for this file alone. */
  work?: ImageWork;
  /** The client went away: a decode on a thread is ended (DecodeAbandoned), one not begun is not begun. */
  signal?: AbortSignal;
}

/**
 * Decodes of at least this many pixels' work (a JPEG's pixels times its scans) go to a worker thread
 * where there is one: 512×512, about a tenth of a second of jpeg-js here. Smaller ones are not worth
 * the thread's start and the copies.
 */
const THREAD_PIXELS = 512 * 512;

/**
 * A JPEG or WebP file decoded in one step and scaled to `into`: what a worker thread runs, or this
 * thread where there is none. Throws the codec's own error for a file it refuses.
 */
export async function decodeWhole(
  format: 'jpeg' | 'webp',
  bytes: Uint8Array,
  into?: { width: number; height: number },
): Promise<RgbaImage> {
  let decoded: RgbaImage;
  if (format === 'jpeg') {
    // jpeg-js held to the declared size in pixels and in memory.
    const { width, height } = imageSize(bytes)!;
    const pixels = width * height;
    const maxMemoryUsageInMB = Math.ceil((pixels * JPEG_BYTES_PER_PIXEL + JPEG_FIXED_BYTES + bytes.length) / (1024 * 1024));
    const image = (await loadJpeg()).decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: pixels / 1e6 + 0.001,
      maxMemoryUsageInMB,
    });
    decoded = {
      width: image.width,
      height: image.height,
      data: new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength),
    };
  } else {
    // libwebp decodes the one frame its header declares (it refuses a bitstream of another size).
    const image = await (await loadWebp()).decode(bytes.slice().buffer);
    decoded = { width: image.width, height: image.height, data: image.data };
  }
  if (!into || (into.width === decoded.width && into.height === decoded.height)) return decoded;
  const scaled: RgbaImage = { width: into.width, height: into.height, data: new Uint8ClampedArray(into.width * into.height * 4) };
  place(scaled, decoded, 0, 0, scaled.width, scaled.height);
  return scaled;
}

/**
 * The pixels of a PNG, JPEG or WebP file; throws a RangeError for anything else, a broken file, one
 * over MAX_PIXELS, one whose data outgrows its declared size, or work past the request's ceilings.
 * A PNG is read row by row with turns for the event loop between slices; JPEG and WebP are decoded
 * whole, within the size their headers declare, on a worker thread when large and threads exist.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions = {}): Promise<RgbaImage> {
  const format = sniffImage(bytes);
  const size = imageSize(bytes);
  const work = options.work ?? new ImageWork();
  if (!format || !size) throw new RangeError('not a PNG, JPEG or WebP image');
  if (!size.width || !size.height || size.width * size.height > MAX_PIXELS)
    throw new RangeError(`image of ${size.width}x${size.height} pixels is over the limit of ${MAX_PIXELS}`);
  if (options.into) requireSize(options.into.width, options.into.height);
  try {
    if (options.signal?.aborted) throw new DecodeAbandoned();
    if (format === 'png') return await readPng(bytes, work, options.into);
    const pixels = size.width * size.height;
    let cost = pixels;
    if (format === 'jpeg') {
      // Its work (each scan over the whole frame) is counted before it is done.
      const scans = Math.max(1, jpegScans(bytes));
      cost = pixels * scans;
      work.spend(
        'pixels',
        cost,
        scans > 1 ? ` (a JPEG's pixels count once per scan, and this one has ${scans} scans of ${size.width}x${size.height})` : '',
      );
    } else work.spend('pixels', pixels);
    const answer = cost >= THREAD_PIXELS ? await decodeOnThread({ format, bytes, into: options.into }, options.signal) : undefined;
    if (!answer) return await decodeWhole(format, bytes, options.into);
    if ('error' in answer) throw new Error(answer.error);
    return { width: answer.width, height: answer.height, data: new Uint8ClampedArray(answer.data) };
  } catch (error) {
    if (error instanceof ImageWorkExceeded || error instanceof DecodeAbandoned) throw error;
    const why = error instanceof InflateOverrun ? error.message : `could not be decoded (${(error as Error).message})`;
    throw new RangeError(`the ${format.toUpperCase()} file ${why}`);
  }
}
