// Framings: how a stream's events become bytes on the wire. One writer per framing (SSE; a JSON
// array, Gemini's stream without alt=sse; AWS event-stream's binary frames next), each beside the
// others: formats make events (a payload and a name), the framing makes the bytes, the adapters write
// them, the journal keeps what the framing shows of them, and record mode reads them back.

/** One event of a stream, before framing. */
export interface StreamEvent {
  /** Milliseconds after the response starts. */
  due: number;
  /** The payload: JSON text, or a marker such as OpenAI's `[DONE]`. */
  data: string;
  /** The event's name, where the framing carries one (SSE's `event:` line, event-stream's `:event-type`). */
  event?: string;
}

/** An event as a recording keeps it: its name (if any) and data, with no time. */
export type RecordedEvent = Pick<StreamEvent, 'data' | 'event'>;

/**
 * A framing: what a stream's bytes are. A stream is framed in order, a chunk of events at a time, so a
 * framing may depend on an event's position (a JSON array's separators) but holds no state of its own.
 *
 * A binary framing (AWS event-stream: `application/vnd.amazon.eventstream`, a prelude and a CRC per
 * frame) is a sibling of `sse` below: `encode` writes its frames, `journalText` says what the journal
 * shows of them (its bytes are no text), `decode` reads a recorded stream back into events, and
 * `framingOf` lists it so record mode recognizes its content type.
 */
export interface Framing {
  /** The response's content type. */
  contentType: string;
  /** The bytes of `events`, the stream's events from position `index` on. */
  encode(events: readonly StreamEvent[], index: number): Uint8Array;
  /** The bytes after the last of `count` events, when the framing closes a stream (a JSON array's `]`). */
  end?(count: number): Uint8Array;
  /**
   * What the journal keeps of `events` (as text), for a framing whose bytes are not text; without it
   * the journal keeps the bytes as written.
   */
  journalText?(events: readonly StreamEvent[], index: number): string;
  /** A whole stream's events, read back from its bytes (record mode keeps a recorded stream as its events). */
  decode?(bytes: Uint8Array): RecordedEvent[];
}

const encoder = new TextEncoder();

/** Text as UTF-8 bytes. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** `event: <name>\ndata: <data>\n\n`, or just the data line when there is no name. */
const sseText = (e: RecordedEvent) => (e.event ? `event: ${e.event}\ndata: ${e.data}\n\n` : `data: ${e.data}\n\n`);

/** The events of an SSE body; data lines of one event are joined by newlines. */
export function parseSse(text: string): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    // A comment alone (`: OPENROUTER PROCESSING`, a keep-alive) is no event.
    if (event === undefined && !data.length) continue;
    out.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return out;
}

/** Server-sent events: each event its `event:` line (when named) and `data:` line, then a blank line. */
export const sse: Framing = {
  contentType: 'text/event-stream; charset=utf-8',
  encode(events) {
    // One string, encoded once: the chunk is the concatenation of the events' frames.
    let text = '';
    for (const e of events) text += sseText(e);
    return utf8(text);
  },
  decode: (bytes) => parseSse(new TextDecoder().decode(bytes)),
};

/** One JSON array, an element per event (`[a`, `,\r\nb`, ..., `]`), as Gemini streams without alt=sse. */
export const jsonArray: Framing = {
  contentType: 'application/json; charset=UTF-8',
  encode(events, index) {
    let text = '';
    for (let i = 0; i < events.length; i++) text += `${index + i === 0 ? '[' : ',\r\n'}${events[i].data}`;
    return utf8(text);
  },
  end: (count) => utf8(count ? ']' : '[]'),
};

/** The framing a response's content type says its body has (record mode reads an upstream's stream with it). */
export function framingOf(contentType: string): Framing | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'text/event-stream' ? sse : undefined;
}
