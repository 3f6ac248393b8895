// Amazon Bedrock as the pipeline sees it: `x-amzn-requestid`, Bedrock's errors, and its response
// streams in AWS event-stream frames. Two edges: Converse's (the `bedrock` format: its own body and
// stream events) and InvokeModel's, whose body is Anthropic's Messages request and reply (the
// `anthropic` format, so Anthropic fixtures and recordings answer it) inside Bedrock's errors and frames.
import type { GatewayError } from '../../core/errors.ts';
import type { Usage } from '../../core/reply.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import type { FormatEdge } from '../../pipeline/call.ts';
import type { VendorFormat } from '../format.ts';
import { count, field, foldedUsage, usageFrom } from '../raw-usage.ts';
import { isJsonObject } from '../fields.ts';
import { anthropicUsageOf } from '../anthropic/format.ts';
import { bedrockErrorResponse, streamExceptionOf } from './errors.ts';
import { eventFrame, exceptionFrame, writeFrames } from './event-stream.ts';

/** A failure part-way through a response stream: an exception frame (both streams carry the same exceptions). */
function streamError(error: GatewayError): Uint8Array {
  const { type, payload } = streamExceptionOf(error);
  return writeFrames([exceptionFrame(type, JSON.stringify(payload))]);
}

/**
 * The usage of a raw Converse body (`usage`), or of a raw ConverseStream (its `metadata` event's
 * `usage`): `inputTokens` leaves out what was read from or written to the cache.
 */
function converseUsageOf(raw: unknown): Usage | undefined {
  const u = foldedUsage(raw, (p) => p.usage ?? field(p, 'metadata').usage);
  if (!u) return undefined;
  const cached = count(u.cacheReadInputTokens);
  const written = count(u.cacheWriteInputTokens);
  return usageFrom({ input: count(u.inputTokens) + cached + written, output: count(u.outputTokens), cached, written });
}

/**
 * A ConverseStream event of a fixture's raw stream: a recorded `{ event, data }` as it came, or a
 * payload written as the SDK shows events, one member naming the event (`{"messageStart": {...}}`).
 */
function converseFrame(data: string, event?: string): Uint8Array {
  if (event) return writeFrames([eventFrame(event, data)]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  const names = isJsonObject(parsed) ? Object.keys(parsed) : [];
  if (names.length !== 1)
    throw new Error(
      `a raw ConverseStream event is one member naming the event, as {"messageStart": {"role": "assistant"}}; got ${data.slice(0, 80)}`,
    );
  const [name] = names;
  return writeFrames([eventFrame(name, JSON.stringify((parsed as Record<string, unknown>)[name]))]);
}

const encoder = new TextEncoder();

/** An InvokeModelWithResponseStream event: a `chunk` whose `bytes` are the model's own event (base64 in JSON). */
export const chunkFrame = (payload: string): Uint8Array =>
  writeFrames([eventFrame('chunk', JSON.stringify({ bytes: toBase64(encoder.encode(payload)) }))]);

const edge = {
  requestIdHeader: 'x-amzn-requestid',
  requestIdPrefix: '',
  errorResponse: bedrockErrorResponse,
  streamError,
  // Bedrock sends no rate-limit headers: a throttled request is a ThrottlingException.
  rateLimitHeaders: () => ({}),
  // AWS clients sign every request (x-amz-date, an AWS4 Authorization) and reach models under /model/.
  recognizes: (request: { url: URL; header(name: string): string | undefined }) =>
    request.url.pathname.startsWith('/model/') || request.header('x-amz-date') !== undefined,
} as const;

export const bedrockFormat: VendorFormat = {
  name: 'bedrock',
  ...edge,
  namedEvents: false,
  frameEvent: converseFrame,
  credentialHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  usageOf: converseUsageOf,
};

/** InvokeModel's edge: an Anthropic Messages body and reply (raw fixtures are Anthropic's), in Bedrock's errors and `chunk` frames. */
export const invokeFormat: FormatEdge = {
  name: 'anthropic',
  ...edge,
  namedEvents: true,
  frameEvent: chunkFrame,
  usageOf: anthropicUsageOf,
};
