// A FLAC writer: STREAMINFO, a Vorbis comment block, and frames of 4096 samples stored as VERBATIM
// subframes. No npm FLAC encoder is both kept up and small, and verbatim frames are valid FLAC that
// every decoder reads bit-exactly (lossless, uncompressed). 16-bit mono.

import { concat } from '../bytes.ts';
import { vorbisComment } from './bytes.ts';
import { yieldToLoop } from '../slices.ts';

const BLOCK = 4096;

function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

const CRC16 = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 8;
    for (let i = 0; i < 8; i++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff;
    table[n] = c;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16[(crc >> 8) ^ b];
  return crc;
}

/** FLAC's UTF-8-like coding of a frame number. */
function codedNumber(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  let bytes = 2;
  while (n >= 2 ** (5 * bytes + 1)) bytes++;
  for (let i = bytes - 1; i > 0; i--) {
    out.unshift(0x80 | (n & 0x3f));
    n = Math.floor(n / 64);
  }
  out.unshift(((0xff00 >> bytes) & 0xff) | n);
  return out;
}

const RATE_CODES: Record<number, number> = { 8000: 4, 16000: 5, 22050: 6, 24000: 7, 32000: 8, 44100: 9, 48000: 10, 96000: 11 };

function metadataBlock(type: number, body: Uint8Array, last: boolean): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out[0] = (last ? 0x80 : 0) | type;
  out[1] = body.length >> 16;
  out[2] = (body.length >> 8) & 0xff;
  out[3] = body.length & 0xff;
  out.set(body, 4);
  return out;
}

/** A FLAC file of 16-bit mono `samples`, with `comments` (`KEY=value`) in its Vorbis comment block. */
/** Frames written between turns for other requests (about two seconds of audio at 24 kHz). */
const SLICE_FRAMES = 12;

/** The FLAC file, written a slice of frames at a time with a turn for other requests between slices. */
export async function flacBytes(samples: Int16Array, sampleRate: number, comments: string[]): Promise<Uint8Array> {
  const info = new Uint8Array(34);
  const v = new DataView(info.buffer);
  const blocks = Math.ceil(samples.length / BLOCK);
  v.setUint16(0, BLOCK);
  v.setUint16(2, BLOCK);
  // sample rate (20 bits), channels-1 (3), bits-1 (5), total samples (36)
  info[10] = sampleRate >> 12;
  info[11] = (sampleRate >> 4) & 0xff;
  info[12] = ((sampleRate & 0xf) << 4) | (0 << 1) | ((16 - 1) >> 4);
  info[13] = (((16 - 1) & 0xf) << 4) | (Math.floor(samples.length / 2 ** 32) & 0xf);
  v.setUint32(14, samples.length >>> 0);
  const parts: Uint8Array[] = [
    new TextEncoder().encode('fLaC'),
    metadataBlock(0, info, false),
    metadataBlock(4, vorbisComment('model-gateway-mock', comments), true),
  ];
  for (let f = 0; f < blocks; f++) {
    if (f && f % SLICE_FRAMES === 0) await yieldToLoop();
    const chunk = samples.subarray(f * BLOCK, (f + 1) * BLOCK);
    const partial = chunk.length !== BLOCK;
    const header = [0xff, 0xf8, ((partial ? 7 : 12) << 4) | (RATE_CODES[sampleRate] ?? 0), 0x08, ...codedNumber(f)];
    if (partial) header.push((chunk.length - 1) >> 8, (chunk.length - 1) & 0xff);
    header.push(crc8(Uint8Array.from(header)));
    const frame = new Uint8Array(header.length + 1 + chunk.length * 2 + 2);
    frame.set(header);
    frame[header.length] = 0x02; // VERBATIM subframe, no wasted bits
    const fv = new DataView(frame.buffer);
    chunk.forEach((s, i) => fv.setInt16(header.length + 1 + i * 2, s));
    fv.setUint16(frame.length - 2, crc16(frame.subarray(0, frame.length - 2)));
    parts.push(frame);
  }
  return concat(parts);
}
