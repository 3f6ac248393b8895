// The Outbound of an answer: JSON after its delay, a timed event stream tracked in the journal, or a
// fault: a broken connection, a cut or stalled stream, or a vendor error part-way through a stream.
import { GatewayError, kindForStatus } from '../core/errors.ts';
import { faultStrikes, garbage, isConnectionFault, isReplyFault, overloaded, type FaultSpec } from '../core/faults.ts';
import { replyDelay } from '../core/plan.ts';
import { deriveKey } from '../core/seed.ts';
import type { Answered, Decision } from './decide.ts';
import { sse, type Framing, type RecordedEvent, type StreamEvent } from './framing.ts';
import type { Call } from './call.ts';
import { json, type Outbound } from './exchange.ts';

/** The longest a timer waits at once: past 2^31 - 1 ms Node fires it at once, with a warning. */
const TIMER_STEP_MS = 2 ** 31 - 1;

/**
 * Waits `ms`, or less if the client leaves; the signal is asked for only when there is a wait (making
 * one costs). A plain reply's delay is when its last token would be made (thousands of tokens at
 * tps=0.001 pass a timer's range), so a longer wait is taken in steps a timer can make.
 */
function sleep(ms: number, inbound: Call['inbound']): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  const signal = inbound.signal;
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    let left = ms;
    let timer: ReturnType<typeof setTimeout>;
    const wait = () => {
      if (left <= 0) return resolve();
      const step = Math.min(left, TIMER_STEP_MS);
      left -= step;
      timer = setTimeout(wait, step);
    };
    wait();
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * A streamed reply writing `events` when due, made as they are written, in `framing` (SSE unless told
 * otherwise); progress and outcome go to the journal. (A stored stream, a background response's, is
 * written with it directly.)
 */
export function eventStreamReply(
  call: Call,
  events: Iterable<StreamEvent>,
  framing: Framing = sse,
  contentType = framing.contentType,
  breakAtEnd = false,
): Outbound {
  const { entry, runtime } = call;
  entry.stream = true;
  entry.outcome = 'streaming';
  runtime.activeStreams++;
  // Once: an adapter that fails to write it and playback that stops may both report its end.
  let ended = false;
  return {
    status: 200,
    headers: { 'content-type': contentType, 'cache-control': 'no-cache' },
    body: {
      events,
      framing,
      breakAtEnd,
      hooks: {
        onProgress: (sent) => {
          entry.eventsSent = sent;
        },
        onEnd: (outcome) => {
          if (ended) return;
          ended = true;
          entry.outcome = outcome;
          runtime.activeStreams--;
        },
      },
    },
  };
}

function brokenConnection(fault: FaultSpec, key: number): Outbound {
  const type = isConnectionFault(fault) ? fault.type : 'CONNECTION_RESET_BY_PEER';
  return { status: 0, headers: {}, body: null, broken: { type, bytes: type === 'RANDOM_DATA_THEN_CLOSE' ? garbage(key) : undefined } };
}

function faultError(fault: FaultSpec): GatewayError {
  const status = fault.status ?? 500;
  return new GatewayError(kindForStatus(status), fault.message ?? `Error ${status} injected part-way through the stream.`, { status });
}

/** A fixture's verbatim stream: each payload one event (named by its `type` where the format names events). */
function rawEvents(call: Call, raw: unknown): StreamEvent[] {
  // A recorded stream, `{ events: [{ event?, data }] }`: each event as it was received.
  const recorded = (raw as { events?: unknown } | null)?.events;
  if (!Array.isArray(raw) && Array.isArray(recorded)) {
    return (recorded as RecordedEvent[]).map((e) => ({ due: 0, data: e.data, event: e.event }));
  }
  const named = call.format.namedEvents;
  return (Array.isArray(raw) ? raw : [raw]).map((p) => ({
    due: 0,
    data: typeof p === 'string' ? p : JSON.stringify(p),
    event: named ? (p as { type?: string } | null)?.type : undefined,
  }));
}

/** How a format renders an answer: whole, or as timed events (made as they are written) in a framing. */
interface Rendering {
  json(): unknown;
  events(): Iterable<StreamEvent>;
  /** The stream's framing: SSE unless told. */
  framing?: Framing;
  /** The stream's content type, when not the framing's own. */
  contentType?: string;
  /** A failure after `after` events, when this stream's error event is not its format's (the Responses API's numbered `error` event). */
  streamError?: (error: GatewayError, after: number) => RecordedEvent;
}

/**
 * A plain (not streamed) answer after `delayMs`, with its fault inflicted: a connection fault
 * or a cut breaks the connection, an in-stream error or an overload is the error, a stall adds its
 * time. Reply faults shape chat replies only (decide.ts): elsewhere they change nothing.
 */
async function faultedReply(
  call: Call,
  make: () => Outbound | Promise<Outbound>,
  delayMs: number,
  fault: FaultSpec | undefined,
  key: number,
): Promise<Outbound> {
  if (fault && (isConnectionFault(fault) || fault.type === 'STREAM_CUT')) return brokenConnection(fault, key);
  // The journal names the fault (a broken connection is named where it breaks, endpoint.ts): an
  // overload or error answered here is otherwise only its status, a stall only its time.
  if (fault && !isReplyFault(fault)) call.entry.fault = fault.type;
  if (fault?.type === 'STREAM_ERROR') throw faultError(fault);
  if (fault?.type === 'OVERLOADED') throw overloaded(fault);
  const stall = fault?.type === 'STALL' ? (fault.ms ?? 10_000) : 0;
  const out = await make();
  // With no connection (a batch line), the wait is only counted: the batch's clock shows it.
  if (call.offline) call.offline.delayMs += delayMs + stall;
  else await sleep(delayMs + stall, call.inbound);
  return out;
}

