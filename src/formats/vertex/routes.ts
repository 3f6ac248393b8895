// Vertex AI (a dialect, pipeline/mount.ts): Gemini (publishers/google) under a project and location or
// in express mode, and Claude (publishers/anthropic) under a project and location. Where Vertex's
// request is an existing endpoint's under another path, that endpoint answers it, mounted here by its
// id with Vertex's translations around it (gemini.ts, claude.ts): generateContent,
// streamGenerateContent, countTokens and embedContent are the Gemini endpoint's; rawPredict and
// streamRawPredict Anthropic's Messages, count-tokens:rawPredict its count_tokens. The rest is Vertex's
// own: computeTokens, :predict, the publisher model listings, and Vertex's 404 for any other method
// or publisher.
import type { EndpointSpec } from '../../pipeline/call.ts';
import { mount, type Dialect } from '../../pipeline/mount.ts';
import { anthropicEndpoints } from '../anthropic/routes.ts';
import { geminiEndpoints } from '../gemini/routes.ts';
import { countTokensMounted, enterCountTokens, enterMessages, messagesMounted, unknownClaudeMethod } from './claude.ts';
import { vertexClaudeFormat, vertexGeminiFormat } from './format.ts';
import {
  enterGemini,
  GEMINI_ENDPOINT,
  geminiMounted,
  geminiOwnMethod,
  getPublisherModel,
  leaveGemini,
  listPublisherModels,
  otherPublisher,
} from './gemini.ts';

/** Gemini on Vertex AI: an access token (the gateway token stands for it), or an express-mode API key. */
const gemini: Dialect = { name: 'vertex', format: vertexGeminiFormat, auth: ['bearer', 'x-goog-api-key', 'query-key'] };
/** Claude on Vertex AI: an access token only; Vertex's own errors in Google's body, Claude's in Anthropic's. */
const claude: Dialect = { name: 'vertex', format: vertexClaudeFormat, auth: ['bearer'] };

/**
 * An endpoint of Vertex's own (no vendor endpoint answers it). On a path a mounted endpoint shares
 * (`shared`), it takes what that one's `accepts` leaves, and its id says it is the dialect's own.
 */
const own = (dialect: Dialect, method: 'GET' | 'POST', path: string, handle: EndpointSpec['handle'], shared?: 'shared'): EndpointSpec =>
  ({
    id: `${dialect.name} ${method} ${path}${shared ? ' (own)' : ''}`,
    method,
    path,
    format: dialect.format,
    dialect: dialect.name,
    auth: dialect.auth,
    handle,
  }) as EndpointSpec;

const REGIONAL = '/projects/:project/locations/:location';

export const vertexEndpoints: EndpointSpec[] = ['/v1', '/v1beta1'].flatMap((v): EndpointSpec[] => {
  const google = [`${v}${REGIONAL}/publishers/google/models/:call`, `${v}/publishers/google/models/:call`];
  const anthropic = `${v}${REGIONAL}/publishers/anthropic/models`;
  return [
    ...mount(
      geminiEndpoints,
      gemini,
      google.map((path) => ({ endpoint: GEMINI_ENDPOINT, path, accepts: geminiMounted, enter: enterGemini, leave: leaveGemini })),
    ),
    ...google.map((path) => own(gemini, 'POST', path, geminiOwnMethod, 'shared')),
    ...mount(anthropicEndpoints, claude, [
      { endpoint: 'anthropic POST /v1/messages', path: `${anthropic}/:call`, accepts: messagesMounted, enter: enterMessages },
      {
        endpoint: 'anthropic POST /v1/messages/count_tokens',
        path: `${anthropic}/:call`,
        id: `vertex POST ${anthropic}/count-tokens:rawPredict`,
        accepts: countTokensMounted,
        enter: enterCountTokens,
      },
    ]),
    own(claude, 'POST', `${anthropic}/:call`, unknownClaudeMethod, 'shared'),
    // Another publisher (literal publishers above come first).
    own(gemini, 'POST', `${v}${REGIONAL}/publishers/:publisher/models/:call`, otherPublisher),
    own(gemini, 'POST', `${v}/publishers/:publisher/models/:call`, otherPublisher),
    own(gemini, 'GET', `${v}/publishers/:publisher/models`, listPublisherModels),
    own(gemini, 'GET', `${v}/publishers/:publisher/models/:model`, getPublisherModel),
  ];
});
