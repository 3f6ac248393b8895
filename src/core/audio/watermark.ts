// The words a clip speaks, hidden in its samples' least significant bits: a marker, the length, the
// UTF-8 text and a checksum, one bit per sample from the first. Inaudible (±1 in 32768), exact
// through every lossless path (PCM, WAV, FLAC), so audio this emulator spoke transcribes back to
// its text. Lossy formats carry the text in container metadata instead (see encode.ts).
import { hashString } from '../seed.ts';

const MARKER = 0x4d474d54; // 'MGMT'
const HEADER_BITS = 64;

function checksum(text: string): number {
  return (hashString(text) % 4294967296) >>> 0;
}

/** The samples with `text` written into their low bits; padded with silence when too short to hold it. */
export function embedText(samples: Int16Array, text: string): Int16Array {
  const bytes = new TextEncoder().encode(text);
  const bits = HEADER_BITS + bytes.length * 8 + 32;
  const out =
    samples.length >= bits
      ? samples.slice()
      : (() => {
          const padded = new Int16Array(bits);
          padded.set(samples);
          return padded;
        })();
  let at = 0;
  const put = (value: number, width: number) => {
    for (let b = width - 1; b >= 0; b--) out[at] = (out[at++] & ~1) | ((value >>> b) & 1);
  };
  put(MARKER, 32);
  put(bytes.length, 32);
  for (const byte of bytes) put(byte, 8);
  put(checksum(text), 32);
  return out;
}

/** The text `embedText` wrote, or undefined when the samples carry none (or a damaged one). */
export function readText(samples: ArrayLike<number>): string | undefined {
  let at = 0;
  const get = (width: number) => {
    let v = 0;
    for (let b = 0; b < width; b++) v = v * 2 + (samples[at++] & 1);
    return v;
  };
  if (samples.length < HEADER_BITS + 32 || get(32) !== MARKER) return undefined;
  const length = get(32);
  if (HEADER_BITS + length * 8 + 32 > samples.length) return undefined;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = get(8);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return get(32) === checksum(text) ? text : undefined;
}
