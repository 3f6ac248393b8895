// The Outbound of a reply: JSON after its delay, or a timed event stream tracked in the journal.
import type { TimedEvent } from './sse.ts';
import type { Call } from './endpoint.ts';
import { json, type Outbound } from './exchange.ts';

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

/** A JSON reply, sent when a non-streamed reply of this latency would be ready. */
export async function jsonReply(call: Call, body: unknown, delayMs = 0): Promise<Outbound> {
  await sleep(delayMs, call.inbound.signal);
  return json(body);
}

/** A streamed reply writing `events` when due (SSE unless told otherwise); progress and outcome go to the journal. */
export function eventStreamReply(call: Call, events: readonly TimedEvent[], contentType = 'text/event-stream; charset=utf-8'): Outbound {
  const { entry, runtime } = call;
  entry.stream = true;
  entry.outcome = 'streaming';
  runtime.activeStreams++;
  return {
    status: 200,
    headers: { 'content-type': contentType, 'cache-control': 'no-cache' },
    body: {
      events,
      hooks: {
        onProgress: (sent) => {
          entry.eventsSent = sent;
        },
        onEnd: (outcome) => {
          entry.outcome = outcome;
          runtime.activeStreams--;
        },
      },
    },
  };
}
