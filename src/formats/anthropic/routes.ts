// The Anthropic-format endpoints: messages, count_tokens, and the models list in Anthropic's shape.
import { GatewayError } from '../../core/errors.ts';
import type { ModelInfo } from '../../core/models.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import type { Inbound } from '../../pipeline/exchange.ts';
import { json } from '../../pipeline/exchange.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { anthropicFormat } from './format.ts';
import { parseMessagesRequest } from './parse.ts';
import { messageStreamEvents, renderMessage } from './render.ts';
import { checkField } from './validate.ts';
import { answer, isForward } from '../../pipeline/decide.ts';

const KEY_OR_BEARER = ['x-api-key', 'bearer'] as const;

function version(call: Call): string {
  const value = call.inbound.header('anthropic-version');
  if (!value) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required (for example `anthropic-version: 2023-06-01`).');
  }
  return value;
}

function requireModel(call: Call, model: string): void {
  try {
    call.runtime.requireModel(model, 'chat');
  } catch (error) {
    // Anthropic words an unknown model as `model: <name>`.
    if (error instanceof GatewayError && error.kind === 'not_found') throw new GatewayError('not_found', `model: ${model}`);
    throw error;
  }
}

function modelObject(m: ModelInfo) {
  return { type: 'model', id: m.id, display_name: m.display_name ?? m.id, created_at: new Date(m.created * 1000).toISOString().replace('.000Z', 'Z') };
}

/** Anthropic clients (SDKs, the AI SDK) always send anthropic-version; OpenAI clients never do. */
const fromAnthropicClient = (inbound: Inbound) => inbound.header('anthropic-version') !== undefined;

export const anthropicEndpoints: EndpointSpec[] = [
  {
    method: 'POST',
    path: '/v1/messages',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    async handle(call) {
      const request = parseMessagesRequest(call.body as Record<string, unknown>, version(call));
      requireModel(call, request.model);
      // Counted with the event loop served between slices; answer() then finds the count.
      await countPromptTokensInSlices(request.messages, request.tools);
      const answered = answer(call, request);
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
      const request = parseMessagesRequest(call.body as Record<string, unknown>, version(call), true);
      requireModel(call, request.model);
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
      const params = call.inbound.url.searchParams;
      const limit = params.has('limit') ? Number(params.get('limit')) : 20;
      checkField('limit', Number.isInteger(limit) ? limit : params.get('limit'), { types: ['integer'], min: 1, max: 1000 });
      const all = call.runtime.catalogue.list().sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
      const after = params.get('after_id');
      const before = params.get('before_id');
      const find = (id: string) => {
        const at = all.findIndex((m) => m.id === id);
        if (at < 0) throw new GatewayError('invalid_request', `${after === id ? 'after_id' : 'before_id'}: no model with id '${id}'`);
        return at;
      };
      let page: ModelInfo[];
      let hasMore: boolean;
      if (before) {
        const end = find(before);
        page = all.slice(Math.max(0, end - limit), end);
        hasMore = end - limit > 0;
      } else {
        const start = after ? find(after) + 1 : 0;
        page = all.slice(start, start + limit);
        hasMore = start + limit < all.length;
      }
      return json({ data: page.map(modelObject), has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null });
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
];
