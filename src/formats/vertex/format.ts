// Vertex AI's two edges: Gemini under publishers/google, answered in Google's error body, and Claude
// under publishers/anthropic, where Vertex answers for itself (credentials, models, quota) in Google's
// body and passes Anthropic's answers on (Anthropic's body and stream).
import type { ErrorKind } from '../../core/errors.ts';
import type { FormatEdge } from '../../pipeline/call.ts';
import type { Inbound } from '../../pipeline/exchange.ts';
import { anthropicFormat } from '../anthropic/format.ts';
import { anthropicErrorResponse } from '../anthropic/errors.ts';
import { geminiFormat } from '../gemini/format.ts';
import { vertexErrorResponse, vertexStreamError } from './errors.ts';

/** A Vertex AI path: `/v1…/projects/{p}/locations/{l}/…` or `/v1…/publishers/…`. */
const VERTEX_PATH = /^\/v1(?:beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+|publishers)(?:\/|$)/;
const CLAUDE_PATH = /^\/v1(?:beta1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\//;

const recognized = (pattern: RegExp) => (request: Pick<Inbound, 'url' | 'header'>) => pattern.test(request.url.pathname);

export const vertexGeminiFormat: FormatEdge = {
  ...geminiFormat,
  errorResponse: vertexErrorResponse,
  streamError: vertexStreamError,
  recognizes: recognized(VERTEX_PATH),
};

/** What Vertex AI answers itself on Claude's paths; the rest is Anthropic's answer passed on. */
const VERTEX_ANSWERS: ReadonlySet<ErrorKind> = new Set([
  'authentication',
  'permission',
  'not_found',
  'method_not_allowed',
  'rate_limit',
  'quota',
  'unavailable',
]);

export const vertexClaudeFormat: FormatEdge = {
  ...anthropicFormat,
  errorResponse: (error, requestId) =>
    VERTEX_ANSWERS.has(error.kind) ? vertexErrorResponse(error) : anthropicErrorResponse(error, requestId),
  // Vertex AI sends no anthropic-ratelimit-* headers: its quota is its own.
  rateLimitHeaders: () => ({}),
  recognizes: recognized(CLAUDE_PATH),
};
