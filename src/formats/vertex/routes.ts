// Vertex AI's endpoints: Gemini (publishers/google) under a project and location or in express mode,
// Claude (publishers/anthropic) under a project and location, and the publisher model listings.
import type { EndpointSpec } from '../../pipeline/call.ts';
import { claudeMethod } from './claude.ts';
import { vertexClaudeFormat, vertexGeminiFormat } from './format.ts';
import { geminiMethod, getPublisherModel, listPublisherModels } from './gemini.ts';

/** An access token (the gateway token stands for it), or an express-mode API key. */
const GOOGLE_KEYS = ['bearer', 'x-goog-api-key', 'query-key'] as const;
/** Claude on Vertex AI takes only an access token. */
const ACCESS_TOKEN = ['bearer'] as const;

const versions = ['/v1', '/v1beta1'];

export const vertexEndpoints: EndpointSpec[] = versions.flatMap((v): EndpointSpec[] => [
  // Before the {publisher} pattern of the same shape: this literal publisher is Claude's.
  {
    method: 'POST',
    path: `${v}/projects/:project/locations/:location/publishers/anthropic/models/:call`,
    format: vertexClaudeFormat,
    auth: ACCESS_TOKEN,
    handle: claudeMethod,
  },
  {
    method: 'POST',
    path: `${v}/projects/:project/locations/:location/publishers/:publisher/models/:call`,
    format: vertexGeminiFormat,
    auth: GOOGLE_KEYS,
    handle: geminiMethod,
  },
  { method: 'POST', path: `${v}/publishers/:publisher/models/:call`, format: vertexGeminiFormat, auth: GOOGLE_KEYS, handle: geminiMethod },
  { method: 'GET', path: `${v}/publishers/:publisher/models`, format: vertexGeminiFormat, auth: GOOGLE_KEYS, handle: listPublisherModels },
  {
    method: 'GET',
    path: `${v}/publishers/:publisher/models/:model`,
    format: vertexGeminiFormat,
    auth: GOOGLE_KEYS,
    handle: getPublisherModel,
  },
]);
