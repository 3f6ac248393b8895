// One request answered with no connection of its own: a line of a batch. Its body goes through the
// steps a request over HTTP goes through (the body limit, the JSON checks (the batch read the line with
// the pipeline's parseJson), the endpoint's own handler with its fixtures, synthesis, usage and faults) with what a connection adds left out: no journal
// entry of its own (the batch's entry sums its lines), no token check or rate-limit admission (the
// batch's request had them), no waiting (the delay it would have waited is counted instead), and a
// broken connection is reported as the server error it would have been. So a batch line's answer is,
// byte for byte, what the same request gets from the endpoint directly.
import { asGatewayError, GatewayError } from '../core/errors.ts';
import type { JournalEntry } from '../core/journal.ts';
import { BATCH_DISCOUNT } from '../core/prices.ts';
import type { Usage } from '../core/reply.ts';
import type { Call, EndpointSpec, Params } from './call.ts';
import { isForward } from './decide.ts';
import { bodyRequestId, handle } from './endpoint.ts';
import { isPieces, isPlayback, tooLarge, type Inbound, type JsonObject, type Outbound } from './exchange.ts';
import { priceUsage } from './limits.ts';
import { lenientAlike } from './params.ts';

/** What a request answered offline got: its status and body (JSON text), and what it cost. */
interface OfflineAnswer {
  status: number;
  requestId: string;
  /** The answer's body as written: JSON text (an error's body too). */
  body: string;
  /** What the endpoint set on its journal entry (model, fixture, near miss, usage). */
  entry: JournalEntry;
  usage?: Usage;
  /** Its usage priced at the batch discount (undefined when its model has no price, or it failed). */
  costUsd?: number;
  /** How long a client would have waited for it over a connection (its latency, stalls). */
  delayMs: number;
}

/** A request's own journal entry: the batch's, with nothing a line's endpoint sets. */
function lineEntry(entry: JournalEntry): JournalEntry {
  const { model: _m, fixture: _f, nearMiss: _n, usage: _u, costUsd: _c, fault: _x, warnings: _w, batch: _b, response: _r, ...rest } = entry;
  return { ...rest, stream: false, outcome: 'completed', eventsSent: 0 };
}

/** A body's text, as written: whole, or its pieces joined (a big reply serialized in pieces). */
async function bodyText(out: Outbound): Promise<string> {
  const body = out.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (isPieces(body)) {
    const parts = [body.head];
    for await (const piece of body.rest) parts.push(piece);
    return parts.join('');
  }
  return 'null';
}

/**
 * Answers `body`, a POST to `path`, by `spec`'s handler as the pipeline would over HTTP, under the
 * headers, token and test of `batch` (the request that brought it: its `x-mock-*` headers apply; its
 * body's leniency about unknown parameters too). The body was read from JSON of `bytes` bytes with the
 * pipeline's checks (parseJson); `text` (what brought it) makes its request id; `params` are the path's
 * (a Gemini line's `models/{model}:generateContent`).
 */
export async function answerOffline(
  batch: Call,
  spec: EndpointSpec,
  path: string,
  body: JsonObject,
  bytes: number,
  text: string,
  params: Params = {},
): Promise<OfflineAnswer> {
  const inbound: Inbound = {
    method: 'POST',
    url: new URL(path, batch.inbound.url),
    header: (name) => batch.inbound.header(name),
    headers: () => batch.inbound.headers(),
    text: () => Promise.reject(new Error('an offline request has no body to read')),
    bytes: () => Promise.reject(new Error('an offline request has no body to read')),
    signal: batch.inbound.signal,
  };
  const entry = lineEntry(batch.entry);
  const offline = { delayMs: 0 };
  const requestId = await bodyRequestId(spec.format, inbound, batch.runtime.seed, text);
  let out: Outbound;
  try {
    if (bytes > batch.runtime.maxBodyBytes) throw tooLarge(batch.runtime.maxBodyBytes);
    if (batch.body) lenientAlike(batch.body, body);
    if (body.stream === true)
      throw new GatewayError('invalid_request', 'A batch request cannot be streamed: leave `stream` out of it.', { param: 'stream' });
    const call: Call = {
      inbound,
      params,
      body,
      requestId,
      runtime: batch.runtime,
      entry,
      token: batch.token,
      format: spec.format,
      offline,
    };
    const answered = await handle(spec, call);
    if (isForward(answered))
      throw new GatewayError(
        'server',
        'model-gateway-mock records single requests, not batch lines: add a fixture for this request to answer it in a batch.',
      );
    // A connection fault breaks the line's connection: the service reports it as its own 500.
    out = answered.broken
      ? spec.format.errorResponse(
          new GatewayError('server', 'The server had an error while processing your request. Sorry about that!'),
          requestId,
        )
      : answered;
    if (isPlayback(out.body)) throw new GatewayError('server', 'model-gateway-mock: a batch line was answered with a stream.');
  } catch (error) {
    out = spec.format.errorResponse(asGatewayError(error), requestId);
  }
  const failed = out.status >= 400;
  const usage = failed ? undefined : entry.usage;
  // Billed as the services bill batches: at BATCH_DISCOUNT of the standard price.
  const costUsd = usage && priceUsage(batch.runtime, entry.model, usage, BATCH_DISCOUNT);
  return { status: out.status, requestId, body: await bodyText(out), entry, usage, costUsd, delayMs: offline.delayMs };
}
