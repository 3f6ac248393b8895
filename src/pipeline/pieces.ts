// JSON bodies read and replies written a piece at a time, so one big request never holds the event loop
// while other clients wait. A body is first scanned (one linear pass, before anything is built) for the
// ceilings below; a big one is then parsed in pieces of PIECE_CHARS, and a big reply serialized in pieces
// of REPLY_PIECE_CHARS. The result is the same as JSON.parse / JSON.stringify of the whole, byte for byte.
import { GatewayError } from '../core/errors.ts';
import { inSlices, runAtOnce, runInSlices, SLICE_CHARS, yieldToLoop, type Steps } from '../core/slices.ts';

/** Deeper bodies are refused: nothing real nests this far, and they break whatever walks them later. */
export const MAX_DEPTH = 128;
/** Keys of one object: OpenAI's structured outputs allow 5000 properties in a whole schema. */
export const MAX_KEYS = 10_000;
/** JSON values in one body (not counting keys): 2048 embedding inputs of token ids hold at most ~302k. */
export const MAX_VALUES = 1_000_000;

/** Characters parsed (or scanned) in one synchronous step; bigger bodies go in pieces. */
const PIECE_CHARS = SLICE_CHARS;
const SCAN_SLICE = SLICE_CHARS;

/**
 * `bytes` decoded by `decoder` (a fresh one: it is left mid-stream on failure) as decoding them whole
 * would, a SLICE_CHARS slice of bytes at a time with the event loop served between slices: decoding
 * 300 KB of CJK whole holds the loop for about as long as hashing a megabyte.
 */
export async function decodeInSlices(bytes: Uint8Array, decoder: TextDecoder): Promise<string> {
  if (bytes.byteLength <= SLICE_CHARS) return decoder.decode(bytes);
  const parts: string[] = [];
  await inSlices(bytes.byteLength, (from, to) => parts.push(decoder.decode(bytes.subarray(from, to), { stream: to < bytes.byteLength })));
  return parts.join('');
}

const refuse = (message: string) => new GatewayError('invalid_request', message);

/** The 400 for a body that is not JSON, in OpenAI's words (each format renders it in its own body). */
function notJson(): GatewayError {
  return refuse(
    'We could not parse the JSON body of your request. The API expects a JSON object in the request body; what was sent was not valid JSON.',
  );
}

/** The 400 for a body that is JSON but not an object (each format renders it in its own body). */
export const notAnObject = () => refuse('The request body must be a JSON object.');

/**
 * A request body as JSON: first checked against the ceilings on depth, keys and values in one pass
 * that builds nothing (scanJson), then parsed, a piece at a time when it is big. A batch's lines are
 * read by it too, so a line is held to the checks a request's body is.
 */
export async function parseJson(text: string): Promise<Record<string, unknown>> {
  if (text.length <= PIECE_CHARS) return parseJsonAtOnce(text);
  return asObject(await parseInPieces(text, await scanJson(text)));
}

/**
 * parseJson of a body of at most PIECE_CHARS characters, which is checked and parsed in one step: no
 * promise and no turn of the event loop for the common small body.
 */
export function parseJsonAtOnce(text: string): Record<string, unknown> {
  // Nesting needs two characters a level, a value two, a key four: a shorter text is within every ceiling.
  if (text.length > 2 * MAX_DEPTH) runAtOnce(scanSteps(text, PIECE_CHARS));
  return asObject(parseWhole(text));
}

function parseWhole(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  return body as Record<string, unknown>;
}

