// The journal: what the gateway received and what it answered, in a bounded ring buffer.

export interface JournalEntry {
  /** Sequence number, from 1, over the gateway's life (reset() restarts it). */
  seq: number;
  /** The request id sent back in the vendor's request-id header. */
  requestId: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, when there was one. */
  body?: unknown;
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
  /** Stream events written so far. */
  eventsSent: number;
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

  list(): JournalEntry[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)];
  }

  clear(): void {
    this.slots = [];
    this.start = 0;
    this.next = 1;
    this.generation++;
  }
}
