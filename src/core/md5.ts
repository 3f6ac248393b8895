// MD5 (RFC 1321) of bytes, as hex: OpenAI's Uploads take an `md5` of the whole file to check on
// completion. Written here because the browser build has no node:crypto and WebCrypto has no MD5.
// Work in steps (slices.ts): an upload of tens of MiB is hashed with the event loop served between slices.
import { SLICE_CHARS, type Steps } from './slices.ts';

const S = [
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11,
  16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];
const K = Int32Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0);

/** Folds one 64-byte block (as 16 little-endian words) into the state. */
function block(state: Int32Array, m: Int32Array): void {
  let [a, b, c, d] = state;
  for (let i = 0; i < 64; i++) {
    let f: number;
    let g: number;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const sum = (a + f + K[i] + m[g]) | 0;
    a = d;
    d = c;
    c = b;
    b = (b + ((sum << S[i]) | (sum >>> (32 - S[i])))) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
}

/** The MD5 of `bytes` as 32 hex digits, in steps of about SLICE_CHARS bytes (run with runInSlices or runAtOnce). */
export function* md5Steps(bytes: Uint8Array): Steps<string> {
  const state = Int32Array.of(0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476);
  const words = new Int32Array(16);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const whole = bytes.byteLength - (bytes.byteLength % 64);
  let done = 0;
  for (let at = 0; at < whole; at += 64) {
    for (let w = 0; w < 16; w++) words[w] = view.getInt32(at + w * 4, true);
    block(state, words);
    done += 64;
    if (done >= SLICE_CHARS) {
      yield done;
      done = 0;
    }
  }
  // The tail, a 1 bit, zeros to 56 mod 64, then the length in bits (64-bit little-endian).
  const rest = bytes.byteLength - whole;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[rest] = 0x80;
  const tailView = new DataView(tail.buffer);
  const bits = bytes.byteLength * 8;
  tailView.setUint32(tail.length - 8, bits >>> 0, true);
  tailView.setUint32(tail.length - 4, Math.floor(bits / 2 ** 32), true);
  for (let at = 0; at < tail.length; at += 64) {
    for (let w = 0; w < 16; w++) words[w] = tailView.getInt32(at + w * 4, true);
    block(state, words);
  }
  let hex = '';
  for (const word of state) for (let i = 0; i < 4; i++) hex += ((word >>> (8 * i)) & 0xff).toString(16).padStart(2, '0');
  return hex;
}
