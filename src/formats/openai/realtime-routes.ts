// The realtime endpoints' handlers: the WebSocket upgrade on GET /v1/realtime, and the REST routes that
// mint ephemeral client secrets (GA /v1/realtime/client_secrets, beta /v1/realtime/sessions).
import { GatewayError } from '../../core/errors.ts';
import { deriveKey, hashString, makeId } from '../../core/seed.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { requireModel } from '../../pipeline/decide.ts';
import { RealtimeSession } from './realtime.ts';
import { applySession, defaultConfig, renderSession } from './realtime-config.ts';
import { checkField, checkFields, missing } from './validate.ts';
import { isJsonObject, type JsonObject } from '../fields.ts';

const BETA_SUBPROTOCOL = 'openai-beta.realtime-v1';
const DEFAULT_MODEL = 'gpt-realtime';

function protocols(call: Call): string[] {
  return (call.inbound.header('sec-websocket-protocol') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

function isBeta(call: Call): boolean {
  return /realtime=v1/.test(call.inbound.header('openai-beta') ?? '') || protocols(call).includes(BETA_SUBPROTOCOL);
}

/**
 * The model asked for, known and able to do realtime, and one the caller's token may use, or the
 * 400/403/404 the service answers: minting a key for a model outside the token's scope is the 403 using
 * the model is.
 */
function realtimeModel(call: Call, model: unknown): string {
  if (model === undefined || model === '') throw missing('model');
  checkField('model', model, { types: ['string'] });
  requireModel(call, model, 'realtime');
  call.runtime.tokens.allow(call.token, model);
  return model;
}

function upgrade(call: Call): Outbound {
  if ((call.inbound.header('upgrade') ?? '').toLowerCase() !== 'websocket') {
    throw new GatewayError(
      'invalid_request',
      'GET /v1/realtime is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket), e.g. wss://host/v1/realtime?model=gpt-realtime.',
    );
  }
  const beta = isBeta(call);
  const ephemeral = call.clientSecret === undefined ? undefined : call.runtime.tokens.ephemeralKey(call.clientSecret, call.runtime.now());
  const preset = ephemeral?.session;
  // A transcription session names no model (its transcription model is set in the session); a key minted for one opens one.
  const transcription = call.inbound.url.searchParams.get('intent') === 'transcription' || preset?.type === 'transcription';
  const model = transcription
    ? String(preset?.model ?? call.inbound.url.searchParams.get('model') ?? DEFAULT_MODEL)
    : realtimeModel(call, call.inbound.url.searchParams.get('model') ?? preset?.model);
  const offered = protocols(call);
  return {
    status: 101,
    headers: {},
    body: null,
    socket: {
      // Browsers offer `realtime` and need it back; the service answers nothing else.
      protocol: offered.includes('realtime') ? 'realtime' : offered[0],
      maxFrameBytes: call.runtime.maxBodyBytes,
      open: (sink) =>
        new RealtimeSession(call, sink, {
          model,
          beta,
          transcription,
          preset: preset && (transcription ? transcriptionPreset(preset, beta) : { ...preset, type: 'realtime', model: undefined }),
        }),
    },
  };
}

/** Seconds an ephemeral key lives: `expires_after.seconds` (10..7200, default 600). */
function lifetime(after: JsonObject | undefined): number {
  if (after === undefined) return 600;
  checkFields(
    after,
    { anchor: { types: ['string'], values: ['created_at'] }, seconds: { types: ['integer'], min: 10, max: 7200 } },
    'expires_after.',
  );
  return after.seconds ?? 600;
}

function mint(call: Call, session: JsonObject, seconds: number) {
  const expiresAt = call.runtime.now() + seconds;
  return call.runtime.tokens.mint({ expiresAt, parent: call.token, session });
}

/** GA: a client secret for one session configuration, checked as a session.update would check it. */
function clientSecrets(call: Call<JsonObject>): Outbound {
  const body = call.body;
  checkFields(body, { expires_after: { types: ['object'] }, session: { types: ['object'] } });
  const seconds = lifetime(body.expires_after);
  const session = body.session ?? { type: 'realtime' };
  if (session.type === 'transcription') {
    const config = applySession(defaultConfig(DEFAULT_MODEL, false, 'transcription'), session, false);
    const key = mint(call, session, seconds);
    const id = makeId('sess_', 21, deriveKey(hashString(key.value), 'session'));
    return json({ value: key.value, expires_at: key.expiresAt, session: renderSession(config, id, key.expiresAt, false) });
  }
  const model = realtimeModel(call, session.model ?? DEFAULT_MODEL);
  // Checked as a session.update would be, so a bad configuration is refused here, not at connect.
  const config = applySession(defaultConfig(model, false), { ...session, model: undefined }, false);
  const key = mint(call, { ...session, model }, seconds);
  const id = makeId('sess_', 21, deriveKey(hashString(key.value), 'session'));
  return json({ value: key.value, expires_at: key.expiresAt, session: renderSession(config, id, key.expiresAt, false) });
}

/** Beta: a session, with its client secret. */
function sessions(call: Call<JsonObject>): Outbound {
  const body = call.body;
  const model = realtimeModel(call, body.model ?? DEFAULT_MODEL);
  const { model: _model, ...rest } = body;
  const config = applySession(defaultConfig(model, true), rest, true, 'session');
  // Beta keys live one minute, as the service's did.
  const key = mint(call, { ...betaAsGa(rest), model }, 60);
  const id = makeId('sess_', 21, deriveKey(hashString(key.value), 'session'));
  return json({ ...renderSession(config, id, key.expiresAt, true), client_secret: { value: key.value, expires_at: key.expiresAt } });
}

/** A transcription key's session (GA's shape) as the preset of a session in the client's protocol. */
function transcriptionPreset(preset: JsonObject, beta: boolean): JsonObject {
  if (!beta) return preset;
  const audio: unknown = preset.audio;
  const input: JsonObject = isJsonObject(audio) && isJsonObject(audio.input) ? audio.input : {};
  return {
    ...(input.transcription !== undefined ? { input_audio_transcription: input.transcription } : {}),
    ...(input.turn_detection !== undefined ? { turn_detection: input.turn_detection } : {}),
  };
}

/** The handlers of the realtime routes (routes-media.ts: loaded on the first request to one). */
export const realtimeHandlers = { upgrade, clientSecrets, sessions } satisfies Record<string, EndpointSpec['handle']>;

/** A beta session configuration in GA terms, so the key presets any client's session alike. */
function betaAsGa(s: JsonObject): JsonObject {
  const input: JsonObject = {};
  if (s.input_audio_transcription !== undefined) input.transcription = s.input_audio_transcription;
  if (s.turn_detection !== undefined) input.turn_detection = s.turn_detection;
  const output: JsonObject = typeof s.voice === 'string' ? { voice: s.voice } : {};
  return {
    type: 'realtime',
    ...(typeof s.instructions === 'string' ? { instructions: s.instructions } : {}),
    ...(Array.isArray(s.tools) ? { tools: s.tools } : {}),
    ...(s.tool_choice !== undefined ? { tool_choice: s.tool_choice } : {}),
    ...(Array.isArray(s.modalities) ? { output_modalities: s.modalities.includes('audio') ? ['audio'] : ['text'] } : {}),
    audio: { input, output },
  };
}
