// The o200k_base tokenizer, from gpt-tokenizer's own rank file (`gpt-tokenizer/data/o200k_base.tiktoken`,
// one base64 token and its rank a line), kept as typed arrays: a few milliseconds to load, where the package's
// JS module of 200k literals and the string map built from it take hundreds on a cold process.
//
// It gives exactly the package's ids and pieces (test/o200k.test.ts checks the tables rank by rank and the
// results on varied text), including the package's own rules: a whole pre-token is looked up as a string;
// byte sequences met while merging are looked up as text when they are valid UTF-8, after the text
// decoder drops a leading byte-order mark; tokens that start with one are byte tokens, never strings.
import { ownFile } from '../own.ts';

type NodeFs = { readFileSync(path: string): Uint8Array };
type NodeModule = { createRequire(from: string): ((id: string) => unknown) & { resolve(id: string): string } };

/** The immutable tables, shared by every copy of this module in the process (see loadTables()). */
interface Tables {
  /** Every token's bytes, back to back; token r is bytes[offsets[r]..offsets[r + 1]]. */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** 1 where the package keeps the token as a string, 0 where as bytes. */
  isText: Uint8Array;
  /** Open addressing on the FNV-1a hash of a token's bytes: rank + 1, 0 for an empty slot. */
  slots: Int32Array;
  /** The package's pre-token pattern and special tokens, when known without loading its module. */
  params?: EncodingParams;
}

/** What the package's encodingParams module gives, as plain data (the build keeps it with the table). */
interface EncodingParams {
  /** The pre-token pattern's source and flags. */
  split: string;
  flags: string;
  /** Special tokens: id and text. */
  specials: [number, string][];
}

const SLOT_BITS = 19; // 524,288 slots for 199,998 tokens
const MASK = (1 << SLOT_BITS) - 1;
const BOM = [0xef, 0xbb, 0xbf] as const;

function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

/** Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as the package checks it. */
function validUtf8(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; ) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let cp: number;
    if (c >= 0xc2 && c <= 0xdf) (n = 2), (cp = c & 0x1f);
    else if ((c & 0xf0) === 0xe0) (n = 3), (cp = c & 0x0f);
    else if (c >= 0xf0 && c <= 0xf4) (n = 4), (cp = c & 0x07);
    else return false;
    if (i + n > to) return false;
    for (let j = 1; j < n; j++) {
      const d = b[i + j];
      if ((d & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += n;
  }
  return true;
}

const startsWithBom = (b: Uint8Array, from: number, to: number) =>
  to - from >= 3 && b[from] === BOM[0] && b[from + 1] === BOM[1] && b[from + 2] === BOM[2];

/** Parses the .tiktoken file (base64, a space, the rank, a newline) straight into the tables. */
function parseTiktoken(file: Uint8Array): Tables {
  const B64 = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) B64[alphabet.charCodeAt(i)] = i;
  let lines = 0;
  for (let i = 0; i < file.length; i++) if (file[i] === 10) lines++;
  if (file.length && file[file.length - 1] !== 10) lines++;
  const bytes = new Uint8Array(file.length); // decoded bytes are fewer than the file's
  const starts = new Uint32Array(lines);
  const ends = new Uint32Array(lines);
  let count = 0;
  let out = 0;
  for (let i = 0; i < file.length; ) {
    const start = out;
    let bits = 0;
    let acc = 0;
    for (; i < file.length && file[i] !== 32; i++) {
      const v = B64[file[i]];
      if (v < 0) continue; // '=' padding
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[out++] = (acc >> bits) & 0xff;
      }
    }
    let rank = 0;
    for (i++; i < file.length && file[i] !== 10; i++) rank = rank * 10 + file[i] - 48;
    i++;
    if (rank !== count) throw new Error(`o200k_base.tiktoken: rank ${rank} on line ${count + 1}`);
    starts[count] = start;
    ends[count++] = out;
  }
  const offsets = new Uint32Array(count + 1);
  for (let r = 0; r < count; r++) offsets[r] = starts[r];
  offsets[count] = count ? ends[count - 1] : 0;
  return indexed(bytes.slice(0, offsets[count]), offsets);
}

/** The tables of tokens laid back to back: each token's kind, and the hash slots that find a token by its bytes. */
function indexed(bytes: Uint8Array, offsets: Uint32Array): Tables {
  const count = offsets.length - 1;
  const isText = new Uint8Array(count);
  for (let r = 0; r < count; r++) {
    const from = offsets[r];
    const to = offsets[r + 1];
    isText[r] = validUtf8(bytes, from, to) && !startsWithBom(bytes, from, to) ? 1 : 0;
  }
  return { bytes, offsets, isText, slots: slotsOf(bytes, offsets) };
}

