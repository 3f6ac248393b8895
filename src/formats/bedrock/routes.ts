// Amazon Bedrock's runtime paths, as a dialect of the route table: Converse and ConverseStream for
// every chat model and CountTokens (Bedrock's own schema: endpoints of their own), InvokeModel and
// InvokeModelWithResponseStream for Claude (Anthropic's /v1/messages mounted on /model/{modelId}/…,
// its body touched on the way in and its stream wrapped in `chunk` events on the way out), and the
// Mantle endpoint's Anthropic Messages API under /anthropic (mounted as it is). The model is the
// path's (URL-encoded: ids, inference profiles, ARNs); credentials are SigV4 (the access key id names
// the token) or a Bedrock API key as a bearer token. Streams are AWS event-stream (pipeline/framing.ts).
import type { ModelInfo } from '../../core/models.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { BodyEndpoint, Call, EndpointSpec } from '../../pipeline/call.ts';
import { answer, isForward, type Forward } from '../../pipeline/decide.ts';
import { deliver } from '../../pipeline/delivery.ts';
import { isPlayback, json, type JsonObject, type Outbound } from '../../pipeline/exchange.ts';
import { eventStream, type StreamEvent } from '../../pipeline/framing.ts';
import { dialectModel, mount, type Dialect } from '../../pipeline/mount.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { fieldsOf, isJsonObject } from '../fields.ts';
import { anthropicEndpoints } from '../anthropic/routes.ts';
import { anthropicFormat } from '../anthropic/format.ts';
import { KEY_OR_BEARER, withVersionHeader } from '../anthropic/messages.ts';
import { parseMessagesRequest } from '../anthropic/parse.ts';
import { bedrockFormat, invokeFormat } from './format.ts';
import { bedrockModel } from './model-id.ts';
import { parseConverse } from './parse.ts';
import { converseStreamEvents, renderConverse } from './render.ts';
import { sigV4 } from './sigv4.ts';
import { invalid } from './validate.ts';

/** How Bedrock's runtime takes a token: signed (SigV4, service `bedrock`), or a Bedrock API key. */
const SIGNED_OR_KEY = [sigV4('bedrock'), 'bearer'] as const;

/** The Messages API version a Bedrock body is read as (its own `anthropic_version` is Bedrock's, `bedrock-2023-05-31`). */
const MESSAGES_VERSION = '2023-06-01';

/** The catalogue's name for a Bedrock model id, by the `deployments` option first (mount.ts's dialectModel). */
const catalogueName = (call: Call, id: string) =>
  dialectModel(call, { modelName: (name) => bedrockModel(call.runtime.catalogue, name) }, id);

/** The chat model the path names, as the catalogue knows it; Bedrock's 400 for an id it does not. */
function pathModel(call: Call): ModelInfo {
  const id = String(call.params.modelId);
  const name = catalogueName(call, id);
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
  if (stream) await eventStream.ready();
  const { reply, latency } = answered;
  const guarded = call.body.guardrailConfig !== undefined;
  const out = await deliver(call, answered, stream, {
    json: () => renderConverse(reply, request, latency, guarded),
    events: () => converseStreamEvents(reply, request, latency, guarded),
    framing: eventStream,
  });
  return withEvents(out, namedConverseEvents);
}

/** `out` with its stream's events passed through `touch` as they are made (no stream: as it is). */
function withEvents(out: Outbound, touch: (events: Iterable<StreamEvent>) => Generator<StreamEvent>): Outbound {
  const body = out.body;
  if (!isPlayback(body)) return out;
  const events = body.events;
  return { ...out, body: { ...body, events: { [Symbol.iterator]: () => touch(events) } } };
}

/**
 * A fixture's raw ConverseStream events named as the frames name them: a recorded `{ event, data }`
 * as it came, a payload written as the SDK shows events (one member naming the event,
 * `{"messageStart": {"role": "assistant"}}`) as that member.
 */
function* namedConverseEvents(events: Iterable<StreamEvent>): Generator<StreamEvent> {
  for (const e of events) {
    if (e.event) {
      yield e;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.data);
    } catch {
      parsed = undefined;
    }
    const names = isJsonObject(parsed) ? Object.keys(parsed) : [];
    // A bug in a fixture: the stream is cut here, as a failing upstream's would be.
    if (names.length !== 1)
      throw new Error(
        `a raw ConverseStream event is one member naming the event, as {"messageStart": {"role": "assistant"}}; got ${e.data.slice(0, 80)}`,
      );
    yield { due: e.due, event: names[0], data: JSON.stringify((parsed as JsonObject)[names[0]]) };
  }
}

/** Bedrock's complaint about a Messages body, in its JSON-schema words. */
const malformed = (what: string) => invalid('body', `Malformed input request: #: ${what}, please reformat your input and try again.`);

/**
 * InvokeModel's body for Claude, as /v1/messages takes it: Anthropic's Messages request without
 * `model` and `stream` (the path and the operation say them) and with `anthropic_version`, which
 * stands in for the anthropic-version header the endpoint reads.
 */
