// Server-sent events: framing, and a body stream that writes each event when it is due.

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

export interface StreamHooks {
  /** Aborts production (the client went away). */
  signal?: AbortSignal;
  /** Called after events are written, with the count written so far. */
  onProgress?: (eventsSent: number) => void;
  /** Called once, when the last event is written or the stream is abandoned. */
  onEnd?: (outcome: 'completed' | 'aborted') => void;
}

const encoder = new TextEncoder();

/**
 * A byte stream of `events` (sorted by `due`), each written when due. Events due at the same
 * moment go out in one chunk. Timers stop the moment the reader cancels or `signal` aborts.
 */
export function timedStream(events: readonly TimedEvent[], hooks: StreamHooks = {}): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const end = (outcome: 'completed' | 'aborted') => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    hooks.onEnd?.(outcome);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const started = performance.now();
      let next = 0;
      hooks.signal?.addEventListener('abort', () => {
        end('aborted');
        try {
          controller.close();
        } catch {
          // already closed or errored by the reader
        }
      }, { once: true });
      const pump = () => {
        if (ended) return;
        const now = performance.now() - started;
        let chunk = '';
        while (next < events.length && events[next].due <= now) chunk += events[next++].frame;
        if (chunk) {
          controller.enqueue(encoder.encode(chunk));
          hooks.onProgress?.(next);
        }
        if (next >= events.length) {
          end('completed');
          controller.close();
          return;
        }
        timer = setTimeout(pump, Math.max(0, events[next].due - now));
      };
      pump();
    },
    cancel() {
      end('aborted');
    },
  });
}
