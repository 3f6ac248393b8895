// Azure OpenAI: OpenAI's endpoints mounted on Azure's paths (pipeline/mount.ts). Three path forms, as
// the clients send them:
// - a deployment's operations, `/openai/deployments/{deployment}/chat/completions?api-version=2024-10-21`
//   (the `openai` package's AzureOpenAI; @ai-sdk/azure with useDeploymentBasedUrls): the deployment is
//   the model, and a dated api-version is required;
// - the dated API's operations without a deployment, `/openai/responses?api-version=…` and `/openai/models`
//   (AzureOpenAI's responses and models calls): the model in the body is the deployment;
// - the v1 API, `/openai/v1/chat/completions` (@ai-sdk/azure, OpenAI clients with that base URL): OpenAI's
//   paths under /openai, the body's model the deployment, no api-version needed.
// A key travels as `api-key` (or as a Bearer token, as Entra ID tokens do).
import { GatewayError } from '../../core/errors.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import type { JsonObject, Outbound } from '../../pipeline/exchange.ts';
import { dialectModel, mount, type Dialect, type MountPoint } from '../../pipeline/mount.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { touchPayloads } from '../../pipeline/touch.ts';
import { openaiEndpoints } from '../openai/routes.ts';
import { azureHeaders } from './errors.ts';
import { withFilterResults } from './filters.ts';
import { azureFormat } from './format.ts';

/** A version of the dated API: `2024-10-21`, `2025-04-01-preview`. */
const DATED = /^\d{4}-\d{2}-\d{2}(?:-preview)?$/;
/** What the v1 API takes as its api-version, if one is sent at all. */
const V1_VERSIONS = ['v1', 'preview', 'latest'];
/** A current GA version of the dated API, for messages that say what to send. */
const EXAMPLE_VERSION = '2024-10-21';

/** Azure's names for OpenAI's models where they differ: its deployments of GPT-3.5 are `gpt-35-turbo`. */
const modelName = (name: string): string | undefined => (name.startsWith('gpt-35-') ? `gpt-3.5-${name.slice(7)}` : undefined);

