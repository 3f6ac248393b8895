// Gemini Live (BidiGenerateContent) over one WebSocket: `setup`, then `clientContent` turns,
// `realtimeInput` (16 kHz PCM audio with activity detection, text, video frames) and `toolResponse`;
// each turn is the conversation as a generate-content request, answered by the runtime (so the same
// fixtures answer it) and played back as `serverContent` (text, or 24 kHz speech with its
// transcription), `toolCall`, `turnComplete` with `usageMetadata`. The frames' order, limits and
// back-pressure are the shared engine's (pipeline/socket-pump.ts), turn detection core's. The service
// has no error message: a bad message closes the socket, 1007 (or 1008 for a model or access), with
// what to fix as the reason.
import { asGatewayError, GatewayError } from '../../core/errors.ts';
import { isConnectionFault } from '../../core/faults.ts';
import { planStream } from '../../core/plan.ts';
import type { CanonicalReply } from '../../core/reply.ts';
import { deriveKey, hashString, makeId } from '../../core/seed.ts';
import { detached } from '../../core/strings.ts';
import {
  AUDIO_TOKENS_PER_SECOND,
  durationOf,
  pcmBytes,
  pcmFromBase64,
  SPEECH_SAMPLE_RATE,
  speakTextBlocks,
  toBase64,
} from '../../core/synthesize/audio.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { transcribe } from '../../core/transcribe.ts';
import { TurnDetector } from '../../core/voice.ts';
import type { Call } from '../../pipeline/call.ts';
import { answer, isForward } from '../../pipeline/decide.ts';
import type { SocketPeer, SocketSink } from '../../pipeline/exchange.ts';
import { type PlannedFrame, type PumpLimit, SocketPump } from '../../pipeline/socket-pump.ts';
import { isJsonObject, type JsonObject } from '../fields.ts';
import { closeReason } from './live-refusal.ts';
import { closeCodeOf, type LiveConfig, parseSetup } from './live-setup.ts';
import { parseGenerateRequest } from './parse.ts';
import { checkField, checkFields, invalid } from './validate.ts';

/** Limits of one Live session; past one the session is closed (1008, or 1009 for a frame). */
const LIVE_LIMITS = {
  /** Client messages in one session. */
  events: 100_000,
  /** Bytes of client messages in one session. */
  bytes: 256 * 1024 * 1024,
  /** Bytes of server messages in one session. */
  serverBytes: 1024 * 1024 * 1024,
  /** Client messages held, in order, while a turn's speech is made (and their bytes). */
  waitingEvents: 1000,
  waitingBytes: 16 * 1024 * 1024,
  /** Client messages handled in one turn of the event loop. */
  eventsPerTurn: 64,
  /** Input audio held for one turn (about 8 minutes at 16 kHz). */
  audioBytes: 15 * 1024 * 1024,
  /** Bytes of conversation kept; past it the oldest turns go (as context window compression does). */
  historyBytes: 8 * 1024 * 1024,
  /** A connection's life, as the service's ~10 minutes; `goAway` comes `goAwayMs` before its end. */
  connectionMs: 10 * 60 * 1000,
  goAwayMs: 10_000,
  /** Message types kept in the journal entry. */
  journalEvents: 1000,
};

/** The messages a client may send; each holds exactly one. */
const CLIENT_MESSAGES = ['setup', 'clientContent', 'realtimeInput', 'toolResponse'];
const INPUT_RATE = 16000;
/** A resumable session's state, kept under its handle (live-routes.ts keeps the store). */
export interface Resumable {
  setup: JsonObject;
  history: JsonObject[];
}

interface LiveOptions {
  /** An ephemeral token's locked setup and field mask, laid over the client's setup. */
  constrain?: (setup: JsonObject) => JsonObject;
  /** The sessions resumable by handle. */
  resumable: { get(handle: string): Resumable | undefined; set(handle: string, value: Resumable, size: number): boolean };
}

interface Active {
  stop: () => void;
  /** The model text sent so far, and the calls of the turn. */
  text: string;
  done: boolean;
}

