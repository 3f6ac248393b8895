// The OpenAI-format endpoints under /v1.
import type { ModelInfo } from '../../core/models.ts';
import { GatewayError } from '../../core/errors.ts';
import type { EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import { chatStreamEvents, renderChat } from './chat.ts';
import { openaiFormat } from './format.ts';
import { parseChatRequest } from './parse.ts';
import { listedInputItems, parseResponsesRequest, renderResponse, responseId, responseStreamEvents, type StoredResponse } from './responses.ts';
import { callId } from './chat.ts';
import { combine, completionStreamEvents, parseCompletionRequest, renderCompletion } from './completions.ts';
import { embeddingEndpoints } from './embeddings.ts';
import { realtimeEndpoints } from './realtime-routes.ts';
import { audioEndpoints } from './audio.ts';
import { imageEndpoints } from './images.ts';
import { imageEditEndpoints } from './image-edits.ts';
import type { Call } from '../../pipeline/call.ts';
import type { Message } from '../../core/request.ts';
import { choiceText } from '../../core/reply.ts';
import { answer, isForward, type Answered } from '../../pipeline/decide.ts';

const BEARER = ['bearer'] as const;
// The gateway also takes `x-api-key` on the models list, for messages-style clients.
const BEARER_OR_KEY = ['bearer', 'x-api-key'] as const;

function modelObject(m: ModelInfo) {
  // A name served by alias or by the vendor's naming says so, and what it stands for.
  const resolved = m.resolved_by ? { resolved_by: m.resolved_by, resolved_to: m.resolved_to } : {};
  return { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by, ...resolved };
}

export const openaiEndpoints: EndpointSpec[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    format: openaiFormat,
    auth: BEARER,
    async handle(call) {
      const { request, options } = parseChatRequest(call.body as Record<string, unknown>);
      call.runtime.requireModel(request.model, 'chat');
      // Counted here with the event loop served between slices; answer() then finds the count.
      await countPromptTokensInSlices(request.messages, request.tools);
      const answered = answer(call, request);
      if (isForward(answered)) return answered;
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
  {
    method: 'POST',
    path: '/v1/completions',
    format: openaiFormat,
    auth: BEARER,
    async handle(call) {
      const parsed = parseCompletionRequest(call.body as Record<string, unknown>);
      const model = parsed.requests[0].model;
      if (call.runtime.catalogue.get(model)?.capabilities.includes('chat')) {
        // OpenAI's own words for this mistake.
        throw new GatewayError('not_found', 'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?', { param: 'model' });
      }
      call.runtime.requireModel(model, 'completion');
      for (const r of parsed.requests) await countPromptTokensInSlices(r.messages, r.tools);
      const answers: Answered[] = [];
      for (const r of parsed.requests) {
        const answered = answer(call, r);
        if (isForward(answered)) return answered;
        answers.push(answered);
      }
      const reply = combine(answers.map((a) => a.reply), parsed);
      const { latency, fault } = answers[0];
      return deliver(call, { reply, latency, fault }, parsed.requests[0].stream, {
        json: () => renderCompletion(reply, parsed, model),
        events: () => completionStreamEvents(reply, parsed, model, latency),
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/responses',
    format: openaiFormat,
    auth: BEARER,
    async handle(call) {
      const body = call.body as Record<string, unknown>;
      const previous = typeof body.previous_response_id === 'string' ? stored(call, body.previous_response_id) : undefined;
      const parsed = parseResponsesRequest(body, previous);
      const { request } = parsed;
      call.runtime.requireModel(request.model, 'chat');
      await countPromptTokensInSlices(request.messages, request.tools);
      const answered = answer(call, request);
      if (isForward(answered)) return answered;
      const { reply, latency } = answered;
      if (body.store !== false) {
        const said: Message = {
          role: 'assistant',
          parts: reply.choices[0].blocks.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : [])),
          toolCalls: reply.choices[0].blocks.flatMap((b) => (b.type === 'tool_call' ? [{ id: callId(b.id), name: b.name, arguments: b.arguments }] : [])),
        };
        const entry: StoredResponse = { response: renderResponse(reply, parsed), ...(body.background === true && { background: true }), inputItems: listedInputItems(parsed.items, reply), conversation: [...request.messages, said] };
        // Its size: the request it repeats (conversation and input items) and the reply, roughly twice over.
        call.runtime.stored.set(`response:${responseId(reply)}`, entry, 2 * (call.entry.bodyBytes ?? 0) + 4 * choiceText(reply.choices[0]).length + 4096);
      }
      return deliver(call, answered, request.stream, {
        json: () => renderResponse(reply, parsed),
        events: () => responseStreamEvents(reply, parsed, latency),
      });
    },
  },
  {
    method: 'GET',
    path: '/v1/responses/:id',
    format: openaiFormat,
    auth: BEARER,
    handle: (call) => json(stored(call, String(call.params.id), true).response),
  },
  {
    method: 'DELETE',
    path: '/v1/responses/:id',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      const id = String(call.params.id);
      stored(call, id, true);
      call.runtime.stored.delete(`response:${id}`);
      return json({ id, object: 'response', deleted: true });
    },
  },
  {
    method: 'GET',
    path: '/v1/responses/:id/input_items',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      const items = stored(call, String(call.params.id), true).inputItems;
      const order = call.inbound.url.searchParams.get('order') ?? 'desc';
      const listed = order === 'asc' ? items : [...items].reverse();
      return json({ object: 'list', data: listed, first_id: listed[0]?.id ?? null, last_id: listed.at(-1)?.id ?? null, has_more: false });
    },
  },
  {
    method: 'POST',
    path: '/v1/responses/:id/cancel',
    format: openaiFormat,
    auth: BEARER,
    bodiless: true,
    handle(call) {
      // Background responses are answered at once (not emulated yet): cancelling one that has finished
      // returns it as it stands, as the service does for a finished background response.
      const found = stored(call, String(call.params.id), true);
      if (found.background) return json(found.response);
      throw new GatewayError('invalid_request', 'Only responses created with background=true can be cancelled; this response has already completed.', { param: 'response_id' });
    },
  },
  ...embeddingEndpoints,
  ...realtimeEndpoints,
  ...audioEndpoints,
  ...imageEndpoints,
  ...imageEditEndpoints,
];

/** A stored response, or the real 404 (for a path id) / 400 (for previous_response_id). */
function stored(call: Call, id: string, byPath = false): StoredResponse {
  const found = call.runtime.stored.get(`response:${id}`) as StoredResponse | undefined;
  if (found) return found;
  if (byPath) throw new GatewayError('not_found', `Response with id '${id}' not found.`, { param: 'response_id' });
  throw new GatewayError('invalid_request', `Previous response with id '${id}' not found.`, { param: 'previous_response_id', code: 'previous_response_not_found' });
}

