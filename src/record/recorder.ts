// Record mode: a request no fixture answers goes to the real service for its format, its answer
// streams back to the client as it arrives, and, once complete, is written as an ordinary fixture.
import { importNodeOnly, runsOnNode } from '../core/node-only.ts';
import { concat } from '../core/bytes.ts';
import { matchKey } from '../fixtures/match.ts';
import { historyOf } from '../fixtures/history.ts';
import { lastUserText, type CanonicalRequest } from '../core/request.ts';
import { rewrittenSearch } from '../auth/keys.ts';
import type { Call, FormatEdge } from '../pipeline/call.ts';
import type { Outbound } from '../pipeline/exchange.ts';
import { framingOf } from '../pipeline/framing.ts';
import type { Fixture } from '../types/fixtures.ts';
import type { RecordOptions } from '../types/record.ts';
import type { Forward } from '../pipeline/decide.ts';
import { GatewayError } from '../core/errors.ts';

// Hop-by-hop headers, and those a re-chunked, decoded body no longer has.
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);
const DROPPED_REQUEST = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'accept-encoding']);
const REDACTED = '[redacted]';

/** A JSON body with `paths` replaced by "[redacted]". */
function redactPaths(body: unknown, paths: readonly string[]): unknown {
  if (!paths.length || body === null || typeof body !== 'object') return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const path of paths) {
    const parts = path.split('.');
    let node: unknown = copy;
    for (const [i, part] of parts.entries()) {
      if (node === null || typeof node !== 'object' || !(part in node)) break;
      if (i === parts.length - 1) (node as Record<string, unknown>)[part] = REDACTED;
      else node = (node as Record<string, unknown>)[part];
    }
  }
  return copy;
}

/**
 * JSON with keys sorted at every level but inside `raw` (replayed byte for byte, so kept in the
 * upstream's order, which is the same for the same traffic): the same traffic writes the same file.
 */
function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, k === 'raw' ? (v as Record<string, unknown>)[k] : sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

function mockHeaders(headers: Record<string, string>): Record<string, string> | undefined {
  const kept = Object.entries(headers).filter(([name]) => name.startsWith('x-mock-'));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** How much of a prompt the file name's slug is made from: a few words, never a whole body. */
const SLUG_SOURCE_CHARS = 400;
const SLUG_MAX = 40;

/** Lowercase ASCII words of `text` joined by dashes, whole words up to `max` characters. */
function slug(text: string, max = SLUG_MAX): string {
  const words = text
    .slice(0, SLUG_SOURCE_CHARS)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9.]+/)
    .map((w) => w.replace(/^\.+|\.+$/g, ''))
    .filter(Boolean);
  let out = '';
  for (const word of words) {
    const next = out ? `${out}-${word}` : word;
    if (next.length > max) break;
    out = next;
  }
  return out || (words[0]?.slice(0, max) ?? '');
}

/**
 * The file name of a recording, so a person finds the one for a test: format, endpoint, model, the
 * prompt's first words, then the request's matchKey (the fixture's `match.requestKey`, also in a
 * near-miss report), which makes it unique: two requests with the same key are the same fixture.
 * `openai-chat-completions-gpt-4o-mini-what-is-the-weather-in-paris-5409864d1a580.json`
 */
