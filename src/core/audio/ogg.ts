// An Ogg Opus writer (RFC 7845): OpusHead, OpusTags (with comments), then the encoder's packets,
// one page per second or so. The packets come from libopus (opusscript); this is only the container.
import { concat } from '../bytes.ts';
import { vorbisComment } from './bytes.ts';

const CRC = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 24;
    for (let i = 0; i < 8; i++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ CRC[((crc >>> 24) ^ b) & 0xff]) >>> 0;
  return crc;
}

function page(packets: Uint8Array[], granule: number, serial: number, sequence: number, flags: number): Uint8Array {
  const lacing: number[] = [];
  for (const p of packets) {
    for (let n = p.length; ; n -= 255) {
      lacing.push(Math.min(n, 255));
      if (n < 255) break;
    }
  }
  const size = 27 + lacing.length + packets.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out.set([0x4f, 0x67, 0x67, 0x53]); // OggS
  out[5] = flags;
  v.setUint32(6, granule >>> 0, true);
  v.setUint32(10, Math.floor(granule / 2 ** 32), true);
  v.setUint32(14, serial, true);
  v.setUint32(18, sequence, true);
  out[26] = lacing.length;
  out.set(lacing, 27);
  let at = 27 + lacing.length;
  for (const p of packets) {
    out.set(p, at);
    at += p.length;
  }
  v.setUint32(22, crc32(out), true);
  return out;
}

interface OggOpusInput {
  /** Opus packets of `frameSamples48k` samples each (at 48 kHz, as Ogg Opus counts), covering pre-skip + total. */
  packets: Uint8Array[];
  frameSamples48k: number;
  /** Samples (48 kHz) the decoder drops at the start: the encoder's look-ahead. */
  preSkip: number;
  /** Real samples (48 kHz) after the pre-skip, so the last page trims the padding. */
  totalSamples48k: number;
  inputSampleRate: number;
  comments: string[];
  serial: number;
}

export function oggOpusBytes(input: OggOpusInput): Uint8Array {
  const enc = new TextEncoder();
  const head = new Uint8Array(19);
  const hv = new DataView(head.buffer);
  head.set(enc.encode('OpusHead'));
  head[8] = 1; // version
  head[9] = 1; // mono
  hv.setUint16(10, input.preSkip, true);
  hv.setUint32(12, input.inputSampleRate, true);
  const tags = concat([enc.encode('OpusTags'), vorbisComment('model-gateway-mock', input.comments)]);
  const pages: Uint8Array[] = [page([head], 0, input.serial, 0, 0x02), page([tags], 0, input.serial, 1, 0)];
  const perPage = 50;
  const end = input.preSkip + input.totalSamples48k;
  for (let i = 0, seq = 2; i < input.packets.length; i += perPage, seq++) {
    const last = i + perPage >= input.packets.length;
    const granule = last ? end : (i + perPage) * input.frameSamples48k;
    pages.push(page(input.packets.slice(i, i + perPage), Math.min(granule, end), input.serial, seq, last ? 0x04 : 0));
  }
  return concat(pages);
}
