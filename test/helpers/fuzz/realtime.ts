// Fuzzing the realtime WebSocket: a case is one fresh session (GA, or beta by header or subprotocol)
// and a short script of client events, well-formed or mutated, then a sentinel that always gets an
// answer. The verdict: every error event is the service's invalid_request_error with a message, no
// response fails with a server_error, the socket stays open (bar an oversized frame's 1009), nothing hangs.
import fc from 'fast-check';
import WebSocket from 'ws';
import { assertRealtimeEvents } from '../openapi.ts';
import { REQUEST_MS, Hang } from './harness.ts';
import { longText, mutate, mutation, serialize, text, toolName, toolSchema, weird } from './values.ts';

/** The largest frame the fuzzed gateways accept (their maxBodyBytes): an oversized case sends one byte more. */
export const MAX_FRAME = 1024 * 1024;

export interface RealtimeCase {
  /** The protocol: GA, or beta asked by the OpenAI-Beta header (socket only) or the subprotocol. */
  beta: false | 'header' | 'subprotocol';
  /** Client frames, in order: JSON events (well-formed or mutated), now and then not JSON at all. */
  frames: string[];
  /**
   * A frame is larger than MAX_FRAME (a deliberate one ends some cases; costly schemas and long strings
   * now and then make one too): the server may close with 1009 instead of answering the sentinel, and
   * must when the frame's characters alone pass the limit (`ws` counts bytes, the in-process check characters).
   */
  oversized: boolean;
}

/** Always answered, after every earlier event: an error event naming the unknown item, with this event id. */
const SENTINEL_ID = 'evt_sentinel';
const SENTINEL = JSON.stringify({ type: 'conversation.item.retrieve', event_id: SENTINEL_ID, item_id: 'item_sentinel_never_made' });

// ---- events --------------------------------------------------------------------------------------

type Json = Record<string, unknown>;
/** A record whose keys are all optional (fast-check leaves absent keys out). */
const some = <T extends Json>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(model, { requiredKeys: [] });

/** Item ids the script names: created items sometimes carry one, so retrieve, delete, truncate and previous_item_id find it. */
const itemId = fc.constantFrom('item_a', 'item_b', 'item_c');
const eventId = fc.constantFrom('evt_1', 'evt_2', 'evt_3');

/** Base64 PCM16 at 24 kHz: a tone (voiced: server VAD hears it) then silence, short so cases stay quick; or an odd string. */
const audio = fc.oneof(
  {
    arbitrary: fc
      .record({
        toneMs: fc.integer({ min: 0, max: 1200 }),
        silenceMs: fc.integer({ min: 0, max: 900 }),
        level: fc.integer({ min: 0, max: 20000 }),
      })
      .map(({ toneMs, silenceMs, level }) => {
        const tone = Math.round(toneMs * 24);
        const bytes = Buffer.alloc((tone + Math.round(silenceMs * 24)) * 2);
        for (let i = 0; i < tone; i++) bytes.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 180 * i) / 24000) * level), i * 2);
        return bytes.toString('base64');
      }),
    weight: 6,
  },
  { arbitrary: fc.constantFrom('', 'A', 'AA==', 'AAA', 'not base64!', '====', 'AAAA'.repeat(10) + '=A'), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')), weight: 1 },
);

const tool = fc.oneof(
  {
    arbitrary: some({ type: fc.constant('function'), name: toolName, description: text, parameters: toolSchema }).map((t) => ({
      name: 'x',
      ...t,
    })),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      type: fc.constant('mcp'),
      server_label: fc.constantFrom('docs', 'x'),
      server_url: fc.constant('https://mcp.invalid/sse'),
    }),
    weight: 1,
  },
);
const toolChoice = fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.record({ type: fc.constant('function'), name: toolName }));
const turnDetection = fc.oneof(
  fc.constant(null),
  some({
    threshold: fc.double({ min: 0, max: 1, noNaN: true }),
    prefix_padding_ms: fc.integer({ min: 0, max: 1000 }),
    silence_duration_ms: fc.integer({ min: 0, max: 1500 }),
    create_response: fc.boolean(),
    interrupt_response: fc.boolean(),
  }).map((d) => ({ type: 'server_vad', ...d })),
  some({ eagerness: fc.constantFrom('low', 'medium', 'high', 'auto'), create_response: fc.boolean() }).map((d) => ({
    type: 'semantic_vad',
    ...d,
  })),
);
const transcription = fc.oneof(
  fc.constant(null),
  some({ model: fc.constantFrom('whisper-1', 'gpt-4o-transcribe'), language: fc.constantFrom('en', 'fr'), prompt: text }),
);
const maxTokens = fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.constant('inf'));
/** Text answers mostly: an audio answer synthesizes speech, which is slower. */
const gaModalities = fc.oneof({ arbitrary: fc.constant(['text']), weight: 3 }, { arbitrary: fc.constant(['audio']), weight: 1 });
const betaModalities = fc.oneof({ arbitrary: fc.constant(['text']), weight: 3 }, { arbitrary: fc.constant(['text', 'audio']), weight: 1 });
const voice = fc.constantFrom('alloy', 'marin', 'cedar', 'verse');

