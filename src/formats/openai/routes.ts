// The OpenAI-format endpoints under /v1.
import type { ModelInfo } from '../../core/models.ts';
import { GatewayError } from '../../core/errors.ts';
import type { EndpointSpec } from '../../transport/endpoint.ts';
import { json } from '../../transport/exchange.ts';
import { deliver } from '../../transport/respond.ts';
import { chatStreamEvents, renderChat } from './chat.ts';
import { openaiFormat } from './errors.ts';
import { parseChatRequest } from './parse.ts';

const BEARER = ['bearer'] as const;
// The gateway also takes `x-api-key` on the models list, for messages-style clients.
const BEARER_OR_KEY = ['bearer', 'x-api-key'] as const;

function modelObject(m: ModelInfo) {
  return { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by };
}

export const openaiEndpoints: EndpointSpec[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      const { request, options } = parseChatRequest(call.body as Record<string, unknown>);
      call.runtime.requireModel(request.model, 'chat');
      const answered = call.runtime.answer(call, request);
      const { reply, latency } = answered;
      return deliver(call, answered, request.stream, {
        json: () => renderChat(reply, request, options),
        events: () => chatStreamEvents(reply, request, options, latency),
      });
    },
  },
  {
    method: 'GET',
    path: '/v1/models',
    format: openaiFormat,
    auth: BEARER_OR_KEY,
    handle: ({ runtime }) => json({ object: 'list', data: runtime.catalogue.list().map(modelObject) }),
  },
  {
    method: 'GET',
    path: '/v1/models/:model',
    format: openaiFormat,
    auth: BEARER_OR_KEY,
    handle({ runtime, params }) {
      const id = String(params.model);
      const model = runtime.catalogue.get(id);
      if (!model) {
        throw new GatewayError('not_found', `The model '${id}' does not exist`, { param: 'model', code: 'model_not_found' });
      }
      return json(modelObject(model));
    },
  },
];