/** Open addressing on each token's hash: rank + 1 in the first free slot from there. */
function slotsOf(bytes: Uint8Array, offsets: Uint32Array): Int32Array {
  const slots = new Int32Array(1 << SLOT_BITS);
  for (let r = 0; r < offsets.length - 1; r++) {
    let s = hashBytes(bytes, offsets[r], offsets[r + 1]) & MASK;
    while (slots[s] !== 0) s = (s + 1) & MASK;
    slots[s] = r + 1;
  }
  return slots;
}

// The tables as one file, written at build time (scripts/o200k-table.ts) beside the built module, and read
// in a millisecond:
// a header (magic, version, token count, byte count, slot bits, byte length of the parameters: u32 each,
// padded to 32 bytes), then the offsets, the slots, the kinds, the bytes and the encoding's parameters as
// UTF-8 JSON. Little-endian, as typed arrays are on every Node platform.
const MAGIC = 0x4b32304f; // "O02K"
const VERSION = 2;
const HEADER = 32;

/** The tables as the build writes them. */
export function serializeTables(t: Tables): Uint8Array {
  const count = t.isText.length;
  const params = new TextEncoder().encode(JSON.stringify(t.params ?? packageParams()));
  const size = HEADER + t.offsets.byteLength + t.slots.byteLength + count + t.bytes.length + params.length;
  const out = new Uint8Array(size);
  new Uint32Array(out.buffer, 0, 6).set([MAGIC, VERSION, count, t.bytes.length, SLOT_BITS, params.length]);
  let at = HEADER;
  for (const part of [t.offsets, t.slots, t.isText, t.bytes, params]) {
    out.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), at);
    at += part.byteLength;
  }
  return out;
}

/** The tables over a file's bytes (views, no copy), or undefined if it is not a table of this version. */
export function tablesOf(file: Uint8Array): Tables | undefined {
  if (file.byteOffset % 4 !== 0 || file.length < HEADER) return undefined;
  const [magic, version, count, byteCount, bits, paramBytes] = new Uint32Array(file.buffer, file.byteOffset, 6);
  const slotBytes = (1 << SLOT_BITS) * 4;
  if (
    magic !== MAGIC ||
    version !== VERSION ||
    bits !== SLOT_BITS ||
    file.length !== HEADER + (count + 1) * 4 + slotBytes + count + byteCount + paramBytes
  )
    return undefined;
  let at = file.byteOffset + HEADER;
  const offsets = new Uint32Array(file.buffer, at, count + 1);
  const slots = new Int32Array(file.buffer, (at += offsets.byteLength), 1 << SLOT_BITS);
  const isText = new Uint8Array(file.buffer, (at += slotBytes), count);
  const bytes = new Uint8Array(file.buffer, (at += count), byteCount);
  const params = JSON.parse(new TextDecoder().decode(new Uint8Array(file.buffer, at + byteCount, paramBytes))) as EncodingParams;
  return { bytes, offsets, isText, slots, params };
}

// The tables packed for the browser entry, where no file can be read: the build writes them base64-encoded
// as the default export of a module (o200k_base.packed.js), which a bundler treats as any other lazy chunk.
// Only what is not quick to derive: a header (magic, token count, byte count, byte length of the
// parameters: u32 each), one byte a token (its length less one, 1 to 128, and its kind in the high bit),
// the bytes and the parameters as UTF-8 JSON; ~1.6 MB, 2.1 MB as base64, against 4.5 MB for the file
// above. The hash slots are rebuilt when read (bench/cold-browser.ts has the figures).
const PACKED_MAGIC = 0x4b33504f; // "OP3K"
const PACKED_HEADER = 16;

/** The tables in their packed form. */
export function packTables(t: Tables): Uint8Array {
  const count = t.isText.length;
  const params = new TextEncoder().encode(JSON.stringify(t.params ?? packageParams()));
  const out = new Uint8Array(PACKED_HEADER + count + t.bytes.length + params.length);
  const header = new DataView(out.buffer);
  [PACKED_MAGIC, count, t.bytes.length, params.length].forEach((v, i) => header.setUint32(i * 4, v, true));
  for (let r = 0; r < count; r++) {
    const length = t.offsets[r + 1] - t.offsets[r];
    if (length < 1 || length > 128) throw new Error(`o200k_base: token ${r} is ${length} bytes long, not 1 to 128`);
    out[PACKED_HEADER + r] = (length - 1) | (t.isText[r] << 7);
  }
  out.set(t.bytes, PACKED_HEADER + count);
  out.set(params, PACKED_HEADER + count + t.bytes.length);
  return out;
}