export class LiveSession implements SocketPeer {
  private readonly call: Call;
  private readonly sink: SocketSink;
  private readonly options: LiveOptions;
  private readonly pump: SocketPump;
  private readonly key: number;
  private config?: LiveConfig;
  private setupRaw?: JsonObject;
  private history: JsonObject[] = [];
  /** Each turn's bytes (its JSON), taken from the pool all live sessions share (Runtime.realtimeItems). */
  private sizes: number[] = [];
  private historyBytes = 0;
  private gone = false;
  private counter = 0;
  private preparing = false;
  private active?: Active;
  /** Function calls awaiting the client's toolResponse. */
  private pendingCalls: string[] = [];
  // Input audio of the turn being spoken, its running hash, and the detector.
  private audio: Int16Array[] = [];
  private audioBytes = 0;
  private audioKey = 0;
  private readonly vad = new TurnDetector(INPUT_RATE);
  private readonly timers: ReturnType<typeof setTimeout>[] = [];

  constructor(call: Call, sink: SocketSink, options: LiveOptions) {
    this.call = call;
    this.sink = sink;
    this.options = options;
    this.key = hashString(`live ${call.inbound.url.pathname}`, call.runtime.seed);
    this.pump = new SocketPump(
      sink,
      LIVE_LIMITS,
      call.runtime.readerTimeoutMs,
      {
        handle: (text) => this.handle(text),
        overLimit: (limit) => this.overLimit(limit),
        readerGone: () => this.dropReader(),
      },
      call.runtime.sockets,
      true,
    );
    call.entry.stream = true;
    call.entry.outcome = 'streaming';
    call.entry.events = [];
    const life = setTimeout(
      () => this.close(1000, 'The session reached its connection limit; resume it on a new connection.'),
      LIVE_LIMITS.connectionMs,
    );
    const warn = setTimeout(
      () => this.emit({ goAway: { timeLeft: `${LIVE_LIMITS.goAwayMs / 1000}s` } }),
      LIVE_LIMITS.connectionMs - LIVE_LIMITS.goAwayMs,
    );
    for (const t of [life, warn]) {
      t.unref?.();
      this.timers.push(t);
    }
    // One session too many: the service's quota refusal, a close 1011 with RESOURCE_EXHAUSTED.
    if (!this.pump.admitted)
      this.close(
        1011,
        `RESOURCE_EXHAUSTED: ${call.runtime.sockets.max} sessions are open, the emulator's ceiling (maxSockets); close one first.`,
      );
  }

  private log(from: 'client' | 'server', type: string): void {
    const log = this.call.entry.events!;
    if (log.length < LIVE_LIMITS.journalEvents) log.push({ from, type: type.length > 64 ? detached(`${type.slice(0, 64)}…`) : type });
  }

  private nextId(prefix: string): string {
    return makeId(prefix, 16, deriveKey(this.key, `id:${++this.counter}`));
  }

  /** A server message as it goes on the wire (the service sends binary frames of JSON). */
  private frame(message: JsonObject): string {
    this.log('server', Object.keys(message).join('+'));
    return JSON.stringify(message);
  }

  private emit(message: JsonObject): void {
    if (this.gone) return;
    const text = this.frame(message);
    this.call.entry.eventsSent++;
    this.pump.send(text);
  }

  /** Closes with a close frame; the reason is cut to the 123 bytes a close frame carries. */
  private close(code: number, reason: string): void {
    if (this.gone) return;
    this.sink.close(code, closeReason(reason));
    this.closed();
  }

  private fail(error: GatewayError): void {
    this.close(closeCodeOf(error), error.message);
  }

  private overLimit(limit: PumpLimit): void {
    const L = LIVE_LIMITS;
    const what =
      limit === 'events'
        ? `more than ${L.events} messages`
        : limit === 'bytes'
          ? `more than ${L.bytes} bytes`
          : limit === 'serverBytes'
            ? `was sent more than ${L.serverBytes} bytes`
            : `more than ${L.waitingEvents} messages (or ${L.waitingBytes} bytes) while a turn was prepared`;
    this.close(1008, `This session sent ${what}, the emulator's limit; open a new session.`.replace('sent was sent', 'was sent'));
  }

  /** The pump dropped a reader that took nothing for the reader timeout: the session ends, aborted. */
  private dropReader(): void {
    if (this.gone) return;
    this.closed();
    this.call.entry.outcome = 'aborted';
  }

  closed(): void {
    if (this.gone) return;
    this.gone = true;
    for (const t of this.timers) clearTimeout(t);
    this.pump.stop();
    this.call.runtime.realtimeItems.give(this.historyBytes);
    this.history = [];
    this.sizes = [];
    this.historyBytes = 0;
    const { entry } = this.call;
    if (this.active && !this.active.done) {
      this.active.done = true;
      this.active.stop();
      this.call.runtime.activeStreams--;
      entry.outcome = 'aborted';
    } else if (this.preparing) entry.outcome = 'aborted';
    else if (entry.outcome === 'streaming') entry.outcome = 'completed';
  }

