// The realtime protocol over one WebSocket: client events in, server events out. The session keeps
// the conversation, the configuration and the input audio buffer; each response is the conversation as
// a canonical request, answered by the runtime (fixtures, overrides, synthesis, tool rule) and played
// back as timed events. GA event names by default, beta names for beta clients.
import { shortenedBody } from '../../core/journal.ts';
import { detached } from '../../core/strings.ts';
import { asGatewayError, type ErrorKind, GatewayError } from '../../core/errors.ts';
import { isConnectionFault } from '../../core/faults.ts';
import type { CanonicalRequest, Message, Part } from '../../core/request.ts';
import { deriveKey, hashString, makeId } from '../../core/seed.ts';
import { pcmFromBase64, SPEECH_SAMPLE_RATE, type SpeechWork } from '../../core/synthesize/audio.ts';
import { transcribe } from '../../core/transcribe.ts';
import { TurnDetector } from '../../core/voice.ts';
import type { Call } from '../../pipeline/call.ts';
import type { SocketPeer, SocketSink } from '../../pipeline/exchange.ts';
import { faultedEvents } from '../../pipeline/delivery.ts';
import { SocketPump, type PumpLimit } from '../../pipeline/socket-pump.ts';
import { openaiErrorBody, tooManySessions } from './errors.ts';
import { transcriptionUsage } from './transcription-usage.ts';
import { ConversationItems, type Item } from './realtime-items.ts';
import {
  applyResponse,
  applySession,
  defaultConfig,
  renderSession,
  toolChoiceOf,
  toolSpecs,
  type SessionConfig,
} from './realtime-config.ts';
import {
  type ContentPart,
  contentType,
  keptItem,
  gaContentType,
  eventName,
  planResponse,
  responseObject,
  speakBlocks,
  stoppedResponse,
  type ResponseContext,
  type RealtimeItem,
  type ResponsePlan,
} from './realtime-response.ts';
import { checkField, checkFields, checkUrl, invalid, invalidValue } from './validate.ts';
import { answer, isForward, type Answered } from '../../pipeline/decide.ts';
import { fieldsOf, type FieldRules, type JsonObject } from '../fields.ts';

/** Limits of one session; past them the session is refused with an `error` event and closed (1008). */
export const REALTIME_LIMITS = {
  /** Client events in one session. */
  events: 100_000,
  /** Bytes of client frames in one session. */
  bytes: 256 * 1024 * 1024,
  /** Bytes of server frames in one session (an hour of audio deltas is about 230 MB). */
  serverBytes: 1024 * 1024 * 1024,
  /** Wall-clock length of a session, as the service's 60 minutes. */
  durationMs: 60 * 60 * 1000,
  /** Uncommitted input audio, as the service's 15 MiB. */
  audioBufferBytes: 15 * 1024 * 1024,
  /** Event types kept in the journal entry. */
  journalEvents: 1000,
  /** Client events held, in order, while a response's speech is made (and their bytes); past either, the session is closed. */
  waitingEvents: 1000,
  waitingBytes: 16 * 1024 * 1024,
  /** Client events handled in one turn of the event loop; a burst that arrived in one read is handled this many at a time, other clients served in between. */
  eventsPerTurn: 64,
};

const CLIENT_EVENTS = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'output_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
  'transcription_session.update',
];

/** The fields of the events that name an item, and of conversation.item.truncate. */
const ITEM_EVENT = {
  type: { types: ['string'] },
  event_id: { types: ['string'] },
  item_id: { types: ['string'], required: true },
} as const satisfies FieldRules;
const TRUNCATE_EVENT = {
  ...ITEM_EVENT,
  content_index: { types: ['integer'], required: true, min: 0 },
  audio_end_ms: { types: ['integer'], required: true, min: 0 },
} as const satisfies FieldRules;

/** The content types a message of each role may hold, GA's and beta's names (as the service's item schemas). */
const ROLE_CONTENT = {
  system: ['input_text', 'text'],
  user: ['input_text', 'input_audio', 'input_image', 'text', 'audio'],
  assistant: ['output_text', 'output_audio', 'text', 'audio'],
};

interface Active {
  plan: ResponsePlan;
  ctx: ResponseContext;
  /** Output items opened by the events sent so far. */
  opened: number;
  stop: () => void;
  cut: boolean;
}