/** A content part; beta names (`text`, `audio`) are accepted in either protocol. */
const part = (role: string) =>
  role === 'system'
    ? fc.record({ type: fc.constantFrom('input_text', 'text'), text })
    : role === 'assistant'
      ? fc.oneof(
          fc.record({ type: fc.constantFrom('output_text', 'text'), text }),
          some({ transcript: text }).map((p) => ({ type: 'output_audio', ...p })),
          some({ transcript: text }).map((p) => ({ type: 'audio', ...p })),
        )
      : fc.oneof(
          fc.record({ type: fc.constantFrom('input_text', 'text'), text }),
          some({ audio, transcript: text }).map((p) => ({ type: 'input_audio', ...p })),
          fc.record({ type: fc.constant('input_image'), image_url: fc.constant('data:image/png;base64,iVBORw0KGgo=') }),
        );

const item: fc.Arbitrary<Json> = fc.oneof(
  {
    arbitrary: fc
      .constantFrom('user', 'assistant', 'system')
      .chain((role) =>
        some({ id: itemId }).chain((id) =>
          fc.array(part(role), { minLength: 1, maxLength: 3 }).map((content) => ({ ...id, type: 'message', role, content })),
        ),
      ),
    weight: 4,
  },
  {
    arbitrary: some({ id: itemId, call_id: fc.constantFrom('call_1', 'call_2') }).chain((head) =>
      fc
        .record({ name: toolName, arguments: fc.oneof(fc.constant('{"city":"Oslo"}'), text) })
        .map((body) => ({ ...head, type: 'function_call', ...body })),
    ),
    weight: 1,
  },
  {
    arbitrary: some({ id: itemId }).chain((head) =>
      fc
        .record({ call_id: fc.constantFrom('call_1', 'call_2'), output: text })
        .map((b) => ({ ...head, type: 'function_call_output', ...b })),
    ),
    weight: 1,
  },
);

const gaSession = some({
  instructions: text,
  output_modalities: gaModalities,
  tools: fc.array(tool, { maxLength: 3 }),
  tool_choice: toolChoice,
  max_output_tokens: maxTokens,
  audio: some({
    input: some({ format: fc.constant({ type: 'audio/pcm', rate: 24000 }), transcription, turn_detection: turnDetection }),
    output: some({ voice, speed: fc.double({ min: 0.25, max: 1.5, noNaN: true }) }),
  }),
}).map((s) => ({ type: 'realtime', ...s }));

const betaSession = some({
  instructions: text,
  modalities: betaModalities,
  voice,
  input_audio_format: fc.constant('pcm16'),
  input_audio_transcription: transcription,
  turn_detection: turnDetection,
  temperature: fc.double({ min: 0.6, max: 1.2, noNaN: true }),
  max_response_output_tokens: maxTokens,
  speed: fc.double({ min: 0.25, max: 1.5, noNaN: true }),
  tools: fc.array(tool, { maxLength: 3 }),
  tool_choice: toolChoice,
});

const commonResponse = {
  instructions: text,
  tools: fc.array(tool, { maxLength: 3 }),
  tool_choice: toolChoice,
  conversation: fc.constantFrom('auto', 'none'),
  input: fc.array(item, { maxLength: 2 }),
  metadata: fc.dictionary(fc.constantFrom('topic', 'k'), text, { maxKeys: 2 }),
};
const gaResponse = some({
  ...commonResponse,
  output_modalities: gaModalities,
  max_output_tokens: maxTokens,
  audio: some({ output: some({ voice }) }),
});
const betaResponse = some({
  ...commonResponse,
  modalities: betaModalities,
  max_response_output_tokens: maxTokens,
  voice,
  output_audio_format: fc.constant('pcm16'),
  temperature: fc.double({ min: 0.6, max: 1.2, noNaN: true }),
});

/** A well-formed event of `type` (with an event_id now and then). */
const event = (type: string, body: fc.Arbitrary<Json> = fc.constant({})) =>
  fc.tuple(fc.option(eventId, { nil: undefined }), body).map(([id, b]) => ({ type, ...(id ? { event_id: id } : {}), ...b }));

