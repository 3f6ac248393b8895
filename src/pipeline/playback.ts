// Playback: a stream's events written when due, pulled from their source as the reader takes them.
// Events are made by the writer, a chunk at a time (never all at once, never ahead of the reader): a
// chunk is the events due now, up to HIGH_WATER_BYTES; after a full chunk the event loop serves
// everyone else before the next; when the reader's buffer is over HIGH_WATER_BYTES nothing more is
// made until it drains; a reader that takes nothing for the reader timeout is dropped. A small reply
// (every event due at once, within the high-water mark) is one chunk, written at once: no timer, no
// extra turn.
import { yieldToLoop } from '../core/slices.ts';
import type { Framing, StreamEvent } from './framing.ts';
import { utf8 } from './framing.ts';

/**
 * Bytes a reader may leave unread before production pauses, and the most one chunk of events is
 * made of (64 KiB, Node's default high-water mark of a socket). What a stream holds while its reader
 * idles is this, one chunk, and the reply it is made from.
 */
export const HIGH_WATER_BYTES = 64 * 1024;

/** Where playback writes: a carrier with a reader at the other end. */
interface Carrier {
  /** Writes events due now (a chunk); false once the reader's buffer is over the high-water mark. */
  write(events: readonly StreamEvent[]): boolean;
  /** Calls `resume` once the reader has taken enough for more to be written. */
  whenDrained(resume: () => void): void;
  /** After the last event. */
  end(): void;
  /** Drops the connection: the reader took nothing for the reader timeout (or the source failed). */
  drop(): void;
}

interface PlaybackHooks {
  /** Called after each chunk is written, with the count of events written so far. */
  onProgress?: (eventsSent: number) => void;
  /** Called once, when the last event is written or playback is stopped early (the reader left or was dropped). */
  onEnd?: (outcome: 'completed' | 'aborted') => void;
}

/**
 * Writes the events of `source` (in order of `due`) to `carrier`, each when due, made as they are
 * written. Returns `stop`, which ends production at once (the client went away). `readerTimeoutMs`
 * 0 never drops a reader.
 */
export function play(source: Iterable<StreamEvent>, carrier: Carrier, hooks: PlaybackHooks, readerTimeoutMs = 0): () => void {
  const started = performance.now();
  const events = source[Symbol.iterator]();
  let next: IteratorResult<StreamEvent> = { done: true, value: undefined };
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let waiting = false;
  let ended = false;
  const finish = (outcome: 'completed' | 'aborted') => {
    if (ended) return false;
    ended = true;
    clearTimeout(timer);
    clearTimeout(idle);
    hooks.onEnd?.(outcome);
    return true;
  };
  // A source that fails part-way (a bug) cuts the stream, as a failing upstream would.
  const drop = () => {
    if (!finish('aborted')) return;
    events.return?.();
    carrier.drop();
  };
  const pump = () => {
    if (ended) return;
    const now = performance.now() - started;
    const chunk: StreamEvent[] = [];
    let size = 0;
    try {
      for (let event = next; !event.done && event.value.due <= now && size < HIGH_WATER_BYTES; event = next) {
        chunk.push(event.value);
        size += event.value.data.length;
        next = events.next();
      }
    } catch {
      return drop();
    }
    let open = true;
    if (chunk.length) {
      sent += chunk.length;
      open = carrier.write(chunk);
      hooks.onProgress?.(sent);
      if (ended) return;
    }
    if (next.done) {
      carrier.end();
      finish('completed');
      return;
    }
    if (!open) {
      // The reader's buffer is full: nothing more is made until it drains, and not at all if it takes nothing for the timeout.
      waiting = true;
      if (readerTimeoutMs > 0) idle = setTimeout(drop, readerTimeoutMs);
      // A socket that took the chunk at once says so on the next tick: going on from there would chain
      // chunk after chunk without ever letting the event loop serve anyone else.
      carrier.whenDrained(() => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(idle);
        void yieldToLoop().then(pump);
      });
      return;
    }
    // A full chunk made and more due: everyone else is served before the next.
    if (next.value.due <= now) void yieldToLoop().then(pump);
    else timer = setTimeout(pump, next.value.due - now);
  };
  try {
    next = events.next();
  } catch {
    drop();
  }
  pump();
  return () => {
    if (finish('aborted')) events.return?.();
  };
}

