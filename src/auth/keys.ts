// API keys (the gateway's docs and options call them tokens; not the BPE tokens of core/tokens.ts):
// issued keys, their scopes, and the ways a client may present one.
import { GatewayError } from '../core/errors.ts';
import { hashString, makeId } from '../core/seed.ts';
import type { TokenScope, IssuedToken } from '../types/keys.ts';

/**
 * A token asked for a model outside its scope (403). The request spends none of the token's quota: the
 * pipeline gives back the use it counted at authentication, as new-api's distributor refuses such a
 * request before its relay bills anything.
 */
export class ModelScopeError extends GatewayError {
  constructor(message: string) {
    super('permission', message, { param: 'model' });
  }
}
export type { IssuedToken } from '../types/keys.ts';

/**
 * Where a token may travel: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, `api-key` (Azure
 * OpenAI's header), `?key=`, (for browsers, which cannot set headers on a WebSocket) the subprotocol
 * `openai-insecure-api-key.<token>`, or a credential a format reads itself (a KeyReader: AWS's signed
 * Authorization header names the token as its access key id).
 */
export type KeyWay = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'api-key' | 'query-key' | 'access-token' | 'subprotocol' | KeyReader;

/** A format's own way of carrying a token. */
export interface KeyReader {
  /** The token the request presents this way, if any; throws the format's refusal of a malformed credential. */
  read(source: KeySource): string | undefined;
}

/** The subprotocol prefix a browser's realtime client carries its key in. */
const KEY_SUBPROTOCOL = 'openai-insecure-api-key.';

/** The token issued when none is configured. */
export const DEFAULT_KEY = 'sk-test';

/** What a token reads from: a header by lower-case name, and the URL. */
export interface KeySource {
  url: URL;
  header(name: string): string | undefined;
}

/** The first token the request presents in one of `ways`, or undefined. */
export function presentedKey(source: KeySource, ways: readonly KeyWay[]): string | undefined {
  for (const way of ways) {
    let token: string | null | undefined;
    if (typeof way === 'object') token = way.read(source);
    else if (way === 'bearer') token = /^Bearer\s+(.+)$/i.exec(source.header('authorization') ?? '')?.[1];
    else if (way === 'query-key') token = source.url.searchParams.get('key');
    else if (way === 'access-token') token = source.url.searchParams.get('access_token');
    else if (way === 'subprotocol') {
      const protocols = (source.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
      token = protocols.find((p) => p.startsWith(KEY_SUBPROTOCOL))?.slice(KEY_SUBPROTOCOL.length);
    } else token = source.header(way);
    if (token) return token.trim();
  }
  return undefined;
}

/** Keys this long or longer show their first MASK_PREFIX characters (a vendor's kind: `sk-`, `ek_`, `AIz`); shorter ones none. */
const MASK_PREFIX_FROM = 20;
const MASK_PREFIX = 3;

/**
 * A credential shown without giving any of it away: at most a fixed 3-character prefix (of a key of 20
 * characters or more), then its length and a 16-bit hash that tells two keys apart: `sk-***-51chars-3f9a`,
 * `***-9chars-0c1e`. The one mask of the 401 message, the journal, the pages and recordings.
 */
export function maskKey(token: string, withPrefix = true): string {
  const prefix = withPrefix && token.length >= MASK_PREFIX_FROM ? token.slice(0, MASK_PREFIX) : '';
  const hash = (hashString(`mask ${token}`) & 0xffff).toString(16).padStart(4, '0');
  // Only characters a query string keeps as they are: the journal's query shows it unescaped.
  return `${prefix}***-${token.length}chars-${hash}`;
}

/**
 * Every header and query parameter name that carries a credential, lower-case (names compare without
 * case). The one list the journal, record mode, `verify` and the pages mask or drop: Google's APIs
 * take `key`, `api_key` and `access_token` in the query (any case reaches a server that folds it),
 * Azure OpenAI `api-key`; the admin token travels as `x-admin-token`, `?admin_token=` or a cookie.
 */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'key',
  'api_key',
  'api-key',
  'access_token',
  'admin_token',
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'x-admin-token',
  'cookie',
  'set-cookie',
]);

