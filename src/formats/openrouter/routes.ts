// OpenRouter: OpenAI's chat completions, completions, embeddings and responses under /api/v1, as the
// openai SDK (baseURL …/api/v1) and @openrouter/ai-sdk-provider call them (pipeline/mount.ts), with
// OpenRouter's request extensions (requests.ts), its reply fields (replies.ts), its errors, and its
// models list. Model ids are `vendor/model`.
import type { EndpointSpec } from '../../pipeline/call.ts';
import { mount, type Dialect } from '../../pipeline/mount.ts';
import { openaiEndpoints } from '../openai/routes.ts';
import { openrouterFormat } from './format.ts';
import { catalogueId, listModels } from './models.ts';
import { routedRequest } from './requests.ts';
import { routedReply } from './replies.ts';

const openrouter: Dialect = {
  name: 'openrouter',
  format: openrouterFormat,
  auth: ['bearer'],
  prefix: '/api',
  modelName: catalogueId,
  enter: routedRequest,
};

export const openrouterEndpoints: EndpointSpec[] = [
  ...mount(openaiEndpoints, openrouter, [
    { endpoint: 'openai POST /v1/chat/completions', leave: routedReply },
    { endpoint: 'openai POST /v1/completions', leave: routedReply },
    { endpoint: 'openai POST /v1/embeddings', leave: routedReply },
    { endpoint: 'openai POST /v1/responses' },
  ]),
  // Public on OpenRouter: listing its models needs no key.
  {
    id: 'openrouter GET /api/v1/models',
    method: 'GET',
    path: '/api/v1/models',
    format: openrouterFormat,
    dialect: 'openrouter',
    auth: [],
    handle: listModels,
  },
];
