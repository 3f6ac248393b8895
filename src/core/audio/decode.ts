// What transcription needs of an uploaded audio file: its real duration and, for audio this emulator
// spoke, the text it carries (low bits of 16-bit PCM, or the transcript tag). WAV, raw PCM, FLAC,
// MP3 and Ogg (Opus, Vorbis) are read from their headers and frames: no decoder is needed for
// either, and every pass is linear in the file's size.
import { readText } from './watermark.ts';
import { TRANSCRIPT_TAG } from './encode.ts';
import { SPEECH_SAMPLE_RATE } from '../synthesize/audio.ts';

interface ProbedAudio {
  container: 'wav' | 'pcm' | 'flac' | 'mp3' | 'ogg';
  /** Seconds. */
  duration: number;
  /** The words the file says it speaks, when this emulator made it. */
  text?: string;
}

/** A file that claims a known container but cannot be read. */
class UnreadableAudio extends Error {}
/** A file in no container this reader knows. */
export class UnknownAudio extends Error {}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

function samples16(bytes: Uint8Array, offset: number, length: number, stride = 1): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, length);
  return Int16Array.from({ length: Math.floor(length / 2 / stride) }, (_, i) => view.getInt16(i * 2 * stride, true));
}

/** The watermark needs only its first bits: read a bounded prefix of the samples. */
const WATERMARK_PREFIX_BYTES = 2 * (64 + 8 * 65536 + 32);

function wav(bytes: Uint8Array): ProbedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number; align: number } | undefined;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && size >= 16) {
      fmt = {
        format: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        rate: view.getUint32(at + 12, true),
        align: view.getUint16(at + 20, true),
        bits: view.getUint16(at + 22, true),
      };
    } else if (id === 'data') {
      if (!fmt || !fmt.rate || !fmt.align) throw new UnreadableAudio('a WAV data chunk without a valid fmt chunk');
      // Streamed WAVs leave the size unset: the data then runs to the end of the file.
      const length = Math.min(size, bytes.length - at - 8);
      const pcm16 = (fmt.format === 1 || fmt.format === 0xfffe) && fmt.bits === 16;
      const prefix = Math.min(length, WATERMARK_PREFIX_BYTES * fmt.channels);
      return {
        container: 'wav',
        duration: length / fmt.align / fmt.rate,
        text: pcm16 ? readText(samples16(bytes, at + 8, prefix - (prefix % fmt.align), fmt.channels)) : undefined,
      };
    }
    at += 8 + size + (size & 1);
  }
  throw new UnreadableAudio('a WAV file without a data chunk');
}

function vorbisComments(bytes: Uint8Array, at: number, end: number): Map<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Map<string, string>();
  const dec = new TextDecoder();
  if (at + 4 > end) return out;
  at += 4 + view.getUint32(at, true);
  if (at + 4 > end) return out;
  const count = view.getUint32(at, true);
  at += 4;
  for (let i = 0; i < count && at + 4 <= end; i++) {
    const n = view.getUint32(at, true);
    if (at + 4 + n > end) break;
    const s = dec.decode(bytes.subarray(at + 4, at + 4 + n));
    const eq = s.indexOf('=');
    if (eq > 0) out.set(s.slice(0, eq).toUpperCase(), s.slice(eq + 1));
    at += 4 + n;
  }
  return out;
}

function flac(bytes: Uint8Array): ProbedAudio {
  let at = 4;
  let duration: number | undefined;
  let text: string | undefined;
  for (let last = false; !last && at + 4 <= bytes.length; ) {
    last = (bytes[at] & 0x80) !== 0;
    const type = bytes[at] & 0x7f;
    const size = (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
    const body = at + 4;
    if (body + size > bytes.length) throw new UnreadableAudio('a FLAC metadata block runs past the end of the file');
    if (type === 0 && size >= 18) {
      const rate = (bytes[body + 10] << 12) | (bytes[body + 11] << 4) | (bytes[body + 12] >> 4);
      const total = (bytes[body + 13] & 0xf) * 2 ** 32 + new DataView(bytes.buffer, bytes.byteOffset + body + 14, 4).getUint32(0);
      if (!rate) throw new UnreadableAudio('a FLAC stream with sample rate 0');
      duration = total / rate;
    } else if (type === 4) {
      text = vorbisComments(bytes, body, body + size).get(TRANSCRIPT_TAG);
    }
    at = body + size;
  }
  if (duration === undefined) throw new UnreadableAudio('a FLAC file without STREAMINFO');
  return { container: 'flac', duration, text };
}

const MP3_BITRATES = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // V1 L1
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // V1 L2
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // V1 L3
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256], // V2 L1
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // V2 L2, L3
];
const MP3_RATES = [44100, 48000, 32000];

/** One MPEG audio frame header at `at`: its length in bytes and samples, or undefined. */
function mpegFrame(b: Uint8Array, at: number): { length: number; samples: number; rate: number } | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1] >> 3) & 3; // 0: 2.5, 2: 2, 3: 1
  const layer = 4 - ((b[at + 1] >> 1) & 3); // 1..3
  const bitrateIndex = b[at + 2] >> 4;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const v1 = version === 3;
  const rate = MP3_RATES[rateIndex] / (v1 ? 1 : version === 2 ? 2 : 4);
  const kbps = MP3_BITRATES[v1 ? layer - 1 : layer === 1 ? 3 : 4][bitrateIndex];
  const padding = (b[at + 2] >> 1) & 1;
  if (layer === 1) return { length: (Math.floor((12 * kbps * 1000) / rate) + padding) * 4, samples: 384, rate };
  const samples = layer === 3 && !v1 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * kbps * 1000) / rate) + padding, samples, rate };
}

