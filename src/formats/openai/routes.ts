// The OpenAI-format endpoints under /v1.
import type { ModelInfo } from '../../core/models.ts';
import { GatewayError } from '../../core/errors.ts';
import { withoutOutput } from '../../core/reply.ts';
import type { EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { responsesStreamError } from './errors.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import { chatStreamEvents, renderChat } from './chat.ts';
import { openaiFormat } from './format.ts';
import { anthropicFormat } from '../anthropic/format.ts';
import { geminiFormat } from '../gemini/format.ts';
import { parseChatRequest } from './parse.ts';
import {
  listedInputItems,
  parseResponsesRequest,
  keepOnConnection,
  storedResponse,
  renderResponse,
  responseId,
  responseStreamEvents,
  type StoredResponse,
} from './responses.ts';
import { callId } from './chat.ts';
import { responsesUpgrade } from './responses-socket.ts';
import { callRef, imageFiles } from './tool-items.ts';
import { combine, completionStreamEvents, parseCompletionRequest, renderCompletion } from './completions.ts';
import { embeddingEndpoints } from './embeddings.ts';
import { compactEndpoints } from './compact.ts';
import { fileEndpoints, readOpenAIFileParts, withoutFileTexts } from './files.ts';
import { uploadEndpoints } from './uploads.ts';
import { moderationEndpoints } from './moderations.ts';
import { batchEndpoints } from './batches.ts';
import { vectorSearcher, vectorStoreEndpoints } from './vector-stores.ts';
import { conversationEndpoints, withConversation } from './conversations.ts';
import type { JsonObject } from '../fields.ts';
import { cancelRun, checkBackground, retrieveRun, runEvents, startRun, streamRun } from './background.ts';
import { invalid, invalidType } from './validate.ts';
import { inputTokenEndpoints } from './input-tokens.ts';
import { traceEndpoints } from './traces.ts';
// Realtime, audio and images: their handlers load on their first request (routes-media.ts).
import { audioEndpoints, imageEditEndpoints, imageEndpoints, imageVariationEndpoints, realtimeEndpoints } from './routes-media.ts';
import { STORED, storeChat, storedBytes, storedChatEndpoints } from './stored-chat.ts';
import { cursorPage } from './resource.ts';
import { heldFor } from '../../scope.ts';
import type { Call } from '../../pipeline/call.ts';
import type { Inbound } from '../../pipeline/exchange.ts';
import type { Message } from '../../core/request.ts';
import { answer, isForward, type Answered, requireModel } from '../../pipeline/decide.ts';

const BEARER = ['bearer'] as const;
// The gateway also takes `x-api-key` on the models list, for messages-style clients.
const BEARER_OR_KEY = ['bearer', 'x-api-key'] as const;

function modelObject(m: ModelInfo) {
  // A name served by alias or by the vendor's naming says so, and what it stands for.
  const resolved = m.resolved_by ? { resolved_by: m.resolved_by, resolved_to: m.resolved_to } : {};
  return { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by, ...resolved };
}

/** The catalogued model `id`, or OpenAI's 404 for a name it does not have. */
function catalogued(runtime: Call['runtime'], id: string): ModelInfo {
  const model = runtime.catalogue.get(id);
  if (!model) throw new GatewayError('not_found', `The model '${id}' does not exist`, { param: 'model', code: 'model_not_found' });
  return model;
}

/** Whether a request on a path other vendors have too (`/v1/models`, `/v1/files`) is not from their clients. */
const fromOpenAIClient = (inbound: Inbound) => !anthropicFormat.recognizes?.(inbound) && !geminiFormat.recognizes?.(inbound);

export const openaiEndpoints: EndpointSpec[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    format: openaiFormat,
    auth: BEARER,
    async handle(call) {
      const { request, options } = parseChatRequest(call.body);
      requireModel(call, request.model, 'chat');
      await readOpenAIFileParts(call, request.messages);
      // Counted here with the event loop served between slices; answer() then finds the count.
      await countPromptTokensInSlices(request.messages, request.tools);
      const answered = answer(call, request);
      if (isForward(answered)) return answered;
      const { reply, latency } = answered;
      // Stored as the client gets it (a stream's assembled completion); not a fault, nor a fixture's raw body.
      const kept =
        call.body.store === true && !answered.fault && answered.raw === undefined ? renderChat(reply, request, options) : undefined;
      if (kept) storeChat(call, reply, kept);
      return deliver(call, answered, request.stream, {
        // Log probabilities made as the reply is written (a stored reply is kept whole).
        json: () => kept ?? renderChat(reply, request, options, true),
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
    handle: ({ runtime, params }) => json(modelObject(catalogued(runtime, String(params.model)))),
  },
  {
    method: 'DELETE',
    path: '/v1/models/:model',
    format: openaiFormat,
    auth: BEARER,
    // A path the other vendors serve too (GET), with a method only OpenAI's serves: their clients asking
    // it get their own vendor's 405 (paths.ts's errorFormat), not OpenAI's 401 for a missing Bearer key.
    accepts: fromOpenAIClient,
    handle({ runtime, params }) {
      // OpenAI documents deletion for fine-tuned models the caller's organization owns (Owner role
      // needed). The gateway fine-tunes nothing: every model it serves is a base model someone else
      // owns, so deleting one is refused as a permission error (403), and an unknown name gets the
      // same 404 a retrieve gets. Nothing is ever removed from the catalogue.
      const model = catalogued(runtime, String(params.model));
      throw new GatewayError(
        'permission',
        `You do not have permission to delete the model '${model.id}': it is owned by '${model.owned_by}'. Only fine-tuned models your organization owns can be deleted, and this gateway has none.`,
        { param: 'model' },
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/completions',
    format: openaiFormat,
    auth: BEARER,
    async handle(call) {
      const parsed = parseCompletionRequest(call.body);
      const model = parsed.requests[0].model;
      if (call.runtime.catalogue.get(model)?.capabilities.includes('chat')) {
        // OpenAI's own words for this mistake.
        throw new GatewayError(
          'not_found',
          'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?',
          { param: 'model' },
        );
      }
      requireModel(call, model, 'completion');
      for (const r of parsed.requests) await countPromptTokensInSlices(r.messages, r.tools);
      const answers: Answered[] = [];
      for (const r of parsed.requests) {
        const answered = answer(call, r);
        if (isForward(answered)) return answered;
        answers.push(answered);
      }
      const reply = combine(
        answers.map((a) => a.reply),
        parsed,
      );
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
      // `generate` is the socket's alone (a warm-up: the request's state made ready, nothing generated); over HTTP it is an unknown parameter.
      const { generate, ...socketBody } = call.body;
      const body = call.inbound.connection ? socketBody : call.body;
      if (call.inbound.connection && generate !== undefined && typeof generate !== 'boolean')
        throw invalidType('generate', ['boolean'], generate);
      const turn = withConversation(call);
      const previous = typeof body.previous_response_id === 'string' ? storedResponse(call, body.previous_response_id) : undefined;
      const parsed = parseResponsesRequest(body, previous ?? (turn && { conversation: turn.history }));
      const { request } = parsed;
      requireModel(call, request.model, 'chat');
      await readOpenAIFileParts(call, request.messages);
      await countPromptTokensInSlices(request.messages, request.tools);
      checkBackground(body);
      let answered = answer(call, request, vectorSearcher(call));
      if (isForward(answered)) return answered;
      if (call.inbound.connection && generate === false) answered = { ...answered, reply: withoutOutput(answered.reply) };
      const { reply, latency } = answered;
      parsed.images = await imageFiles(reply, request);
      // The turn joins its conversation (the input as given, then the output) unless a fault fails it:
      // the SDK retries a failed turn, which would otherwise be in the conversation twice.
      if (!answered.fault) turn?.append(parsed.items, renderResponse(reply, parsed).output as JsonObject[]);
      // A background response runs on the gateway's clock (a fault or a fixture's raw body is answered as it is).
      const run =
        body.background === true && !answered.fault && answered.raw === undefined ? startRun(call, reply, parsed, latency) : undefined;
      // Kept when stored, and on a Responses socket as its connection's last response whatever `store` says.
      const connection = call.inbound.connection;
      if (body.store !== false || connection) {
        const said: Message = {
          role: 'assistant',
          parts: reply.choices[0].blocks.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : [])),
          toolCalls: reply.choices[0].blocks.flatMap((b) =>
            b.type === 'tool_call' ? [{ id: b.builtin ? callRef(b) : callId(b.id), name: b.name, arguments: b.arguments }] : [],
          ),
        };
        const entry: StoredResponse = {
          response: renderResponse(reply, parsed),
          ...(run && { run }),
          inputItems: listedInputItems(parsed.items, reply),
          // A file given by id is kept by its id, not its text (which the stored size does not count): read again when continued.
          conversation: [...request.messages.map(withoutFileTexts), said],
        };
        const key = `response:${responseId(reply)}`;
        if (body.store !== false) heldFor(call, STORED).set(key, entry, storedBytes(call, reply));
        if (connection) keepOnConnection(call, key, entry, body.store !== false, storedBytes(call, reply));
      }
      // Not streamed, a background response is answered at once, queued.
      if (run && !request.stream) {
        call.entry.usage = reply.usage;
        return json(renderResponse(reply, parsed, 'queued'));
      }
      return deliver(call, answered, request.stream, {
        json: () => renderResponse(reply, parsed),
        events: () => (run ? runEvents(run, 0, -1) : responseStreamEvents(reply, parsed, latency)),
        streamError: responsesStreamError,
      });
    },
  },
  {
    // The Responses API's WebSocket mode: each response.create answered by the POST above (responses-socket.ts).
    method: 'GET',
    path: '/v1/responses',
    format: openaiFormat,
    auth: BEARER,
    upgrade: true,
    handle: responsesUpgrade,
  },
  {
    method: 'GET',
    path: '/v1/responses/:id',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      const found = storedResponse(call, String(call.params.id), true);
      if (call.inbound.url.searchParams.get('stream') === 'true') {
        if (!found.run)
          throw invalid(
            'stream',
            'Only responses created with background=true can be streamed; retrieve this one without stream.',
            undefined,
          );
        return streamRun(call, found.run);
      }
      return json(found.run ? retrieveRun(call, found.run) : found.response);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/responses/:id',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      const id = String(call.params.id);
      storedResponse(call, id, true);
      heldFor(call, STORED).delete(`response:${id}`);
      return json({ id, object: 'response', deleted: true });
    },
  },
  {
    method: 'GET',
    path: '/v1/responses/:id/input_items',
    format: openaiFormat,
    auth: BEARER,
    handle(call) {
      // Paged like the stored chat completions (`limit`, `after`), newest first unless `order=asc`.
      return json(cursorPage(call, storedResponse(call, String(call.params.id), true).inputItems, { order: 'desc' }));
    },
  },
  {
    method: 'POST',
    path: '/v1/responses/:id/cancel',
    format: openaiFormat,
    auth: BEARER,
    bodiless: true,
    handle(call) {
      // A running background response is cancelled; one that has finished is returned as it stands.
      const found = storedResponse(call, String(call.params.id), true);
      if (found.run) return json(cancelRun(call, found.run));
      throw new GatewayError(
        'invalid_request',
        'Only responses created with background=true can be cancelled; this response has already completed.',
        { param: 'response_id' },
      );
    },
  },
  ...storedChatEndpoints,
  // Anthropic's Files API lives at /v1/files too: its clients get Anthropic's answer, not OpenAI's 401.
  ...fileEndpoints.map((e) => ({ ...e, accepts: fromOpenAIClient })),
  ...uploadEndpoints,
  ...vectorStoreEndpoints,
  ...conversationEndpoints,
  ...moderationEndpoints,
  // A batch's lines are answered by the endpoints above and below (the table is complete when a batch runs).
  ...batchEndpoints((path) => openaiEndpoints.find((e) => e.method === 'POST' && e.path === path)!),
  ...compactEndpoints,
  ...inputTokenEndpoints,
  ...traceEndpoints,
  ...imageVariationEndpoints,
  ...embeddingEndpoints,
  ...realtimeEndpoints,
  ...audioEndpoints,
  ...imageEndpoints,
  ...imageEditEndpoints,
];