/** Index of the quote that closes the string opening at `at` (text.length when it never closes). */
function stringEnd(text: string, at: number): number {
  for (let q = text.indexOf('"', at + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let k = q - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
  return text.length;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Checks a body against MAX_DEPTH, MAX_KEYS and MAX_VALUES in one pass over its characters, before it
 * is parsed, yielding to the event loop every SCAN_SLICE characters. Values are counted as commas plus
 * non-empty containers plus the root, keys as colons: exact for valid JSON, and what is not valid is
 * refused by the parse that follows. Returns where each container longer than `pieceChars` closes, by
 * where it opens, for parseInPieces.
 */
export function scanJson(text: string, pieceChars = PIECE_CHARS): Promise<Map<number, number>> {
  return runInSlices(scanSteps(text, pieceChars), SCAN_SLICE);
}

/** scanJson's pass, as steps of SCAN_SLICE characters. */
function* scanSteps(text: string, pieceChars: number): Steps<Map<number, number>> {
  const opened = new Int32Array(MAX_DEPTH + 1);
  const keys = new Int32Array(MAX_DEPTH + 1);
  const big = new Map<number, number>();
  let depth = 0;
  let values = 1;
  // The container opened last has no element yet: what comes next is its first, unless it closes.
  let fresh = false;
  let sliceEnd = SCAN_SLICE;
  for (let i = 0; i < text.length; i++) {
    if (i >= sliceEnd) {
      yield SCAN_SLICE;
      sliceEnd = i + SCAN_SLICE;
    }
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    if (fresh) {
      fresh = false;
      if (c !== 0x5d && c !== 0x7d) values++;
    }
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x2c) values++;
    else if (c === 0x3a) {
      if (++keys[depth] > MAX_KEYS)
        throw refuse(`An object in the request body has more than ${MAX_KEYS} keys; the limit is ${MAX_KEYS} keys per object.`);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) throw refuse(`The request body nests deeper than ${MAX_DEPTH} levels.`);
      opened[depth] = i;
      keys[depth] = 0;
      fresh = true;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) {
      if (i - opened[depth] >= pieceChars) big.set(opened[depth], i);
      depth--;
    }
    if (values > MAX_VALUES)
      throw refuse(`The request body holds more than ${MAX_VALUES} JSON values; the limit is ${MAX_VALUES} values per request.`);
  }
  return big;
}

/** JSON.parse, with the API's message for text that is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/** Sets a key as JSON.parse does: `__proto__` becomes an own property, never the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * `text` parsed as JSON.parse would, in steps of about `pieceChars` with the event loop served between
 * them: containers that `big` (from scanJson) lists are built member by member, runs of smaller members
 * are parsed together, and a long string is parsed in pieces and joined.
 */
export async function parseInPieces(text: string, big: Map<number, number>, pieceChars = PIECE_CHARS): Promise<unknown> {
  let steps = 0;
  const step = async () => {
    if (++steps > 1) await yieldToLoop();
  };
  const skip = (at: number) => {
    while (at < text.length && isSpace(text.charCodeAt(at))) at++;
    return at;
  };
  // The end of the value starting at `at` (a small one: no container in it is in `big`), at the latest `limit`.
  const valueEnd = (at: number, limit: number) => {
    let depth = 0;
    for (let i = at; i < limit; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) i = stringEnd(text, i);
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (depth === 0) return i;
        depth--;
      } else if (c === 0x2c && depth === 0) return i;
    }
    return limit;
  };
  const longString = async (from: number, to: number): Promise<string> => {
    // A string value longer than a piece: its content in pieces, never cut inside an escape.
    if (text.charCodeAt(from) !== 0x22 || stringEnd(text, from) !== to - 1) throw notJson();
    const parts: string[] = [];
    for (let a = from + 1; a < to - 1; ) {
      let b = Math.min(to - 1, a + pieceChars);
      if (b < to - 1) {
        const run = (end: number) => {
          let k = end;
          while (k >= a && text.charCodeAt(k) === 0x5c) k--;
          return end - k;
        };
        if (run(b - 1) % 2 === 1) b--;
        else
          for (let m = 0; m <= 4; m++) {
            const u = b - m - 1;
            if (u > a && text.charCodeAt(u) === 0x75 && run(u - 1) % 2 === 1) {
              b = u - 1;
              break;
            }
          }
      }
      // A piece shorter than one escape (only with tiny pieces): the whole escape.
      if (b <= a) b = Math.min(to - 1, a + (text.charCodeAt(a + 1) === 0x75 ? 6 : 2));
      await step();
      parts.push(parsed(`"${text.slice(a, b)}"`) as string);
      a = b;
    }
    return parts.join('');
  };
  const value = async (at: number, end: number): Promise<unknown> => {
    const close = big.get(at);
    if (close !== undefined) return container(at, close);
    if (end - at > pieceChars && text.charCodeAt(at) === 0x22) return longString(at, end);
    await step();
    return parsed(text.slice(at, end));
  };
  const container = async (open: number, close: number): Promise<unknown> => {
    const array = text.charCodeAt(open) === 0x5b;
    const out: unknown[] | Record<string, unknown> = array ? [] : {};
    // Small members from `run` to `runEnd` (a comma or the close) not parsed yet: parsed together.
    let run = -1;
    let runEnd = -1;
    const flush = async () => {
      if (run < 0) return;
      await step();
      const part = parsed(array ? `[${text.slice(run, runEnd)}]` : `{${text.slice(run, runEnd)}}`);
      if (array) for (const v of part as unknown[]) (out as unknown[]).push(v);
      else for (const k of Object.keys(part as object)) setKey(out as Record<string, unknown>, k, (part as Record<string, unknown>)[k]);
      run = -1;
    };
    let at = skip(open + 1);
    if (at === close) return out;
    for (;;) {
      const start = at;
      if (!array) {
        if (text.charCodeAt(at) !== 0x22) throw notJson();
        at = skip(stringEnd(text, at) + 1);
        if (text.charCodeAt(at) !== 0x3a) throw notJson();
        at = skip(at + 1);
      }
      const bigClose = big.get(at);
      // `end`: the comma after the member, or the close.
      const end = bigClose === undefined ? valueEnd(at, close) : skip(bigClose + 1);
      let valueTo = bigClose === undefined ? end : bigClose + 1;
      while (valueTo > at && isSpace(text.charCodeAt(valueTo - 1))) valueTo--;
      if (bigClose !== undefined || valueTo - at > pieceChars) {
        // Too big for a run: the run so far, then this member on its own.
        await flush();
        const v = await value(at, valueTo);
        if (array) (out as unknown[]).push(v);
        else setKey(out as Record<string, unknown>, parsed(text.slice(start, stringEnd(text, start) + 1)) as string, v);
      } else {
        if (run < 0) run = start;
        runEnd = end;
        if (runEnd - run >= pieceChars) await flush();
      }
      if (end === close) break;
      if (text.charCodeAt(end) !== 0x2c) throw notJson();
      at = skip(end + 1);
      if (at >= close) throw notJson();
    }
    await flush();
    return out;
  };
  const root = skip(0);
  let end = text.length;
  while (end > root && isSpace(text.charCodeAt(end - 1))) end--;
  if (root >= end) throw notJson();
  const close = big.get(root);
  if (close !== undefined && skip(close + 1) !== text.length) throw notJson();
  return value(root, end);
}