export function recordingName(request: CanonicalRequest, path: string, key: string): string {
  // The version and a path's model (Gemini's `/v1beta/models/{m}:generateContent`) say nothing the rest doesn't.
  const endpoint = path
    .replace(/^\/v\d+[a-z]*\d*(?=\/|$)/, '')
    .replace(/\/models\/[^/:]+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2');
  return `${[request.format, slug(endpoint), slug(request.model), slug(lastUserText(request)), key].filter(Boolean).join('-')}.json`;
}

/**
 * What a forwarded path may not hold: an empty segment (`//host` would name another host to a URL
 * parser), a dot segment, a backslash, or any of them percent-encoded (`%2e`, `%2f`, `%5c`), which a
 * server on the way may decode. No API path of the vendors needs one.
 */
const UNSAFE_PATH = /\/\/|\/\.{1,2}(?:\/|$)|\\|%2e|%2f|%5c/i;

/**
 * The upstream URL a request goes to: the upstream's origin, the request's path and query. Refused
 * (the format's 400, before any request is made) when the path is not a plain one that stays there.
 */
export function upstreamUrl(base: string, url: URL): URL {
  const origin = new URL(base).origin;
  const path = url.pathname;
  if (!path.startsWith('/') || UNSAFE_PATH.test(path)) {
    throw new GatewayError(
      'invalid_request',
      `Record mode forwards only plain paths to its upstream: ${JSON.stringify(path.slice(0, 200))} holds an empty or dot segment, a backslash or an encoded one. Send the path as the API documents it (e.g. /v1/chat/completions).`,
    );
  }
  const target = new URL(origin);
  target.pathname = path;
  target.search = url.search;
  // The path setter cannot change the host; checked all the same, as the one promise this makes.
  if (target.origin !== origin) throw new GatewayError('invalid_request', 'Record mode forwards only to its upstream.');
  return target;
}

type Fs = typeof import('node:fs');
// Node's fs, loaded by a specifier bundlers leave alone: recording writes files, so it needs Node.
let fs: Promise<Fs> | undefined;
function nodeFs(): Promise<Fs> {
  if (!runsOnNode()) return Promise.reject(new Error('record mode writes fixture files and needs Node.js'));
  return (fs ??= importNodeOnly<Fs>('node:fs'));
}

export class Recorder {
  readonly options: RecordOptions;
  private readonly maxBytes: number;

  constructor(options: RecordOptions) {
    this.options = options;
    this.maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  }

  private async write(name: string, data: string | Uint8Array): Promise<void> {
    const { mkdirSync, writeFileSync } = await nodeFs();
    const path = `${this.options.dir}/${name}`;
    mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
    writeFileSync(path, data);
  }

  /**
   * Where a request is forwarded: its format's upstream, else the default. A format that sends the
   * emulator's own credentials upstream (`upstreamHeaders`: Bedrock's, signed anew) goes only to the
   * upstream named for it (`upstreams.bedrock`, by its dialect or format name), never to the default,
   * which may be another vendor's host.
   */
  upstreamFor(format: FormatEdge, dialect?: string): string | undefined {
    if (format.upstreamHeaders) return this.options.upstreams[dialect ?? format.name];
    return this.options.upstreams[format.name] ?? this.options.upstreams.default;
  }

  /** Forwards the call's request (its body as received) and returns the upstream's answer, recording it as it passes. */
  async forward(call: Call, forward: Forward, rawBody: string | Uint8Array | undefined): Promise<Outbound> {
    const { inbound, format } = call;
    const own = format.upstreamHeaders ? (call.entry.dialect ?? format.name) : format.name;
    const base = this.upstreamFor(format, call.entry.dialect);
    if (!base)
      throw new Error(
        `record mode has no upstream for the ${own} requests (${format.upstreamHeaders ? '' : '--upstream or '}--upstream-${own})`,
      );
    let headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(inbound.headers())) if (!DROPPED_REQUEST.has(name)) headers[name] = value;
    headers['accept-encoding'] = 'identity';
    const url = upstreamUrl(base, inbound.url);
    if (format.upstreamHeaders) headers = await format.upstreamHeaders({ method: inbound.method, url, headers, body: rawBody });
    const controller = new AbortController();
    const doFetch = this.options.fetch ?? fetch;
    const response = await doFetch(url, {
      method: inbound.method,
      headers,
      body: rawBody as BodyInit | undefined,
      signal: controller.signal,
    });
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE.has(name)) outHeaders[name] = value;
    });
    const parts: Uint8Array[] = [];
    let size = 0;
    // Written before the last chunk goes out, so a client that has its answer can read the file.
    const finish = () =>
      this.save(call, forward, rawBody, response.status, outHeaders, size > this.maxBytes ? undefined : concat(parts)).catch(
        (error: Error) => console.warn(`model-gateway-mock: not recorded: ${error.message}`),
      );
    const reader = response.body;
    const limit = this.maxBytes;
    async function* chunks(): AsyncIterable<Uint8Array> {
      if (!reader) return void (await finish());
      for await (const chunk of reader as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        // Past the limit the answer still passes through, but nothing more is held.
        if (size <= limit) parts.push(chunk);
        else parts.length = 0;
        yield chunk;
      }
      await finish();
    }
    call.entry.fixture = 'recording';
    return { status: response.status, headers: outHeaders, body: { chunks: chunks(), abort: () => controller.abort() } };
  }

  private async save(
    call: Call,
    forward: Forward,
    rawBody: string | Uint8Array | undefined,
    status: number,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<void> {
    const { forward: request } = forward;
    if (!body) {
      return console.warn(
        `model-gateway-mock: not recorded: the answer to ${call.inbound.method} ${call.inbound.url.pathname} is over ${this.maxBytes} bytes`,
      );
    }
    const key = matchKey(request);
    // A dialect's request is recorded under the endpoint it reached, so it replays on the direct path too.
    const endpoint = call.canonicalPath ?? call.inbound.url.pathname;
    const file = recordingName(request, endpoint, key);
    const fixture: Fixture = {
      name: `recorded ${file.slice(0, -'.json'.length)}`,
      match: { format: request.format, endpoint, model: request.model, requestKey: key },
      recorded: {
        method: call.inbound.method,
        path: call.inbound.url.pathname,
        query: this.query(call.inbound.url),
        status,
        request: await this.requestBody(rawBody, call),
        // The only request headers written: the emulator's own overrides, which change the answer (a forced 429).
        headers: mockHeaders(call.inbound.headers()),
        // Per message, role and digests (never the text): a near miss says which message differed.
        history: request.operation === 'chat' ? historyOf(request) : undefined,
      },
    };
    const type = headers['content-type'] ?? '';
    // A stream in a framing record mode reads back (SSE, AWS event-stream): its events.
    const framing = framingOf(type);
    await framing?.ready?.();
    const text = new TextDecoder().decode(body);
    if (status >= 400) {
      let message: string | undefined;
      let code: string | undefined;
      try {
        const parsed = JSON.parse(text) as { error?: { message?: string; code?: string | number; type?: string } };
        message = parsed.error?.message;
        code = typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
      } catch {
        message = text.slice(0, 1000);
      }
      const kept: Record<string, string> = {};
      for (const name of ['retry-after', 'retry-after-ms', 'x-should-retry']) if (headers[name] !== undefined) kept[name] = headers[name];
      fixture.error = {
        status,
        ...(message === undefined ? {} : { message }),
        ...(code === undefined ? {} : { code }),
        ...(Object.keys(kept).length ? { headers: kept } : {}),
      };
    } else if (framing?.decode) {
      fixture.raw = { [request.format]: { events: framing.decode(body) } };
    } else if (type.includes('json')) {
      try {
        fixture.raw = { [request.format]: JSON.parse(text) };
      } catch {
        return console.warn(`model-gateway-mock: not recorded: ${call.inbound.url.pathname} answered invalid JSON`);
      }
    } else {
      // Binary answers (audio, images) go to a side file named by content hash.
      await this.sideFile(body);
      return console.warn(
        `model-gateway-mock: ${call.inbound.url.pathname} answered binary (${type}): kept as a side file only, no fixture (binary answers do not replay yet)`,
      );
    }
    await this.write(file, sortedJson(fixture));
  }

  /** The query as recorded: every credential parameter (the one list in auth/keys.ts) redacted. */
  private query(url: URL): string | undefined {
    const text = new URLSearchParams(rewrittenSearch(url, () => REDACTED)).toString();
    return text ? text : undefined;
  }

  private async requestBody(rawBody: string | Uint8Array | undefined, call: Call): Promise<unknown> {
    if (rawBody === undefined) return undefined;
    if (typeof rawBody !== 'string') return { file: await this.sideFile(rawBody), contentType: call.inbound.header('content-type') };
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return undefined;
    }
    return redactPaths(body, this.options.redactPaths ?? []);
  }

  /** Writes bytes to `<dir>/files/<sha256>` and returns that relative path. */
  private async sideFile(bytes: Uint8Array): Promise<string> {
    const name = `files/${await sha256(bytes)}`;
    await this.write(name, bytes);
    return name;
  }
}
