// A PNG reader that streams: the compressed data is inflated a few KiB at a time and each row is
// unfiltered as soon as it is whole, written straight into a picture of the size the caller needs
// (nearest neighbour), and dropped. So memory is two rows plus the output, inflation stops the moment
// the data outgrows what the header declares (a "zip bomb" costs one chunk's worth), the work is
// counted as it happens, and the event loop gets a turn between slices.
import type { ImageWork } from './image-work.ts';
import { yieldToLoop } from '../slices.ts';
import { lazyOwnModule } from '../lazy.ts';

// fflate (~90 KB, ~15 ms to load) loads with the first PNG read, not with the package.
const fflate = lazyOwnModule<typeof import('./inflate.ts')>('core/synthesize/inflate', () => import('./inflate.ts'));

interface PngPixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
  channels: number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];
/** Compressed bytes handed to the inflater at once: at deflate's best ratio (about 1032:1) a bit over 4 MiB out. */
const FEED_BYTES = 4096;
/** Bytes inflated (and unfiltered into pixels) between two turns of the event loop: counted work, not time. */
const SLICE_BYTES = 1024 * 1024;

/** The passes of a picture: for each, its size in pixels and where its pixels sit in the picture. */
function passesOf(h: Header): { x0: number; y0: number; dx: number; dy: number; w: number; rows: number }[] {
  const all = h.interlaced ? ADAM7 : [[0, 0, 1, 1]];
  return all
    .map(([x0, y0, dx, dy]) => ({ x0, y0, dx, dy, w: Math.ceil((h.width - x0) / dx), rows: Math.ceil((h.height - y0) / dy) }))
    .filter((p) => p.w > 0 && p.rows > 0);
}

/** Bytes the header declares the inflated data to be: each pass's rows, each with its filter byte. */
function declaredBytes(h: Header): number {
  return passesOf(h).reduce((n, p) => n + p.rows * (1 + Math.ceil((p.w * h.channels * h.depth) / 8)), 0);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes a row's filter in place, against the previous row of the same pass (zeros for its first). */
function unfilter(type: number, row: Uint8Array, prev: Uint8Array, bpp: number): void {
  const n = row.length;
  switch (type) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) row[i] = (row[i] + row[i - bpp]) & 255;
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = (row[i] + prev[i]) & 255;
      return;
    case 3:
      for (let i = 0; i < n; i++) row[i] = (row[i] + (((i >= bpp ? row[i - bpp] : 0) + prev[i]) >> 1)) & 255;
      return;
    case 4:
      for (let i = 0; i < n; i++) row[i] = (row[i] + paeth(i >= bpp ? row[i - bpp] : 0, prev[i], i >= bpp ? prev[i - bpp] : 0)) & 255;
      return;
    default:
      throw new Error(`unknown row filter ${type}`);
  }
}

/** For each source coordinate, the target coordinates that sample it (nearest neighbour, as `place` scales). */
function spans(source: number, target: number): Int32Array {
  // start[s] .. start[s + 1] - 1 are the targets t with floor(t * source / target) === s.
  const start = new Int32Array(source + 1);
  for (let s = 0; s <= source; s++) start[s] = Math.min(target, Math.ceil((s * target) / source));
  return start;
}