/** Whether a header or query parameter called `name` (any case) carries a credential. */
const isCredentialName = (name: string): boolean => CREDENTIAL_NAMES.has(name.toLowerCase());

/**
 * A credential value masked like the 401 message masks a token, its scheme kept
 * (`Bearer sk-***-51chars-3f9a`). Basic credentials show no prefix at all: theirs is the user name, base64-encoded.
 */
function maskCredential(value: string): string {
  const scheme = /^(Bearer|Basic)\s+/i.exec(value)?.[0] ?? '';
  const secret = value.slice(scheme.length);
  return scheme + maskKey(secret, !/^basic/i.test(scheme));
}

/**
 * `headers` with every credential masked (the realtime key subprotocol too): a copy in the same key
 * order when one is, else `headers` itself (do not modify the result).
 */
export function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  let out = headers;
  // A copy only when something is masked: a reply's headers seldom carry a credential.
  const own = () => (out === headers ? (out = Object.assign({}, headers)) : out);
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (typeof value !== 'string') continue;
    const lower = name.toLowerCase();
    if (CREDENTIAL_NAMES.has(lower)) own()[name] = maskCredential(value);
    // A browser's realtime socket carries its key as a subprotocol (`openai-insecure-api-key.<key>`).
    else if (lower === 'sec-websocket-protocol' && value.includes(KEY_SUBPROTOCOL)) {
      own()[name] = value
        .split(',')
        .map((p) => (p.trim().startsWith(KEY_SUBPROTOCOL) ? ` ${KEY_SUBPROTOCOL}${maskKey(p.trim().slice(KEY_SUBPROTOCOL.length))}` : p))
        .join(',')
        .trim();
    }
  }
  return out;
}

/** The query string of `url` with every credential parameter given `replace(value)`; unchanged when it has none. */
export function rewrittenSearch(url: URL, replace: (value: string) => string | undefined): string {
  const search = url.search;
  // Most URLs have no query: then no URLSearchParams is built (it costs more than the rest of this).
  if (!search) return search;
  const pairs = [...url.searchParams];
  if (!pairs.some(([name]) => isCredentialName(name))) return search;
  const kept: [string, string][] = [];
  for (const [name, value] of pairs) {
    if (!isCredentialName(name)) kept.push([name, value]);
    else {
      const replaced = replace(value);
      if (replaced !== undefined) kept.push([name, replaced]);
    }
  }
  const text = new URLSearchParams(kept).toString();
  return text ? `?${text}` : '';
}

/** The URL's query string with every credential parameter (`?key=`, `?access_token=`, …) masked. */
export const maskedSearch = (url: URL): string => rewrittenSearch(url, maskKey);

export const HOW_KEYS_ARE_SET =
  'Tokens are issued by the gateway: set them with --token (CLI, repeatable), the `tokens` option of createGateway(), or POST /__admin/tokens; with none set, the one token is sk-test.';

/** Who an ephemeral key is for: OpenAI realtime's client secrets (`ek_…`), Gemini Live's auth tokens (`auth_tokens/…`). */
export type EphemeralKind = 'realtime' | 'live';

/** A short-lived client secret, minted for one live session configuration. */
interface EphemeralKey {
  value: string;
  /** Which sockets take it (default realtime). */
  kind?: EphemeralKind;
  /** Sessions it may still open (Gemini's `uses`); unlimited when absent. */
  uses?: number;
  /** Unix seconds after which it opens no new session (Gemini's `newSessionExpireTime`). */
  startBy?: number;
  /** Unix seconds, on the gateway's clock. */
  expiresAt: number;
  /** The token that minted it (its scope applies). */
  parent: string;
  /** The session configuration it is bound to, as sent. */
  session: Record<string, unknown>;
}

/** Ephemeral keys kept at most (oldest dropped first). */
const MAX_EPHEMERAL = 1000;

