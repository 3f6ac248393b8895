// Claude on Vertex AI: Anthropic's Messages API at …/publishers/anthropic/models/{model}:rawPredict
// (and :streamRawPredict, and count-tokens:rawPredict), the model named by the path and Anthropic's
// API version carried in the body as `anthropic_version`.
import { GatewayError } from '../../core/errors.ts';
import type { Call } from '../../pipeline/call.ts';
import type { JsonObject } from '../../pipeline/exchange.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { countMessageTokens, createMessage } from '../anthropic/routes.ts';
import { invalid } from '../anthropic/validate.ts';
import { vertexModel } from './models.ts';

/** The version Vertex AI documents; the Vertex SDK sends Anthropic's own dated versions, which it takes too. */
const VERTEX_VERSION = 'vertex-2023-10-16';
const VERSION = /^(?:vertex-)?(\d{4}-\d{2}-\d{2})$/;

/**
 * The body's anthropic_version, required, as the date Anthropic's parser compares (`vertex-2023-10-16`
 * is 2023-10-16), and the body without it, for `model`: what the Messages API parses.
 */
function messagesBody(body: JsonObject, model: string): { body: JsonObject; version: string } {
  const { anthropic_version: version, ...rest } = body;
  if (version === undefined) {
    if (body.contents !== undefined && body.messages === undefined) {
      throw invalid(
        'contents',
        `this is Claude's rawPredict, which takes Anthropic's Messages body (messages, max_tokens and "anthropic_version": "${VERTEX_VERSION}"); \`contents\` is the body of Gemini's generateContent.`,
      );
    }
    throw invalid(
      'anthropic_version',
      `Field required. Vertex AI takes Anthropic's API version in the body: "anthropic_version": "${VERTEX_VERSION}".`,
    );
  }
  const date = typeof version === 'string' ? VERSION.exec(version)?.[1] : undefined;
  if (date === undefined)
    throw invalid(
      'anthropic_version',
      `Input should be '${VERTEX_VERSION}' (or an Anthropic API version date), got ${JSON.stringify(version).slice(0, 100)}.`,
    );
  // The path names the model; a `model` in the body (the Vertex SDK removes it) is not read.
  const derived = { ...rest, model };
  lenientAlike(body, derived);
  return { body: derived, version: date };
}

/** POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{model}:{rawPredict|streamRawPredict}. */
export function claudeMethod(call: Call<JsonObject>) {
  const target = String(call.params.call);
  const at = target.lastIndexOf(':');
  const id = at < 0 ? target : target.slice(0, at);
  const method = at < 0 ? '' : target.slice(at + 1);
  const where = `projects/${String(call.params.project)}/locations/${String(call.params.location)}/publishers/anthropic/models`;
  if (id === 'count-tokens' && method === 'rawPredict') return countTokens(call, where);
  if (method !== 'rawPredict' && method !== 'streamRawPredict') {
    throw new GatewayError(
      'not_found',
      `${method ? `Method "${method}"` : 'No method'} on ${where}/${id}. Claude models on Vertex AI take rawPredict and streamRawPredict (Anthropic's Messages body), and count-tokens:rawPredict counts a prompt.`,
    );
  }
  const model = vertexModel(call.runtime.catalogue, 'anthropic', id, `${where}/${id}`);
  call.entry.model = model.id;
  const { body, version } = messagesBody(call.body, model.id);
  return createMessage(call, body, version);
}

/** count-tokens:rawPredict: the body names the model (a Vertex id), as count_tokens does. */
function countTokens(call: Call<JsonObject>, where: string) {
  const named = call.body.model;
  if (typeof named !== 'string') throw invalid('model', 'Field required (a Claude model id, such as claude-sonnet-4-5@20250929).');
  const model = vertexModel(call.runtime.catalogue, 'anthropic', named, `${where}/${named}`);
  call.entry.model = model.id;
  const { body, version } = messagesBody(call.body, model.id);
  return countMessageTokens(call, body, version);
}
