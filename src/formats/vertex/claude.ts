// Claude on Vertex AI: Anthropic's Messages API at …/publishers/anthropic/models/{model}:rawPredict
// (and :streamRawPredict, and count-tokens:rawPredict). The request is Anthropic's but for two things
// this module moves to where the Anthropic endpoints read them: the model, which the path names (the
// body's `model` for count-tokens), and Anthropic's API version, which the body carries as
// `anthropic_version` rather than a header.
import { GatewayError } from '../../core/errors.ts';
import type { Call } from '../../pipeline/call.ts';
import type { Inbound, JsonObject } from '../../pipeline/exchange.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { withVersionHeader } from '../anthropic/messages.ts';
import { invalid } from '../anthropic/validate.ts';
import { methodOf } from './gemini.ts';
import { vertexModel } from './models.ts';

/** The version Vertex AI documents; the Vertex SDK sends Anthropic's own dated versions, which it takes too. */
const VERTEX_VERSION = 'vertex-2023-10-16';
const VERSION = /^(?:vertex-)?(\d{4}-\d{2}-\d{2})$/;

/** The methods that answer a messages body: rawPredict (the Message, or a stream when the body asks) and streamRawPredict. */
const MESSAGES = new Set(['rawPredict', 'streamRawPredict']);

/** The last segment that counts a prompt's tokens: `…/publishers/anthropic/models/count-tokens:rawPredict`. */
const COUNT_TOKENS = 'count-tokens:rawPredict';

const lastSegment = (inbound: Pick<Inbound, 'url'>) => inbound.url.pathname.slice(inbound.url.pathname.lastIndexOf('/') + 1);

/** Whether the Messages endpoint answers the request (routes.ts's `accepts`). */
export const messagesMounted = (inbound: Inbound) => MESSAGES.has(methodOf(inbound)) && lastSegment(inbound) !== COUNT_TOKENS;

/** Whether count_tokens answers it. */
export const countTokensMounted = (inbound: Inbound) => lastSegment(inbound) === COUNT_TOKENS;

/**
 * The request as Anthropic's endpoint takes it: the body's anthropic_version (required) as the
 * `anthropic-version` it reads (`vertex-2023-10-16` is 2023-10-16), and the body without it, for `model`.
 */
function asAnthropic(call: Call, model: string): void {
  const body = call.body ?? {};
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
  const own: JsonObject = { ...rest, model };
  lenientAlike(body, own);
  call.body = own;
  call.inbound = withVersionHeader(call.inbound, date);
}

const whereOf = (call: Call) =>
  `projects/${String(call.params.project)}/locations/${String(call.params.location)}/publishers/anthropic/models`;

/** rawPredict and streamRawPredict: the model named by the path. */
export function enterMessages(call: Call): void {
  const target = String(call.params.call);
  const id = target.slice(0, target.lastIndexOf(':'));
  asAnthropic(call, vertexModel(call.runtime, 'anthropic', id, `${whereOf(call)}/${id}`).id);
}

/** count-tokens:rawPredict: the body names the model (a Vertex id), as count_tokens does. */
export function enterCountTokens(call: Call): void {
  const named = call.body?.model;
  if (typeof named !== 'string') throw invalid('model', 'Field required (a Claude model id, such as claude-sonnet-4-5@20250929).');
  asAnthropic(call, vertexModel(call.runtime, 'anthropic', named, `${whereOf(call)}/${named}`).id);
}

/** …/publishers/anthropic/models/{model}:{method} for a method Claude models on Vertex AI do not have. */
export function unknownClaudeMethod(call: Call): never {
  const target = String(call.params.call);
  const at = target.lastIndexOf(':');
  const id = at < 0 ? target : target.slice(0, at);
  const method = at < 0 ? '' : target.slice(at + 1);
  throw new GatewayError(
    'not_found',
    `${method ? `Method "${method}"` : 'No method'} on ${whereOf(call)}/${id}. Claude models on Vertex AI take rawPredict and streamRawPredict (Anthropic's Messages body), and count-tokens:rawPredict counts a prompt.`,
  );
}