/** Characters of a big reply written at a time. */
const REPLY_PIECE_CHARS = 64 * 1024;
/** A reply longer than this goes out in pieces; a shorter one is one string, as JSON.stringify makes it. */
const PIECEWISE_REPLY_CHARS = 1024 * 1024;
/** Entries of a container serialized by one JSON.stringify call when none of them is an object. */
const LEAF_ENTRIES = 1024;

const isPlain = (v: object) => Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null;
const nested = (v: unknown) => v !== null && typeof v === 'object';

/**
 * An array whose elements are made as a writer reaches them: JSON.stringify makes them all (toJSON),
 * a reply written in pieces (stringifyInPieces) one at a time, so a big reply's parts (each choice's
 * log probabilities) are never all built at once. `items` is called afresh for each walk.
 */
export class LazyArray<T> {
  readonly items: () => Iterable<T>;
  constructor(items: () => Iterable<T>) {
    this.items = items;
  }
  toJSON(): T[] {
    return [...this.items()];
  }
}

/** `holder[key]` as JSON.stringify sees it (after toJSON; a LazyArray is walked by fragments). */
function jsonValue(holder: Record<string, unknown> | unknown[], key: string | number): unknown {
  const v = (holder as Record<string, unknown>)[key];
  return nested(v) && !(v instanceof LazyArray) && typeof (v as { toJSON?: unknown }).toJSON === 'function'
    ? (v as { toJSON(k: string): unknown }).toJSON(String(key))
    : v;
}

/** The text of JSON.stringify(value) as fragments, none bigger than one leaf container's or string's JSON. */
function* fragments(value: unknown): Generator<string> {
  if (value instanceof LazyArray) {
    // Element by element, each one JSON.stringify as the whole array's would write it.
    let first = true;
    for (const item of value.items()) {
      const text = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : JSON.stringify(item);
      yield `${first ? '[' : ','}${text}`;
      first = false;
    }
    yield first ? '[]' : ']';
    return;
  }
  if (!nested(value) || !isPlain(value as object)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    if (!value.some(nested)) {
      if (value.length <= LEAF_ENTRIES) yield JSON.stringify(value);
      else {
        // A long array of plain values: slices of it, brackets dropped.
        for (let i = 0; i < value.length; i += LEAF_ENTRIES) {
          const text = JSON.stringify(value.slice(i, i + LEAF_ENTRIES));
          yield `${i ? ',' : '['}${text.slice(1, -1)}`;
        }
        yield ']';
      }
      return;
    }
    for (let i = 0; i < value.length; i++) {
      yield i ? ',' : '[';
      const v = jsonValue(value, i);
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') yield 'null';
      else yield* fragments(v);
    }
    yield value.length ? ']' : '[]';
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length <= LEAF_ENTRIES && !keys.some((k) => nested(record[k]))) {
    yield JSON.stringify(record);
    return;
  }
  let first = true;
  for (const k of keys) {
    const v = jsonValue(record, k);
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield `${first ? '{' : ','}${JSON.stringify(k)}:`;
    first = false;
    yield* fragments(v);
  }
  yield first ? '{}' : '}';
}

/** A big reply: its first piece, made at once, and the rest, made a piece at a time with the event loop served between. */
export interface JsonPieces {
  head: string;
  rest: AsyncIterable<string>;
}

/**
 * JSON.stringify(value), or for a reply longer than PIECEWISE_REPLY_CHARS its text in pieces of about
 * REPLY_PIECE_CHARS: the same characters, only never all built in one step.
 */
export function stringifyInPieces(value: unknown, pieceChars = REPLY_PIECE_CHARS, wholeChars = PIECEWISE_REPLY_CHARS): string | JsonPieces {
  const source = fragments(value);
  let head = '';
  for (let next = source.next(); !next.done; next = source.next()) {
    head += next.value;
    if (head.length > wholeChars) {
      return {
        head,
        rest: (async function* () {
          let piece = '';
          for (const fragment of { [Symbol.iterator]: () => source }) {
            piece += fragment;
            if (piece.length >= pieceChars) {
              await yieldToLoop();
              yield piece;
              piece = '';
            }
          }
          if (piece) yield piece;
        })(),
      };
    }
  }
  return head;
}
