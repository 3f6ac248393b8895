// Issued tokens, their scopes, and the ways a client may present one.
import { GatewayError } from '../core/errors.ts';
import { hashString, makeId } from '../core/seed.ts';

/**
 * Where a token may travel: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, `?key=`, or (for
 * browsers, which cannot set headers on a WebSocket) the subprotocol `openai-insecure-api-key.<token>`.
 */
export type TokenWay = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query-key' | 'subprotocol';

/** The subprotocol prefix a browser's realtime client carries its key in. */
export const KEY_SUBPROTOCOL = 'openai-insecure-api-key.';

/** The token issued when none is configured. */
export const DEFAULT_TOKEN = 'sk-test';

/** What a token reads from: a header by lower-case name, and the URL. */
export interface TokenSource {
  url: URL;
  header(name: string): string | undefined;
}

/** The first token the request presents in one of `ways`, or undefined. */
export function presentedToken(source: TokenSource, ways: readonly TokenWay[]): string | undefined {
  for (const way of ways) {
    let token: string | null | undefined;
    if (way === 'bearer') token = /^Bearer\s+(.+)$/i.exec(source.header('authorization') ?? '')?.[1];
    else if (way === 'query-key') token = source.url.searchParams.get('key');
    else if (way === 'subprotocol') {
      const protocols = (source.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
      token = protocols.find((p) => p.startsWith(KEY_SUBPROTOCOL))?.slice(KEY_SUBPROTOCOL.length);
    }
    else token = source.header(way);
    if (token) return token.trim();
  }
  return undefined;
}

/** A token shown in messages without giving it away: `sk-ab***wxyz`. */
export function maskToken(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 3)}***` : `${token.slice(0, 5)}***${token.slice(-4)}`;
}

/** Headers that carry a credential, by lower-case name. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'x-admin-token', 'cookie', 'proxy-authorization']);

/** A copy of `headers` with every credential masked like the 401 message masks a token (`Bearer sk-te***oken`). */
export function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  // A copy in the same key order, then the few credential headers replaced (cheaper than rebuilding).
  const out = Object.assign({}, headers);
  for (const name of SECRET_HEADERS) {
    const value = out[name];
    if (typeof value !== 'string') continue;
    const scheme = /^(Bearer|Basic)\s+/i.exec(value)?.[0] ?? '';
    out[name] = scheme + maskToken(value.slice(scheme.length));
  }
  return out;
}

/** The URL's query string with `?key=` (Gemini's way to send a token) masked. */
export function maskedSearch(url: URL): string {
  if (!url.searchParams.has('key')) return url.search;
  const params = new URLSearchParams(url.search);
  params.set('key', maskToken(params.get('key') ?? ''));
  return `?${params}`;
}

export const HOW_TOKENS_ARE_SET =
  'Tokens are issued by the gateway: set them with --token (CLI, repeatable), the `tokens` option of createGateway(), or POST /__admin/tokens; with none set, the one token is sk-test.';

/** What a token may do. */
export interface TokenScope {
  /** Models it may call; all when absent. */
  models?: string[];
  /** Requests it may make; unlimited when absent. */
  quota?: number;
}

export interface IssuedToken extends TokenScope {
  token: string;
  /** Requests made so far. */
  used: number;
}

/** A short-lived client secret (`ek_…`), minted for one realtime session configuration. */
export interface EphemeralKey {
  value: string;
  /** Unix seconds, on the gateway's clock. */
  expiresAt: number;
  /** The token that minted it (its scope applies). */
  parent: string;
  /** The session configuration it is bound to, as sent. */
  session: Record<string, unknown>;
}

/** Ephemeral keys kept at most (oldest dropped first). */
const MAX_EPHEMERAL = 1000;

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly ephemeral = new Map<string, EphemeralKey>();
  private issued = 0;
  private minted = 0;

  /** Mints an ephemeral key (`ek_` + 32 characters, deterministic in order of minting); only endpoints marked `ephemeral` take it. */
  mint(fields: Omit<EphemeralKey, 'value'>): EphemeralKey {
    const key = { value: makeId('ek_', 32, hashString(`ephemeral key ${++this.minted}`)), ...fields };
    if (this.ephemeral.size >= MAX_EPHEMERAL) this.ephemeral.delete(this.ephemeral.keys().next().value!);
    this.ephemeral.set(key.value, key);
    return key;
  }

  /** The ephemeral key, if it was minted and has not expired at `now` (Unix seconds). */
  ephemeralKey(value: string, now: number): EphemeralKey | undefined {
    const key = this.ephemeral.get(value);
    return key && now < key.expiresAt && this.tokens.has(key.parent) ? key : undefined;
  }

  constructor(tokens: readonly string[]) {
    for (const token of tokens) this.tokens.set(token, { token, used: 0 });
  }

  has(token: string): boolean {
    return this.tokens.has(token);
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
    const entry: IssuedToken = { token, used: 0, ...(scope.models ? { models: scope.models } : {}), ...(scope.quota !== undefined ? { quota: scope.quota } : {}) };
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
      throw new GatewayError('quota', `This token's quota of ${entry.quota} requests is used up (${maskToken(token)}). Issue another with POST /__admin/tokens, or reset its use with POST /__admin/reset.`);
    }
    entry.used++;
  }

  /** Fails unless the token may call `model`. */
  allow(token: string, model: string): void {
    const models = this.tokens.get(token)?.models;
    if (models && !models.includes(model)) {
      throw new GatewayError('permission', `This token may not use model \`${model}\`; it is scoped to: ${models.join(', ')}.`, { param: 'model' });
    }
  }

  /** Restarts every quota (and forgets ephemeral keys). */
  resetUse(): void {
    for (const t of this.tokens.values()) t.used = 0;
    this.ephemeral.clear();
  }
}