  receive(text: string): void {
    if (!this.gone) this.pump.receive(text);
  }

  private handle(text: string): void {
    if (this.gone) return;
    if (this.preparing) return void this.pump.hold(text);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.log('client', '(invalid json)');
      return this.close(1007, 'Invalid JSON payload received. Each message must be one JSON object, e.g. {"setup":{"model":"models/…"}}.');
    }
    if (!isJsonObject(message)) {
      this.log('client', '(not an object)');
      return this.close(
        1007,
        'Invalid JSON payload received. A message must be a JSON object holding one of setup, clientContent, realtimeInput, toolResponse.',
      );
    }
    const names = Object.keys(message);
    this.log('client', names.join('+').slice(0, 64) || '(empty)');
    try {
      const unknown = names.find((n) => !CLIENT_MESSAGES.includes(n));
      if (unknown !== undefined) throw invalid(unknown, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
      if (names.length !== 1)
        throw invalid('', `Request contains an invalid argument: a message holds exactly one of ${CLIENT_MESSAGES.join(', ')}.`);
      const [name] = names;
      const body = message[name];
      checkField(name, body, { types: ['object'], required: true });
      if (name === 'setup') return this.setup(body);
      if (!this.config) throw invalid(name, `Request contains an invalid argument: the first message must be setup, not ${name}.`);
      if (name === 'clientContent') return this.clientContent(body);
      if (name === 'realtimeInput') return this.realtimeInput(body);
      return this.toolResponse(body);
    } catch (error) {
      this.fail(asGatewayError(error, 'event'));
    }
  }

  // --- setup ---

  private setup(raw: JsonObject): void {
    if (this.config) throw invalid('setup', 'Request contains an invalid argument: setup is sent once, as the first message.');
    const setup = this.options.constrain ? this.options.constrain(raw) : raw;
    const config = parseSetup(setup);
    const info = this.call.runtime.catalogue.get(config.model);
    if (!info?.capabilities.includes('realtime'))
      throw new GatewayError(
        'not_found',
        `models/${config.model} is not found for API version ${/\.(v1\w*)\./.exec(this.call.inbound.url.pathname)?.[1] ?? 'v1beta'}, or is not supported for bidiGenerateContent. Call ListModels to see the list of available models and their supported methods.`,
      );
    this.call.runtime.tokens.allow(this.call.token, config.model);
    if (config.resumeHandle) {
      const kept = this.options.resumable.get(config.resumeHandle);
      if (!kept)
        throw invalid(
          'setup.sessionResumption.handle',
          'Request contains an invalid argument: the session resumption handle is unknown or expired.',
        );
      for (const turn of kept.history) this.remember(turn);
    }
    this.config = config;
    this.setupRaw = setup;
    this.call.entry.model = config.model;
    this.emit({ setupComplete: {} });
  }

  // --- the conversation ---

  /**
   * A turn kept. Past the session's limit, or when the pool all live sessions share is full, the oldest
   * turns go first; a turn that still cannot be kept closes the session (1008).
   */
  private remember(turn: JsonObject): void {
    const size = JSON.stringify(turn).length;
    const pool = this.call.runtime.realtimeItems;
    while (this.history.length && (this.historyBytes + size > LIVE_LIMITS.historyBytes || !pool.take(size))) this.forgetOldest();
    if (!this.history.length && (size > LIVE_LIMITS.historyBytes || !pool.take(size)))
      throw new GatewayError(
        'invalid_request',
        `Request contains an invalid argument: a turn of ${size} bytes is more than the emulator keeps of a conversation (${LIVE_LIMITS.historyBytes} bytes a session, and what other sessions leave).`,
      );
    this.history.push(turn);
    this.sizes.push(size);
    this.historyBytes += size;
  }

  /** The model's turn, sent already: past what the sessions may keep, it is not kept for later turns. */
  private keepModelTurn(turn: JsonObject): void {
    try {
      this.remember(turn);
    } catch {
      // Not kept; the next turn is answered without it.
    }
  }

