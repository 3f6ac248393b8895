// The journal: what the gateway received and what it answered, in a bounded ring buffer.
import { detached } from './strings.ts';
import type { JournalEntry, CapturedResponse } from '../types/journal.ts';
export type { JournalEntry, BatchRequestRecord } from '../types/journal.ts';

/** Lines of a batch whose outcomes its entry lists (every vendor's batches): the rest are counted as `more`. */
export const MAX_BATCH_JOURNAL_REQUESTS = 100;

/** Bytes of a response body (a stream's events as written, or a body written whole) the journal keeps per request. */
export const CAPTURE_LIMIT = 64 * 1024;

const decoder = new TextDecoder();

/** Where a capture holds its bytes as written until the journal is read (see `captureBytes`). */
const WRITTEN = Symbol('bytes as written');

interface Capture extends CapturedResponse {
  /** `read`: the entry has been handed out, so later bytes go straight onto `body` for its holder to see. */
  [WRITTEN]?: { chunks: Uint8Array[]; size: number; read: boolean };
}

/** Gives a capture its record of bytes. Not enumerable: deep equality and JSON see only the public fields. */
function holdBytes(capture: Capture, read: boolean): NonNullable<Capture[typeof WRITTEN]> {
  const written = { chunks: [], size: 0, read };
  Object.defineProperty(capture, WRITTEN, { value: written });
  return written;
}

/** Entries handed out by `readable`: a capture made for one afterwards decodes its bytes as they come. */
const handedOut = new WeakSet<JournalEntry>();

/** The journal's copy of an entry's response, attached to the entry (see `captureBytes`). */
export function newCapture(entry: JournalEntry, headers: Record<string, string>): CapturedResponse {
  const captured: Capture = { headers };
  // Handed out before its answer existed (while the body was read or the reply delayed): its holder sees what comes.
  if (handedOut.has(entry)) holdBytes(captured, true);
  entry.response = captured;
  return captured;
}

/**
 * Keeps `bytes` of a response's body, up to CAPTURE_LIMIT (cut at a character's start), as bytes:
 * they are decoded into `body` when the journal is read. As text, a busy journal holds a thousand
 * stream bodies of ~10 KB in the JS heap, each copied by young-generation collections and the lot
 * marked by every full one; as bytes, only small views are on the heap.
 */
export function captureBytes(captured: CapturedResponse, bytes: Uint8Array): void {
  const capture = captured as Capture;
  if (capture.truncated) return;
  const written = capture[WRITTEN] ?? holdBytes(capture, false);
  let kept = bytes;
  if (bytes.byteLength > CAPTURE_LIMIT - written.size) {
    // UTF-8 continuation bytes are 10xxxxxx: back off to the start of a character. A copy, so the rest
    // of a big chunk is not kept alive by the view.
    let cut = CAPTURE_LIMIT - written.size;
    while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
    kept = bytes.slice(0, cut);
    capture.truncated = true;
  }
  if (!kept.byteLength) return;
  written.size += kept.byteLength;
  // Chunks end on whole characters (events, or the cut above), so each decodes on its own.
  if (written.read) capture.body = (capture.body ?? '') + decoder.decode(kept);
  else written.chunks.push(kept);
}

/** Joins a capture's chunks into one (a finished stream then holds one buffer, not one per event). */
export function compactCapture(captured: CapturedResponse): void {
  const written = (captured as Capture)[WRITTEN];
  if (!written || written.chunks.length < 2) return;
  const all = new Uint8Array(written.chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of written.chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  written.chunks = [all];
}

/** Decodes the bytes a capture holds onto its `body`; from then on its later bytes are decoded as they come. */
function settle(captured: CapturedResponse): void {
  const written = (captured as Capture)[WRITTEN];
  if (!written || written.read) return;
  compactCapture(captured);
  if (written.chunks.length) captured.body = (captured.body ?? '') + decoder.decode(written.chunks[0]);
  written.chunks = [];
  written.read = true;
}

/**
 * `entries` ready to be handed out: their captured bodies decoded. Readers that show only some entries
 * pick them from `Journal.held()` first, so the rest stay as bytes.
 */
export function readable(entries: JournalEntry[]): JournalEntry[] {
  for (const entry of entries) {
    if (entry.response) settle(entry.response);
    else handedOut.add(entry);
  }
  return entries;
}

/** Bodies up to this many characters are journaled whole; bigger ones as a shortened copy of about this size. */
export const JOURNAL_BODY_CHARS = 64 * 1024;

/** Longest string (or object key) kept whole in a shortened body. */
const STRING_CAP = 2048;

/** `text` cut to `max` characters and marked, as a copy (a cut of a long string may keep the whole string alive). */
function cut(text: string, max: number): string {
  return text.length > max ? detached(`${text.slice(0, max)}… [${text.length - max} more characters]`) : text;
}

/**
 * A copy of a parsed JSON body in about `budget` characters: long strings cut, the rest of an array or
 * object past the budget replaced by a marker. So the journal holds at most journalSize × ~64 KiB of
 * bodies, whatever clients send.
 */
export function shortenedBody(value: unknown, budget = JOURNAL_BODY_CHARS): unknown {
  let left = budget;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const kept = cut(v, STRING_CAP);
      left -= kept.length + 2;
      return kept;
    }
    if (v === null || typeof v !== 'object') {
      left -= 8;
      return v;
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) {
        if (left <= 0) {
          out.push(`… [${v.length - out.length} more items]`);
          break;
        }
        out.push(walk(item));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    const entries = Object.entries(v);
    let kept = 0;
    for (const [k, item] of entries) {
      if (left <= 0) {
        out['…'] = `${entries.length - kept} more fields`;
        break;
      }
      // Keys are the client's too: an unknown top-level key of 8 MiB was kept whole.
      const key = cut(k, STRING_CAP);
      left -= key.length + 4;
      out[key] = walk(item);
      kept++;
    }
    return out;
  };
  return walk(value);
}

