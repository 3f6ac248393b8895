// The property every fuzzed answer must hold: a valid reply of the route (2xx, parseable in its
// format; a stream that ends properly), or the route's vendor error body with a 4xx status. A 5xx
// only where the request forced that very status (x-mock-status). Throws an Error saying what broke.
import { assertSchema } from '../openapi.ts';
import { parseSse } from '../../../src/pipeline/framing.ts';
import type { FuzzRequest } from './requests.ts';
import { EventStreamCodec } from '@smithy/eventstream-codec';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  /** The body's bytes, where a binary stream's frames need them. */
  bytes?: Uint8Array;
}

export type Vendor = 'openai' | 'anthropic' | 'gemini' | 'azure' | 'openrouter' | 'vertex-claude' | 'bedrock' | 'admin' | 'page';

const header = (r: FuzzRequest, name: string): string | undefined => {
  for (const [k, v] of Object.entries(r.headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/** The URL the client actually sends (fetch normalizes dot segments). */
export const urlOf = (r: FuzzRequest, root = 'http://127.0.0.1:2') => new URL(r.path, root);

/** The path as routed: one trailing slash does not count (msw's matcher, and the node router alike). */
export const pathOf = (url: URL) => (url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname);

/**
 * The format of a request no endpoint takes (an unknown path, or a method its path does not serve, where
 * more than one format serves that path): its client's, by Anthropic's headers or Google's path prefixes
 * and header, else `fallback` (the path's own format; OpenAI's for unknown paths). See docs/endpoints.md.
 */
function strayVendor(r: FuzzRequest, url: URL, fallback: Vendor): Vendor {
  // AWS clients sign with an x-amz-date; Bedrock's format is asked first.
  if (header(r, 'x-amz-date') !== undefined) return 'bedrock';
  if (header(r, 'anthropic-version') !== undefined || header(r, 'x-api-key') !== undefined) return 'anthropic';
  if (/^\/v1(?:beta|alpha)(?:\/|$)/.test(url.pathname) || header(r, 'x-goog-api-key') !== undefined) return 'gemini';
  if (VERTEX_CLAUDE_PREFIX.test(url.pathname)) return 'vertex-claude';
  if (VERTEX_PREFIX.test(url.pathname)) return 'gemini';
  return fallback;
}

/** Vertex AI's paths: under a project and location, or (express mode, listings) under publishers/. */
const VERTEX_PREFIX = /^\/v1(?:beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+|publishers)(?:\/|$)/;
const VERTEX_CLAUDE_PREFIX = /^\/v1(?:beta1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\//;
/** A path a Vertex AI endpoint serves: [, project and location, publisher, /model]. */
const VERTEX_ROUTE = /^\/v1(?:beta1)?\/(projects\/[^/]+\/locations\/[^/]+\/)?publishers\/([^/]+)\/models(\/[^/]+)?$/;

/** Paths only OpenAI's endpoints serve that the fuzzer asks: a wrong method on them is OpenAI's 405 whoever asks. */
const OPENAI_PATHS =
  /^\/(?:v1\/(?:chat\/completions|completions|embeddings|rerank|responses(?:\/[^/]+(?:\/input_items|\/cancel)?)?)|v2\/rerank)$/;

/** A dialect's path (Azure OpenAI's under /openai, OpenRouter's under /api/v1): its own errors, whatever the headers. */
function dialectOf(p: string): Vendor | undefined {
  if (p === '/openai' || p.startsWith('/openai/')) return 'azure';
  if (p === '/api/v1' || p.startsWith('/api/v1/')) return 'openrouter';
  return undefined;
}

/**
 * The vendor's own path a dialect's path reaches (`/openai/deployments/d/chat/completions` and
 * `/openai/v1/chat/completions` are `/v1/chat/completions`), for the checks of its replies.
 */
function canonicalOf(p: string): string {
  return p
    .replace(/^\/openai\/deployments\/[^/]+\//, '/v1/')
    .replace(/^\/openai\/(?!v1\/)/, '/v1/')
    .replace(/^\/openai\/v1\//, '/v1/')
    .replace(/^\/api\/v1\//, '/v1/');
}

/** Whose error shape the server owes this request: mirrors the routing rules the README documents. */
export function vendorOf(r: FuzzRequest): Vendor {
  const url = urlOf(r);
  const p = pathOf(url);
  const dialect = dialectOf(p);
  if (dialect) return dialect;
  if (p === '/__admin' || p.startsWith('/__admin/')) return 'admin';
  if ((p === '/' || p === '/console/playground') && r.method === 'GET') return 'page';
  if (p === '/v1/messages' || p === '/v1/messages/count_tokens') return 'anthropic';
  if (p === '/anthropic/v1/messages' || p === '/anthropic/v1/messages/count_tokens') return 'anthropic';
  if (url.pathname.startsWith('/model/')) return 'bedrock';
  const vertex = VERTEX_ROUTE.exec(p);
  // Served: a model's path (under a project and location or not), or a listing with neither.
  if (vertex && (vertex[3] || !vertex[1])) return vertex[1] && vertex[2] === 'anthropic' ? 'vertex-claude' : 'gemini';
  if (/^\/v1beta\/models(\/[^/]+)?$/.test(p)) return 'gemini';
  const models = /^\/v1\/models(\/[^/]+)?$/.exec(p);
  if (models) {
    if (models[1] && r.method === 'POST') return 'gemini';
    if (r.method !== 'GET') return strayVendor(r, url, 'openai');
    if (header(r, 'anthropic-version') !== undefined) return 'anthropic';
    if (header(r, 'x-goog-api-key') !== undefined || header(r, 'x-goog-api-client') !== undefined || url.searchParams.has('key'))
      return 'gemini';
    return 'openai';
  }
  if (OPENAI_PATHS.test(p)) return 'openai';
  // A path no endpoint serves: Azure's clients are known by their api-key header too.
  return header(r, 'api-key') !== undefined ? 'azure' : strayVendor(r, url, 'openai');
}

/** The status x-mock-status forces, if it is a valid one (read as the runtime reads it: `Number()`, so "0x1f4" and "500.0" are 500). */
function forcedStatus(r: FuzzRequest): number | undefined {
  const raw = header(r, 'x-mock-status');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) return undefined;
  return n >= 400 && n <= 599 ? n : undefined;
}

function fail(message: string): never {
  throw new Error(message);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail(`${what}: body is not JSON: ${text.slice(0, 200)}`);
  }
}

function checkError(vendor: Vendor, status: number, body: unknown, stray: Vendor = 'openai'): void {
  if (!isObject(body)) fail(`error body is not an object`);
  const e = body.error as Record<string, unknown>;
  switch (vendor) {
    case 'openai':
      assertSchema('ErrorResponse', body);
      if (!isObject(e) || !['message', 'type', 'param', 'code'].every((k) => k in e) || typeof e.message !== 'string' || !e.message)
        fail(`not an OpenAI error body: ${JSON.stringify(body).slice(0, 300)}`);
      return;
    case 'anthropic':
      if (
        body.type !== 'error' ||
        !isObject(e) ||
        typeof e.type !== 'string' ||
        typeof e.message !== 'string' ||
        !e.message ||
        typeof body.request_id !== 'string'
      )
        fail(`not an Anthropic error body: ${JSON.stringify(body).slice(0, 300)}`);
      return;
    case 'bedrock':
      if (typeof body.message !== 'string' || !body.message) fail(`not a Bedrock error body: ${JSON.stringify(body).slice(0, 300)}`);
      return;
    case 'gemini':
      if (!isObject(e) || e.code !== status || typeof e.message !== 'string' || !e.message || typeof e.status !== 'string')
        fail(`not a Gemini error body (status ${status}): ${JSON.stringify(body).slice(0, 300)}`);
      return;
    case 'azure':
      // Azure's own `{error:{code, message}}`, its content filter's 400, or OpenAI's body passed through.
      if (isObject(e) && typeof e.code === 'string' && typeof e.message === 'string' && e.message && !('type' in e)) return;
      if (isObject(e) && e.code === 'content_filter' && isObject(e.innererror)) return;
      return checkError('openai', status, body);
    case 'openrouter':
      if (!isObject(e) || e.code !== status || typeof e.message !== 'string' || !e.message)
        fail(`not an OpenRouter error body (status ${status}): ${JSON.stringify(body).slice(0, 300)}`);
      return;
    case 'vertex-claude':
      return checkError(body.type === 'error' ? 'anthropic' : 'gemini', status, body);
    case 'admin':
      // The control plane's own `{error}`; an unknown admin path answers as an unknown route (in the caller's format).
      if (typeof body.error === 'string' && body.error) return;
      return checkError(stray, status, body);
    default:
      return checkError('openai', status, body);
  }
}

function checkOpenaiStream(text: string, schema: string | undefined): void {
  const all = parseSse(text);
  if (all.at(-1)?.data !== '[DONE]') fail(`stream does not end with [DONE]: …${text.slice(-200)}`);
  for (const f of all.slice(0, -1)) {
    const chunk = parse(f.data, 'stream chunk');
    if (isObject(chunk) && chunk.error) fail(`stream carries an error event: ${f.data.slice(0, 200)}`);
    // Azure's first chunk carries only the prompt's filter results (no id, object or choices).
    if (isObject(chunk) && chunk.object === '' && 'prompt_filter_results' in chunk) continue;
    if (schema) assertSchema(schema, chunk);
  }
}

/** base64 embeddings (little-endian float32) as the arrays the spec describes. */
function decodeEmbeddings(body: unknown): unknown {
  const data = (body as { data?: { embedding?: unknown }[] }).data;
  if (!Array.isArray(data)) return body;
  return {
    ...(body as object),
    data: data.map((d) => {
      if (typeof d?.embedding !== 'string') return d;
      const bytes = Buffer.from(d.embedding, 'base64');
      if (bytes.byteLength % 4) fail('a base64 embedding is not whole float32 values');
      return { ...d, embedding: Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)) };
    }),
  };
}

const eventStreams = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

/** A Bedrock response stream: every frame decodes (both CRCs right); ConverseStream's run messageStart … metadata, InvokeModel's are chunks of Messages events. */
function checkBedrockStream(p: string, bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: { type: string; body: unknown }[] = [];
  for (let at = 0; at < bytes.byteLength; ) {
    const total = view.getUint32(at);
    const message = eventStreams.decode(bytes.subarray(at, at + total));
    if (message.headers[':message-type']?.value !== 'event')
      fail(`Bedrock stream carries a ${String(message.headers[':message-type']?.value)} frame`);
    events.push({
      type: String(message.headers[':event-type']?.value),
      body: parse(new TextDecoder().decode(message.body), 'Bedrock event'),
    });
    at += total;
  }
  const types = events.map((e) => e.type);
  if (p.endsWith('/converse-stream')) {
    if (types[0] !== 'messageStart' || types.at(-1) !== 'metadata') fail(`ConverseStream out of order: ${types.join(', ')}`);
    return;
  }
  if (types.some((t) => t !== 'chunk')) fail(`InvokeModelWithResponseStream frame other than chunk: ${types.join(', ')}`);
  const inner = events.map((e) => (parse(atob((e.body as { bytes: string }).bytes), 'chunk bytes') as { type?: string }).type);
  if (inner[0] !== 'message_start' || inner.at(-1) !== 'message_stop') fail(`chunk events out of order: ${inner.join(', ')}`);
}

function checkReply(r: FuzzRequest, answer: Answer): void {
  const vendor = vendorOf(r);
  const dialect = vendor === 'azure' || vendor === 'openrouter';
  const p = dialect ? canonicalOf(pathOf(urlOf(r))) : pathOf(urlOf(r));
  if (vendor === 'bedrock') return checkBedrockReply(p, answer);
  const sse = answer.contentType.includes('text/event-stream');
  if (vendor === 'page') {
    if (!answer.contentType.includes('text/html')) fail(`page is not HTML: ${answer.contentType}`);
    return;
  }
  if (sse) {
    if (p === '/v1/chat/completions') return checkOpenaiStream(answer.text, 'CreateChatCompletionStreamResponse');
    if (p === '/v1/completions') return checkOpenaiStream(answer.text, undefined);
    const all = parseSse(answer.text);
    if (p === '/v1/responses') {
      const types = all.map((f) => (parse(f.data, 'response event') as { type?: string }).type);
      if (types[0] !== 'response.created' || !['response.completed', 'response.incomplete'].includes(types.at(-1)!))
        fail(`responses stream out of order: ${types.join(', ')}`);
      return;
    }
    if (vendor === 'anthropic' || vendor === 'vertex-claude') {
      if (all.some((f) => !f.event)) fail('an Anthropic stream event lacks its event: line');
      const types = all.map((f) => f.event);
      for (const f of all) parse(f.data, `event ${f.event}`);
      if (types[0] !== 'message_start' || types.at(-1) !== 'message_stop' || types.includes('error'))
        fail(`Anthropic stream out of order: ${types.join(', ')}`);
      return;
    }
    if (vendor === 'gemini') {
      const chunks = all.map((f) => parse(f.data, 'Gemini chunk') as { candidates?: { finishReason?: string }[]; error?: unknown });
      if (!chunks.length || chunks.some((c) => c.error || !Array.isArray(c.candidates)))
        fail(`Gemini stream chunk without candidates or with an error`);
      if (!chunks.at(-1)!.candidates!.every((c) => c.finishReason)) fail('Gemini stream: the last chunk has no finishReason');
      return;
    }
    return fail(`unexpected event stream on ${p}`);
  }
  if (!answer.contentType.includes('json')) fail(`2xx reply is not JSON: ${answer.contentType}`);
  const body = parse(answer.text, 'reply');
  if (vendor === 'admin') return;
  if (p === '/v1/chat/completions') {
    // GET lists stored completions (an empty list has null first_id / last_id, which the spec's schema does not allow).
    if (r.method === 'GET') return (body as { data?: unknown[] }).data?.length ? assertSchema('ChatCompletionList', body) : undefined;
    return assertSchema('CreateChatCompletionResponse', body);
  }
  if (p === '/v1/completions') return assertSchema('CreateCompletionResponse', body);
  if (p === '/v1/embeddings') return assertSchema('CreateEmbeddingResponse', decodeEmbeddings(body));
  if (p === '/v1/responses' || /^\/v1\/responses\/[^/]+$/.test(p)) {
    if (r.method === 'DELETE') return;
    return assertSchema('Response', body);
  }
  const o = body as Record<string, unknown>;
  if (vendor === 'gemini' && p.endsWith(':streamGenerateContent')) {
    // Without ?alt=sse the stream is one JSON array of whole responses.
    if (!Array.isArray(body) || !body.length || body.some((c) => !isObject(c) || c.error || !Array.isArray(c.candidates)))
      fail('streamGenerateContent (JSON) is not an array of responses');
    return;
  }
  if (!isObject(o)) fail('reply is not an object');
  if (p === '/v1/rerank' || p === '/v2/rerank') {
    if (!Array.isArray(o.results)) fail('rerank reply has no results');
    return;
  }
  if (vendor === 'vertex-claude') {
    if (p.endsWith('/count-tokens:rawPredict')) {
      if (!Number.isInteger(o.input_tokens)) fail('count-tokens reply without input_tokens');
    } else if (o.type !== 'message' || !Array.isArray(o.content) || !isObject(o.usage))
      fail(`not an Anthropic message: ${answer.text.slice(0, 200)}`);
    return;
  }
  if (vendor === 'anthropic') {
    // Bedrock's Mantle endpoint is the Messages API under /anthropic.
    const path = p.startsWith('/anthropic/') ? p.slice('/anthropic'.length) : p;
    if (path === '/v1/messages') {
      if (o.type !== 'message' || !Array.isArray(o.content) || !isObject(o.usage))
        fail(`not an Anthropic message: ${answer.text.slice(0, 200)}`);
    } else if (path === '/v1/messages/count_tokens') {
      if (!Number.isInteger(o.input_tokens)) fail('count_tokens reply without input_tokens');
    } else if (!Array.isArray(o.data) && o.type !== 'model') fail('not an Anthropic models reply');
    return;
  }
  if (vendor === 'gemini') {
    const action = p.slice(p.lastIndexOf(':') + 1);
    if (r.method === 'GET') {
      if (!Array.isArray(o.models) && !Array.isArray(o.publisherModels) && typeof o.name !== 'string') fail('not a Gemini models reply');
    } else if (action === 'computeTokens') {
      if (!Array.isArray(o.tokensInfo)) fail('computeTokens reply without tokensInfo');
    } else if (action === 'predict') {
      if (!Array.isArray(o.predictions)) fail('predict reply without predictions');
    } else if (action === 'countTokens') {
      if (!Number.isInteger(o.totalTokens)) fail('countTokens reply without totalTokens');
    } else if (action === 'embedContent') {
      if (!Array.isArray((o.embedding as { values?: unknown })?.values)) fail('embedContent reply without values');
    } else if (action === 'batchEmbedContents') {
      if (!Array.isArray(o.embeddings)) fail('batchEmbedContents reply without embeddings');
    } else if (!Array.isArray(o.candidates)) fail('generateContent reply without candidates');
    return;
  }
  if (p === '/v1/models') {
    // OpenRouter's list is `{data}` alone.
    if ((vendor !== 'openrouter' && o.object !== 'list') || !Array.isArray(o.data)) fail('not a models list');
  } else if (p.startsWith('/v1/models/') && o.object !== 'model') fail('not an OpenAI model');
}

function checkBedrockReply(p: string, answer: Answer): void {
  if (answer.contentType === 'application/vnd.amazon.eventstream')
    return checkBedrockStream(p, answer.bytes ?? new TextEncoder().encode(answer.text));
  if (!answer.contentType.includes('json')) fail(`2xx Bedrock reply is not JSON: ${answer.contentType}`);
  const o = parse(answer.text, 'reply') as Record<string, unknown>;
  if (p.endsWith('/converse')) {
    const message = (o.output as { message?: { content?: unknown } } | undefined)?.message;
    if (!Array.isArray(message?.content) || typeof o.stopReason !== 'string' || !isObject(o.usage))
      fail(`not a Converse reply: ${answer.text.slice(0, 200)}`);
  } else if (p.endsWith('/invoke')) {
    if (o.type !== 'message' || !Array.isArray(o.content)) fail(`not a Messages reply: ${answer.text.slice(0, 200)}`);
  } else if (p.endsWith('/count-tokens')) {
    if (!Number.isInteger(o.inputTokens)) fail('CountTokens reply without inputTokens');
  } else fail(`unexpected 2xx on ${p}`);
}

/** Throws unless `answer` is what `r` may get. */
export function checkAnswer(r: FuzzRequest, answer: Answer): void {
  const { status } = answer;
  const vendor = vendorOf(r);
  const forced = forcedStatus(r);
  // Preflights (and express's automatic OPTIONS answer on the control plane) carry no body to judge.
  if (r.method === 'HEAD' || (r.method === 'OPTIONS' && status >= 200 && status < 300)) {
    // No body to judge; a HEAD must still not be a server error.
    if (status >= 500 && status !== forced) fail(`HEAD answered ${status}`);
    return;
  }
  if (status === 431) return; // node's own limit on header size, before any of our code
  if (status >= 200 && status < 300) return checkReply(r, answer);
  if (status >= 400 && status < 500)
    return checkError(vendor, status, parse(answer.text, `${status} error`), strayVendor(r, urlOf(r), 'openai'));
  if (status >= 500 && status === forced)
    return checkError(vendor, status, parse(answer.text, `${status} error`), strayVendor(r, urlOf(r), 'openai'));
  if (status >= 500 && forced && (vendor === 'gemini' || vendor === 'openai') && status === 503 && forced === 529)
    return checkError(vendor, status, parse(answer.text, `${status} error`), strayVendor(r, urlOf(r), 'openai'));
  fail(`status ${status}: ${answer.text.slice(0, 300)}`);
}

/** A one-line description of a request, for failure messages. */
export function describe(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : `<${r.body.byteLength} bytes>`;
  return `${r.method} ${r.path.slice(0, 200)} [${r.aim}] headers=${JSON.stringify(r.headers).slice(0, 300)} body(${body.length})=${body.slice(0, 300)}`;
}