  private forgetOldest(): void {
    this.history.shift();
    const size = this.sizes.shift() ?? 0;
    this.historyBytes -= size;
    this.call.runtime.realtimeItems.give(size);
  }

  private checkContents(contents: unknown[], at: string): void {
    // The turns as generate-content checks them (roles, parts), so Live refuses what that refuses.
    try {
      parseGenerateRequest({ contents }, this.config!.model, true);
    } catch (error) {
      const e = asGatewayError(error, 'event');
      throw new GatewayError('invalid_request', e.message.replaceAll('contents', at), { param: at });
    }
  }

  private clientContent(raw: JsonObject): void {
    checkFields(raw, { turns: { types: ['array'] }, turnComplete: { types: ['boolean'] } }, 'clientContent.');
    const turns: unknown[] = raw.turns ?? [];
    if (turns.length) this.checkContents(turns, 'clientContent.turns');
    this.interrupt();
    for (const t of turns) this.remember(t as JsonObject);
    if (raw.turnComplete) this.respond();
  }

  private realtimeInput(raw: JsonObject): void {
    checkFields(
      raw,
      {
        mediaChunks: { types: ['array'] },
        audio: { types: ['object'] },
        video: { types: ['object'] },
        text: { types: ['string'] },
        activityStart: { types: ['object'] },
        activityEnd: { types: ['object'] },
        audioStreamEnd: { types: ['boolean'] },
      },
      'realtimeInput.',
    );
    const config = this.config!;
    if ((raw.activityStart || raw.activityEnd) && config.vad)
      throw invalid('realtimeInput', 'Explicit activity control is not supported when automatic activity detection is enabled.');
    if (raw.activityStart) {
      this.clearAudio();
      this.interrupt();
    }
    for (const [i, chunk] of (raw.mediaChunks ?? []).entries()) this.media(chunk, `realtimeInput.mediaChunks[${i}]`);
    if (raw.audio) this.media(raw.audio, 'realtimeInput.audio', 'audio/');
    if (raw.video) this.media(raw.video, 'realtimeInput.video', 'image/');
    if (typeof raw.text === 'string' && raw.text) {
      this.interrupt();
      this.remember({ role: 'user', parts: [{ text: raw.text }] });
      this.respond();
    }
    if (raw.activityEnd) this.endTurn();
    if (raw.audioStreamEnd && this.vad.inSpeech) {
      this.vad.reset();
      this.endTurn();
    }
  }

  /** One blob of realtime input: audio is heard (and detected), an image frame is taken and dropped. */
  private media(blob: unknown, at: string, kind?: string): void {
    checkField(at, blob, { types: ['object'], required: true });
    checkFields(blob, { mimeType: { types: ['string'], required: true }, data: { types: ['string'], required: true } }, `${at}.`);
    const mime: string = blob.mimeType;
    if (kind && !mime.startsWith(kind)) throw invalid(`${at}.mimeType`, `Unsupported mime type ${mime} for ${at}; expected ${kind}*.`);
    if (!mime.startsWith('audio/')) {
      if (!mime.startsWith('image/'))
        throw invalid(`${at}.mimeType`, `Unsupported mime type ${mime}: realtime input takes audio/pcm and image/* frames.`);
      return;
    }
    const rate = Number(/rate=(\d+)/.exec(mime)?.[1] ?? INPUT_RATE);
    if (!mime.startsWith('audio/pcm') || rate !== INPUT_RATE)
      throw invalid(`${at}.mimeType`, `Unsupported audio ${mime}: send 16-bit PCM at 16 kHz, "audio/pcm;rate=16000".`);
    let samples: Int16Array;
    try {
      samples = pcmFromBase64(blob.data);
    } catch {
      throw invalid(`${at}.data`, `Invalid value at '${at}.data' (TYPE_BYTES), Base64 decoding failed.`);
    }
    if (this.audioBytes + samples.byteLength > LIVE_LIMITS.audioBytes)
      throw invalid(at, `A turn holds at most ${LIVE_LIMITS.audioBytes} bytes of audio; end the turn (activityEnd, or silence) first.`);
    this.audio.push(samples);
    this.audioBytes += samples.byteLength;
    this.audioKey = hashString(blob.data, this.audioKey % 2147483647);
    const vad = this.config!.vad;
    if (!vad) return;
    this.vad.feed(samples, vad, (edge) => {
      if (edge.type === 'start') return void this.interrupt();
      this.endTurn();
      return !this.gone;
    });
  }