/** Characters kept of each field of an entry a client writes (path, query, model, a header's name or value…). */
const JOURNAL_FIELD_CHARS = 1024;

/** Request headers an entry keeps: at most this many characters of them in all (Node's own default limit on a request's headers is 16 KiB). */
const HEADER_CHARS = 16 * 1024;

/** `headers` within HEADER_CHARS: as they are when they fit, else each name and value cut at JOURNAL_FIELD_CHARS and those past the bound left out, counted. */
export function boundedHeaders(headers: Record<string, string>): Record<string, string> {
  let size = 0;
  for (const name in headers) size += name.length + String(headers[name]).length;
  if (size <= HEADER_CHARS) return headers;
  const entries = Object.entries(headers);
  let left = HEADER_CHARS;
  const out: Record<string, string> = {};
  let kept = 0;
  for (const [name, value] of entries) {
    const n = cut(name, JOURNAL_FIELD_CHARS);
    const v = cut(String(value), JOURNAL_FIELD_CHARS);
    if ((left -= n.length + v.length) < 0) {
      out['…'] = `${entries.length - kept} more headers`;
      break;
    }
    out[n] = v;
    kept++;
  }
  return out;
}

/**
 * Bounds the fields of `entry` a client's request wrote (an 8 MiB model id on /v1/embeddings was
 * recorded before it was known, and kept): each string at JOURNAL_FIELD_CHARS, copied. Bodies are
 * bounded where they are read (shortenedBody), captured answers where they are written (captureBytes),
 * headers when the entry is made (boundedHeaders).
 */
export function boundEntry(entry: JournalEntry): void {
  entry.method = cut(entry.method, JOURNAL_FIELD_CHARS);
  entry.path = cut(entry.path, JOURNAL_FIELD_CHARS);
  entry.query = cut(entry.query, JOURNAL_FIELD_CHARS);
  if (entry.model !== undefined) entry.model = cut(entry.model, JOURNAL_FIELD_CHARS);
  if (entry.fixture !== undefined) entry.fixture = cut(entry.fixture, JOURNAL_FIELD_CHARS);
  for (const record of entry.batch?.requests ?? []) {
    if (record.model !== undefined) record.model = cut(record.model, JOURNAL_FIELD_CHARS);
  }
}

export class Journal {
  // A ring: `slots[(start + i) % capacity]` is the i-th oldest entry.
  private slots: JournalEntry[] = [];
  private start = 0;
  private next = 1;
  /** Counts clears, so a reader following the journal can tell it was restarted. */
  generation = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Records an entry, numbering it (the object itself is kept: callers fill it in as the request proceeds). */
  record(entry: JournalEntry): JournalEntry {
    const full = entry;
    full.seq = this.next++;
    if (this.capacity <= 0) return full;
    if (this.slots.length < this.capacity) this.slots.push(full);
    else {
      this.slots[this.start] = full;
      this.start = (this.start + 1) % this.capacity;
    }
    return full;
  }

  /** The entries, oldest first, as held: a captured body may still be bytes (see `readable`). */
  held(): JournalEntry[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)];
  }

  clear(): void {
    this.slots = [];
    this.start = 0;
    this.next = 1;
    this.generation++;
  }
}
