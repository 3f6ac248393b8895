// Building the HTTP response of a reply: JSON after its delay, or a timed event stream.
import type { TimedEvent } from './sse.ts';
import { timedStream } from './sse.ts';
import type { Call } from './endpoint.ts';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** A JSON response, sent when a non-streamed reply of this latency would be ready. */
export async function jsonResponse(call: Call, body: unknown, delayMs = 0): Promise<Response> {
  await sleep(delayMs, call.request.signal);
  return Response.json(body);
}

/** A `text/event-stream` response writing `events` when due, tracked in the journal. */
export function eventStreamResponse(call: Call, events: readonly TimedEvent[]): Response {
  const { entry, runtime } = call;
  entry.stream = true;
  entry.outcome = 'streaming';
  runtime.activeStreams++;
  const body = timedStream(events, {
    signal: call.request.signal,
    onProgress: (sent) => {
      entry.eventsSent = sent;
    },
    onEnd: (outcome) => {
      entry.outcome = outcome;
      runtime.activeStreams--;
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