  private clearAudio(): void {
    this.audio = [];
    this.audioBytes = 0;
    this.audioKey = 0;
  }

  /** The user stopped speaking: the turn's audio is heard (and transcribed, if asked), then answered. */
  private endTurn(): void {
    if (!this.audioBytes) return;
    const samples = new Int16Array(this.audioBytes / 2);
    let offset = 0;
    for (const chunk of this.audio) {
      samples.set(chunk, offset);
      offset += chunk.length;
    }
    const heard = transcribe(samples, INPUT_RATE, this.audioKey);
    this.clearAudio();
    if (this.config!.inputTranscription) this.emit({ serverContent: { inputTranscription: { text: heard } } });
    this.remember({ role: 'user', parts: [{ text: heard }] });
    this.respond();
  }

  private toolResponse(raw: JsonObject): void {
    checkFields(raw, { functionResponses: { types: ['array'], required: true } }, 'toolResponse.');
    const parts = raw.functionResponses.map((r: unknown, i: number) => {
      const at = `toolResponse.functionResponses[${i}]`;
      checkField(at, r, { types: ['object'], required: true });
      checkFields(
        r,
        {
          id: { types: ['string'] },
          name: { types: ['string'], required: true },
          response: { types: ['object'] },
          scheduling: { types: ['string'] },
          willContinue: { types: ['boolean'] },
          parts: { types: ['array'] },
        },
        `${at}.`,
      );
      return { functionResponse: { ...(r.id ? { id: r.id } : {}), name: r.name, response: r.response ?? {} } };
    });
    const answered = new Set(parts.map((p: { functionResponse: { id?: string } }) => p.functionResponse.id));
    this.pendingCalls = this.pendingCalls.filter((id) => !answered.has(id));
    this.remember({ role: 'user', parts });
    if (!this.pendingCalls.length) this.respond();
  }

  /** The client's activity cuts the response being played: `interrupted`, and unanswered calls cancelled. */
  private interrupt(): void {
    if (!this.config?.interrupts) return;
    if (this.pendingCalls.length) {
      this.emit({ toolCallCancellation: { ids: this.pendingCalls } });
      this.pendingCalls = [];
    }
    if (this.cut()) this.emit({ serverContent: { interrupted: true } });
  }

  /** Stops the response being played, keeping what was sent of it; false when none was. */
  private cut(): boolean {
    const active = this.active;
    if (!active || active.done) return false;
    active.done = true;
    this.active = undefined;
    active.stop();
    this.call.runtime.activeStreams--;
    if (active.text) this.keepModelTurn({ role: 'model', parts: [{ text: active.text }] });
    return true;
  }

  // --- responses ---

  private respond(): void {
    const config = this.config!;
    // A turn that does not interrupt (NO_INTERRUPTION) still ends the one before it, heard so far.
    this.cut();
    const { call } = this;
    let answered;
    try {
      const { request } = parseGenerateRequest({ ...config.base, contents: this.history }, config.model, true);
      answered = answer(call, request);
      if (isForward(answered))
        throw new GatewayError('invalid_request', 'Record mode cannot forward a Live turn: add a fixture that answers it.');
    } catch (error) {
      return this.fail(asGatewayError(error, 'event'));
    }
    const { reply, latency, fault } = answered;
    if (fault && isConnectionFault(fault)) {
      this.sink.terminate();
      return this.closed();
    }
    this.preparing = true;
    const audio = config.modality === 'AUDIO';
    void speakTextBlocks(reply.choices[0].blocks, audio ? config.voice : undefined, (b) => deriveKey(reply.key, `live-speech:${b}`), {
      count: (n) => (call.entry.speechSamples = (call.entry.speechSamples ?? 0) + n),
      stopped: () => this.gone,
    })
      .then((speech) => {
        this.preparing = false;
        if (!speech || this.gone) return;
        this.play(reply, latency, speech);
        this.pump.resume();
      })
      .catch((error: unknown) => {
        this.preparing = false;
        this.fail(asGatewayError(error, 'event'));
      });
  }