interface RealtimeOptions {
  model: string;
  beta: boolean;
  /** The configuration an ephemeral key was minted for, applied before session.created. */
  preset?: JsonObject;
  /** A transcription session (`?intent=transcription`): input audio transcribed, no responses. */
  transcription?: boolean;
}

export class RealtimeSession implements SocketPeer {
  private readonly call: Call;
  private readonly sink: SocketSink;
  private readonly beta: boolean;
  private readonly key: number;
  private config: SessionConfig;
  private readonly sessionId: string;
  private readonly conversationId: string;
  private readonly expiresAt: number;
  /** The conversation, bounded per session and across sessions (realtime-items.ts). */
  private readonly items: ConversationItems;
  private counter = 0;
  private buffer: Int16Array[] = [];
  private bufferBytes = 0;
  private active?: Active;
  /** The client's events in order, the limits, back-pressure and playback (socket-pump.ts). */
  private readonly pump: SocketPump;
  private gone = false;
  /** The response whose speech is being made (between response.create and its first event); client events meanwhile are held. */
  private preparing?: ResponseContext;
  private readonly timer: ReturnType<typeof setTimeout>;
  private responses = 0;
  private tokensUsed = 0;
  /** Server VAD, and the item id of the speech it heard start. */
  private readonly vad = new TurnDetector(SPEECH_SAMPLE_RATE);
  private vadItemId = '';
  /** A running hash of the buffered audio, the key of what the transcription rule hears in it. */
  private audioKey = 0;

  constructor(call: Call, sink: SocketSink, options: RealtimeOptions) {
    this.call = call;
    this.sink = sink;
    this.beta = options.beta;
    const { runtime } = call;
    this.pump = new SocketPump(
      sink,
      REALTIME_LIMITS,
      runtime.readerTimeoutMs,
      {
        handle: (text) => this.handle(text),
        overLimit: (limit) => this.overLimit(limit),
        readerGone: () => this.dropReader(),
      },
      runtime.sockets,
    );
    this.key = hashString(`realtime ${options.model} ${options.beta} ${call.inbound.url.search}`, runtime.seed);
    this.items = new ConversationItems(runtime.realtimeItems);
    this.config = defaultConfig(options.model, options.beta, options.transcription ? 'transcription' : 'realtime');
    if (options.preset) this.config = applySession(this.config, options.preset, false);
    this.sessionId = makeId('sess_', 21, deriveKey(this.key, 'session'));
    this.conversationId = makeId('conv_', 21, deriveKey(this.key, 'conversation'));
    this.expiresAt = runtime.now() + 3600;
    call.entry.stream = true;
    call.entry.outcome = 'streaming';
    call.entry.model = options.model;
    call.entry.events = [];
    this.timer = setTimeout(
      () => this.refuse('session_expired', `Your session hit the maximum duration of ${REALTIME_LIMITS.durationMs / 60000} minutes.`),
      REALTIME_LIMITS.durationMs,
    );
    this.timer.unref?.();
    // One session too many: the service's rate-limit error event instead of session.created, then close.
    if (!this.pump.admitted) {
      this.refuse('rate_limit_exceeded', tooManySessions(runtime.sockets.max), 'rate_limit');
      return;
    }
    this.emit(this.sessionEvent('created'), { session: this.session() });
    if (this.beta && this.config.type === 'realtime')
      this.emit('conversation.created', { conversation: { id: this.conversationId, object: 'realtime.conversation' } });
  }

  /** session.created/updated; a beta transcription session's are transcription_session's. */
  private sessionEvent(what: 'created' | 'updated'): string {
    return this.beta && this.config.type === 'transcription' ? `transcription_session.${what}` : `session.${what}`;
  }

  private session(): JsonObject {
    return renderSession(this.config, this.sessionId, this.expiresAt, this.beta);
  }

  private log(from: 'client' | 'server', type: string): void {
    const log = this.call.entry.events!;
    // A client's type is its own text: at most a name's length is kept.
    if (log.length < REALTIME_LIMITS.journalEvents) log.push({ from, type: type.length > 64 ? detached(`${type.slice(0, 64)}…`) : type });
  }