/** A stream's hooks; `C` is what a chunk is on its carrier (bytes on HTTP). */
interface StreamHooks<C = Uint8Array> {
  /** Called after events are written, with the count written so far and the chunk as the journal keeps it. */
  onProgress?: (eventsSent: number, chunk: C) => void;
  /** Called once, when the last event is written or playback is stopped early. */
  onEnd?: (outcome: 'completed' | 'aborted') => void;
}

/** An HTTP stream: events written when due, in a framing; the adapter supplies the sink, the hooks come from the endpoint. */
export interface EventPlayback {
  /** The events, made as they are pulled (a generator, typically). */
  events: Iterable<StreamEvent>;
  framing: Framing;
  hooks: StreamHooks;
  /** Break the connection after the last event instead of ending cleanly (a cut stream). */
  breakAtEnd?: boolean;
}

/** Where an HTTP stream's bytes go: a socket's response, or a fetch body's stream. */
export interface ByteSink {
  /** Writes bytes; false once the reader's buffer is over the high-water mark. */
  write(bytes: Uint8Array): boolean;
  whenDrained(resume: () => void): void;
  end(): void;
  /** Drops the connection (the reader took nothing for the reader timeout). */
  drop(): void;
}

/** Plays an HTTP stream into `sink`, framed; the journal's hooks see each chunk as its framing shows it. Returns `stop`. */
export function playFramed(body: EventPlayback, sink: ByteSink, readerTimeoutMs: number): () => void {
  const { framing, hooks } = body;
  let index = 0;
  return play(
    body.events,
    {
      write(events) {
        const bytes = framing.encode(events, index);
        const shown = framing.journalText ? utf8(framing.journalText(events, index)) : bytes;
        index += events.length;
        const open = sink.write(bytes);
        hooks.onProgress?.(index, shown);
        return open;
      },
      whenDrained: (resume) => sink.whenDrained(resume),
      end() {
        // A cut stream never closes its framing.
        const tail = body.breakAtEnd ? undefined : framing.end?.(index);
        if (tail) {
          sink.write(tail);
          hooks.onProgress?.(index, tail);
        }
        sink.end();
      },
      drop: () => sink.drop(),
    },
    { onEnd: hooks.onEnd },
    readerTimeoutMs,
  );
}

/**
 * Playback as a web byte stream (for fetch Responses), queueing at most HIGH_WATER_BYTES for a reader
 * that does not read; cancelling it, or `signal`, stops production. With `breakAtEnd` the stream errors
 * after the last event, as a cut connection does.
 */
export function playbackStream(body: EventPlayback, signal: AbortSignal, readerTimeoutMs: number): ReadableStream<Uint8Array> {
  let stop = () => {};
  let breakPending = false;
  let resume: (() => void) | undefined;
  // The error comes a moment after the reader has taken the last event: interceptors that copy the
  // body onto a mock socket would otherwise report a dead socket before the events are delivered.
  const cut = (controller: ReadableStreamDefaultController<Uint8Array>) =>
    void setTimeout(() => controller.error(new TypeError('terminated: the connection was cut')), 20);
  return new ReadableStream<Uint8Array>(
    {
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
        const end = body.breakAtEnd
          ? () => {
              breakPending = true;
              if ((controller.desiredSize ?? 0) > 0) cut(controller);
            }
          : close;
        stop = playFramed(
          body,
          {
            write(bytes) {
              if (closed) return false;
              // The reader owns what it is given (it may transfer it): the journal keeps its own bytes.
              controller.enqueue(bytes.slice());
              return (controller.desiredSize ?? 0) > 0;
            },
            whenDrained: (r) => void (resume = r),
            end,
            drop() {
              closed = true;
              controller.error(new TypeError(`terminated: the reader took nothing for ${readerTimeoutMs} ms`));
            },
          },
          readerTimeoutMs,
        );
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
        const waiting = resume;
        resume = undefined;
        waiting?.();
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
}
