// Amazon Bedrock's runtime paths: Converse and ConverseStream for every chat model, InvokeModel and
// InvokeModelWithResponseStream for Claude (Anthropic's Messages body), CountTokens, and the Mantle
// endpoint's Anthropic Messages API under /anthropic. The model is the path's (URL-encoded: ids,
// inference profiles, ARNs); credentials are SigV4 (the access key id names the token) or a Bedrock
// API key as a bearer token.
import type { ModelInfo } from '../../core/models.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { BodyEndpoint, Call, EndpointSpec } from '../../pipeline/call.ts';
import { answer, isForward, type Forward } from '../../pipeline/decide.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { json, type JsonObject, type Outbound } from '../../pipeline/exchange.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { fieldsOf, isJsonObject } from '../fields.ts';
import { anthropicEndpoints } from '../anthropic/routes.ts';
import { answerMessage } from '../anthropic/messages.ts';
import { parseMessagesRequest } from '../anthropic/parse.ts';
import { messageStreamPayloads, renderMessage } from '../anthropic/render.ts';
import { eventStreamReady } from './event-stream.ts';
import { bedrockFormat, chunkFrame, invokeFormat } from './format.ts';
import { bedrockModel } from './model-id.ts';
import { parseConverse } from './parse.ts';
import { converseStreamEvents, renderConverse } from './render.ts';
import { sigV4 } from './sigv4.ts';
import { invalid } from './validate.ts';

/** How Bedrock's runtime takes a token: signed (SigV4, service `bedrock`), or a Bedrock API key. */
const SIGNED_OR_KEY = [sigV4('bedrock'), 'bearer'] as const;

const EVENT_STREAM = 'application/vnd.amazon.eventstream';

/** The Messages API version a Bedrock body is read as (its own `anthropic_version` is Bedrock's, `bedrock-2023-05-31`). */
const MESSAGES_VERSION = '2023-06-01';

/** The chat model the path names, as the catalogue knows it; Bedrock's 400 for an id it does not. */
function pathModel(call: Call): ModelInfo {
  const id = String(call.params.modelId);
  const name = bedrockModel(call.runtime.catalogue, id);
  const model = name === undefined ? undefined : call.runtime.catalogue.get(name);
  if (!model)
    throw invalid(
      'modelId',
      `The provided model identifier is invalid. (model-gateway-mock knows no model ${JSON.stringify(id.slice(0, 200))}: use a catalogue name, a Bedrock id such as anthropic.claude-sonnet-4-5-20250929-v1:0 or us.amazon.nova-pro-v1:0, or map yours with --model <id>=<model>.)`,
    );
  if (!model.capabilities.includes('chat'))
    throw invalid('modelId', "This action doesn't support the model that you provided. Try again with a supported text or chat model.");
  return { ...model, id: name! };
}

/** Converse and ConverseStream: the body parsed, the pipeline's answer, rendered as JSON or event-stream frames. */
async function converse(call: Call<JsonObject>, stream: boolean): Promise<Outbound | Forward> {
  const request = parseConverse(call.body, pathModel(call), stream);
  // Counted with the event loop served between slices; answer() then finds the count.
  await countPromptTokensInSlices(request.messages, request.tools);
  const answered = answer(call, request);
  if (isForward(answered)) return answered;
  if (stream) await eventStreamReady();
  const { reply, latency } = answered;
  const guarded = call.body.guardrailConfig !== undefined;
  return deliver(call, answered, stream, {
    json: () => renderConverse(reply, request, latency, guarded),
    events: () => converseStreamEvents(reply, request, latency, guarded),
    contentType: stream ? EVENT_STREAM : undefined,
  });
}

/** Bedrock's complaint about a Messages body, in its JSON-schema words. */
const malformed = (what: string) => invalid('body', `Malformed input request: #: ${what}, please reformat your input and try again.`);

/**
 * InvokeModel's body for Claude: Anthropic's Messages request without `model` and `stream` (the path
 * and the operation say them) and with `anthropic_version`; read as the Messages API reads it.
 */
function messagesBody(call: Call<JsonObject>, model: ModelInfo, stream: boolean): { body: JsonObject; version: string } {
  if (model.owned_by !== 'anthropic')
    throw invalid(
      'modelId',
      `model-gateway-mock serves InvokeModel for Anthropic's Claude models (their Messages body); ${model.id} takes its own body there. Call it through Converse (/model/{modelId}/converse), which serves every chat model.`,
    );
  const { anthropic_version: version, anthropic_beta: beta, ...rest } = call.body;
  if (version === undefined) throw malformed('required key [anthropic_version] not found');
  if (typeof version !== 'string') throw malformed('#/anthropic_version: expected type: String');
  if (beta !== undefined && !(Array.isArray(beta) && beta.every((b) => typeof b === 'string')))
    throw malformed('#/anthropic_beta: expected type: JSONArray of strings');
  for (const name of ['model', 'stream']) if (name in rest) throw malformed(`extraneous key [${name}] is not permitted`);
  const body = { ...rest, model: model.id, ...(stream ? { stream: true } : {}) };
  lenientAlike(call.body, body);
  // Bedrock's own version (`bedrock-2023-05-31`) reads as the Messages API's first; a client sending an
  // API version (AnthropicBedrock passes its anthropic-version header on) gets what that version allows.
  return { body, version: /^\d{4}-\d{2}-\d{2}$/.test(version) ? version : MESSAGES_VERSION };
}

