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
  /** Name of the fixture that answered, if any. */
  fixture?: string;
  status: number;
  stream: boolean;
  /** For streams: 'streaming' until the last event is written, then 'completed', or 'aborted' when the client left. */
  outcome: 'completed' | 'streaming' | 'aborted';
  /** Stream events written so far. */
  eventsSent: number;
}

export class Journal {
  private entries: JournalEntry[] = [];
  private next = 1;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full = { seq: this.next++, ...entry };
    if (this.capacity > 0) {
      this.entries.push(full);
      if (this.entries.length > this.capacity) this.entries.shift();
    }
    return full;
  }

  list(): JournalEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
    this.next = 1;
  }
}
