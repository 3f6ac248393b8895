// Framings: how a stream's events become bytes on the wire. One writer per framing (SSE; a JSON
// array, Gemini's stream without alt=sse; AWS event-stream's binary frames), each beside the
// others: formats make events (a payload and a name), the framing makes the bytes, the adapters write
// them, the journal keeps what the framing shows of them, and record mode reads them back.
import { concat } from '../core/bytes.ts';

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
 * frame) is a sibling of `sse` below: `encode` writes its frames, `journalText` says
 * what the journal shows of them (its bytes are no text), `decode` reads a recorded stream back into
 * events, and `framingOf` lists it so record mode recognizes its content type.
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
  /**
   * Loads what the framing writes with (a library loaded on first use, so that start-up does not pay
   * for it); encode and decode work once it resolves. An endpoint answering in it awaits it first.
   */
  ready?(): Promise<void>;
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

// AWS event-stream (`application/vnd.amazon.eventstream`): each event one binary message, a prelude
// (total length, headers length, the prelude's CRC32), typed headers, the payload and the message's
// CRC32, written and read by the AWS SDK's own codec (@smithy/eventstream-codec, pinned). The codec
// loads with the first stream that needs it (ready()), so start-up does not pay for it. An event's
// name is its `:event-type`; one named as AWS names a stream's modeled error (the union member ends in
// `Exception`: `throttlingException`, `modelStreamErrorException`) is an exception message
// (`:message-type: exception`, `:exception-type`), as AWS services write them.

interface Message {
  headers: Record<string, { type: string; value: unknown }>;
  body: Uint8Array;
}

interface Codec {
  encode(message: { headers: Record<string, { type: 'string'; value: string }>; body: Uint8Array }): Uint8Array;
  decode(message: Uint8Array): Message;
}

const decoder = new TextDecoder();
let loading: Promise<void> | undefined;
let codec: Codec | undefined;

/** The codec, once ready() has loaded it. */
function loaded(): Codec {
  if (!codec) throw new Error('the event-stream framing is used before its ready() has loaded the codec');
  return codec;
}

/** Whether an event is a stream's modeled error (AWS names the union member `…Exception`). */
const isException = (name: string | undefined): name is string => name !== undefined && name.endsWith('Exception');

const string = (value: string) => ({ type: 'string' as const, value });

/** One event as one message. */
function message(event: RecordedEvent): Uint8Array {
  const headers: Record<string, ReturnType<typeof string>> = isException(event.event)
    ? { ':exception-type': string(event.event), ':content-type': string('application/json'), ':message-type': string('exception') }
    : {
        ':event-type': string(event.event ?? 'event'),
        ':content-type': string('application/json'),
        ':message-type': string('event'),
      };
  return loaded().encode({ headers, body: encoder.encode(event.data) });
}

/** The events of an event-stream body (each message's CRCs checked by the codec); a truncated last message is left out. */
function decodeEventStream(bytes: Uint8Array): RecordedEvent[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: RecordedEvent[] = [];
  for (let at = 0; at + 4 <= bytes.byteLength; ) {
    const total = view.getUint32(at);
    if (total < 16 || at + total > bytes.byteLength) break;
    const { headers, body } = loaded().decode(bytes.subarray(at, at + total));
    const name = headers[':event-type']?.value ?? headers[':exception-type']?.value;
    events.push({ event: typeof name === 'string' ? name : undefined, data: decoder.decode(body) });
    at += total;
  }
  return events;
}

/** AWS event-stream, as Bedrock's response streams (and every AWS streaming API) frame events. */
export const eventStream: Framing & Required<Pick<Framing, 'ready'>> = {
  contentType: 'application/vnd.amazon.eventstream',
  /** Loads the codec (once): a handler awaits it before answering with a stream in this framing. */
  ready() {
    loading ??= import('@smithy/eventstream-codec').then(({ EventStreamCodec }) => {
      codec = new EventStreamCodec(
        (bytes) => decoder.decode(bytes),
        (text) => encoder.encode(text),
      ) as unknown as Codec;
    });
    return loading;
  },
  encode: (events: readonly StreamEvent[]) => (events.length === 1 ? message(events[0]) : concat(events.map(message))),
  // The journal keeps each message as text: its name and payload, as an SSE event shows them.
  journalText(events) {
    let text = '';
    for (const e of events) text += `event: ${e.event ?? 'event'}\ndata: ${e.data}\n\n`;
    return text;
  },
  decode: decodeEventStream,
};

/** The framing a response's content type says its body has (record mode reads an upstream's stream with it). */
export function framingOf(contentType: string): Framing | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'text/event-stream' ? sse : type === eventStream.contentType ? eventStream : undefined;
}
