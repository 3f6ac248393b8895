// Gemini Live's endpoints: the BidiGenerateContent WebSocket (v1beta and v1alpha, key by `?key=`), its
// Constrained form for ephemeral tokens (`?access_token=auth_tokens/…`, v1alpha), and the REST route
// that mints those tokens (POST /v1alpha/auth_tokens). A token inherits its minter's scope, opens at
// most `uses` sessions until `newSessionExpireTime`, and lays its locked setup over the client's.
import { GatewayError } from '../../core/errors.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import { isJsonObject, type JsonObject } from '../fields.ts';
import { LiveSession, type Resumable } from './live.ts';
import { constrained, modelId, parseSetup } from './live-setup.ts';
import { checkField, checkFields, invalid } from './validate.ts';

/** Resumable Live sessions by handle, per test: 1000 and 64 MiB at most, the oldest dropped first (a handle the service no longer knows). */
const LIVE_SESSIONS = defineStore<Resumable>({
  name: 'gemini.live-sessions',
  title: 'Resumable Gemini Live sessions',
  maxCount: 1000,
  maxBytes: 64 * 1024 * 1024,
  whenFull: 'drop-oldest',
  describe: (kept) => ({ model: String(kept.setup.model ?? ''), turns: kept.history.length }),
});

/** An ephemeral token's lifetimes, as the service's defaults and ceiling (seconds). */
const TOKEN_DEFAULTS = { expireSeconds: 30 * 60, newSessionSeconds: 60, maxSeconds: 20 * 60 * 60 };

function upgrade(call: Call): Outbound {
  if ((call.inbound.header('upgrade') ?? '').toLowerCase() !== 'websocket') {
    throw new GatewayError(
      'invalid_request',
      `${call.inbound.url.pathname} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket), as @google/genai's ai.live.connect does.`,
    );
  }
  let constrain: ((setup: JsonObject) => JsonObject) | undefined;
  if (call.clientSecret !== undefined) {
    const { tokens } = call.runtime;
    const token = tokens.ephemeralKey(call.clientSecret, call.runtime.now(), 'live');
    const now = call.runtime.now();
    if (!token || (token.startBy !== undefined && now >= token.startBy))
      throw new GatewayError(
        'authentication',
        'The auth token has expired for new sessions (newSessionExpireTime); mint a new one with authTokens.create.',
      );
    if (!tokens.useEphemeral(call.clientSecret))
      throw new GatewayError(
        'authentication',
        'The auth token has been used as many times as its `uses` allows; mint a new one with authTokens.create.',
      );
    const { locked, mask } = token.session as { locked?: JsonObject; mask?: string[] };
    constrain = (setup) => constrained(setup, locked, mask);
  }
  const resumable = heldFor(call, LIVE_SESSIONS);
  return {
    status: 101,
    headers: {},
    body: null,
    socket: {
      maxFrameBytes: call.runtime.maxBodyBytes,
      open: (sink) => new LiveSession(call, sink, { constrain, resumable }),
    },
  };
}

/** A timestamp field (RFC 3339) as Unix seconds; `fallback` when absent. */
function timeOf(call: Call, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  checkField(field, value, { types: ['string'] });
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw invalid(
      field,
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Timestamp), Field '${field}', Illegal timestamp format; timestamps must end with 'Z' or have a valid timezone offset.`,
    );
  const seconds = Math.floor(ms / 1000);
  if (seconds <= call.runtime.now()) throw invalid(field, `${field} must be in the future.`);
  return seconds;
}

/** POST /v1alpha/auth_tokens: an ephemeral token for Live, its setup checked as a session's would be. */
function authTokens(call: Call<JsonObject>): Outbound {
  const body = call.body;
  checkFields(body, {
    name: { types: ['string'] },
    uses: { types: ['integer'], min: 0 },
    expireTime: { types: ['string'] },
    newSessionExpireTime: { types: ['string'] },
    bidiGenerateContentSetup: { types: ['object'] },
    fieldMask: { types: ['string', 'array'] },
  });
  const now = call.runtime.now();
  const expiresAt = timeOf(call, 'expireTime', body.expireTime, now + TOKEN_DEFAULTS.expireSeconds);
  if (expiresAt > now + TOKEN_DEFAULTS.maxSeconds) throw invalid('expireTime', 'expireTime must be at most 20 hours in the future.');
  const startBy = Math.min(
    expiresAt,
    timeOf(call, 'newSessionExpireTime', body.newSessionExpireTime, now + TOKEN_DEFAULTS.newSessionSeconds),
  );
  const locked: JsonObject | undefined = body.bidiGenerateContentSetup;
  if (locked) {
    if (locked.model !== undefined) {
      checkField('bidiGenerateContentSetup.model', locked.model, { types: ['string'] });
      const model = modelId(locked.model);
      if (!call.runtime.catalogue.get(model)?.capabilities.includes('realtime'))
        throw new GatewayError(
          'not_found',
          `models/${model} is not found for API version v1alpha, or is not supported for bidiGenerateContent.`,
        );
      // Minting a token for a model outside the minter's scope is the 403 using it is.
      call.runtime.tokens.allow(call.token, model);
      // Checked as a session's setup would be, so a bad constraint is refused here, not at connect.
      parseSetup(locked);
    }
  }
  const rawMask: unknown = body.fieldMask;
  const mask = (Array.isArray(rawMask) ? rawMask : typeof rawMask === 'string' ? rawMask.split(',') : [])
    .filter((m): m is string => typeof m === 'string')
    .map((m) => m.trim().replace(/^bidiGenerateContentSetup\./, ''))
    .filter(Boolean);
  // `uses` 0 or absent is one use, as the service's default.
  const uses = body.uses || 1;
  const key = call.runtime.tokens.mint({
    kind: 'live',
    expiresAt,
    startBy,
    uses,
    parent: call.token,
    session: { ...(locked ? { locked } : {}), ...(mask.length ? { mask } : {}) },
  });
  const iso = (s: number) => new Date(s * 1000).toISOString();
  return json({
    name: key.value,
    uses,
    expireTime: iso(expiresAt),
    newSessionExpireTime: iso(startBy),
    ...(locked && isJsonObject(locked) ? { bidiGenerateContentSetup: locked } : {}),
    ...(mask.length ? { fieldMask: mask.join(',') } : {}),
  });
}

/** The handlers of the Live routes (routes.ts: loaded on the first request to one). */
export const liveHandlers = { upgrade, authTokens } satisfies Record<string, EndpointSpec['handle']>;