export class KeyStore {
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly ephemeral = new Map<string, EphemeralKey>();
  private issued = 0;
  private minted = 0;

  /** Mints an ephemeral key (`ek_` + 32 characters, deterministic in order of minting); only endpoints marked `ephemeral` take it. */
  mint(fields: Omit<EphemeralKey, 'value'>): EphemeralKey {
    const prefix = fields.kind === 'live' ? 'auth_tokens/' : 'ek_';
    const key = { value: makeId(prefix, 32, hashString(`ephemeral key ${++this.minted}`)), ...fields };
    if (this.ephemeral.size >= MAX_EPHEMERAL) this.ephemeral.delete(this.ephemeral.keys().next().value!);
    this.ephemeral.set(key.value, key);
    return key;
  }

  /** The ephemeral key, if it was minted and has not expired at `now` (Unix seconds). */
  ephemeralKey(value: string, now: number, kind: EphemeralKind = 'realtime'): EphemeralKey | undefined {
    const key = this.ephemeral.get(value);
    return key && (key.kind ?? 'realtime') === kind && now < key.expiresAt && this.tokens.has(key.parent) ? key : undefined;
  }

  /** Spends one of an ephemeral key's uses; false when none is left (a key without `uses` is never spent). */
  useEphemeral(value: string): boolean {
    const key = this.ephemeral.get(value);
    if (!key) return false;
    if (key.uses === undefined) return true;
    if (key.uses <= 0) return false;
    key.uses--;
    return true;
  }

  /** Every non-empty key passes as if issued (unscoped, unlimited); the issued ones keep their scopes. */
  private readonly anyKey: boolean;

  constructor(tokens: readonly string[], anyKey = false) {
    for (const token of tokens) this.tokens.set(token, { token, used: 0 });
    this.anyKey = anyKey;
  }

  has(token: string): boolean {
    return this.tokens.has(token) || (this.anyKey && token.length > 0);
  }

  get(token: string): IssuedToken | undefined {
    return this.tokens.get(token);
  }

  list(): IssuedToken[] {
    return [...this.tokens.values()];
  }

  /** Issues a token (the gateway's `sk-` + 48 characters when none is given), deterministic in order of issue. */
  issue(scope: TokenScope & { token?: string } = {}): IssuedToken {
    const token = scope.token ?? makeId('sk-', 48, hashString(`issued token ${++this.issued}`));
    const entry: IssuedToken = { token, used: 0 };
    // Only the scopes given, so a listing shows what was set.
    if (scope.models) entry.models = scope.models;
    for (const field of ['quota', 'rpm', 'tpm'] as const) if (scope[field] !== undefined) entry[field] = scope[field];
    this.tokens.set(token, entry);
    return entry;
  }

  revoke(token: string): boolean {
    return this.tokens.delete(token);
  }

  /** Counts one request against the token's quota; fails once it is spent. */
  spend(token: string): void {
    const entry = this.tokens.get(token);
    if (!entry) return;
    if (entry.quota !== undefined && entry.used >= entry.quota) {
      throw new GatewayError(
        'quota',
        `This token's quota of ${entry.quota} requests is used up (${maskKey(token)}). Issue another with POST /__admin/tokens, or reset its use with POST /__admin/reset.`,
      );
    }
    entry.used++;
  }

  /** Gives back the use spend() counted, for a request the token was not allowed to make (ModelScopeError). */
  refund(token: string): void {
    const entry = this.tokens.get(token);
    if (entry && entry.used > 0) entry.used--;
  }

  /** Fails unless the token may call `model`. */
  allow(token: string, model: string): void {
    const models = this.tokens.get(token)?.models;
    if (models && !models.includes(model)) {
      throw new ModelScopeError(`This token may not use model \`${model}\`; it is scoped to: ${models.join(', ')}.`);
    }
  }

  /** Restarts every quota (and forgets ephemeral keys). */
  resetUse(): void {
    for (const t of this.tokens.values()) t.used = 0;
    this.ephemeral.clear();
  }
}
