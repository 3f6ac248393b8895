// A dialect's touch on an answer's JSON (mount.ts's `leave`): fields a cloud or a router adds to the
// vendor's reply (Azure's content filter results, OpenRouter's provider), on a JSON body or on each
// event of a stream, without the endpoint's renderer knowing. Only a dialect's answers pay for it.
import { isJsonObject, isPlayback, type JsonObject, type Outbound } from './exchange.ts';
import { sseFrame, type TimedEvent } from './sse.ts';

/** What a touch makes of one payload: it changed in place (undefined), or payloads to send in its place. */
type Touch = (payload: JsonObject, at: number) => JsonObject[] | undefined;

/** One SSE frame as sseFrame() writes it: an optional event name and one data line. */
const FRAME = /^(?:event: ([^\n]*)\n)?data: ([^\n]*)\n\n$/;

function parsed(text: string): JsonObject | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `out` with `touch` applied to its JSON: a JSON object body, or each stream event whose data is a
 * JSON object (`at` counts them from 0; `[DONE]`, comments and other frames pass as they are). A body
 * written in pieces (a reply over a MiB) and bytes pass untouched.
 */
export function touchPayloads(out: Outbound, touch: Touch): Outbound {
  const body = out.body;
  if (typeof body === 'string') {
    const payload = parsed(body);
    if (!payload) return out;
    const replaced = touch(payload, 0);
    return { ...out, body: JSON.stringify(replaced?.[0] ?? payload) };
  }
  if (!isPlayback(body)) return out;
  let at = 0;
  const events = body.events.flatMap((event): TimedEvent[] => {
    const frame = FRAME.exec(event.frame);
    const payload = frame && parsed(frame[2]);
    if (!frame || !payload) return [event];
    const replaced = touch(payload, at++) ?? [payload];
    return replaced.map((p) => ({ due: event.due, frame: sseFrame(JSON.stringify(p), frame[1]) }));
  });
  return { ...out, body: { ...body, events } };
}

/** `out` with an event sent before all others (a comment such as `: OPENROUTER PROCESSING`, framed as given). */
export function leadingFrame(out: Outbound, frame: string): Outbound {
  const body = out.body;
  if (!isPlayback(body)) return out;
  return { ...out, body: { ...body, events: [{ due: 0, frame }, ...body.events] } };
}
