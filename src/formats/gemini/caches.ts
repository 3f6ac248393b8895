// Gemini's cached contents: `caches.create/get/list/update/delete` (`/v1beta/cachedContents`), and
// `cachedContent` on generate-content. A cache holds a model's contents, system instruction, tools and
// tool config; a request naming it is answered as if they came first in it (as the service prepends
// them), and the cache's tokens are reported in `usageMetadata.cachedContentTokenCount` and priced at
// the cached rate, as the format's prompt caching already counts. Caches are held per test
// (core/stores.ts) and expire on the gateway's clock (`ttl`, default an hour, or `expireTime`).
import { GatewayError } from '../../core/errors.ts';
import { DEFAULT_CACHE_MIN_TOKENS } from '../../core/cache.ts';
import { LATEST_CLOCK_SECONDS } from '../../core/clock.ts';
import { makeId } from '../../core/seed.ts';
import { defineStore } from '../../core/stores.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import type { JsonObject } from '../fields.ts';
import { freshId } from '../openai/files.ts';
import { geminiFormat } from './format.ts';
import { listPage } from './pages.ts';
import { parseGenerateRequest } from './parse.ts';

interface GeminiCache {
  /** `abc…`: the cache's name is `cachedContents/<id>`. */
  id: string;
  model: string;
  displayName?: string;
  /** What it holds, as the request gave it: contents, systemInstruction, tools, toolConfig. */
  held: JsonObject;
  /** Its prompt tokens, counted as generate-content counts them. */
  tokens: number;
  createdAt: number;
  updatedAt: number;
  /** Unix seconds, on the gateway's clock. */
  expiresAt: number;
}

/** Caches one gateway holds, every test's together, and their bytes (the JSON they hold). */
const MAX_CACHES = 1000;
const CACHES_BYTES = 64 * 1024 * 1024;
const OVERHEAD = 512;
/** Gemini's default TTL: an hour. */
const DEFAULT_TTL_SECONDS = 3600;
const HELD_FIELDS = ['contents', 'systemInstruction', 'tools', 'toolConfig'] as const;

const GEMINI_CACHES = defineStore<GeminiCache>({
  name: 'gemini.caches',
  title: 'Gemini cached contents',
  maxCount: MAX_CACHES,
  maxBytes: CACHES_BYTES,
  whenFull: 'refuse',
  describe: (c) => ({ name: `cachedContents/${c.id}`, model: c.model, tokens: c.tokens, expires_at: c.expiresAt }),
  expired: (c, now) => c.expiresAt <= now,
});

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function cacheObject(c: GeminiCache): JsonObject {
  return {
    name: `cachedContents/${c.id}`,
    ...(c.displayName !== undefined && { displayName: c.displayName }),
    model: `models/${c.model}`,
    createTime: iso(c.createdAt),
    updateTime: iso(c.updatedAt),
    expireTime: iso(c.expiresAt),
    usageMetadata: { totalTokenCount: c.tokens },
  };
}

/** The `cachedContents/<id>` name's id (a Vertex resource path's last segment too). */
const idOf = (name: string) => name.replace(/^.*cachedContents\//, '');

const notFound = () => new GatewayError('permission', 'CachedContent not found (or permission denied)');

type HeldCall = Parameters<typeof heldFor>[0] & { runtime: { now(): number } };

/** The unexpired cache `name` the request's test holds; else Gemini's 403 (an expired cache is dropped). */
function found(call: HeldCall, name: string): GeminiCache {
  const view = heldFor(call, GEMINI_CACHES);
  const id = idOf(name);
  const c = view.get(id);
  if (c && c.expiresAt > call.runtime.now()) return c;
  if (c) view.delete(id);
  throw notFound();
}

/** `ttl` ("3600s", "1.5s") or `expireTime` (RFC 3339) as the Unix second the cache expires; undefined when neither is given. */
function expiryOf(body: JsonObject, now: number): number | undefined {
  if (body.ttl !== undefined && body.expireTime !== undefined)
    throw new GatewayError('invalid_request', 'Only one of ttl and expire_time can be set on a CachedContent.');
  if (body.ttl !== undefined) {
    const m = typeof body.ttl === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(body.ttl) : null;
    if (!m)
      throw new GatewayError(
        'invalid_request',
        `Invalid value at 'cached_content.ttl' (type.googleapis.com/google.protobuf.Duration), "${String(body.ttl)}": a duration in seconds ends in "s", such as "3600s".`,
      );
    return latest(now + Math.ceil(Number(m[1])), 'ttl');
  }
  if (body.expireTime !== undefined) {
    const at = typeof body.expireTime === 'string' ? Date.parse(body.expireTime) : NaN;
    if (Number.isNaN(at))
      throw new GatewayError(
        'invalid_request',
        `Invalid value at 'cached_content.expire_time' (type.googleapis.com/google.protobuf.Timestamp), "${String(body.expireTime)}": an RFC 3339 time such as "2025-01-01T00:00:00Z".`,
      );
    const seconds = Math.ceil(at / 1000);
    if (seconds <= now) throw new GatewayError('invalid_request', 'expire_time must be in the future.');
    return latest(seconds, 'expire_time');
  }
  return undefined;
}

/** An expiry no later than a Timestamp can say (9999-12-31T23:59:59Z), else Google's 400 naming the field. */
function latest(seconds: number, field: 'ttl' | 'expire_time'): number {
  if (seconds <= LATEST_CLOCK_SECONDS) return seconds;
  throw new GatewayError(
    'invalid_request',
    `Invalid value at 'cached_content.${field}': the cache would expire after 9999-12-31T23:59:59Z, the latest time a Timestamp holds. Give a shorter ${field}.`,
  );
}

async function create(call: Call<JsonObject>) {
  const body = call.body;
  const model = typeof body.model === 'string' ? body.model.replace(/^models\//, '') : '';
  if (!model)
    throw new GatewayError(
      'invalid_request',
      'CachedContent.model is required: the model the cache is for, such as "models/gemini-2.5-flash".',
    );
  const info = call.runtime.catalogue.get(model);
  if (!info?.capabilities.includes('chat'))
    throw new GatewayError(
      'not_found',
      `models/${model} is not found for API version v1beta, or is not supported for createCachedContent.`,
    );
  const held: JsonObject = {};
  for (const field of HELD_FIELDS) if (body[field] !== undefined) held[field] = body[field];
  // Counted as generate-content counts the same prompt (and checked by the same rules).
  const { request } = parseGenerateRequest(held, model, false);
  const tokens = await countPromptTokensInSlices(request.messages, request.tools, request.framing);
  const min = info.cache_min_tokens ?? DEFAULT_CACHE_MIN_TOKENS;
  if (tokens < min)
    throw new GatewayError('invalid_request', `Cached content is too small. total_token_count=${tokens}, min_total_token_count=${min}`);
  const now = call.runtime.now();
  const view = heldFor(call, GEMINI_CACHES);
  const c: GeminiCache = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('', 16, key).toLowerCase(),
    ),
    model,
    ...(typeof body.displayName === 'string' && { displayName: body.displayName }),
    held,
    tokens,
    createdAt: now,
    updatedAt: now,
    expiresAt: expiryOf(body, now) ?? now + DEFAULT_TTL_SECONDS,
  };
  if (!view.set(c.id, c, JSON.stringify(held).length * 2 + OVERHEAD))
    throw new GatewayError(
      'quota',
      `Cached content storage is full: model-gateway-mock holds at most ${MAX_CACHES} Gemini cached contents and ${CACHES_BYTES / (1024 * 1024)} MiB of them, every test together. Delete caches you no longer need (caches.delete), or reset.`,
    );
  return json(cacheObject(c));
}

