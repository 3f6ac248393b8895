// A dialect's touch on an answer's JSON (mount.ts's `leave`): fields a cloud or a router adds to the
// vendor's reply (Azure's content filter results, OpenRouter's provider), on a JSON body or on each
// event of a stream, without the endpoint's renderer knowing. Only a dialect's answers pay for it.
import { isJsonObject, isPlayback, type JsonObject, type Outbound } from './exchange.ts';
import { utf8, type Framing, type StreamEvent } from './framing.ts';

/** What a touch makes of one payload: it changed in place (undefined), or payloads to send in its place. */
type Touch = (payload: JsonObject, at: number) => JsonObject[] | undefined;

function parsed(text: string): JsonObject | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The events of `events` touched as they are made (a stream is never made ahead of its reader). */
function* touched(events: Iterable<StreamEvent>, touch: Touch): Generator<StreamEvent> {
  let at = 0;
  for (const event of events) {
    const payload = parsed(event.data);
    if (!payload) {
      yield event;
      continue;
    }
    for (const p of touch(payload, at++) ?? [payload]) yield { ...event, data: JSON.stringify(p) };
  }
}

/**
 * `out` with `touch` applied to its JSON: a JSON object body, or each stream event whose data is a
 * JSON object (`at` counts them from 0; `[DONE]` and other events pass as they are). A body written in
 * pieces (a reply over a MiB) and bytes pass untouched.
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
  const events = body.events;
  return { ...out, body: { ...body, events: { [Symbol.iterator]: () => touched(events, touch) } } };
}

/** `framing` with `text` written before the first event (an SSE comment such as `: OPENROUTER PROCESSING\n\n`). */
function withPreamble(framing: Framing, text: string): Framing {
  const preamble = utf8(text);
  return {
    ...framing,
    encode(events, index) {
      const bytes = framing.encode(events, index);
      if (index > 0) return bytes;
      const joined = new Uint8Array(preamble.byteLength + bytes.byteLength);
      joined.set(preamble);
      joined.set(bytes, preamble.byteLength);
      return joined;
    },
  };
}

/** `out` with `text` sent before its first event (a stream's framing as given: an SSE comment). */
export function leadingFrame(out: Outbound, text: string): Outbound {
  const body = out.body;
  if (!isPlayback(body)) return out;
  return { ...out, body: { ...body, framing: withPreamble(body.framing, text) } };
}
