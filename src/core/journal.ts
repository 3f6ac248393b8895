// The journal: what the gateway received and what it answered, in a bounded ring buffer.
import { detached } from './strings.ts';

export interface JournalEntry {
  /** Sequence number, from 1, over the gateway's life (reset() restarts it). */
  seq: number;
  /** The request id sent back in the vendor's request-id header. */
  requestId: string;
  method: string;
  path: string;
  /** The query string ('' or `?…`), with a `key` parameter masked. */
  query: string;
  /** Request headers, credentials masked (`authorization`, `x-api-key`, `x-goog-api-key`…). */
  headers: Record<string, string>;
  /** The parsed body, when there was one; over JOURNAL_BODY_CHARS, a copy with long parts cut (see `truncated`). */
  body?: unknown;
  /** The body's size in bytes as received. */
  bodyBytes?: number;
  /** Set when `body` is a shortened copy (long strings, arrays and objects cut, each cut marked). */
  truncated?: boolean;
  format?: string;
  model?: string;
  /** Name (or id) of the fixture that answered, if any. */
  fixture?: string;
  /** In strict mode, for an unmatched request: the nearest fixture and its conditions. */
  nearMiss?: unknown;
  /** The response status (0 when the connection was broken instead). */
  status: number;
  /** The fault inflicted, if any. */
  fault?: string;
  stream: boolean;
  /** For streams: 'streaming' until the last event is written, then 'completed', or 'aborted' when the client left. */
  outcome: 'completed' | 'streaming' | 'aborted';
  /** Stream events written so far (for a WebSocket session: server events sent). */
  eventsSent: number;
  /** For a WebSocket session: the event types exchanged, oldest first (bounded). */
  events?: { from: 'client' | 'server'; type: string }[];
  /** When the request arrived (Unix milliseconds, the real clock: for people reading the journal, not for replies). */
  startedAt?: number;
  /** Milliseconds from arrival to the reply being ready (for streams: to the last event written, or the client leaving). */
  durationMs?: number;
  /** What was answered, bounded (see CapturedResponse). */
  response?: CapturedResponse;
}

/** The answer as written: headers, and the body (a stream's framed events) up to a limit; binary bodies by size only. */
export interface CapturedResponse {
  headers: Record<string, string>;
  body?: string;
  /** The body was longer than the limit and is cut there. */
  truncated?: boolean;
  /** A binary body (audio, images) is not kept: its size is. */
  binaryBytes?: number;
}

/**
 * How much of a response body the journal keeps per request: bytes of a stream's events as written,
 * characters of a body written whole (JSON, nearly all ASCII, where the two agree).
 */
export const CAPTURE_LIMIT = 64 * 1024;

/** Where a capture holds its bytes as written until the journal is read (see `captureBytes`). */
const WRITTEN = Symbol('bytes as written');

interface Capture extends CapturedResponse {
  [WRITTEN]?: { chunks: Uint8Array[]; size: number };
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
  let written = capture[WRITTEN];
  // Not enumerable: deep equality and JSON see only the public fields.
  if (!written) Object.defineProperty(capture, WRITTEN, { value: (written = { chunks: [], size: 0 }) });
  const room = CAPTURE_LIMIT - written.size;
  if (bytes.byteLength <= room) {
    written.chunks.push(bytes);
    written.size += bytes.byteLength;
    return;
  }
  // UTF-8 continuation bytes are 10xxxxxx: back off to the start of a character. A copy, so the rest
  // of a big chunk is not kept alive by the view.
  let cut = room;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  written.chunks.push(bytes.slice(0, cut));
  written.size += cut;
  capture.truncated = true;
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

const decoder = new TextDecoder();

/** Decodes the bytes a capture holds onto its `body` (a stream read while it plays gets the rest later). */
function settle(captured: CapturedResponse): void {
  const capture = captured as Capture;
  const written = capture[WRITTEN];
  if (!written?.chunks.length) return;
  compactCapture(capture);
  capture.body = (capture.body ?? '') + decoder.decode(written.chunks[0]);
  written.chunks = [];
}

/** Bodies up to this many characters are journaled whole; bigger ones as a shortened copy of about this size. */
export const JOURNAL_BODY_CHARS = 64 * 1024;

/** Longest string kept whole in a shortened body. */
const STRING_CAP = 2048;

/**
 * A copy of a parsed JSON body in about `budget` characters: long strings cut, the rest of an array or
 * object past the budget replaced by a marker. So the journal holds at most journalSize × ~64 KiB of
 * bodies, whatever clients send.
 */
export function shortenedBody(value: unknown, budget = JOURNAL_BODY_CHARS): unknown {
  let left = budget;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const kept = v.length > STRING_CAP ? detached(`${v.slice(0, STRING_CAP)}… [${v.length - STRING_CAP} more characters]`) : v;
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
      left -= k.length + 4;
      out[k] = walk(item);
      kept++;
    }
    return out;
  };
  return walk(value);
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

  /** The entries, oldest first, with their captured bodies decoded. */
  list(): JournalEntry[] {
    const entries = this.held();
    for (const entry of entries) if (entry.response) settle(entry.response);
    return entries;
  }

  /** The entries, oldest first, as held: a captured body may still be bytes (for readers that never show it). */
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