/** InvokeModel and InvokeModelWithResponseStream for Claude: Messages in, a Message out (or its events as `chunk` frames). */
async function invoke(call: Call<JsonObject>, stream: boolean): Promise<Outbound | Forward> {
  const { body, version } = messagesBody(call, pathModel(call), stream);
  const { request, answered } = await answerMessage(call, body, version);
  if (isForward(answered)) return answered;
  if (stream) await eventStreamReady();
  const { reply, latency } = answered;
  const usage = reply.usage;
  const events = () => {
    const payloads = messageStreamPayloads(reply, request, latency);
    const last = payloads.at(-1)!;
    // Bedrock adds its invocation metrics to the last event.
    last.payload['amazon-bedrock-invocationMetrics'] = {
      inputTokenCount: usage.inputTokens,
      outputTokenCount: usage.outputTokens,
      invocationLatency: Math.round(last.due),
      firstByteLatency: Math.round(payloads[0].due),
    };
    return payloads.map(({ due, payload }) => ({ due, frame: chunkFrame(JSON.stringify(payload)) }));
  };
  const out = await deliver(call, answered, stream, {
    json: () => renderMessage(reply, request),
    events,
    contentType: stream ? EVENT_STREAM : undefined,
  });
  if (stream) out.headers['x-amzn-bedrock-content-type'] = 'application/json';
  else if (out.status === 200) {
    out.headers['x-amzn-bedrock-input-token-count'] = String(call.entry.usage?.inputTokens ?? 0);
    out.headers['x-amzn-bedrock-output-token-count'] = String(call.entry.usage?.outputTokens ?? 0);
  }
  return out;
}

/** CountTokens: the tokens of a Converse conversation or of an InvokeModel body (base64 JSON), as the model counts them. */
async function countTokens(call: Call<JsonObject>): Promise<Outbound> {
  const model = pathModel(call);
  const input = call.body.input;
  if (!isJsonObject(input))
    throw invalid('input', "1 validation error detected: Value null at 'input' failed to satisfy constraint: Member must not be null");
  let request: CanonicalRequest;
  if (isJsonObject(input.converse)) request = parseConverse({ ...input.converse }, model, false);
  else if (isJsonObject(input.invokeModel)) {
    const encoded = fieldsOf(input.invokeModel).body;
    let body: unknown;
    try {
      body =
        typeof encoded === 'string'
          ? JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))))
          : undefined;
    } catch {
      body = undefined;
    }
    if (!isJsonObject(body))
      throw invalid('input.invokeModel.body', 'The invokeModel body must be the base64 of the JSON body InvokeModel would take.');
    const { anthropic_version: _v, anthropic_beta: _b, ...rest } = body;
    // The body InvokeModel takes, max_tokens and all.
    request = parseMessagesRequest({ ...rest, model: model.id }, MESSAGES_VERSION);
  } else throw invalid('input', 'CountTokens takes exactly one input: converse (a Converse request) or invokeModel (an InvokeModel body).');
  return json({ inputTokens: await countPromptTokensInSlices(request.messages, request.tools) });
}

const post = (path: string, format: EndpointSpec['format'], handle: BodyEndpoint['handle']): BodyEndpoint => ({
  method: 'POST',
  path: `/model/:modelId/${path}`,
  format,
  auth: SIGNED_OR_KEY,
  handle,
});

/**
 * The Mantle endpoint (AnthropicBedrockMantle): Anthropic's Messages API under /anthropic, signed for
 * `bedrock-mantle` or with a Bedrock API key; a Bedrock model id in the body names its catalogue model.
 */
const mantleEndpoints: EndpointSpec[] = anthropicEndpoints
  .filter((e): e is BodyEndpoint => e.method === 'POST' && (e.path === '/v1/messages' || e.path === '/v1/messages/count_tokens'))
  .map(
    (e): BodyEndpoint => ({
      ...e,
      path: `/anthropic${e.path}`,
      auth: [sigV4('bedrock-mantle'), ...e.auth],
      handle(call) {
        const id = call.body.model;
        const name = typeof id === 'string' ? bedrockModel(call.runtime.catalogue, id) : undefined;
        if (name === undefined || name === id) return e.handle(call);
        const body = { ...call.body, model: name };
        lenientAlike(call.body, body);
        return e.handle({ ...call, body });
      },
    }),
  );

export const bedrockEndpoints: EndpointSpec[] = [
  post('converse', bedrockFormat, (call) => converse(call, false)),
  post('converse-stream', bedrockFormat, (call) => converse(call, true)),
  post('invoke', invokeFormat, (call) => invoke(call, false)),
  post('invoke-with-response-stream', invokeFormat, (call) => invoke(call, true)),
  post('count-tokens', bedrockFormat, countTokens),
  ...mantleEndpoints,
];