/** The tables from their packed form, base64-encoded as the build writes it. */
export function tablesOfPacked(base64: string): Tables {
  const packed = fromBase64(base64);
  const header = new DataView(packed.buffer, packed.byteOffset, PACKED_HEADER);
  const [magic, count, byteCount, paramBytes] = [0, 1, 2, 3].map((i) => header.getUint32(i * 4, true));
  if (magic !== PACKED_MAGIC || packed.length !== PACKED_HEADER + count + byteCount + paramBytes)
    throw new Error('o200k_base.packed.js is not a packed table of this version: rebuild the package (npm run build).');
  const offsets = new Uint32Array(count + 1);
  const isText = new Uint8Array(count);
  for (let r = 0, at = 0; r < count; r++) {
    const b = packed[PACKED_HEADER + r];
    offsets[r + 1] = at += (b & 0x7f) + 1;
    isText[r] = b >> 7;
  }
  const bytes = packed.subarray(PACKED_HEADER + count, PACKED_HEADER + count + byteCount);
  const params = JSON.parse(new TextDecoder().decode(packed.subarray(PACKED_HEADER + count + byteCount))) as EncodingParams;
  return { bytes, offsets, isText, slots: slotsOf(bytes, offsets), params };
}

function fromBase64(text: string): Uint8Array {
  // Chromium 140+, Firefox 133+, Safari 18.2+; atob elsewhere.
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (native) return native(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const CACHE = Symbol.for('model-gateway-mock.o200k-tables');

type Host = { getBuiltinModule(id: string): unknown };
const host = () => (globalThis as unknown as { process: Host }).process;

/**
 * The build's table: dist/src/core/o200k_base.bin, where the build writes it (running from src/,
 * there is none, and the tables are parsed from the package's rank file instead).
 */
function tablePath(): string {
  const { fileURLToPath } = host().getBuiltinModule('node:url') as { fileURLToPath(url: string): string };
  // A string, not a URL: under jsdom the global URL is jsdom's, which node:url does not take.
  return fileURLToPath(ownFile('core/o200k_base.bin'));
}

/** The package's rank file, parsed (the build's input, and the fallback where no table was built). */
export function parsePackageData(): Tables {
  const { createRequire } = host().getBuiltinModule('node:module') as NodeModule;
  const { readFileSync } = host().getBuiltinModule('node:fs') as NodeFs;
  return {
    ...parseTiktoken(readFileSync(createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken'))),
    params: packageParams(),
  };
}

/**
 * The tables, read once per process: vitest evaluates modules afresh for each test file, and the
 * tables are immutable, so every copy of this module shares one. From the built table when there is
 * one (running from src/ unbuilt, from the package's rank file: the same tables, ~100 ms slower).
 */
function loadTables(): Tables {
  const g = globalThis as { [CACHE]?: Tables };
  if (g[CACHE]) return g[CACHE];
  const { readFileSync, existsSync } = host().getBuiltinModule('node:fs') as NodeFs & { existsSync(p: string): boolean };
  const path = tablePath();
  return (g[CACHE] = (existsSync(path) ? tablesOf(readFileSync(path)) : undefined) ?? fromPackageData(path));
}

function fromPackageData(path: string): Tables {
  try {
    return parsePackageData();
  } catch (error) {
    // An installed package always has its table; a copy bundled into one file (esbuild, a serverless
    // bundle) leaves it behind, and gpt-tokenizer, which it is built from, is only a devDependency.
    throw new Error(
      `the tokenizer table is missing: no ${path}, and no gpt-tokenizer to build it from (${(error as Error).message.split('\n')[0]}). Bundled into one file? Mark model-gateway-mock external: it loads files and modules beside its own.`,
    );
  }
}

/**
 * The package's pre-token pattern and special tokens, from its module: the build keeps them with the
 * table, so a process that reads the table never loads that module (~10 ms and three modules).
 */
function packageParams(): EncodingParams {
  const { createRequire } = host().getBuiltinModule('node:module') as NodeModule;
  const { O200KBase } = createRequire(import.meta.url)(
    'gpt-tokenizer/encodingParams/o200k_base',
  ) as typeof import('gpt-tokenizer/encodingParams/o200k_base');
  const { tokenSplitRegex, specialTokensEncoder } = O200KBase([]);
  return {
    split: tokenSplitRegex.source,
    flags: tokenSplitRegex.flags,
    specials: [...specialTokensEncoder].map(([text, id]) => [id, text]),
  };
}

/**
 * The pattern for text that is all ASCII: each Unicode class of the pattern cut down to its ASCII
 * members, which on such text matches exactly what the full pattern matches (test/o200k.test.ts). V8
 * compiles the full pattern's Unicode classes on its first use, 10-50 ms here: a process that only ever
 * sees ASCII text never pays for them.
 */
export function asciiPattern(split: string, flags: string): RegExp {
  const ascii: Record<string, string> = { L: 'A-Za-z', N: '0-9', Lu: 'A-Z', Ll: 'a-z', Lt: '', Lm: '', Lo: '', M: '' };
  let source = '';
  let inClass = false;
  for (let i = 0; i < split.length; i++) {
    const c = split[i];
    const property = c === '\\' ? /^\\p\{(\w+)\}/.exec(split.slice(i)) : null;
    if (property) {
      const members = ascii[property[1]];
      if (members === undefined) throw new Error(`o200k_base: no ASCII form for ${property[0]}`);
      // Outside a class it becomes one ([] matches nothing: a class with no ASCII members).
      source += inClass ? members : `[${members}]`;
      i += property[0].length - 1;
    } else if (c === '\\') {
      source += split.slice(i, i + 2);
      i++;
    } else {
      if (c === '[' && !inClass) inClass = true;
      else if (c === ']' && inClass) inClass = false;
      source += c;
    }
  }
  return new RegExp(source, flags.replace('u', ''));
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** The subset of gpt-tokenizer's encoding API the gateway uses, with the same results. */
export interface Encoding {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** A token's bytes (a special token's as UTF-8); undefined for an id not in the vocabulary. */
  bytesOf(id: number): Uint8Array | undefined;
  decodeGenerator(ids: readonly number[]): Iterable<string>;
  readonly vocabularySize: number;
}

export class O200k implements Encoding {
  private readonly t: Tables;
  readonly vocabularySize: number;
  /** UTF-8 of the pre-token being looked up or merged. */
  private buf = new Uint8Array(1024);
  /** Merge results of recent pre-tokens, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<string, number[]>();
  /** Token texts decoded so far (the package keeps every one as a string). */
  private readonly texts: (string | undefined)[] = [];
  private readonly textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /**
   * A decoder for one call's byte tokens. Each call has its own, flushed at its end: the package shares
   * one that is never flushed, so an unfinished character (or a first BOM) carried from one call into the
   * next, and the same ids could decode differently (ids come from clients' token-array prompts).
   */
  private static callDecoder = () => new TextDecoder('utf-8', { ignoreBOM: true });

  private readonly cacheEntries: number;
  private readonly split: RegExp;
  private readonly asciiSplit: RegExp;
  private readonly specials: Map<number, string>;

  constructor(cacheEntries = 10_000, tables: Tables = loadTables()) {
    this.cacheEntries = cacheEntries;
    this.t = tables;
    const { split, flags, specials } = tables.params ?? packageParams();
    this.split = new RegExp(split, flags);
    this.asciiSplit = asciiPattern(split, flags);
    this.specials = new Map(specials);
    this.vocabularySize = tables.isText.length + this.specials.size;
  }

  /** The rank of buf[from..to) looked up as the package does when the bytes are valid UTF-8 or not. */
  private rankOfBytes(from: number, to: number): number {
    const b = this.buf;
    if (validUtf8(b, from, to)) {
      if (startsWithBom(b, from, to)) from += 3;
      return this.find(b, from, to, 1);
    }
    return this.find(b, from, to, 0);
  }

  /** The rank of the token with exactly these bytes and this kind, or -1. */
  private find(b: Uint8Array, from: number, to: number, text: number): number {
    if (from >= to) return -1;
    const { bytes, offsets, isText, slots } = this.t;
    const len = to - from;
    for (let s = hashBytes(b, from, to) & MASK; slots[s] !== 0; s = (s + 1) & MASK) {
      const r = slots[s] - 1;
      const at = offsets[r];
      if (offsets[r + 1] - at !== len) continue;
      let i = 0;
      while (i < len && bytes[at + i] === b[from + i]) i++;
      if (i === len) return isText[r] === text ? r : -1;
    }
    return -1;
  }

  /** Writes `piece` as UTF-8 into buf (a lone surrogate as U+FFFD, as TextEncoder does); returns the length. */
  private utf8(piece: string): number {
    if (this.buf.length < piece.length * 3) this.buf = new Uint8Array(piece.length * 3);
    const b = this.buf;
    let n = 0;
    for (let i = 0; i < piece.length; i++) {
      let c = piece.charCodeAt(i);
      if (c < 0x80) b[n++] = c;
      else if (c < 0x800) (b[n++] = 0xc0 | (c >> 6)), (b[n++] = 0x80 | (c & 0x3f));
      else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = piece.charCodeAt(i + 1);
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
            b[n++] = 0xf0 | (c >> 18);
            b[n++] = 0x80 | ((c >> 12) & 0x3f);
            b[n++] = 0x80 | ((c >> 6) & 0x3f);
            b[n++] = 0x80 | (c & 0x3f);
            continue;
          }
          c = 0xfffd;
        }
        b[n++] = 0xe0 | (c >> 12);
        b[n++] = 0x80 | ((c >> 6) & 0x3f);
        b[n++] = 0x80 | (c & 0x3f);
      }
    }
    return n;
  }

  /** Byte-pair merging of buf[0..n): the adjacent pair of lowest rank first, the leftmost of equals. */
  private merge(n: number): number[] {
    const starts: number[] = [];
    const ranks: number[] = [];
    const rankAt = (k: number) => (k + 2 < starts.length ? this.rankOfBytes(starts[k], starts[k + 2]) : -1);
    for (let i = 0; i <= n; i++) starts.push(i);
    for (let i = 0; i <= n; i++) ranks.push(i < n - 1 ? this.rankOfBytes(i, i + 2) : -1);
    while (starts.length > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++) {
        const r = ranks[i];
        if (r >= 0 && r < lowest) (lowest = r), (at = i);
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = rankAt(at);
      if (at > 0) ranks[at - 1] = rankAt(at - 1);
    }
    const out: number[] = [];
    for (let i = 0; i < starts.length - 1; i++) {
      const r = this.rankOfBytes(starts[i], starts[i + 1]);
      if (r < 0) throw new Error(`o200k_base: no token for the bytes of a piece`);
      out.push(r);
    }
    return out;
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const [piece] of text.matchAll(ASCII_ONLY.test(text) ? this.asciiSplit : this.split)) {
      const n = this.utf8(piece);
      // A pre-token with a lone surrogate is never a whole token: the package's string lookup misses it.
      const whole = (piece as unknown as { isWellFormed(): boolean }).isWellFormed() ? this.find(this.buf, 0, n, 1) : -1;
      if (whole >= 0) {
        ids.push(whole);
        continue;
      }
      let merged = this.cache.get(piece);
      if (merged) {
        this.cache.delete(piece);
      } else {
        merged = this.merge(n);
        if (this.cache.size >= this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
      }
      this.cache.set(piece, merged);
      for (const id of merged) ids.push(id);
    }
    return ids;
  }

  /** A token as the package holds it: its text, its bytes, a special token's text, or undefined. */
  private token(id: number): string | Uint8Array | undefined {
    const { bytes, offsets, isText } = this.t;
    if (!(id >= 0 && id < isText.length)) return this.specials.get(id);
    if (!isText[id]) return bytes.subarray(offsets[id], offsets[id + 1]);
    return (this.texts[id] ??= this.textDecoder.decode(bytes.subarray(offsets[id], offsets[id + 1])));
  }

  bytesOf(id: number): Uint8Array | undefined {
    const { bytes, offsets, isText } = this.t;
    if (id >= 0 && id < isText.length) return bytes.subarray(offsets[id], offsets[id + 1]);
    const special = this.specials.get(id);
    return special === undefined ? undefined : new TextEncoder().encode(special);
  }

  decode(ids: readonly number[]): string {
    let out = '';
    let pending: Uint8Array[] = [];
    const stream = O200k.callDecoder();
    const flush = () => {
      if (!pending.length) return;
      const all = new Uint8Array(pending.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of pending) all.set(p, (at += p.length) - p.length);
      // A run of byte tokens ends at a text token or the end: an unfinished character there is U+FFFD.
      out += stream.decode(all);
      pending = [];
    };
    for (const id of ids) {
      const t = this.token(id);
      if (t === undefined) throw new Error(`Token ${id} is not in the byte pair encoder.`);
      if (typeof t === 'string') {
        flush();
        out += t;
      } else pending.push(t);
    }
    flush();
    return out;
  }

  /** Each token's text; bytes that end inside a character wait for the next token's. */
  *decodeGenerator(ids: readonly number[]): Generator<string> {
    let buffer = '';
    const stream = O200k.callDecoder();
    for (const id of ids) {
      const t = this.token(id);
      if (!t) continue;
      buffer += typeof t === 'string' ? t : stream.decode(t, { stream: true });
      if (buffer.length === 0) continue;
      const last = buffer.charCodeAt(buffer.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) continue;
      yield buffer;
      buffer = '';
    }
    buffer += stream.decode();
    if (buffer.length > 0) yield buffer;
  }
}
