// A canonical reply as realtime server events: response.created, each output item with its content
// part and deltas (text; or audio with transcript deltas that add up to the transcript; or function
// call arguments), response.done with usage, rate_limits.updated. Timed by the stream plan.
import type { CanonicalReply } from '../../core/reply.ts';
import { planStream } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { deriveKey } from '../../core/seed.ts';
import {
  durationOf,
  pcmBytes,
  SPEECH_SAMPLE_RATE,
  speakTextBlocks,
  synthesizeSpeech,
  toBase64,
  type SpeechWork,
} from '../../core/synthesize/audio.ts';
import type { JsonObject } from '../fields.ts';

/** Output audio tokens per second (realtime models count about one per 50 ms). */
const AUDIO_TOKENS_PER_SECOND = 20;

/** A content part of a message item, as the session stores it (types as the item's protocol names them). */
export interface ContentPart {
  type: string;
  text?: string;
  transcript?: string;
  /** An input image's (a data URI; its detail level). */
  image_url?: string;
  detail?: string;
}

interface ItemBase {
  id: string;
  object: string;
  status: string;
}

/** A conversation item as the GA protocol shows it: a message, a function call or a function call's output. */
export type RealtimeItem =
  | (ItemBase & { type: 'message'; role: 'user' | 'assistant' | 'system'; content: ContentPart[] })
  | (ItemBase & { type: 'function_call'; call_id: string; name: string; arguments: string })
  | (ItemBase & { type: 'function_call_output'; call_id: string; output: string });

/** What a response used: response.done's `usage`. */
type RealtimeUsage = ReturnType<typeof usageOf>;

/** One server event (without its event_id, stamped when sent) and when it is due. */
interface PlannedEvent {
  due: number;
  event: JsonObject & { type: string };
  /** Output items opened once this event is sent. */
  opened: number;
}

export interface ResponsePlan {
  events: PlannedEvent[];
  /** The output items as they stand at the end. */
  items: RealtimeItem[];
  /** The response object as response.done shows it. */
  done: JsonObject;
  /** Its usage (as in `done`). */
  usage: RealtimeUsage;
}

/** GA event names → beta names (only those that differ). */
const BETA_NAMES: Record<string, string> = {
  'conversation.item.added': 'conversation.item.created',
  'response.output_text.delta': 'response.text.delta',
  'response.output_text.done': 'response.text.done',
  'response.output_audio.delta': 'response.audio.delta',
  'response.output_audio.done': 'response.audio.done',
  'response.output_audio_transcript.delta': 'response.audio_transcript.delta',
  'response.output_audio_transcript.done': 'response.audio_transcript.done',
};

/** A GA event type in the client's protocol; `undefined` when beta has no such event. */
export function eventName(type: string, beta: boolean): string | undefined {
  if (!beta) return type;
  if (type === 'conversation.item.done') return undefined;
  return BETA_NAMES[type] ?? type;
}

/** GA content types → beta's, for assistant content. */
export function contentType(type: string, beta: boolean): string {
  if (!beta) return type;
  return type === 'output_text' ? 'text' : type === 'output_audio' ? 'audio' : type;
}

/** A content type as GA names it, from either protocol's name: beta's `text` and `audio` by the message's role. */
export function gaContentType(type: string, role: string): string {
  if (type === 'text') return role === 'assistant' ? 'output_text' : 'input_text';
  if (type === 'audio') return role === 'assistant' ? 'output_audio' : 'input_audio';
  return type;
}

/**
 * A response's item as the conversation keeps it: with GA's content types, as the items a client
 * creates are kept, whichever protocol the response was told in (a beta session's says `audio`,
 * `text`), so that truncate reads one set of names; the session shows them back in the client's.
 */
export function keptItem(item: RealtimeItem): RealtimeItem {
  if (item.type !== 'message') return item;
  return { ...item, content: item.content.map((c) => ({ ...c, type: gaContentType(c.type, item.role) })) };
}

export interface ResponseContext {
  responseId: string;
  conversationId: string;
  /** Allocates the next item id of the session. */
  itemId(): string;
  /** Allocates a call id. */
  callId(): string;
  audio: boolean;
  voice: string;
  beta: boolean;
  maxOutputTokens: number | 'inf';
  /** The item the response's first item follows. */
  previousItemId: string | null;
}