  private play(reply: CanonicalReply, latency: LatencyProfile, speech: ReadonlyMap<number, Int16Array>): void {
    const config = this.config!;
    const { frames, calls, text } = this.plan(reply, latency, speech);
    const active: Active = { stop: () => {}, text: '', done: false };
    this.active = active;
    this.call.runtime.activeStreams++;
    const texts = frames.map((f) => f.text);
    active.stop = this.pump.play(frames, {
      sent: () => this.call.entry.eventsSent++,
      onProgress: (sent) => {
        active.text = texts[sent - 1] ?? active.text;
      },
      onEnd: () => {
        if (active.done || this.active !== active) return;
        active.done = true;
        this.active = undefined;
        this.call.runtime.activeStreams--;
        const parts: JsonObject[] = [...(text ? [{ text }] : []), ...calls.map((c) => ({ functionCall: c }))];
        if (parts.length) this.keepModelTurn({ role: 'model', parts });
        this.pendingCalls = calls.map((c) => c.id);
        if (config.resumption && !calls.length) this.offerHandle();
      },
    });
  }

  /** After a turn, a handle the session can be resumed by (kept with the conversation so far). */
  private offerHandle(): void {
    const handle = this.nextId('');
    const kept: Resumable = { setup: this.setupRaw!, history: [...this.history] };
    const stored = this.options.resumable.set(handle, kept, this.historyBytes + JSON.stringify(kept.setup).length);
    this.emit({ sessionResumptionUpdate: stored ? { newHandle: handle, resumable: true } : { resumable: false } });
  }

  /** A reply as Live's messages, each when due; `text` on a frame is the model text sent up to it. */
  private plan(reply: CanonicalReply, latency: LatencyProfile, speech: ReadonlyMap<number, Int16Array>) {
    const config = this.config!;
    const audio = config.modality === 'AUDIO';
    const blocks = reply.choices[0].blocks;
    const steps = planStream(reply, latency);
    const frames: (PlannedFrame & { text: string })[] = [];
    let sofar = '';
    const push = (due: number, message: JsonObject) => frames.push({ due, data: this.frame(message), text: sofar });
    const piecesOf = new Map<number, number>();
    for (const s of steps) piecesOf.set(s.block, (piecesOf.get(s.block) ?? 0) + 1);
    const pieceAt = new Map<number, number>();
    const calls: { id: string; name: string; args: JsonObject }[] = [];
    let audioSeconds = 0;
    for (const step of steps) {
      const block = blocks[step.block];
      if (!block) continue;
      if (block.type === 'tool_call') {
        if (step.blockEnd) calls.push({ id: this.nextId('function-call-'), name: block.name, args: parseArgs(block.arguments) });
        continue;
      }
      if (block.type !== 'text') continue;
      const piece = pieceAt.get(step.block) ?? 0;
      pieceAt.set(step.block, piece + 1);
      sofar += step.text;
      if (!audio) {
        if (step.text) push(step.due, { serverContent: { modelTurn: { parts: [{ text: step.text }] } } });
        continue;
      }
      const samples = speech.get(step.block);
      if (samples) {
        if (piece === 0) audioSeconds += durationOf(samples, SPEECH_SAMPLE_RATE);
        const n = piecesOf.get(step.block) ?? 1;
        const run = samples.subarray(Math.floor((piece * samples.length) / n), Math.floor(((piece + 1) * samples.length) / n));
        if (run.length)
          push(step.due, {
            serverContent: {
              modelTurn: { parts: [{ inlineData: { mimeType: `audio/pcm;rate=${SPEECH_SAMPLE_RATE}`, data: toBase64(pcmBytes(run)) } }] },
            },
          });
      }
      if (config.outputTranscription && step.text) push(step.due, { serverContent: { outputTranscription: { text: step.text } } });
    }
    const end = steps.at(-1)?.due ?? 0;
    const prompt = reply.usage.inputTokens;
    const response = audio ? Math.ceil(audioSeconds * AUDIO_TOKENS_PER_SECOND) : reply.usage.outputTokens;
    const usageMetadata = {
      promptTokenCount: prompt,
      responseTokenCount: response,
      totalTokenCount: prompt + response,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
      responseTokensDetails: [{ modality: audio ? 'AUDIO' : 'TEXT', tokenCount: response }],
    };
    if (calls.length) push(end, { toolCall: { functionCalls: calls }, usageMetadata });
    else {
      push(end, { serverContent: { generationComplete: true } });
      push(end, { serverContent: { turnComplete: true }, usageMetadata });
    }
    return { frames, calls, text: sofar };
  }
}

function parseArgs(text: string): JsonObject {
  try {
    const args: unknown = JSON.parse(text || '{}');
    return isJsonObject(args) ? args : {};
  } catch {
    return {};
  }
}
