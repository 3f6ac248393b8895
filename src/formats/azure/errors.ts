// GatewayError → Azure OpenAI's status, headers and body. Azure passes OpenAI's own errors through
// (`{error:{message, type, param, code}}`); its gateway's own failures (a missing key, an unknown
// deployment or path, a missing or unsupported api-version, a rate limit) are `{error:{code, message}}`
// with the status as a string code; a prompt its content filter blocks is OpenAI's shape with
// `status` and the filter's `innererror`.
import type { GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { openaiErrorResponse } from '../openai/errors.ts';
import { promptFilterResults } from './filters.ts';

/** The Azure region every answer names (`x-ms-region`). */
const REGION = 'East US';

/** What Azure answers when its content filter blocks a prompt (the message is Azure's own). */
const CONTENT_FILTER_MESSAGE =
  "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766";

/** Codes of Azure's own gateway errors (rendered `{error:{code, message}}`). */
const AZURE_CODES = new Set(['DeploymentNotFound', 'BadRequest', '404', '401', '429', '405']);

/** The body of a failure as Azure words it; undefined where Azure passes OpenAI's own through. */
function azureErrorBody(error: GatewayError): unknown {
  // A blocked prompt (OpenAI's `invalid_prompt`, a fixture's `content_filter` error): Azure's filter result.
  if (error.code === 'content_filter' || error.code === 'invalid_prompt') {
    return {
      error: {
        message: CONTENT_FILTER_MESSAGE,
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: promptFilterResults(true) },
      },
    };
  }
  if (error.code !== undefined && AZURE_CODES.has(error.code)) return { error: { code: error.code, message: error.message } };
  switch (error.kind) {
    case 'authentication':
      return { error: { code: '401', message: `Access denied due to invalid subscription key or wrong API endpoint. ${error.message}` } };
    case 'rate_limit':
      return { error: { code: '429', message: error.message } };
    case 'method_not_allowed':
      return { error: { code: '405', message: error.message } };
    case 'not_found':
      // A path no operation serves (a model's or a stored object's 404 has a code, and is OpenAI's).
      return error.code === undefined ? { error: { code: '404', message: `Resource not found. ${error.message}` } } : undefined;
    default:
      return undefined;
  }
}

/** A failure as Azure answers it: OpenAI's status and rate-limit headers, Azure's body, request id and region. */
export function azureErrorResponse(error: GatewayError, requestId: string): Outbound {
  const openai = openaiErrorResponse(error);
  const body = azureErrorBody(error);
  const out = body === undefined ? openai : json(body, openai.status, openai.headers);
  Object.assign(out.headers, azureHeaders(requestId));
  return out;
}

/** The headers on every Azure answer: the request id under both its names, the region. */
export function azureHeaders(requestId: string): Record<string, string> {
  return { 'x-request-id': requestId, 'x-ms-region': REGION };
}