export function responseObject(
  ctx: ResponseContext,
  status: string,
  output: RealtimeItem[],
  usage: RealtimeUsage | null,
  statusDetails: JsonObject | null = null,
): JsonObject {
  const modalities = ctx.audio ? ['audio'] : ['text'];
  if (ctx.beta) {
    return {
      object: 'realtime.response',
      id: ctx.responseId,
      status,
      status_details: statusDetails,
      output,
      conversation_id: ctx.conversationId,
      modalities: ctx.audio ? ['text', 'audio'] : ['text'],
      voice: ctx.voice,
      output_audio_format: 'pcm16',
      temperature: 0.8,
      max_output_tokens: ctx.maxOutputTokens,
      usage,
      metadata: null,
    };
  }
  // GA leaves out what is not there yet (its schema has no nulls for these).
  return {
    object: 'realtime.response',
    id: ctx.responseId,
    status,
    ...(statusDetails ? { status_details: statusDetails } : {}),
    output,
    conversation_id: ctx.conversationId,
    output_modalities: modalities,
    max_output_tokens: ctx.maxOutputTokens,
    audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: ctx.voice } },
    ...(usage ? { usage } : {}),
    metadata: null,
  };
}

/** Usage whose parts add up: input and output (text + audio) tokens, and their total. */
function usageOf(reply: CanonicalReply, audioTokens: number) {
  const input = reply.usage.inputTokens;
  const text = reply.usage.outputTokens;
  return {
    total_tokens: input + text + audioTokens,
    input_tokens: input,
    output_tokens: text + audioTokens,
    input_token_details: {
      text_tokens: input,
      audio_tokens: 0,
      image_tokens: 0,
      cached_tokens: 0,
      cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: text, audio_tokens: audioTokens },
  };
}

/** Splits `samples` into `parts` consecutive runs whose concatenation is all of them. */
function audioRuns(samples: Int16Array, parts: number): Int16Array[] {
  return Array.from({ length: parts }, (_, i) =>
    samples.subarray(Math.floor((i * samples.length) / parts), Math.floor(((i + 1) * samples.length) / parts)),
  );
}

/** The speech of each text block of an audio response (core's speakTextBlocks, keyed as realtime always was). */
export function speakBlocks(reply: CanonicalReply, ctx: ResponseContext, work: SpeechWork): Promise<Map<number, Int16Array> | undefined> {
  return speakTextBlocks(
    reply.choices[0].blocks,
    ctx.audio ? ctx.voice : undefined,
    (b) => deriveKey(reply.key, `realtime-speech:${b}`),
    work,
  );
}

