// The Anthropic-format endpoints: messages, count_tokens, and the models list in Anthropic's shape.
import { GatewayError } from '../../core/errors.ts';
import type { ModelInfo } from '../../core/models.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { isForward } from '../../pipeline/decide.ts';
import { anthropicFormat } from './format.ts';
import { parseMessagesRequest } from './parse.ts';
import { checkFileSources } from './files.ts';
import { messageStreamEvents, renderMessage } from './render.ts';
import { answerMessage, anthropicVersion, KEY_OR_BEARER, requireChatModel } from './messages.ts';
import { listPage } from './list.ts';
import { batchEndpoints } from './batches.ts';
import { anthropicFileEndpoints, fromAnthropicClient } from './files.ts';

function modelObject(m: ModelInfo) {
  return {
    type: 'model',
    id: m.id,
    display_name: m.display_name ?? m.id,
    created_at: new Date(m.created * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

export const anthropicEndpoints: EndpointSpec[] = [
  {
    method: 'POST',
    path: '/v1/messages',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    async handle(call) {
      const { request, answered } = await answerMessage(call, call.body, anthropicVersion(call));
      if (isForward(answered)) return answered;
      const { reply, latency } = answered;
      return deliver(call, answered, request.stream, {
        json: () => renderMessage(reply, request),
        events: () => messageStreamEvents(reply, request, latency),
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    async handle(call) {
      const request = parseMessagesRequest(call.body, anthropicVersion(call), true, await checkFileSources(call, call.body));
      requireChatModel(call.runtime.catalogue, request.model);
      return json({ input_tokens: await countPromptTokensInSlices(request.messages, request.tools) });
    },
  },
  {
    method: 'GET',
    path: '/v1/models',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    accepts: fromAnthropicClient,
    handle(call) {
      const all = call.runtime.catalogue.list().sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
      return json(listPage(call, all, (m) => m.id, 'model', modelObject));
    },
  },
  {
    method: 'GET',
    path: '/v1/models/:model',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    accepts: fromAnthropicClient,
    handle(call) {
      const id = String(call.params.model);
      const model = call.runtime.catalogue.get(id);
      if (!model) throw new GatewayError('not_found', `model: ${id}`);
      return json(modelObject(model));
    },
  },
  ...batchEndpoints,
  ...anthropicFileEndpoints,
];