/** A plain JSON answer under its fault and delay (see faultedReply). */
function plainReply(call: Call, body: () => unknown, delayMs: number, fault: FaultSpec | undefined, key: number): Promise<Outbound> {
  return faultedReply(call, () => json(body()), delayMs, fault, key);
}

/**
 * The Outbound of an answer with no generated reply (embeddings, rerank, compaction) under its decisions,
 * one per input: the first input's raw body, the first fault that strikes, and the longest delay of any
 * input. `inputTokens` (and `outputTokens`), when given, are what the request is charged (limits.ts),
 * counted from the request and the answer, unless a raw body tells its own usage (what its client is told).
 */
export function decidedReply(
  call: Call,
  decisions: Decision | readonly Decision[],
  key: number,
  body: () => unknown,
  inputTokens?: number,
  outputTokens = 0,
): Outbound | Promise<Outbound> {
  const all = [decisions].flat() as Decision[];
  const fault = all.map((d, i) => (d.fault && faultStrikes(d.fault, i ? deriveKey(key, i) : key) ? d.fault : undefined)).find(Boolean);
  const delay = Math.max(...all.map((d) => d.latency.ttftMs));
  // Charged once answered: a fault's error carries no usage.
  const answered = () => {
    if (inputTokens !== undefined) {
      const raw = all[0].raw === undefined ? undefined : call.format.usageOf(all[0].raw);
      call.entry.usage = raw ?? { inputTokens, outputTokens, cachedInputTokens: 0, reasoningTokens: 0 };
    }
    return all[0].raw ?? body();
  };
  return plainReply(call, answered, delay, fault, key);
}

/** A non-JSON answer (audio bytes, subtitles) under its decision: fault, then the body after the delay. */
export function decidedOutbound(call: Call, decision: Decision, key: number, make: () => Outbound | Promise<Outbound>): Promise<Outbound> {
  const fault = decision.fault && faultStrikes(decision.fault, key) ? decision.fault : undefined;
  return faultedReply(call, make, decision.latency.ttftMs, fault, key);
}

/**
 * A stream of `events` under its decision (speech, transcripts, image files): a fixture's raw payloads
 * replace them; a connection fault breaks it, a stream fault cuts, stalls or fails it part-way.
 */
export function decidedStream(call: Call, decision: Decision, key: number, events: () => Iterable<StreamEvent>): Outbound {
  const struck = decision.fault && faultStrikes(decision.fault, key) ? decision.fault : undefined;
  if (struck?.type === 'OVERLOADED') {
    call.entry.fault = struck.type;
    throw overloaded(struck);
  }
  const fault = struck && !isReplyFault(struck) ? struck : undefined;
  if (fault && isConnectionFault(fault)) return brokenConnection(fault, key);
  const rendered = decision.raw === undefined ? events() : rawEvents(call, decision.raw);
  return eventStreamReply(call, formatFaultedEvents(call, rendered, fault), sse, undefined, fault?.type === 'STREAM_CUT');
}

/** `events` with a stream fault applied, the error as the format's own in-stream event. */
function formatFaultedEvents(
  call: Call,
  events: Iterable<StreamEvent>,
  fault: FaultSpec | undefined,
  streamError: Rendering['streamError'] = (error) => call.format.streamError(error, call.requestId),
): Iterable<StreamEvent> {
  if (!fault) return events;
  call.entry.fault = fault.type; // the stream is answered 200: without this the journal shows no fault
  return faultedEvents(events, fault, (error, after) => [streamError(error, after)]);
}

/** The Outbound of an answer, streamed or not, with its fault (if any) inflicted. */
export function deliver(call: Call, answered: Answered, stream: boolean, render: Rendering): Outbound | Promise<Outbound> {
  const { reply, latency, fault } = answered;
  // Charged for what the client is told: a raw body's own usage (none if it tells none: no cost, no
  // tokens), else the reply's (for legacy completions, all prompts' replies combined).
  call.entry.usage = answered.raw === undefined ? reply.usage : call.format.usageOf(answered.raw);
  if (fault && isConnectionFault(fault)) return brokenConnection(fault, reply.key);
  if (!stream) return plainReply(call, () => answered.raw ?? render.json(), replyDelay(reply, latency), fault, reply.key);
  const events = formatFaultedEvents(
    call,
    answered.raw === undefined ? render.events() : rawEvents(call, answered.raw),
    fault,
    render.streamError,
  );
  return eventStreamReply(call, events, render.framing, render.contentType, fault?.type === 'STREAM_CUT');
}

/**
 * Timed events with a stream fault inflicted, as they are pulled: a stall shifts the events after
 * `after`, a cut keeps only the first `after` (the carrier then breaks the connection), an error
 * follows them with the format's error events, made by `errorEvents(error, after)` (`after` is how
 * many went before: fewer when the stream is shorter).
 */
export function* faultedEvents<E extends StreamEvent>(
  events: Iterable<E>,
  fault: FaultSpec,
  errorEvents: (error: GatewayError, after: number) => RecordedEvent[],
): Generator<E | StreamEvent> {
  const after = fault.after ?? 1;
  if (fault.type === 'STALL') {
    let i = 0;
    for (const e of events) yield i++ < after ? e : { ...e, due: e.due + (fault.ms ?? 10_000) };
    return;
  }
  let sent = 0;
  let at = 0;
  if (after > 0)
    for (const e of events) {
      yield e;
      at = e.due;
      if (++sent >= after) break;
    }
  if (fault.type === 'STREAM_CUT') return;
  for (const e of errorEvents(faultError(fault), sent)) yield { due: at, data: e.data, event: e.event };
}
