// Server-sent events: framing, and playback that writes each event when it is due.

export interface TimedEvent {
  /** Milliseconds after the response starts. */
  due: number;
  /** One framed SSE message (see `sseFrame`). */
  frame: string;
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
  write(chunk: C): void;
  end(): void;
}

const encoder = new TextEncoder();

/** A chunk of an HTTP stream as bytes: encoded once, for the carrier and the journal alike. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/**
 * Writes `events` (sorted by `due`) to `sink`, each when due; events due at the same moment go out
 * as one chunk, made by `encode` from their frames. Returns `stop`, which ends production at once
 * (the client went away).
 */
export function playEvents<C>(
  events: readonly TimedEvent[],
  sink: Sink<C>,
  hooks: StreamHooks<C>,
  encode: (frames: string) => C,
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
    let frames = '';
    while (next < events.length && events[next].due <= now) frames += events[next++].frame;
    if (frames) {
      const chunk = encode(frames);
      sink.write(chunk);
      hooks.onProgress?.(next, chunk);
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
      stop = playEvents(events, { write: (bytes) => controller.enqueue(bytes.slice()), end }, hooks, utf8);
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
