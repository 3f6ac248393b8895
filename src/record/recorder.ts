// Record mode: a request no fixture answers goes to the real service for its format, its answer
// streams back to the client as it arrives, and, once complete, is written as an ordinary fixture.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { matchKey } from '../fixtures/match.ts';
import type { Call } from '../transport/endpoint.ts';
import type { Outbound } from '../transport/exchange.ts';
import type { Fixture } from '../fixtures/types.ts';
import type { ForwardToUpstream, RecordOptions } from './forward.ts';

// Hop-by-hop headers, and those a re-chunked, decoded body no longer has.
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);
const DROPPED_REQUEST = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'accept-encoding']);
const REDACTED = '[redacted]';

/** A JSON body with `paths` replaced by "[redacted]". */
export function redactPaths(body: unknown, paths: readonly string[]): unknown {
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

/** One server-sent event as recorded: its name (if any) and data. */
export interface RecordedEvent {
  event?: string;
  data: string;
}

/** The events of an SSE body; data lines of one event are joined by newlines. */
export function parseSse(text: string): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    out.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return out;
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
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, k === 'raw' ? (v as Record<string, unknown>)[k] : sort((v as Record<string, unknown>)[k])]))
        : v;
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

function mockHeaders(headers: Record<string, string>): Record<string, string> | undefined {
  const kept = Object.entries(headers).filter(([name]) => name.startsWith('x-mock-'));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export class Recorder {
  readonly options: RecordOptions;
  private readonly maxBytes: number;

  constructor(options: RecordOptions) {
    this.options = options;
    this.maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
    mkdirSync(options.dir, { recursive: true });
  }

  upstreamFor(format: string): string | undefined {
    return this.options.upstreams[format] ?? this.options.upstreams.default;
  }

  /** Forwards the call's request (its body as received) and returns the upstream's answer, recording it as it passes. */
  async forward(call: Call, forward: ForwardToUpstream, rawBody: string | Uint8Array | undefined): Promise<Outbound> {
    const { inbound, format } = call;
    const base = this.upstreamFor(format.name);
    if (!base) throw new Error(`record mode has no upstream for the ${format.name} format (--upstream or --upstream-${format.name})`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(inbound.headers())) if (!DROPPED_REQUEST.has(name)) headers[name] = value;
    headers['accept-encoding'] = 'identity';
    const controller = new AbortController();
    const url = new URL(inbound.url.pathname + inbound.url.search, base.endsWith('/') ? base : `${base}/`);
    const doFetch = this.options.fetch ?? fetch;
    const response = await doFetch(url, { method: inbound.method, headers, body: rawBody as BodyInit | undefined, signal: controller.signal });
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE.has(name)) outHeaders[name] = value;
    });
    const parts: Uint8Array[] = [];
    let size = 0;
    const finish = () => this.save(call, forward, rawBody, response.status, outHeaders, size > this.maxBytes ? undefined : Buffer.concat(parts));
    const reader = response.body;
    const limit = this.maxBytes;
    async function* chunks(): AsyncIterable<Uint8Array> {
      if (!reader) return finish();
      for await (const chunk of reader as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        // Past the limit the answer still passes through, but nothing more is held.
        if (size <= limit) parts.push(chunk);
        else parts.length = 0;
        yield chunk;
      }
      finish();
    }
    call.entry.fixture = 'recording';
    return { status: response.status, headers: outHeaders, body: { chunks: chunks(), abort: () => controller.abort() } };
  }

  private save(call: Call, forward: ForwardToUpstream, rawBody: string | Uint8Array | undefined, status: number, headers: Record<string, string>, body: Buffer | undefined): void {
    const { request } = forward;
    if (!body) {
      process.stderr.write(`model-gateway-mock: not recorded: the answer to ${call.inbound.method} ${call.inbound.url.pathname} is over ${this.maxBytes} bytes\n`);
      return;
    }
    const key = matchKey(request);
    const fixture: Fixture = {
      name: `recorded ${request.format} ${call.inbound.url.pathname} ${key}`,
      match: { format: request.format, endpoint: call.inbound.url.pathname, model: request.model, requestKey: key },
      recorded: {
        method: call.inbound.method,
        path: call.inbound.url.pathname,
        query: this.query(call.inbound.url),
        status,
        request: this.requestBody(rawBody, call),
        // The only request headers written: the emulator's own overrides, which change the answer (a forced 429).
        headers: mockHeaders(call.inbound.headers()),
      },
    };
    const type = headers['content-type'] ?? '';
    const text = body.toString('utf8');
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
      fixture.error = { status, ...(message === undefined ? {} : { message }), ...(code === undefined ? {} : { code }), ...(Object.keys(kept).length ? { headers: kept } : {}) };
    } else if (type.includes('text/event-stream')) {
      fixture.raw = { [request.format]: { events: parseSse(text) } };
    } else if (type.includes('json')) {
      try {
        fixture.raw = { [request.format]: JSON.parse(text) };
      } catch {
        return void process.stderr.write(`model-gateway-mock: not recorded: ${call.inbound.url.pathname} answered invalid JSON\n`);
      }
    } else {
      // Binary answers (audio, images) go to a side file named by content hash.
      fixture.recorded!.responseFile = this.sideFile(body);
      fixture.recorded!.responseType = type;
      return void process.stderr.write(`model-gateway-mock: recorded ${call.inbound.url.pathname} to a side file only (binary answers do not replay yet)\n`);
    }
    writeFileSync(join(this.options.dir, `${key}.json`), sortedJson(fixture));
  }

  private query(url: URL): string | undefined {
    const params = new URLSearchParams(url.search);
    for (const name of ['key', 'api-key', 'api_key']) if (params.has(name)) params.set(name, REDACTED);
    const text = params.toString();
    return text ? text : undefined;
  }

  private requestBody(rawBody: string | Uint8Array | undefined, call: Call): unknown {
    if (rawBody === undefined) return undefined;
    if (typeof rawBody !== 'string') return { file: this.sideFile(rawBody), contentType: call.inbound.header('content-type') };
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return undefined;
    }
    return redactPaths(body, this.options.redactPaths ?? []);
  }

  /** Writes bytes to `<dir>/files/<sha256>` and returns that relative path. */
  private sideFile(bytes: Uint8Array): string {
    const name = `files/${sha(bytes)}`;
    mkdirSync(join(this.options.dir, 'files'), { recursive: true });
    writeFileSync(join(this.options.dir, name), bytes);
    return name;
  }
}