  private nextId(prefix: string, length = 21): string {
    return makeId(prefix, length, deriveKey(this.key, `id:${++this.counter}`));
  }

  /** A server event as it goes on the wire: stamped with the next event id, in the client's names. */
  private frame(type: string, body: JsonObject): string | undefined {
    const name = eventName(type, this.beta);
    if (!name) return undefined;
    this.log('server', name);
    return JSON.stringify({ type: name, event_id: this.nextId('event_'), ...body });
  }

  private emit(type: string, body: JsonObject = {}): void {
    const text = this.frame(type, body);
    if (text === undefined || this.gone) return;
    this.send(text);
  }

  /** One server frame on the wire, counted against the session's limit on server bytes. */
  private send(text: string): void {
    this.call.entry.eventsSent++;
    this.pump.send(text);
  }

  private overLimit(limit: PumpLimit): void {
    const L = REALTIME_LIMITS;
    if (limit === 'serverBytes')
      return this.refuse(
        'session_byte_limit',
        `This session was sent more than ${L.serverBytes} bytes, the emulator's limit for one session; open a new one.`,
      );
    if (limit === 'events')
      return this.refuse(
        'session_event_limit',
        `This session sent more than ${L.events} events, the emulator's limit for one session; open a new one.`,
      );
    if (limit === 'bytes')
      return this.refuse(
        'session_byte_limit',
        `This session sent more than ${L.bytes} bytes, the emulator's limit for one session; open a new one.`,
      );
    this.refuse(
      'event_queue_full',
      `This session sent more than ${L.waitingEvents} events (or ${L.waitingBytes} bytes of them) while a response was being prepared, the emulator's limit; wait for response.created before sending more.`,
    );
  }

  /** The pump dropped a reader that took nothing for the reader timeout: the session ends, aborted. */
  private dropReader(): void {
    if (this.gone) return;
    this.closed();
    this.call.entry.outcome = 'aborted';
  }

  private fail(error: GatewayError, clientEventId?: string): void {
    this.emit('error', { error: { ...openaiErrorBody(error).error, event_id: clientEventId ?? null } });
  }

  /** Ends the session for exceeding a limit: an error event, then close 1008 (policy violation). */
  private refuse(code: string, message: string, kind: ErrorKind = 'invalid_request'): void {
    if (this.gone) return;
    this.fail(new GatewayError(kind, message, { code }));
    this.sink.close(1008, code);
    this.closed();
  }