function list(call: Call) {
  const now = call.runtime.now();
  const all = heldFor(call, GEMINI_CACHES)
    .values()
    .filter((c) => c.expiresAt > now);
  return listPage(call, all, 'cachedContents', cacheObject, 100, 1000);
}

function update(call: Call<JsonObject>) {
  const c = found(call, String(call.params.id));
  const now = call.runtime.now();
  const expires = expiryOf(call.body, now);
  if (expires !== undefined) c.expiresAt = expires;
  c.updatedAt = now;
  return json(cacheObject(c));
}

/**
 * A generate-content body naming `cachedContent`, as the service reads it: the cache's contents first,
 * its system instruction, tools and tool config in place of the request's (which may not set them), and
 * the cache's tokens, to be reported as cached. The body as it is, with no tokens, when it names none.
 */
export function withCachedContent(call: Call, body: JsonObject, model: string): { body: JsonObject; cachedTokens?: number } {
  const name = body.cachedContent;
  // Vertex AI's caches (`projects/…/cachedContents/…`) are not served: such a name is taken and not read.
  if (typeof name !== 'string' || !name.startsWith('cachedContents/')) return { body };
  const c = found(call, name);
  if (c.model !== model)
    throw new GatewayError(
      'invalid_request',
      `Model used by GenerateContent request (models/${model}) and CachedContent (models/${c.model}) has to be the same.`,
    );
  if (body.systemInstruction !== undefined || body.tools !== undefined || body.toolConfig !== undefined)
    throw new GatewayError(
      'invalid_request',
      'CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\nProposed fix: move those values to CachedContent from GenerateContent request.',
    );
  const { held } = c;
  const contents = [...(Array.isArray(held.contents) ? held.contents : []), ...(Array.isArray(body.contents) ? body.contents : [])];
  const merged: JsonObject = { ...body, contents };
  delete merged.cachedContent;
  for (const field of ['systemInstruction', 'tools', 'toolConfig'] as const) if (held[field] !== undefined) merged[field] = held[field];
  return { body: merged, cachedTokens: c.tokens };
}

const KEY_WAYS = ['query-key', 'x-goog-api-key', 'bearer'] as const;

export const geminiCacheEndpoints: EndpointSpec[] = (['v1beta', 'v1'] as const).flatMap((v): EndpointSpec[] => {
  const at = { format: geminiFormat, auth: KEY_WAYS };
  return [
    { ...at, method: 'POST', path: `/${v}/cachedContents`, handle: create },
    { ...at, method: 'GET', path: `/${v}/cachedContents`, handle: list },
    { ...at, method: 'GET', path: `/${v}/cachedContents/:id`, handle: (call) => json(cacheObject(found(call, String(call.params.id)))) },
    { ...at, method: 'PATCH', path: `/${v}/cachedContents/:id`, handle: update },
    {
      ...at,
      method: 'DELETE',
      path: `/${v}/cachedContents/:id`,
      handle(call) {
        const c = found(call, String(call.params.id));
        heldFor(call, GEMINI_CACHES).delete(c.id);
        return json({});
      },
    },
  ];
});
