// Issued tokens and the ways a client may present one.

/** Where a token may travel: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, or `?key=`. */
export type TokenWay = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query-key';

/** The token issued when none is configured. */
export const DEFAULT_TOKEN = 'sk-test';

/** What a token is read from: a header by lower-case name, and the URL. */
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
    else token = source.header(way);
    if (token) return token.trim();
  }
  return undefined;
}

/** A token shown in messages without giving it away: `sk-ab***wxyz`. */
export function maskToken(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 3)}***` : `${token.slice(0, 5)}***${token.slice(-4)}`;
}

export const HOW_TOKENS_ARE_SET =
  'Tokens are issued by the gateway: set them with --token (CLI, repeatable) or the `tokens` option of createGateway(); with neither, the one token is sk-test.';

export class TokenStore {
  private readonly tokens: Set<string>;

  constructor(tokens: readonly string[]) {
    this.tokens = new Set(tokens);
  }

  has(token: string): boolean {
    return this.tokens.has(token);
  }

  list(): string[] {
    return [...this.tokens];
  }
}