/** A well-formed client event of every type, in the protocol's shapes. */
const wellFormed = (beta: boolean): fc.Arbitrary<Json> =>
  fc.oneof(
    {
      arbitrary: event(
        'session.update',
        (beta ? betaSession : gaSession).map((session) => ({ session })),
      ),
      weight: 3,
    },
    {
      arbitrary: event(
        'input_audio_buffer.append',
        audio.map((a) => ({ audio: a })),
      ),
      weight: 3,
    },
    event('input_audio_buffer.commit'),
    event('input_audio_buffer.clear'),
    event('output_audio_buffer.clear'),
    {
      arbitrary: event(
        'conversation.item.create',
        fc.record({ item, previous_item_id: fc.constantFrom('root', 'item_a', 'item_nope', null) }, { requiredKeys: ['item'] }),
      ),
      weight: 4,
    },
    event('conversation.item.retrieve', fc.record({ item_id: itemId })),
    event('conversation.item.delete', fc.record({ item_id: itemId })),
    event('conversation.item.truncate', fc.record({ item_id: itemId, content_index: fc.nat(2), audio_end_ms: fc.nat(3000) })),
    { arbitrary: event('response.create', some({ response: beta ? betaResponse : gaResponse })), weight: 4 },
    event('response.cancel', some({ response_id: fc.constant('resp_nope') })),
  );

/** Frames that are not a JSON object at all. */
const rawFrame = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '42',
    '"response.create"',
    '{',
    '{"type":',
    'response.create',
    '{"type":"response.create"}}',
    '\u0000',
  ),
  text,
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
);

/** One client frame: well-formed, mutated (wrong types, nulls, unknown fields, deep nesting, long strings), or raw. */
const frame = (beta: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: wellFormed(beta).map((e) => serialize(e)), weight: 5 },
    {
      arbitrary: fc.tuple(wellFormed(beta), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([e, m]) => serialize(mutate(e, m))),
      weight: 5,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom('session', 'item', 'response', 'audio', 'item_id', 'type'), fc.oneof(weird, longText))
        .map(([k, v]) => serialize({ type: 'response.create', [k]: v })),
      weight: 1,
    },
    { arbitrary: rawFrame, weight: 1 },
  );

/** A frame one byte over MAX_FRAME (ASCII, so characters and bytes agree). */
const oversizedFrame = (): string => {
  const head = '{"type":"input_audio_buffer.append","audio":"';
  return `${head}${'A'.repeat(MAX_FRAME + 1 - head.length - 2)}"}`;
};

export const realtimeCases: fc.Arbitrary<RealtimeCase> = fc
  .constantFrom<RealtimeCase['beta']>(false, false, 'header', 'subprotocol')
  .chain((beta) =>
    fc.record({
      beta: fc.constant(beta),
      frames: fc.array(frame(beta !== false), { minLength: 1, maxLength: 4 }),
      big: fc.nat(49).map((n) => n === 0),
    }),
  )
  .map(({ beta, frames, big }) => {
    const all = big ? [...frames, oversizedFrame()] : frames;
    const c = { beta, frames: all, oversized: all.some((f) => Buffer.byteLength(f) > MAX_FRAME) };
    // fast-check's report shows the case as describeCase does: a megabyte frame cut short.
    return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) });
  });

/** The case for a failure report: protocol and frames (long ones cut). */
export function describeCase(c: RealtimeCase): string {
  const cut = (f: string) => (f.length > 400 ? `${f.slice(0, 400)}… (${f.length} chars)` : f);
  return `${c.beta === false ? 'GA' : `beta (${c.beta})`}\n${c.frames.map((f) => `    ${cut(f)}`).join('\n')}`;
}

// ---- connections ---------------------------------------------------------------------------------

type Ev = Record<string, any>;

/** A client socket the case drives: what it heard so far, and whether (how) it closed. */
export interface RealtimeClient {
  send(frame: string): void;
  close(): void;
  events: Ev[];
  /** Events heard by type, and the event_ids errors named: kept as events come, so a wait is no scan (a response can send 190k deltas). */
  counts: Map<string, number>;
  erroredIds: Set<unknown>;
  closeCode?: number;
  /** Resolves once `done()` holds (checked on each event and on close); a Hang after REQUEST_MS. */
  until(done: () => boolean, what: string): Promise<void>;
}