/** The response's events; `speech` holds each text block's samples for an audio response (from speakBlocks). */
export function planResponse(
  reply: CanonicalReply,
  latency: LatencyProfile,
  ctx: ResponseContext,
  speech: ReadonlyMap<number, Int16Array> = new Map(),
): ResponsePlan {
  const { beta } = ctx;
  const choice = reply.choices[0];
  const events: PlannedEvent[] = [];
  const items: RealtimeItem[] = [];
  const ids = { response_id: ctx.responseId };
  // Events keep their GA names here; the session renames them for beta clients as it sends them.
  const push = (due: number, type: string, body: JsonObject) => void events.push({ due, event: { type, ...body }, opened: items.length });
  push(0, 'response.created', { response: responseObject(ctx, 'in_progress', [], null) });

  // Each block's item, made when its first piece is due.
  // A call's id is kept beside its item: below, a call is known by its block, which does not narrow the item.
  type BlockState = { item: RealtimeItem; callId?: string; text: string; audio?: Int16Array[]; piece: number; pieces: number };
  const blockItems = new Map<number, BlockState>();
  const steps = planStream(reply, latency);
  const piecesOf = new Map<number, number>();
  for (const s of steps) piecesOf.set(s.block, (piecesOf.get(s.block) ?? 0) + 1);
  let audioTokens = 0;
  let previous = ctx.previousItemId;
  for (const step of steps) {
    const block = choice.blocks[step.block] ?? { type: 'text' as const, text: '' };
    if (block.type === 'thinking' || block.type === 'audio' || block.type === 'image' || block.type === 'server_tool') continue;
    if (step.blockStart) {
      const id = ctx.itemId();
      const item: RealtimeItem =
        block.type === 'tool_call'
          ? {
              id,
              object: 'realtime.item',
              type: 'function_call',
              status: 'in_progress',
              name: block.name,
              call_id: ctx.callId(),
              arguments: '',
            }
          : { id, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      const state: BlockState = {
        item,
        callId: item.type === 'function_call' ? item.call_id : undefined,
        text: '',
        piece: 0,
        pieces: piecesOf.get(step.block) ?? 1,
      };
      if (block.type === 'text' && ctx.audio) {
        const samples =
          speech.get(step.block) ??
          synthesizeSpeech([{ text: block.text, voice: ctx.voice }], deriveKey(reply.key, `realtime-speech:${step.block}`));
        audioTokens += Math.ceil(durationOf(samples, SPEECH_SAMPLE_RATE) * AUDIO_TOKENS_PER_SECOND);
        state.audio = audioRuns(samples, state.pieces);
      }
      blockItems.set(step.block, state);
      items.push(item);
      const output_index = items.length - 1;
      push(step.due, 'response.output_item.added', { ...ids, output_index, item: { ...item } });
      push(step.due, 'conversation.item.added', { previous_item_id: previous, item: { ...item } });
      previous = id;
      if (block.type === 'text') {
        const part = ctx.audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' };
        push(step.due, 'response.content_part.added', { ...ids, item_id: id, output_index, content_index: 0, part });
      }
    }
    const state = blockItems.get(step.block)!;
    const id = state.item.id;
    const output_index = items.indexOf(state.item);
    const at = { ...ids, item_id: id, output_index };
    if (block.type === 'tool_call') {
      if (step.text) push(step.due, 'response.function_call_arguments.delta', { ...at, call_id: state.callId, delta: step.text });
    } else if (state.audio) {
      const run = state.audio[state.piece];
      if (run?.length) push(step.due, 'response.output_audio.delta', { ...at, content_index: 0, delta: toBase64(pcmBytes(run)) });
      if (step.text) push(step.due, 'response.output_audio_transcript.delta', { ...at, content_index: 0, delta: step.text });
    } else if (step.text) {
      push(step.due, 'response.output_text.delta', { ...at, content_index: 0, delta: step.text });
    }
    state.text += step.text;
    state.piece++;
    if (step.blockEnd) {
      if (block.type === 'tool_call') {
        Object.assign(state.item, { status: 'completed', arguments: block.arguments });
        push(step.due, 'response.function_call_arguments.done', {
          ...at,
          call_id: state.callId,
          name: block.name,
          arguments: block.arguments,
        });
      } else {
        const text = block.text;
        const content = ctx.audio
          ? { type: contentType('output_audio', beta), transcript: text }
          : { type: contentType('output_text', beta), text };
        Object.assign(state.item, { status: 'completed', content: [content] });
        if (ctx.audio) {
          push(step.due, 'response.output_audio.done', { ...at, content_index: 0 });
          push(step.due, 'response.output_audio_transcript.done', { ...at, content_index: 0, transcript: text });
        } else push(step.due, 'response.output_text.done', { ...at, content_index: 0, text });
        push(step.due, 'response.content_part.done', {
          ...at,
          content_index: 0,
          part: ctx.audio ? { type: 'audio', transcript: text } : { type: 'text', text },
        });
      }
      push(step.due, 'response.output_item.done', { ...ids, output_index, item: { ...state.item } });
      push(step.due, 'conversation.item.done', { previous_item_id: null, item: { ...state.item } });
    }
  }
  const end = events.at(-1)!.due;
  const incomplete = choice.finishReason === 'length';
  const usage = usageOf(reply, audioTokens);
  const done = responseObject(
    ctx,
    incomplete ? 'incomplete' : 'completed',
    items,
    usage,
    incomplete ? { type: 'incomplete', reason: 'max_output_tokens' } : null,
  );
  push(end, 'response.done', { response: done });
  return { events, items, done, usage };
}

/** The response.done of a response stopped early: its items so far, incomplete, and why. */
export function stoppedResponse(
  plan: ResponsePlan,
  ctx: ResponseContext,
  opened: number,
  status: 'cancelled' | 'failed',
  details: JsonObject,
): JsonObject {
  const output = plan.items.slice(0, opened).map((item) => (item.status === 'completed' ? item : { ...item, status: 'incomplete' }));
  return responseObject(ctx, status, output, plan.usage, details);
}
