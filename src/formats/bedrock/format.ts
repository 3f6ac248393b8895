// Amazon Bedrock as the pipeline sees it: `x-amzn-requestid`, Bedrock's errors, and its response
// streams' exceptions (pipeline/framing.ts's eventStream frames them). Two edges: Converse's (the `bedrock`
// format: its own body and stream events) and InvokeModel's, whose body is Anthropic's Messages
// request and reply (the `anthropic` format, so Anthropic fixtures and recordings answer it) inside
// Bedrock's errors and `chunk` events (routes.ts).
import type { GatewayError } from '../../core/errors.ts';
import type { Usage } from '../../core/reply.ts';
import type { FormatEdge } from '../../pipeline/call.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';
import type { VendorFormat } from '../format.ts';
import { count, field, foldedUsage, usageFrom } from '../raw-usage.ts';
import { anthropicUsageOf } from '../anthropic/format.ts';
import { bedrockErrorResponse, streamExceptionOf } from './errors.ts';
import type { UpstreamRequest } from './upstream.ts';

/** A failure part-way through a response stream: an exception event (both streams carry the same exceptions). */
function streamError(error: GatewayError): RecordedEvent {
  const { type, payload } = streamExceptionOf(error);
  return { event: type, data: JSON.stringify(payload) };
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
  // Record mode: signed anew for the upstream (upstream.ts, loaded with the first forwarded request).
  upstreamHeaders: async (request: UpstreamRequest) => (await import('./upstream.ts')).bedrockUpstreamHeaders(request),
} as const;

export const bedrockFormat: VendorFormat = {
  name: 'bedrock',
  ...edge,
  namedEvents: false,
  credentialHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  usageOf: converseUsageOf,
};

/** InvokeModel's edge: an Anthropic Messages body and reply (raw fixtures are Anthropic's), in Bedrock's errors. */
export const invokeFormat: FormatEdge = {
  name: 'anthropic',
  ...edge,
  namedEvents: true,
  usageOf: anthropicUsageOf,
};