/** The dated API's paths require a dated api-version: missing, Azure's 404; another kind, its 400. */
function requireDatedVersion(call: Call): void {
  const version = call.inbound.url.searchParams.get('api-version');
  if (!version) {
    throw new GatewayError(
      'not_found',
      `Resource not found: the api-version query parameter is missing; add ?api-version=${EXAMPLE_VERSION} (or a newer version; AzureOpenAI's apiVersion option), or call the v1 API under /openai/v1/, which needs none.`,
      { code: '404' },
    );
  }
  if (!DATED.test(version)) {
    throw new GatewayError(
      'invalid_request',
      `API version not supported: "${version}" is no version of the dated API that ${call.inbound.url.pathname} belongs to; send a dated one such as ${EXAMPLE_VERSION} or 2025-04-01-preview${V1_VERSIONS.includes(version) ? ` ("${version}" is for the v1 API's paths, /openai/v1/…)` : ''}.`,
      { code: 'BadRequest' },
    );
  }
}

/** The v1 API takes no api-version, or `v1`, `preview` or `latest`; a dated one is its 400. */
function checkV1Version(call: Call): void {
  const version = call.inbound.url.searchParams.get('api-version');
  if (version === null || V1_VERSIONS.includes(version)) return;
  throw new GatewayError(
    'invalid_request',
    `API version not supported: the v1 API (/openai/v1/…) takes no api-version, or ${V1_VERSIONS.join(', ')}; "${version}" belongs to the dated API's paths (/openai/deployments/{deployment}/…).`,
    { code: 'BadRequest' },
  );
}

/** The catalogue model a deployment stands for, or Azure's own 404 naming what to do about it. */
function deploymentModel(call: Call, deployment: string): string {
  const model = dialectModel(call, azure, deployment);
  if (model) return model;
  throw new GatewayError(
    'not_found',
    `The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again. (model-gateway-mock: no deployment "${deployment}": name a deployment for a model of the catalogue, such as gpt-4o-mini, or map this name to one with --deployment ${deployment}=<model> or the deployments option.)`,
    { code: 'DeploymentNotFound' },
  );
}

/** The request with the body's model set to the deployment's (the handler then runs as for that model). */
function answerAs(call: Call, model: string): void {
  const body = call.body ?? {};
  const own: JsonObject = { ...body, model };
  lenientAlike(body, own);
  call.body = own;
}

/** A deployment's operation: a dated api-version, and the deployment in the path is the model. */
function deploymentCall(call: Call): void {
  requireDatedVersion(call);
  answerAs(call, deploymentModel(call, String(call.params.deployment)));
}

/** The body's model names a deployment (the v1 API, and the dated API's operations without one in the path). */
function bodyDeployment(call: Call): void {
  const name = call.body?.model;
  // No model, or not a string: the endpoint's own checks say what is wrong.
  if (typeof name === 'string') answerAs(call, deploymentModel(call, name));
}

const datedCall = (call: Call) => {
  requireDatedVersion(call);
  bodyDeployment(call);
};

const v1Call = (call: Call) => {
  checkV1Version(call);
  bodyDeployment(call);
};

/** A deployment's answer names it, as Azure's does. */
const namedDeployment = (call: Call, out: Outbound): Outbound => {
  out.headers['x-ms-deployment-name'] = String(call.params.deployment);
  return out;
};

const filtered = (_call: Call, out: Outbound) => withFilterResults(out);

const YEAR_SECONDS = 365 * 24 * 3600;

/** A model as Azure lists it: what it can do, its lifecycle, and when it retires (two years on, fixed so bytes repeat). */
function azureModel(call: Call, model: JsonObject): JsonObject {
  const capabilities = call.runtime.catalogue.get(String(model.id))?.capabilities ?? [];
  const created = Number(model.created) || 0;
  return {
    status: 'succeeded',
    capabilities: {
      fine_tune: false,
      inference: true,
      completion: capabilities.includes('completion'),
      chat_completion: capabilities.includes('chat'),
      embeddings: capabilities.includes('embedding'),
    },
    lifecycle_status: 'generally-available',
    deprecation: { inference: created + 2 * YEAR_SECONDS },
    id: model.id,
    created_at: created,
    object: 'model',
  };
}

const listedModels = (call: Call, out: Outbound) =>
  touchPayloads(out, (payload) =>
    payload.object === 'list'
      ? [{ data: (payload.data as JsonObject[]).map((m) => azureModel(call, m)), object: 'list' }]
      : [azureModel(call, payload)],
  );

const azure: Dialect = {
  name: 'azure',
  format: azureFormat,
  auth: ['api-key', 'bearer'],
  prefix: '/openai',
  modelName,
  leave(call, out) {
    Object.assign(out.headers, azureHeaders(call.requestId));
    return out;
  },
};

/** A deployment's operations (AzureOpenAI inserts `/deployments/{deployment}` before exactly these). */
const DEPLOYMENT_OPERATIONS = [
  '/chat/completions',
  '/completions',
  '/embeddings',
  '/audio/speech',
  '/audio/transcriptions',
  '/audio/translations',
  '/images/generations',
  '/images/edits',
];

/** OpenAI's operations the v1 API serves under /openai/v1, and the dated API (marked) without a deployment. */
const OPERATIONS: { endpoint: string; dated?: boolean; leave?: MountPoint['leave'] }[] = [
  { endpoint: 'openai POST /v1/chat/completions', leave: filtered },
  { endpoint: 'openai POST /v1/completions', leave: filtered },
  { endpoint: 'openai POST /v1/embeddings' },
  { endpoint: 'openai POST /v1/audio/speech' },
  { endpoint: 'openai POST /v1/audio/transcriptions' },
  { endpoint: 'openai POST /v1/audio/translations' },
  { endpoint: 'openai POST /v1/images/generations' },
  { endpoint: 'openai POST /v1/images/edits' },
  { endpoint: 'openai POST /v1/responses', dated: true },
  { endpoint: 'openai GET /v1/responses/:id', dated: true },
  { endpoint: 'openai DELETE /v1/responses/:id', dated: true },
  { endpoint: 'openai GET /v1/responses/:id/input_items', dated: true },
  { endpoint: 'openai POST /v1/responses/:id/cancel', dated: true },
  { endpoint: 'openai GET /v1/models', dated: true, leave: listedModels },
  { endpoint: 'openai GET /v1/models/:model', dated: true, leave: listedModels },
];

const pathOf = (id: string) => id.slice(id.indexOf('/'));

export const azureEndpoints: EndpointSpec[] = mount(openaiEndpoints, azure, [
  ...DEPLOYMENT_OPERATIONS.map((operation): MountPoint => {
    const endpoint = `openai POST /v1${operation}`;
    const touch = OPERATIONS.find((o) => o.endpoint === endpoint)?.leave;
    return {
      endpoint,
      path: `/openai/deployments/:deployment${operation}`,
      enter: deploymentCall,
      leave: async (call, out) => namedDeployment(call, touch ? await touch(call, out) : out),
    };
  }),
  ...OPERATIONS.filter((o) => o.dated).map(
    (o): MountPoint => ({
      endpoint: o.endpoint,
      path: `/openai${pathOf(o.endpoint).slice('/v1'.length)}`,
      enter: datedCall,
      leave: o.leave,
    }),
  ),
  ...OPERATIONS.map((o): MountPoint => ({ endpoint: o.endpoint, enter: v1Call, leave: o.leave })),
]);