function invokeBody(stream: boolean) {
  return (call: Call): void => {
    const model = pathModel(call);
    if (model.owned_by !== 'anthropic')
      throw invalid(
        'modelId',
        `model-gateway-mock serves InvokeModel for Anthropic's Claude models (their Messages body); ${model.id} takes its own body there. Call it through Converse (/model/{modelId}/converse), which serves every chat model.`,
      );
    const given = call.body ?? {};
    const { anthropic_version: version, anthropic_beta: beta, ...rest } = given;
    if (version === undefined) throw malformed('required key [anthropic_version] not found');
    if (typeof version !== 'string') throw malformed('#/anthropic_version: expected type: String');
    if (beta !== undefined && !(Array.isArray(beta) && beta.every((b) => typeof b === 'string')))
      throw malformed('#/anthropic_beta: expected type: JSONArray of strings');
    for (const name of ['model', 'stream']) if (name in rest) throw malformed(`extraneous key [${name}] is not permitted`);
    const body = { ...rest, model: model.id, ...(stream ? { stream: true } : {}) };
    lenientAlike(given, body);
    call.body = body;
    // Bedrock's own version (`bedrock-2023-05-31`) reads as the Messages API's first; a client sending an
    // API version (AnthropicBedrock passes its anthropic-version header on) gets what that version allows.
    const messagesVersion = /^\d{4}-\d{2}-\d{2}$/.test(version) ? version : MESSAGES_VERSION;
    call.inbound = withVersionHeader(call.inbound, messagesVersion);
  };
}

/** InvokeModel's answer: the Message, with the token counts in Bedrock's headers. */
function invokeReply(call: Call, out: Outbound): Outbound {
  if (out.status === 200) {
    out.headers['x-amzn-bedrock-input-token-count'] = String(call.entry.usage?.inputTokens ?? 0);
    out.headers['x-amzn-bedrock-output-token-count'] = String(call.entry.usage?.outputTokens ?? 0);
  }
  return out;
}

const encoder = new TextEncoder();

/**
 * InvokeModelWithResponseStream's events: each Messages event a `chunk` whose `bytes` are its JSON
 * (base64 in JSON), the last with Bedrock's invocation metrics; a stream exception (a fault's) and a
 * recorded `chunk` pass as they are.
 */
function* chunkEvents(call: Call, events: Iterable<StreamEvent>): Generator<StreamEvent> {
  let first: number | undefined;
  for (const e of events) {
    if (e.event === 'chunk' || e.event?.endsWith('Exception')) {
      yield e;
      continue;
    }
    first ??= e.due;
    let data = e.data;
    if (e.event === 'message_stop') {
      const usage = call.entry.usage;
      const payload = JSON.parse(data) as JsonObject;
      payload['amazon-bedrock-invocationMetrics'] = {
        inputTokenCount: usage?.inputTokens ?? 0,
        outputTokenCount: usage?.outputTokens ?? 0,
        invocationLatency: Math.round(e.due),
        firstByteLatency: Math.round(first),
      };
      data = JSON.stringify(payload);
    }
    yield { due: e.due, event: 'chunk', data: JSON.stringify({ bytes: toBase64(encoder.encode(data)) }) };
  }
}

/** InvokeModelWithResponseStream's answer: the Messages stream as `chunk` events in AWS event-stream. */
async function invokeStream(call: Call, out: Outbound): Promise<Outbound> {
  if (!isPlayback(out.body)) return out;
  await eventStream.ready();
  const touched = withEvents(out, (events) => chunkEvents(call, events));
  const body = touched.body as typeof out.body;
  return {
    ...touched,
    headers: { ...out.headers, 'content-type': eventStream.contentType, 'x-amzn-bedrock-content-type': 'application/json' },
    body: { ...body, framing: eventStream },
  };
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

const post = (path: string, handle: BodyEndpoint['handle']): BodyEndpoint => ({
  method: 'POST',
  path: `/model/:modelId/${path}`,
  format: bedrockFormat,
  dialect: 'bedrock',
  auth: SIGNED_OR_KEY,
  handle,
});

/** InvokeModel's dialect: Anthropic's endpoint in Bedrock's errors and credentials. */
const invoke: Dialect = { name: 'bedrock', format: invokeFormat, auth: SIGNED_OR_KEY };

/**
 * The Mantle endpoint (AnthropicBedrockMantle): Anthropic's Messages API under /anthropic, in its own
 * errors, signed for `bedrock-mantle` or with a key; a Bedrock model id in the body names its catalogue model.
 */
const mantle: Dialect = {
  name: 'bedrock',
  format: anthropicFormat,
  auth: [sigV4('bedrock-mantle'), ...KEY_OR_BEARER],
  prefix: '/anthropic',
  enter(call) {
    const id = call.body?.model;
    const name = typeof id === 'string' ? catalogueName(call, id) : undefined;
    if (name === undefined || name === id) return;
    const body = { ...call.body, model: name };
    lenientAlike(call.body!, body);
    call.body = body;
  },
};

export const bedrockEndpoints: EndpointSpec[] = [
  post('converse', (call) => converse(call, false)),
  post('converse-stream', (call) => converse(call, true)),
  post('count-tokens', countTokens),
  ...mount(anthropicEndpoints, invoke, [
    { endpoint: 'anthropic POST /v1/messages', path: '/model/:modelId/invoke', enter: invokeBody(false), leave: invokeReply },
    {
      endpoint: 'anthropic POST /v1/messages',
      path: '/model/:modelId/invoke-with-response-stream',
      enter: invokeBody(true),
      leave: invokeStream,
    },
  ]),
  ...mount(anthropicEndpoints, mantle, [
    { endpoint: 'anthropic POST /v1/messages' },
    { endpoint: 'anthropic POST /v1/messages/count_tokens' },
  ]),
];
