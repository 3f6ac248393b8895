// Background responses (`background: true`): answered at once `queued`, then `in_progress`, then
// `completed` on the gateway's clock (time, `advanceClock`, or a client's polls: see core/clock.ts's
// ageOn), as batches run. The reply is made when the response is created (so it is the same reply a
// foreground request gets); what a retrieve shows, and how much of its event stream has happened,
// follow the response's age. Its stream can be read from any sequence number, and it can be cancelled
// while it runs. Held with the other stored responses, per test, dropped by reset.
import { ageOn } from '../../core/clock.ts';
import { replyDelay } from '../../core/plan.ts';
import type { CanonicalReply } from '../../core/reply.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import type { Call } from '../../pipeline/call.ts';
import type { Outbound } from '../../pipeline/exchange.ts';
import { eventStreamReply } from '../../pipeline/delivery.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import type { JsonObject } from '../fields.ts';
import { type BackgroundRun, renderResponse, responseStreamEvents, type ResponsesCall } from './responses.ts';
import { checkField, checkFields, invalid } from './validate.ts';

type BackgroundStage = 'queued' | 'in_progress' | 'completed' | 'cancelled';

const OPTIONS = {
  completion_window: { types: ['string'], values: ['soonest', '2h', '8h'] },
  continuation_id: { types: ['string'] },
} as const;

/** Checks `background` and `background_options` of a create request (the body has passed its field rules). */
export function checkBackground(body: JsonObject): void {
  // Taken without background too (it then changes nothing), as the SDK's own example sends it.
  if (body.background_options !== undefined && body.background_options !== null)
    checkFields(body.background_options as JsonObject, OPTIONS, 'background_options.');
  if (body.background === true && body.store === false)
    throw invalid('store', "Background mode requires 'store': true; a background response is kept so that it can be retrieved.", undefined);
}

/** A new background run of `reply`, created now. */
export function startRun(call: Call, reply: CanonicalReply, parsed: ResponsesCall, latency: LatencyProfile): BackgroundRun {
  return {
    reply,
    call: parsed,
    latency,
    createdAt: call.runtime.now(),
    runSeconds: Math.max(1, Math.ceil(replyDelay(reply, latency) / 1000)),
    polls: 0,
  };
}

const ageOf = (call: Call, run: BackgroundRun) => ageOn(call.runtime.now(), run.createdAt, run.polls);

/** Where the run is at `age`: queued for its first second, in progress for its run seconds, then completed (or cancelled). */
function stageAt(run: BackgroundRun, age: number): BackgroundStage {
  if (run.cancelAge !== undefined) return 'cancelled';
  if (run.watched) return 'completed';
  if (age < 1) return 'queued';
  return age < 1 + run.runSeconds ? 'in_progress' : 'completed';
}

/** The response as it stands now. */
function shownRun(call: Call, run: BackgroundRun): JsonObject {
  const stage = stageAt(run, ageOf(call, run));
  return renderResponse(run.reply, run.call, stage === 'completed' ? 'final' : stage === 'in_progress' ? 'initial' : stage);
}

/** The response as a retrieve shows it; the poll moves it on by a second of its age (see ageOn). */
export function retrieveRun(call: Call, run: BackgroundRun): JsonObject {
  const shown = shownRun(call, run);
  run.polls = Math.max(run.polls, ageOf(call, run)) + 1;
  return shown;
}

/** Cancels the run if it is still running; the response as it stands after. */
export function cancelRun(call: Call, run: BackgroundRun): JsonObject {
  const age = ageOf(call, run);
  const stage = stageAt(run, age);
  if (stage === 'queued' || stage === 'in_progress') run.cancelAge = age;
  return shownRun(call, run);
}

/**
 * The run's events after sequence number `after` (-1: all), as they happen from its age now: those
 * already past at once, the rest when due. A cancelled run's stream stops where the cancel came; a
 * run read to its end has completed.
 */
export function* runEvents(run: BackgroundRun, age: number, after: number): Generator<StreamEvent> {
  // The events of its first second are the opening ones (created, queued, in_progress); its reply's run from then on.
  const stage = stageAt(run, age);
  const past = stage === 'completed' ? Infinity : Math.max(0, age - 1) * 1000;
  const cancelled = run.cancelAge !== undefined;
  // Cancelled while queued: it never started; while running: what it had made by then.
  const stop = !cancelled ? Infinity : run.cancelAge! < 1 ? -1 : (run.cancelAge! - 1) * 1000;
  let sequence = 0;
  for (const event of responseStreamEvents(run.reply, run.call, run.latency)) {
    const opening = sequence < (stop < 0 ? 2 : 3);
    if (cancelled && !opening && (event.due > stop || event.event === 'response.completed')) return;
    if (sequence++ > after) yield { ...event, due: Math.max(0, event.due - past) };
  }
  if (!cancelled) run.watched = true;
}

/** `GET /v1/responses/{id}?stream=true&starting_after=N`: the run's events after N, as a stream. */
export function streamRun(call: Call, run: BackgroundRun): Outbound {
  const query = call.inbound.url.searchParams;
  const raw = query.get('starting_after');
  let after = -1;
  if (raw !== null) {
    after = Number(raw);
    checkField('starting_after', /^\d+$/.test(raw) ? after : raw, { types: ['integer'], min: 0 });
  }
  return eventStreamReply(call, runEvents(run, ageOf(call, run), after));
}
