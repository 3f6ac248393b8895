// Server-sent events: framing, and playback that writes each event when it is due, as fast as the
// carrier takes it.
import { concat } from '../core/bytes.ts';

export interface TimedEvent {
  /** Milliseconds after the response starts. */
  due: number;
  /**
   * One framed message: text (an SSE message, see `sseFrame`) or bytes (a binary framing, such as
   * AWS event-stream). A stream's frames are all text or all bytes.
   */
  frame: string | Uint8Array;
}

/** `event: <name>\ndata: <data>\n\n`, or just the data line when there is no name. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** A stream's hooks; `C` is what a chunk is on its carrier (bytes on HTTP, text on a WebSocket). */
export interface StreamHooks<C = Uint8Array> {
  /** Called after events are written, with the count written so far and the chunk just written. */
  onProgress?: (eventsSent: number, chunk: C) => void;
  /** Called once, when the last event is written or playback is stopped early. */
  onEnd?: (outcome: 'completed' | 'aborted') => void;
}

interface Sink<C> {
  /** Writes a chunk; `false` when the carrier holds enough: nothing more is written until `drained` calls back. */
  write(chunk: C): unknown;
  end(): void;
  /** Calls `resume` once the carrier takes more after a write said `false`; absent: it never pushes back. */
  drained?(resume: () => void): void;
}

const encoder = new TextEncoder();

/** A chunk of an HTTP stream as bytes: encoded once, for the carrier and the journal alike. */
const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** Frames due together as one chunk of an HTTP stream: text frames UTF-8 encoded, binary frames joined. */
export function httpChunk(frames: readonly TimedEvent['frame'][]): Uint8Array {
  if (typeof frames[0] === 'string') return utf8(frames.length === 1 ? frames[0] : frames.join(''));
  return concat(frames.map((f) => (typeof f === 'string' ? utf8(f) : f)));
}

/**
 * Most of a stream's backlog one chunk holds (characters of text, or bytes): a reader that falls
 * behind gets the overdue events a chunk at a time, each as the carrier takes it, so a slow reader
 * never has more than this beyond the carrier's own buffer written for it.
 */
const CHUNK_SIZE = 64 * 1024;

/**
 * Writes `events` (sorted by `due`) to `sink`, each when due; events due at the same moment go out
 * as one chunk (up to CHUNK_SIZE), made by `encode` from their frames. While the sink pushes back,
 * nothing more is made: overdue events follow once it drains. Returns `stop`, which ends production
 * at once (the client went away).
 */
export function playEvents<C>(
  events: readonly TimedEvent[],
  sink: Sink<C>,
  hooks: StreamHooks<C>,
  encode: (frames: readonly TimedEvent['frame'][]) => C,
): () => void {
  const started = performance.now();
  let next = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const finish = (outcome: 'completed' | 'aborted') => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    hooks.onEnd?.(outcome);
  };
  const pump = () => {
    if (ended) return;
    const now = performance.now() - started;
    while (next < events.length && events[next].due <= now) {
      const frames: TimedEvent['frame'][] = [];
      let size = 0;
      do {
        const frame = events[next++].frame;
        frames.push(frame);
        size += frame.length;
      } while (next < events.length && events[next].due <= now && size < CHUNK_SIZE);
      const chunk = encode(frames);
      const more = sink.write(chunk);
      hooks.onProgress?.(next, chunk);
      if (more === false && sink.drained && next < events.length) return sink.drained(pump);
    }
    if (next >= events.length) {
      finish('completed');
      sink.end();
      return;
    }
    timer = setTimeout(pump, Math.max(0, events[next].due - now));
  };
  pump();
  return () => finish('aborted');
}

/**
 * Playback as a web byte stream (for fetch Responses); cancelling it, or `signal`, stops production.
 * With `breakAtEnd` the stream errors after the last event, as a cut connection does.
 */
export function playbackStream(
  events: readonly TimedEvent[],
  hooks: StreamHooks,
  signal: AbortSignal,
  breakAtEnd = false,
): ReadableStream<Uint8Array> {
  let stop = () => {};
  let breakPending = false;
  // The error comes a moment after the reader has taken the last event: interceptors that copy the
  // body onto a mock socket would otherwise report a dead socket before the events are delivered.
  const cut = (controller: ReadableStreamDefaultController<Uint8Array>) =>
    void setTimeout(() => controller.error(new TypeError('terminated: the connection was cut')), 20);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        try {
          controller.close();
        } catch {
          // the reader already cancelled
        }
      };
      // Erroring a stream drops what is queued: a cut waits until the reader has taken every event.
      const end = breakAtEnd
        ? () => {
            breakPending = true;
            if ((controller.desiredSize ?? 0) > 0) cut(controller);
          }
        : close;
      // The reader owns what it is given (it may transfer it): the journal keeps its own bytes.
      stop = playEvents(events, { write: (bytes) => controller.enqueue(bytes.slice()), end }, hooks, httpChunk);
      signal.addEventListener(
        'abort',
        () => {
          stop();
          close();
        },
        { once: true },
      );
    },
    pull(controller) {
      if (breakPending) cut(controller);
    },
    cancel() {
      stop();
    },
  });
}
