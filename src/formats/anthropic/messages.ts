// What /v1/messages and each request of a Message Batch share: the anthropic-version header, the
// body parsed and checked, the model required, and the pipeline's answer (fixtures, overrides, synthesis).
import { checkFileSources } from './files.ts';
import { GatewayError } from '../../core/errors.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { Catalogue } from '../../core/models.ts';
import type { Call } from '../../pipeline/call.ts';
import type { Inbound } from '../../pipeline/exchange.ts';
import { answer, type Answered, type DecisionContext, type Forward } from '../../pipeline/decide.ts';
import { parseMessagesRequest } from './parse.ts';

/** How Anthropic's routes take a key: its x-api-key header, or a bearer token (as its SDK's authToken sends it). */
export const KEY_OR_BEARER = ['x-api-key', 'bearer'] as const;

/** The request's anthropic-version, which Anthropic requires on every call. */
export function anthropicVersion(call: Call): string {
  const value = call.inbound.header('anthropic-version');
  if (!value) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required (for example `anthropic-version: 2023-06-01`).');
  }
  return value;
}

/**
 * `inbound` with an `anthropic-version` header, as the Messages endpoints read the version: for the
 * clouds that carry it in the body (Vertex AI's and Bedrock's `anthropic_version`).
 */
export function withVersionHeader(inbound: Inbound, version: string): Inbound {
  return {
    method: inbound.method,
    url: inbound.url,
    header: (name) => (name === 'anthropic-version' ? version : inbound.header(name)),
    headers: () => ({ ...inbound.headers(), 'anthropic-version': version }),
    text: (limit) => inbound.text(limit),
    bytes: (limit) => inbound.bytes(limit),
    get signal() {
      return inbound.signal;
    },
  };
}

/** Fails unless `model` is in the catalogue and can chat, as Anthropic words it: `model: <name>`. */
export function requireChatModel(catalogue: Catalogue, model: string): void {
  if (!catalogue.get(model)?.capabilities.includes('chat')) throw new GatewayError('not_found', `model: ${model}`);
}

/** A messages body answered: parsed, its model checked, its prompt counted, then decided and synthesized (or forwarded). */
export async function answerMessage(
  ctx: DecisionContext,
  body: Record<string, unknown>,
  version: string,
): Promise<{ request: CanonicalRequest; answered: Answered | Forward }> {
  const fileText = await checkFileSources(ctx, body);
  const request = parseMessagesRequest(body, version, false, fileText);
  requireChatModel(ctx.runtime.catalogue, request.model);
  // Counted with the event loop served between slices; answer() then finds the count.
  await countPromptTokensInSlices(request.messages, request.tools);
  return { request, answered: answer(ctx, request) };
}