/** Parses the chunks: the header, the palette (with tRNS alpha), and the compressed data's pieces. */
function chunks(bytes: Uint8Array): { header: Header; palette?: number[][]; data: Uint8Array[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Header | undefined;
  let palette: number[][] | undefined;
  const data: Uint8Array[] = [];
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (body.length < length) throw new Error(`the ${type} chunk is cut short`);
    if (type === 'IHDR') {
      const b = new DataView(body.buffer, body.byteOffset, body.byteLength);
      const colourType = body[9];
      const depth = body[8];
      if (!DEPTHS[colourType]?.includes(depth)) throw new Error(`colour type ${colourType} with bit depth ${depth} is not valid PNG`);
      if (body[12] > 1) throw new Error(`interlace method ${body[12]} is not valid PNG`);
      header = {
        width: b.getUint32(0),
        height: b.getUint32(4),
        depth,
        colourType,
        interlaced: body[12] === 1,
        channels: CHANNELS[colourType],
      };
    } else if (type === 'PLTE') {
      palette = [];
      for (let i = 0; i + 2 < length; i += 3) palette.push([body[i], body[i + 1], body[i + 2]]);
    } else if (type === 'tRNS' && palette && header?.colourType === 3) {
      palette.forEach((entry, i) => entry.push(i < length ? body[i] : 255));
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!header) throw new Error('no IHDR chunk');
  if (header.colourType === 3 && !palette) throw new Error('a palette image without a PLTE chunk');
  if (!data.length) throw new Error('no IDAT chunk');
  return { header, palette, data };
}

/**
 * The pixels of a PNG file as 8-bit RGBA, scaled (nearest neighbour) to `into` (default: its own size).
 * Inflation stops as soon as it passes the size the header declares; `work` counts the bytes inflated
 * and the pixels decoded, and throws when a ceiling is passed. Throws an Error for a broken file.
 */
export async function readPng(bytes: Uint8Array, work: ImageWork, into?: { width: number; height: number }): Promise<PngPixels> {
  const { header: h, palette, data } = chunks(bytes);
  const width = into?.width ?? h.width;
  const height = into?.height ?? h.height;
  const out = new Uint8ClampedArray(width * height * 4);
  const columns = spans(h.width, width);
  const rowsOf = spans(h.height, height);
  const declared = declaredBytes(h);
  const passes = passesOf(h);
  const bitsPerPixel = h.channels * h.depth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const scale = h.depth === 16 ? 1 / 257 : h.depth < 8 && !palette ? 255 / ((1 << h.depth) - 1) : 1;
  const mask = (1 << h.depth) - 1;
  const sample =
    h.depth === 16
      ? (row: Uint8Array, i: number) => (row[2 * i] << 8) | row[2 * i + 1]
      : h.depth === 8
        ? (row: Uint8Array, i: number) => row[i]
        : (row: Uint8Array, i: number) => (row[(i * h.depth) >> 3] >> (8 - h.depth - ((i * h.depth) & 7))) & mask;

  let pass = 0;
  let passRow = 0;
  let stride = Math.ceil((passes[0].w * bitsPerPixel) / 8);
  let row = new Uint8Array(1 + stride);
  let prev = new Uint8Array(stride);
  let filled = 0;
  let inflated = 0;

  /** Writes one whole, unfiltered row of the current pass into every target pixel that samples it. */
  const emit = (line: Uint8Array) => {
    const p = passes[pass];
    const sy = p.y0 + passRow * p.dy;
    const ty0 = rowsOf[sy];
    const ty1 = rowsOf[sy + 1];
    work.spend('pixels', p.w);
    if (ty0 === ty1) return;
    for (let i = 0; i < p.w; i++) {
      const sx = p.x0 + i * p.dx;
      const tx0 = columns[sx];
      const tx1 = columns[sx + 1];
      if (tx0 === tx1) continue;
      let r: number, g: number, b: number, a: number;
      if (palette) {
        const c = palette[sample(line, i)] ?? [0, 0, 0, 255];
        [r, g, b, a] = [c[0], c[1], c[2], c[3] ?? 255];
      } else {
        const s = i * h.channels;
        const v = (k: number) => sample(line, s + k) * scale;
        r = v(0);
        g = h.channels < 3 ? r : v(1);
        b = h.channels < 3 ? r : v(2);
        a = h.channels === 2 ? v(1) : h.channels === 4 ? v(3) : 255;
      }
      for (let ty = ty0; ty < ty1; ty++) {
        for (let tx = tx0; tx < tx1; tx++) {
          const o = (ty * width + tx) * 4;
          out[o] = r;
          out[o + 1] = g;
          out[o + 2] = b;
          out[o + 3] = a;
        }
      }
    }
  };

  const take = (chunk: Uint8Array) => {
    inflated += chunk.length;
    work.spend('bytes', chunk.length);
    if (inflated > declared) throw new InflateOverrun(declared);
    let at = 0;
    while (at < chunk.length && pass < passes.length) {
      const n = Math.min(row.length - filled, chunk.length - at);
      row.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled < row.length) break;
      const line = row.subarray(1);
      unfilter(row[0], line, prev, bpp);
      emit(line);
      prev.set(line);
      filled = 0;
      if (++passRow >= passes[pass].rows) {
        passRow = 0;
        if (++pass < passes.length) {
          stride = Math.ceil((passes[pass].w * bitsPerPixel) / 8);
          row = new Uint8Array(1 + stride);
          prev = new Uint8Array(stride);
        }
      }
    }
  };

  await fflate.ready();
  const inflater = new (fflate.get().Unzlib)((chunk) => take(chunk));
  let sliceStart = 0;
  for (let d = 0; d < data.length; d++) {
    for (let at = 0; at < data[d].length; at += FEED_BYTES) {
      inflater.push(data[d].subarray(at, at + FEED_BYTES), d === data.length - 1 && at + FEED_BYTES >= data[d].length);
      if (inflated - sliceStart >= SLICE_BYTES) {
        await yieldToLoop();
        sliceStart = inflated;
      }
    }
  }
  if (inflated < declared) throw new Error(`the image data ends after ${inflated} of the ${declared} bytes its header declares`);
  return { width, height, data: out };
}

/** The compressed data inflates past what the header's dimensions allow. */
export class InflateOverrun extends Error {
  readonly declared: number;
  constructor(declared: number) {
    super(`inflates to more than the ${declared} bytes its header's dimensions allow`);
    this.declared = declared;
  }
}