  closed(): void {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.timer);
    this.items.release();
    const { entry } = this.call;
    this.pump.stop();
    if (this.active || this.preparing) {
      this.active?.stop();
      entry.outcome = 'aborted';
    } else if (entry.outcome === 'streaming') entry.outcome = 'completed';
  }

  receive(text: string): void {
    if (this.gone) return;
    this.pump.receive(text);
  }

  /** One client event: parsed and dispatched, or held while a response is prepared (all but response.create, which is refused then). */
  private handle(text: string): void {
    if (this.gone) return;
    if (this.preparing && !this.isCreate(text)) return void this.pump.hold(text);
    let event: JsonObject;
    try {
      event = JSON.parse(text);
    } catch {
      this.log('client', '(invalid json)');
      return this.fail(
        new GatewayError(
          'invalid_request',
          'We could not parse the JSON body of your request. Each client event must be one JSON object, e.g. {"type":"response.create"}.',
          { code: 'invalid_json' },
        ),
      );
    }
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      return this.fail(
        new GatewayError('invalid_request', 'A client event must be a JSON object with a string `type`.', { code: 'invalid_json' }),
      );
    }
    const clientId = typeof event.event_id === 'string' ? event.event_id : undefined;
    try {
      // An object's String() can throw (`{"type": {"toString": 1}}`): inside the try, like all the rest.
      this.log('client', typeof event.type === 'object' && event.type !== null ? '(object)' : String(event.type));
      this.dispatch(event);
    } catch (error) {
      this.fail(asGatewayError(error, 'event'), clientId);
    }
  }

  /** Whether a held-back frame is a response.create (refused at once while a response is active, as the service does). */
  private isCreate(text: string): boolean {
    if (!text.includes('response.create')) return false;
    try {
      return fieldsOf(JSON.parse(text)).type === 'response.create';
    } catch {
      return false;
    }
  }

  private dispatch(event: JsonObject): void {
    checkField('type', event.type, { types: ['string'], required: true });
    if (!CLIENT_EVENTS.includes(event.type)) throw invalidValue('type', event.type, CLIENT_EVENTS);
    checkField('event_id', event.event_id, { types: ['string'] });
    switch (event.type) {
      case 'session.update':
        checkFields(event, {
          type: { types: ['string'] },
          event_id: { types: ['string'] },
          session: { types: ['object'], required: true },
        });
        this.config = applySession(this.config, event.session, this.beta);
        return this.emit(this.sessionEvent('updated'), { session: this.session() });
      case 'transcription_session.update':
        if (!this.beta || this.config.type !== 'transcription')
          throw invalid(
            'type',
            'transcription_session.update is for beta transcription sessions (?intent=transcription); use session.update.',
            'invalid_value',
          );
        checkFields(event, {
          type: { types: ['string'] },
          event_id: { types: ['string'] },
          session: { types: ['object'], required: true },
        });
        this.config = applySession(this.config, event.session, true);
        return this.emit('transcription_session.updated', { session: this.session() });
      case 'input_audio_buffer.append':
        checkFields(event, { type: { types: ['string'] }, event_id: { types: ['string'] }, audio: { types: ['string'], required: true } });
        return this.append(event.audio);
      case 'input_audio_buffer.commit':
        return this.commit();
      case 'input_audio_buffer.clear':
        this.clearBuffer();
        return this.emit('input_audio_buffer.cleared');
      case 'output_audio_buffer.clear':
        throw invalid('type', 'output_audio_buffer.clear is only supported for WebRTC sessions.', 'unsupported_event');
      case 'conversation.item.create':
        checkFields(event, {
          type: { types: ['string'] },
          event_id: { types: ['string'] },
          item: { types: ['object'], required: true },
          previous_item_id: { types: ['string'], nullable: true },
        });
        return this.addItem(this.parseItem(event.item, 'item'), event.previous_item_id);
      case 'conversation.item.retrieve': {
        checkFields(event, ITEM_EVENT);
        const item = this.find(event.item_id);
        return this.emit('conversation.item.retrieved', { item: this.show(item.raw) });
      }
      case 'conversation.item.delete': {
        checkFields(event, ITEM_EVENT);
        const item = this.find(event.item_id);
        this.items.remove(item);
        return this.emit('conversation.item.deleted', { item_id: item.raw.id });
      }
      case 'conversation.item.truncate':
        return this.truncate(event);
      case 'response.create':
        if (this.config.type === 'transcription')
          throw invalid(
            'type',
            'Transcription sessions do not create responses: their audio is transcribed as it is committed.',
            'invalid_value',
          );
        checkFields(event, { type: { types: ['string'] }, event_id: { types: ['string'] }, response: { types: ['object'] } });
        return this.respond(event.response ?? {});
      case 'response.cancel':
        checkFields(event, { type: { types: ['string'] }, event_id: { types: ['string'] }, response_id: { types: ['string'] } });
        if (!this.active || (event.response_id !== undefined && event.response_id !== this.active.ctx.responseId)) {
          throw invalid('response_id', 'Cancellation failed: no active response found.', 'response_cancel_not_active');
        }
        return this.stop('cancelled', { type: 'cancelled', reason: 'client_cancelled' });
    }
  }

  // --- conversation items ---

  /** An item the client sent, in the GA form (beta content types mapped). */
  private parseItem(raw: JsonObject, param: string): Item {
    checkField(`${param}.type`, raw.type, {
      types: ['string'],
      required: true,
      values: ['message', 'function_call', 'function_call_output'],
    });
    checkField(`${param}.id`, raw.id, { types: ['string'] });
    const id = raw.id ?? this.nextId('item_');
    // Each kind sets `type` again, narrowed; the key keeps its place here, so the item's bytes stay the same.
    const base = { id, object: 'realtime.item', type: raw.type, status: 'completed' };
    if (raw.type === 'function_call') {
      checkField(`${param}.name`, raw.name, { types: ['string'], required: true });
      checkField(`${param}.arguments`, raw.arguments, { types: ['string'], required: true });
      checkField(`${param}.call_id`, raw.call_id, { types: ['string'] });
      return {
        raw: { ...base, type: raw.type, call_id: raw.call_id ?? this.nextId('call_', 16), name: raw.name, arguments: raw.arguments },
      };
    }
    if (raw.type === 'function_call_output') {
      checkField(`${param}.call_id`, raw.call_id, { types: ['string'], required: true });
      checkField(`${param}.output`, raw.output, { types: ['string'], required: true });
      return { raw: { ...base, type: raw.type, call_id: raw.call_id, output: raw.output } };
    }
    checkField(`${param}.role`, raw.role, { types: ['string'], required: true, values: ['user', 'assistant', 'system'] });
    checkField(`${param}.content`, raw.content, { types: ['array'], required: true });
    const role = raw.role;
    let heard = '';
    const content = raw.content.map((part, i): ContentPart => {
      const p = `${param}.content[${i}]`;
      checkField(p, part, { types: ['object'], required: true });
      // Each role takes its own content types (beta's `text` and `audio` are read by the role).
      checkField(`${p}.type`, part.type, { types: ['string'], required: true, values: ROLE_CONTENT[role] });
      const type = gaContentType(part.type, role);
      if (type === 'input_text' || type === 'output_text') {
        checkField(`${p}.text`, part.text, { types: ['string'], required: true });
        return { type, text: part.text };
      }
      if (type === 'input_image') {
        checkField(`${p}.image_url`, part.image_url, { types: ['string'] });
        checkUrl(`${p}.image_url`, part.image_url, 'a data URI of the image, e.g. data:image/png;base64,iVBORw0KGgo…');
        checkField(`${p}.detail`, part.detail, { types: ['string'], values: ['auto', 'low', 'high'] });
        return { type, image_url: part.image_url, detail: part.detail ?? 'auto' };
      }
      checkField(`${p}.audio`, part.audio, { types: ['string'] });
      checkField(`${p}.transcript`, part.transcript, { types: ['string'], nullable: true });
      const transcript = part.transcript;
      if (transcript === undefined && typeof part.audio === 'string') {
        const samples = this.decodeAudio(part.audio, `${p}.audio`);
        heard += transcribe(samples, SPEECH_SAMPLE_RATE, hashString(part.audio));
      } else heard += transcript ?? '';
      return typeof transcript === 'string' ? { type, transcript } : { type };
    });
    return { raw: { ...base, type: raw.type, role, content }, heard: heard || undefined };
  }

  private decodeAudio(base64: string, param: string): Int16Array {
    try {
      return pcmFromBase64(base64);
    } catch {
      throw invalid(param, `Invalid '${param}': expected base64-encoded audio (16-bit PCM, 24 kHz, mono).`, 'invalid_value');
    }
  }

  /** An item as the client's protocol shows it. */
  private show(raw: RealtimeItem): RealtimeItem {
    if (!this.beta || raw.type !== 'message') return raw;
    return { ...raw, content: raw.content.map((c) => ({ ...c, type: contentType(c.type, true) })) };
  }

  private addItem(item: Item, previousId?: string | null): void {
    const items = this.items.all;
    let at = items.length;
    if (previousId === 'root') at = 0;
    else if (previousId) {
      const i = items.findIndex((x) => x.raw.id === previousId);
      if (i < 0)
        throw invalid('previous_item_id', `Error adding item: the previous item with id '${previousId}' does not exist.`, 'item_not_found');
      at = i + 1;
    }
    if (items.some((x) => x.raw.id === item.raw.id))
      throw invalid('item.id', `Error adding item: an item with id '${item.raw.id}' already exists.`, 'item_already_exists');
    at = this.items.insert(item, at);
    const previous = at > 0 ? (this.items.all[at - 1]?.raw.id ?? null) : null;
    this.emit('conversation.item.added', { previous_item_id: previous, item: this.show(item.raw) });
    this.emit('conversation.item.done', { previous_item_id: previous, item: this.show(item.raw) });
  }

  private find(itemId: string): Item {
    const item = this.items.all.find((i) => i.raw.id === itemId);
    if (!item) throw invalid('item_id', `Item with item_id not found: ${itemId}`, 'item_not_found');
    return item;
  }

  private truncate(event: JsonObject): void {
    checkFields(event, TRUNCATE_EVENT);
    const item = this.find(event.item_id);
    const { raw } = item;
    const part = raw.type === 'message' ? raw.content[event.content_index] : undefined;
    if (raw.type !== 'message' || raw.role !== 'assistant' || part?.type !== 'output_audio') {
      throw invalid('content_index', 'Only the audio content of an assistant message can be truncated.', 'invalid_value');
    }
    // The service drops the text transcript of truncated audio, so the model never reads unheard words.
    raw.content[event.content_index] = { ...part, transcript: '' };
    this.items.resized(item);
    this.emit('conversation.item.truncated', {
      item_id: item.raw.id,
      content_index: event.content_index,
      audio_end_ms: event.audio_end_ms,
    });
  }

  // --- input audio ---

  private clearBuffer(): void {
    this.buffer = [];
    this.bufferBytes = 0;
    this.audioKey = 0;
    this.vad.reset();
    this.vadItemId = '';
  }

  private append(audio: string): void {
    const samples = this.decodeAudio(audio, 'audio');
    if (this.bufferBytes + samples.byteLength > REALTIME_LIMITS.audioBufferBytes) {
      throw invalid(
        'audio',
        `The input audio buffer holds at most ${REALTIME_LIMITS.audioBufferBytes} bytes; commit or clear it first.`,
        'input_audio_buffer_full',
      );
    }
    this.buffer.push(samples);
    this.bufferBytes += samples.byteLength;
    this.audioKey = hashString(audio, this.audioKey % 2147483647);
    if (this.config.turnDetection) this.detect(samples);
  }

  /** Server VAD (core/voice.ts): speech started interrupts a response, speech stopped commits the turn. */
  private detect(chunk: Int16Array): void {
    const d = this.config.turnDetection!;
    this.vad.feed(chunk, d, (edge) => {
      if (edge.type === 'start') {
        this.vadItemId = this.nextId('item_');
        this.emit('input_audio_buffer.speech_started', { audio_start_ms: Math.round(edge.ms), item_id: this.vadItemId });
        if (this.active && d.interruptResponse) this.stop('cancelled', { type: 'cancelled', reason: 'turn_detected' });
        return;
      }
      this.emit('input_audio_buffer.speech_stopped', { audio_end_ms: Math.round(edge.ms), item_id: this.vadItemId });
      this.commit(this.vadItemId);
      if (d.createResponse && !this.active && !this.preparing) this.respond({});
      return !this.gone;
    });
  }

  private commit(itemId?: string): void {
    const total = this.bufferBytes / 2;
    const ms = total / (SPEECH_SAMPLE_RATE / 1000);
    if (ms < 100) {
      throw invalid(
        'audio',
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`,
        'input_audio_buffer_commit_empty',
      );
    }
    const samples = new Int16Array(total);
    let offset = 0;
    for (const chunk of this.buffer) {
      samples.set(chunk, offset);
      offset += chunk.length;
    }
    const audioKey = this.audioKey;
    this.clearBuffer();
    const id = itemId ?? this.nextId('item_');
    const previous = this.items.all.at(-1)?.raw.id ?? null;
    const heard = transcribe(samples, SPEECH_SAMPLE_RATE, audioKey);
    const audio: ContentPart = { type: 'input_audio' };
    const item: Item = {
      raw: { id, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [audio] },
      heard,
    };
    this.emit('input_audio_buffer.committed', { previous_item_id: previous, item_id: id });
    this.addItem(item);
    if (this.config.transcription) {
      audio.transcript = heard;
      if (!this.beta || this.config.type === 'transcription')
        this.emit('conversation.item.input_audio_transcription.delta', { item_id: id, content_index: 0, delta: heard, logprobs: null });
      const { model, prompt } = this.config.transcription;
      this.emit('conversation.item.input_audio_transcription.completed', {
        item_id: id,
        content_index: 0,
        transcript: heard,
        logprobs: null,
        usage: transcriptionUsage(String(model), ms / 1000, typeof prompt === 'string' ? prompt : undefined, heard),
      });
    }
  }

  // --- responses ---

  /** The conversation as a canonical request: instructions, then each item as a message. */
  private request(params: JsonObject, settings: SessionConfig): CanonicalRequest {
    const items = params.conversation === 'none' ? [] : this.items.all;
    const input = Array.isArray(params.input)
      ? params.input.map((raw: unknown, i) => {
          // Each element an item object: a null or a string gets the error event naming it, not a server_error.
          checkField(`response.input[${i}]`, raw, { types: ['object'], required: true });
          return this.parseItem(raw, `response.input[${i}]`);
        })
      : [];
    const { instructions } = settings;
    const messages: Message[] = instructions ? [{ role: 'system', parts: [{ type: 'text', text: instructions }] }] : [];
    for (const { raw, heard } of [...items, ...input]) {
      if (raw.type === 'function_call')
        messages.push({
          role: 'assistant',
          parts: [],
          toolCalls: [{ id: raw.call_id, name: raw.name, arguments: raw.arguments }],
        });
      else if (raw.type === 'function_call_output')
        messages.push({ role: 'tool', parts: [{ type: 'text', text: raw.output }], toolCallId: raw.call_id });
      else {
        const parts: Part[] = raw.content.map((c) => {
          if (c.type === 'input_image') return { type: 'image' };
          if (c.type === 'input_audio') return { type: 'text', text: c.transcript ?? heard ?? '' };
          return { type: 'text', text: String(c.text ?? c.transcript ?? '') };
        });
        messages.push({ role: raw.role, parts });
      }
    }
    const max = settings.maxOutputTokens;
    return {
      format: 'openai',
      operation: 'chat',
      model: this.config.model,
      messages,
      maxTokens: typeof max === 'number' ? max : undefined,
      stop: [],
      n: 1,
      stream: true,
      tools: toolSpecs(settings.tools),
      toolChoice: toolChoiceOf(settings.toolChoice),
      parallelToolCalls: params.parallel_tool_calls !== false,
      output: { type: 'text' },
    };
  }

  private respond(params: JsonObject): void {
    const current = this.active?.ctx ?? this.preparing;
    if (current)
      throw invalid(
        'response',
        `Conversation already has an active response in progress: ${current.responseId}. Wait until the response is finished before creating a new one.`,
        'conversation_already_has_active_response',
      );
    const settings = applyResponse(this.config, params, this.beta);
    const ctx: ResponseContext = {
      responseId: this.nextId('resp_'),
      conversationId: this.conversationId,
      itemId: () => this.nextId('item_'),
      callId: () => this.nextId('call_', 16),
      audio: settings.modalities.includes('audio'),
      voice: settings.voice,
      beta: this.beta,
      maxOutputTokens: settings.maxOutputTokens,
      previousItemId: this.items.all.at(-1)?.raw.id ?? null,
    };
    const request = this.request(params, settings);
    const { call } = this;
    let answered;
    try {
      answered = answer(call, request);
      // Record mode forwards HTTP requests; a turn of a live session has no upstream request to be.
      if (isForward(answered))
        throw new GatewayError('invalid_request', 'Record mode cannot forward a realtime response: add a fixture that answers it.');
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // A fixture's error, a forced status or strict mode's near miss: the response fails.
      this.emit('response.created', { response: responseObject(ctx, 'in_progress', [], null) });
      this.emit('response.done', {
        response: responseObject(ctx, 'failed', [], null, failedDetails(error)),
      });
      return;
    }
    call.entry.body = shortenedBody({ type: 'response.create', response: params });
    const { reply, latency, fault } = answered;
    if (fault && isConnectionFault(fault)) {
      this.sink.terminate();
      return this.closed();
    }
    // The speech is made a block at a time with turns in between, so other clients are served and a
    // second response.create meanwhile is refused; a session that ends meanwhile stops it there.
    this.preparing = ctx;
    call.runtime.activeStreams++;
    // Counted on the session's journal entry as it is made, so the work a closed socket left undone shows.
    const work: SpeechWork = {
      count: (samples) => (call.entry.speechSamples = (call.entry.speechSamples ?? 0) + samples),
      stopped: () => this.gone,
    };
    const prepared = (speech: Awaited<ReturnType<typeof speakBlocks>>) => {
      this.preparing = undefined;
      call.runtime.activeStreams--;
      if (!speech) return;
      this.play(planResponse(reply, latency, ctx, speech), ctx, fault);
      this.resume();
    };
    // A response that fails while it is made ends like one that finished: counted down, the session free
    // for the next (it stayed counted in activeStreams, the session holding its events for good).
    void speakBlocks(reply, ctx, work)
      .then(prepared)
      .catch((error: unknown) => {
        if (this.preparing === ctx) {
          this.preparing = undefined;
          call.runtime.activeStreams--;
        }
        this.fail(asGatewayError(error));
        this.resume();
      });
  }

  /**
   * Handles the client events held while a response was prepared: first, in order, then those not
   * handled yet; one may start another response, which holds the rest again.
   */
  private resume(): void {
    this.pump.resume();
  }

  private play(plan: ResponsePlan, ctx: ResponseContext, fault: Answered['fault']): void {
    const { call } = this;
    this.responses++;
    this.tokensUsed += plan.usage.total_tokens;
    // Frames are stamped now, in order, so event ids follow the script, not the timers.
    let events = plan.events.flatMap((e) => {
      const frame = this.frame(e.event.type, stripType(e.event));
      return frame === undefined ? [] : [{ due: e.due, data: frame, opened: e.opened }];
    });
    events.push({
      due: events.at(-1)!.due,
      data: this.frame('rate_limits.updated', { rate_limits: this.rateLimits() }) ?? '',
      opened: plan.items.length,
    });
    if (fault) {
      const opened = events.map((e) => e.opened);
      events = [
        ...faultedEvents(events, fault, (error, after) => [
          { data: this.frame('error', { error: { ...openaiErrorBody(error).error, event_id: null } }) ?? '' },
          {
            data:
              this.frame('response.done', {
                response: stoppedResponse(plan, ctx, opened[after - 1] ?? 0, 'failed', failedDetails(error)),
              }) ?? '',
          },
        ]),
      ].map((e, i) => ({ ...e, opened: opened[Math.min(i, opened.length - 1)] }));
    }
    const active: Active = { plan, ctx, opened: 0, stop: () => {}, cut: fault?.type === 'STREAM_CUT' };
    this.active = active;
    call.runtime.activeStreams++;
    const openedAt = events.map((e) => e.opened);
    active.stop = this.pump.play(events, {
      sent: () => call.entry.eventsSent++,
      end: () => {
        if (active.cut) {
          this.sink.terminate();
          this.closed();
        }
      },
      onProgress: (sent) => {
        active.opened = openedAt[sent - 1] ?? active.opened;
      },
      onEnd: () => {
        call.runtime.activeStreams--;
        if (this.active === active) {
          this.active = undefined;
          this.remember(plan.items.length, plan);
        }
      },
    });
  }

  /** Stops the active response: the client cancelled, or a new turn interrupted it. */
  private stop(status: 'cancelled', details: JsonObject): void {
    const active = this.active!;
    this.active = undefined;
    active.stop();
    this.remember(active.opened, active.plan);
    this.emit('response.done', { response: stoppedResponse(active.plan, active.ctx, active.opened, status, details) });
  }

  /** Puts a response's items (the first `count`) into the conversation. */
  private remember(count: number, plan: ResponsePlan): void {
    for (const raw of plan.items.slice(0, count)) {
      if (this.items.all.some((i) => i.raw.id === raw.id)) continue;
      const kept = keptItem(raw);
      try {
        this.items.insert({ raw: kept.status === 'completed' ? kept : { ...kept, status: 'incomplete' } }, this.items.all.length);
      } catch {
        // Sent already; past what the sessions may keep, it is not kept for later turns.
      }
    }
  }

  private rateLimits(): JsonObject[] {
    return [
      { name: 'requests', limit: 5000, remaining: Math.max(0, 5000 - this.responses), reset_seconds: 0.012 },
      { name: 'tokens', limit: 40000, remaining: Math.max(0, 40000 - this.tokensUsed), reset_seconds: 60 },
    ];
  }
}

/** A failed response's status_details: the error's type, message and code (the spec's code is a string: left out when there is none). */
function failedDetails(error: GatewayError): JsonObject {
  const { type } = openaiErrorBody(error).error;
  return { type: 'failed', error: { type, ...(error.code ? { code: error.code } : {}), message: error.message } };
}

function stripType(event: JsonObject): JsonObject {
  const { type: _type, ...rest } = event;
  return rest;
}