function id3Text(b: Uint8Array, end: number): string | undefined {
  const version = b[3];
  const dec = new TextDecoder();
  for (let at = 10; at + 10 <= end; ) {
    const id = ascii(b, at, 4);
    if (!/^[A-Z0-9]{4}$/.test(id)) break;
    const size =
      version >= 4
        ? (b[at + 4] << 21) | (b[at + 5] << 14) | (b[at + 6] << 7) | b[at + 7]
        : new DataView(b.buffer, b.byteOffset + at + 4, 4).getUint32(0);
    const body = b.subarray(at + 10, Math.min(at + 10 + size, end));
    if (id === 'TXXX' && body[0] === 3) {
      const zero = body.indexOf(0, 1);
      if (zero > 0 && dec.decode(body.subarray(1, zero)) === TRANSCRIPT_TAG) return dec.decode(body.subarray(zero + 1));
    }
    at += 10 + size;
  }
  return undefined;
}

function mp3(bytes: Uint8Array): ProbedAudio {
  let at = 0;
  let text: string | undefined;
  if (ascii(bytes, 0, 3) === 'ID3' && bytes.length >= 10) {
    const size = (bytes[6] << 21) | (bytes[7] << 14) | (bytes[8] << 7) | bytes[9];
    at = 10 + size + (bytes[5] & 0x10 ? 10 : 0);
    text = id3Text(bytes, Math.min(10 + size, bytes.length));
  }
  // Find the first frame whose successor starts where it says (a false sync rarely does).
  let start = -1;
  for (let i = at; i < Math.min(bytes.length, at + 65536) && start < 0; i++) {
    const f = mpegFrame(bytes, i);
    if (f && (i + f.length >= bytes.length || mpegFrame(bytes, i + f.length))) start = i;
  }
  if (start < 0) throw new UnreadableAudio('no MPEG audio frames');
  let seconds = 0;
  for (let i = start; ; ) {
    const f = mpegFrame(bytes, i);
    if (!f) break;
    seconds += f.samples / f.rate;
    i += f.length;
  }
  return { container: 'mp3', duration: seconds, text };
}

function ogg(bytes: Uint8Array): ProbedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let granule = 0;
  let rate = 0;
  let preSkip = 0;
  let text: string | undefined;
  let packet = 0;
  while (at + 27 <= bytes.length && ascii(bytes, at, 4) === 'OggS') {
    const segments = bytes[at + 26];
    const lacing = bytes.subarray(at + 27, at + 27 + segments);
    const dataStart = at + 27 + segments;
    const size = lacing.reduce((n, l) => n + l, 0);
    if (dataStart + size > bytes.length) break;
    const g = view.getUint32(at + 6, true) + view.getUint32(at + 10, true) * 2 ** 32;
    if (g !== 2 ** 64 - 1 && view.getInt32(at + 10, true) !== -1) granule = g;
    if (packet < 2) {
      const data = bytes.subarray(dataStart, dataStart + size);
      if (ascii(data, 0, 8) === 'OpusHead') {
        rate = 48000;
        preSkip = new DataView(data.buffer, data.byteOffset + 10, 2).getUint16(0, true);
      } else if (ascii(data, 1, 6) === 'vorbis' && data[0] === 1) {
        rate = new DataView(data.buffer, data.byteOffset + 12, 4).getUint32(0, true);
      } else if (ascii(data, 0, 8) === 'OpusTags') {
        text = vorbisComments(bytes, dataStart + 8, dataStart + size).get(TRANSCRIPT_TAG);
      } else if (ascii(data, 1, 6) === 'vorbis' && data[0] === 3) {
        text = vorbisComments(bytes, dataStart + 7, dataStart + size).get(TRANSCRIPT_TAG);
      }
      packet++;
    }
    at = dataStart + size;
  }
  if (!rate) throw new UnreadableAudio('an Ogg stream that is neither Opus nor Vorbis');
  return { container: 'ogg', duration: Math.max(0, granule - preSkip) / rate, text };
}

/** Raw 16-bit little-endian mono PCM; the rate from a `rate=` parameter of the type, else 24 kHz. */
function pcm(bytes: Uint8Array, type: string): ProbedAudio {
  const rate = Number(/rate=(\d+)/.exec(type)?.[1] ?? SPEECH_SAMPLE_RATE);
  return {
    container: 'pcm',
    duration: Math.floor(bytes.length / 2) / (rate || SPEECH_SAMPLE_RATE),
    text: readText(samples16(bytes, 0, Math.min(bytes.length - (bytes.length % 2), WATERMARK_PREFIX_BYTES))),
  };
}

/**
 * The duration and carried text of an audio file, by its first bytes (raw PCM by its name or type:
 * `.pcm`, `.raw`, `audio/pcm`, `audio/L16`). Throws UnknownAudio or UnreadableAudio.
 */
export function probeAudio(bytes: Uint8Array, filename: string, type: string): ProbedAudio {
  try {
    if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return wav(bytes);
    if (ascii(bytes, 0, 4) === 'fLaC') return flac(bytes);
    if (ascii(bytes, 0, 4) === 'OggS') return ogg(bytes);
    if (ascii(bytes, 0, 3) === 'ID3' || mpegFrame(bytes, 0)) return mp3(bytes);
  } catch (error) {
    if (error instanceof UnreadableAudio) throw error;
    throw new UnreadableAudio((error as Error).message);
  }
  if (/\.(pcm|raw)$/i.test(filename) || /^audio\/(pcm|l16)\b/i.test(type)) return pcm(bytes, type);
  throw new UnknownAudio('not a known audio container');
}