function client(): { c: RealtimeClient; heard(data: unknown): void; closed(code: number): void } {
  const waiters = new Set<() => void>();
  const c = {
    events: [] as Ev[],
    counts: new Map<string, number>(),
    erroredIds: new Set<unknown>(),
    closeCode: undefined as number | undefined,
    send: (_: string) => {},
    close: () => {},
    until(done: () => boolean, what: string) {
      return new Promise<void>((resolve, reject) => {
        if (done()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Hang(`realtime: no ${what} within ${REQUEST_MS} ms; heard ${c.events.map((e) => e.type).join(', ')}`));
        }, REQUEST_MS);
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
  };
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  return {
    c,
    heard(data) {
      const text = typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');
      let e: Ev;
      try {
        e = JSON.parse(text);
      } catch {
        e = { type: '(not JSON)', text };
      }
      c.events.push(e);
      c.counts.set(e.type, (c.counts.get(e.type) ?? 0) + 1);
      if (e.type === 'error') c.erroredIds.add(e.error?.event_id);
      notify();
    },
    closed(code) {
      c.closeCode = code;
      notify();
    },
  };
}

const BETA_PROTOCOL = 'openai-beta.realtime-v1';

/** In-process: the global WebSocket, which msw's ws.link intercepts (a browser's handshake: the key as a subprotocol). */
export function inProcessClient(rc: RealtimeCase): RealtimeClient {
  const { c, heard, closed } = client();
  const protocols = ['realtime', 'openai-insecure-api-key.sk-test', ...(rc.beta ? [BETA_PROTOCOL] : [])];
  const socket = new globalThis.WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', protocols);
  socket.addEventListener('message', (e) => heard(e.data));
  socket.addEventListener('close', (e) => closed(e.code));
  c.send = (f) => socket.send(f);
  c.close = () => socket.close();
  return c;
}

/** Over a socket: the `ws` package with a Bearer key; beta by the OpenAI-Beta header or the subprotocol. */
export function socketClient(wsRoot: string, rc: RealtimeCase): RealtimeClient {
  const { c, heard, closed } = client();
  const socket = new WebSocket(`${wsRoot}/v1/realtime?model=gpt-realtime`, rc.beta === 'subprotocol' ? [BETA_PROTOCOL] : [], {
    headers: { authorization: 'Bearer sk-test', ...(rc.beta === 'header' ? { 'openai-beta': 'realtime=v1' } : {}) },
  });
  socket.on('message', (d) => heard(String(d)));
  socket.on('close', (code) => closed(code));
  // A failed handshake or a reset: the close that follows is the verdict's business.
  socket.on('error', () => {});
  c.send = (f) => socket.send(f);
  c.close = () => socket.terminate();
  return c;
}

// ---- one case ------------------------------------------------------------------------------------

const count = (c: RealtimeClient, type: string) => c.counts.get(type) ?? 0;

/** Runs `rc` on a fresh client; throws an Error saying what broke. */
export async function runRealtimeCase(open: (rc: RealtimeCase) => RealtimeClient, rc: RealtimeCase): Promise<void> {
  const c = open(rc);
  try {
    await c.until(() => count(c, 'session.created') > 0 || c.closeCode !== undefined, 'session.created');
    if (c.closeCode !== undefined)
      throw new Error(`the session closed (${c.closeCode}) before session.created: ${JSON.stringify(c.events)}`);
    for (const f of rc.frames) c.send(f);
    c.send(SENTINEL);
    const answered = () => c.erroredIds.has(SENTINEL_ID);
    await c.until(() => answered() || c.closeCode !== undefined, 'answer to the sentinel');
    if (!answered()) {
      if (!(rc.oversized && c.closeCode === 1009))
        throw new Error(`the socket closed (code ${c.closeCode}) before the sentinel was answered`);
    } else {
      // Every response.created (sent before the sentinel's answer, the moment its response starts) ends in a response.done.
      await c.until(() => count(c, 'response.done') >= count(c, 'response.created') || c.closeCode !== undefined, 'response.done');
      if (c.closeCode !== undefined) throw new Error(`the socket closed (code ${c.closeCode}) during a response`);
      if (rc.frames.some((f) => f.length > MAX_FRAME)) throw new Error('an oversized frame was accepted');
    }
    judgeEvents(c.events);
    // GA events, as the spec describes them (beta's are not in it).
    if (rc.beta === false) assertRealtimeEvents(c.events);
  } finally {
    c.close();
  }
}

/** Every event is JSON with a type; errors are the client's fault and say what to fix; no response failed on the server. */
function judgeEvents(events: Ev[]): void {
  for (const e of events) {
    if (typeof e.type !== 'string' || e.type === '(not JSON)')
      throw new Error(`a server event that is not a JSON event: ${JSON.stringify(e)}`);
    if (e.type === 'error') {
      if (e.error?.type !== 'invalid_request_error') throw new Error(`an error event of type ${e.error?.type}: ${JSON.stringify(e)}`);
      if (typeof e.error.message !== 'string' || !e.error.message.trim())
        throw new Error(`an error event without a message: ${JSON.stringify(e)}`);
    }
    if (e.type === 'response.done') {
      const details = e.response?.status_details;
      if (details?.error?.type === 'server_error' || (e.response?.status === 'failed' && details?.error?.type !== 'invalid_request_error'))
        throw new Error(`a response failed on the server: ${JSON.stringify(e.response.status_details)}`);
    }
  }
}
