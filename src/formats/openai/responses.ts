// The Responses API (/v1/responses): request items → canonical request, canonical reply → the
// response object and its event stream, and the stored responses behind previous_response_id.
import { GatewayError } from '../../core/errors.ts';
import type { CanonicalRequest, Message, OutputFormat, Part } from '../../core/request.ts';
import type { CanonicalReply, Choice } from '../../core/reply.ts';
import { makeId } from '../../core/seed.ts';
import { countTokens } from '../../core/tokens.ts';
import { planSteps, type StreamStep } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import { callId, refuseBlockedPrompt } from './chat.ts';
import { checkField, checkFields, checkMetadata, invalid, invalidType, invalidValue } from './validate.ts';
import { type CheckedFields, type FieldRules, fieldsOf, type JsonObject, optional } from '../fields.ts';
import { automaticCache } from './parse.ts';
import type { Call } from '../../pipeline/call.ts';
import type { ConnectionCache } from '../../pipeline/exchange.ts';
import { echoedTools, parseResponsesToolChoice, parseResponsesTools } from './tools.ts';
import { annotations, builtinItemEvents, builtinItems, type ImageFiles, type ItemContext } from './tool-items.ts';
import { heldFor } from '../../scope.ts';
import { STORED } from './stored-chat.ts';

export const FIELDS = {
  model: { types: ['string'], required: true },
  input: { types: ['string', 'array'] },
  instructions: optional('string'),
  tools: { types: ['array'] },
  tool_choice: optional('string', 'object'),
  parallel_tool_calls: optional('boolean'),
  text: optional('object'),
  max_output_tokens: { types: ['integer'], nullable: true, min: 16 },
  max_tool_calls: optional('integer'),
  temperature: { types: ['number'], nullable: true, min: 0, max: 2 },
  top_p: { types: ['number'], nullable: true, min: 0, max: 1 },
  top_logprobs: { types: ['integer'], nullable: true, min: 0, max: 20 },
  stream: optional('boolean'),
  stream_options: optional('object'),
  store: optional('boolean'),
  previous_response_id: optional('string'),
  metadata: optional('object'),
  reasoning: optional('object'),
  truncation: { types: ['string'], nullable: true, values: ['auto', 'disabled'] },
  include: optional('array'),
  user: { types: ['string'] },
  safety_identifier: { types: ['string'] },
  prompt_cache_key: { types: ['string'] },
  prompt_cache_retention: optional('string'),
  service_tier: { types: ['string'], nullable: true, values: ['auto', 'default', 'flex', 'scale', 'priority'] },
  background: optional('boolean'),
  // Checked (background.ts); its completion window and continuation id change nothing here.
  background_options: optional('object'),
  prompt: optional('object'),
  conversation: optional('string', 'object'),
  // Accepted, not emulated: access programs, compaction, image context compression, moderation, cache options.
  access_programs: optional('object'),
  context_management: optional('array'),
  image: optional('object'),
  moderation: optional('object'),
  prompt_cache_options: optional('object'),
} as const satisfies FieldRules;

/** A request's body once checked against FIELDS. */
type ResponsesBody = CheckedFields<typeof FIELDS>;

/** How a background response runs on the gateway's clock (background.ts runs it). */
export interface BackgroundRun {
  reply: CanonicalReply;
  call: ResponsesCall;
  latency: LatencyProfile;
  /** Unix seconds, on the gateway's clock. */
  createdAt: number;
  /** Seconds it stays in progress: its reply's delay, at least one. */
  runSeconds: number;
  /** Times it was retrieved: its age counts at least one second each. */
  polls: number;
  /** Its age when a cancel came while it ran. */
  cancelAge?: number;
  /** A stream of it was read to its end: it has completed, whatever the clock says. */
  watched?: boolean;
}

/** What the store keeps of a response: the object, its input items, and the conversation after it. */
export interface StoredResponse {
  response: JsonObject;
  /** Created with `background: true`: how it runs on the gateway's clock (background.ts). */
  run?: BackgroundRun;
  inputItems: JsonObject[];
  conversation: Message[];
}

function contentParts(param: string, content: unknown): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidType(param, ['string', 'array'], content);
  return content.map((c, i) => {
    const part = fieldsOf(c);
    const types = ['input_text', 'output_text', 'input_image', 'input_file', 'input_audio', 'refusal', 'summary_text'];
    if (typeof part.type !== 'string' || !types.includes(part.type)) throw invalidValue(`${param}[${i}].type`, part.type, types);
    if (part.type === 'input_image') return { type: 'image' };
    // Given by id, it is read before the request is answered (readOpenAIFileParts, files.ts).
    if (part.type === 'input_file') return typeof part.file_id === 'string' ? { type: 'file', fileId: part.file_id } : { type: 'file' };
    if (part.type === 'input_audio') return { type: 'audio' };
    const key = part.type === 'refusal' ? 'refusal' : 'text';
    const text = part[key];
    checkField(`${param}[${i}].${key}`, text, { types: ['string'], required: true });
    return { type: 'text', text };
  });
}

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? {}));
const text = (value: unknown): Part[] => [{ type: 'text', text: json(value ?? '') }];

/** Calls of built-in tools the client ran, by item type: the canonical name and input (as core/synthesize/builtin.ts gives them). */
const CALLS: Record<string, [string, (item: JsonObject) => string]> = {
  computer_call: ['computer', (item) => json({ action: item.action ?? fieldsOf(item.actions)[0] })],
  local_shell_call: ['local_shell', (item) => json({ commands: [fieldsOf(item.action).command].flat().filter(Boolean) })],
  shell_call: ['shell', (item) => json({ commands: fieldsOf(item.action).commands ?? [] })],
  apply_patch_call: ['apply_patch', (item) => json(item.operation)],
  custom_tool_call: ['custom', (item) => json(item.input ?? '')],
};

/** What the client's run of a built-in tool gave, by item type. */
const OUTPUTS: Record<string, (item: JsonObject) => Part[]> = {
  computer_call_output: () => [{ type: 'image' }],
  local_shell_call_output: (item) => text(item.output),
  shell_call_output: (item) =>
    text(
      ((Array.isArray(item.output) ? item.output : []) as unknown[])
        .map((o) => `${String(fieldsOf(o).stdout ?? '')}${String(fieldsOf(o).stderr ?? '')}`)
        .join('\n'),
    ),
  apply_patch_call_output: (item) => text(item.output ?? item.status),
  custom_tool_call_output: (item) => text(item.output),
};

/** Items that are context (the service's own tool runs, reasoning, references): taken, not read. */
const CONTEXT = [
  'reasoning',
  'item_reference',
  'compaction',
  'compaction_trigger',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_list_tools',
  'mcp_call',
  'tool_search_call',
  'tool_search_output',
  'additional_tools',
  'program',
  'program_output',
];

/** Input items → canonical messages, and the items as the store shows them back. */
export function parseInput(input: unknown): { messages: Message[]; items: JsonObject[] } {
  if (input === undefined || input === null) return { messages: [], items: [] };
  if (typeof input === 'string')
    return {
      messages: [{ role: 'user', parts: [{ type: 'text', text: input }] }],
      items: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }],
    };
  const messages: Message[] = [];
  const items: JsonObject[] = [];
  const shellIds = new Map<string, string>();
  // Callers check `input` by its field rule first, so this refusal is only a guard.
  if (!Array.isArray(input)) throw invalidType('input', ['string', 'array'], input);
  input.forEach((item, i) => {
    const param = `input[${i}]`;
    checkField(param, item, { types: ['object'], required: true });
    const type = item.type ?? 'message';
    items.push(item);
    if (type === 'message') {
      checkField(`${param}.role`, item.role, { types: ['string'], required: true, values: ['user', 'assistant', 'system', 'developer'] });
      checkField(`${param}.content`, item.content, { types: ['string', 'array'], required: true });
      const role = item.role === 'developer' ? 'system' : item.role;
      messages.push({ role, parts: contentParts(`${param}.content`, item.content) });
    } else if (type === 'function_call') {
      checkField(`${param}.call_id`, item.call_id, { types: ['string'], required: true });
      checkField(`${param}.name`, item.name, { types: ['string'], required: true });
      checkField(`${param}.arguments`, item.arguments, { types: ['string'], required: true });
      const call = { id: item.call_id, name: item.name, arguments: item.arguments };
      const last = messages.at(-1);
      if (last?.role === 'assistant' && last.toolCalls) last.toolCalls.push(call);
      else messages.push({ role: 'assistant', parts: [], toolCalls: [call] });
    } else if (type === 'function_call_output') {
      checkField(`${param}.call_id`, item.call_id, { types: ['string'], required: true });
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      messages.push({ role: 'tool', toolCallId: item.call_id, parts: [{ type: 'text', text: output }] });
    } else if (typeof type === 'string' && Object.hasOwn(CALLS, type)) {
      const [name, input] = CALLS[type];
      checkField(`${param}.call_id`, item.call_id, { types: ['string'], required: true });
      if (type === 'local_shell_call') shellIds.set(String(item.id), item.call_id);
      const call = { id: item.call_id, name: type === 'custom_tool_call' ? String(item.name) : name, arguments: input(item) };
      const last = messages.at(-1);
      if (last?.role === 'assistant' && last.toolCalls) last.toolCalls.push(call);
      else messages.push({ role: 'assistant', parts: [], toolCalls: [call] });
    } else if (typeof type === 'string' && Object.hasOwn(OUTPUTS, type)) {
      // A local shell call's output names the call by its item id.
      const callId = type === 'local_shell_call_output' ? (shellIds.get(String(item.id)) ?? item.call_id ?? item.id) : item.call_id;
      checkField(`${param}.${type === 'local_shell_call_output' ? 'id' : 'call_id'}`, callId, { types: ['string'], required: true });
      messages.push({ role: 'tool', toolCallId: callId, parts: OUTPUTS[type](item) });
    } else if (type === 'mcp_approval_request') {
      checkField(`${param}.id`, item.id, { types: ['string'], required: true });
      checkField(`${param}.name`, item.name, { types: ['string'], required: true });
      checkField(`${param}.arguments`, item.arguments, { types: ['string'], required: true });
      messages.push({ role: 'assistant', parts: [], toolCalls: [{ id: item.id, name: item.name, arguments: item.arguments }] });
    } else if (type === 'mcp_approval_response') {
      checkField(`${param}.approval_request_id`, item.approval_request_id, { types: ['string'], required: true });
      checkField(`${param}.approve`, item.approve, { types: ['boolean'], required: true });
      const text = item.approve ? 'approved' : `not approved${typeof item.reason === 'string' ? `: ${item.reason}` : ''}`;
      messages.push({ role: 'tool', toolCallId: item.approval_request_id, parts: [{ type: 'text', text }], approved: item.approve });
    } else if (typeof type !== 'string' || !CONTEXT.includes(type)) {
      throw invalidValue(`${param}.type`, type, [
        'message',
        'function_call',
        'function_call_output',
        ...Object.keys(CALLS),
        ...Object.keys(OUTPUTS),
        'mcp_approval_request',
        'mcp_approval_response',
        ...CONTEXT,
      ]);
    }
  });
  return { messages, items };
}

function parseTextFormat(text: JsonObject | null | undefined): OutputFormat {
  // format has no rule: a truthy non-object reads as a format with no fields.
  if (!text?.format) return { type: 'text' };
  const format = fieldsOf(text.format);
  const types = ['text', 'json_object', 'json_schema'];
  if (typeof format.type !== 'string' || !types.includes(format.type)) throw invalidValue('text.format.type', format.type, types);
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json' };
  checkField('text.format.name', format.name, { types: ['string'], required: true });
  checkField('text.format.schema', format.schema, { types: ['object'], required: true });
  return { type: 'json_schema', name: format.name, schema: format.schema };
}

export interface ResponsesCall {
  request: CanonicalRequest;
  body: ResponsesBody;
  /** The input items of this request (for input_items). */
  items: JsonObject[];
  /** The encoded pictures of image_generation calls, once the route has made them. */
  images?: ImageFiles;
}

/** What a Responses socket keeps of its last response: the response, and the name it is counted under in the stored pool. */
interface KeptOnConnection {
  entry: StoredResponse;
  /** Its `store: false` copy's name among the stored responses (no path reaches it); undefined for a stored one. */
  counted?: string;
}

/** Names each socket's own copies apart: two sockets may make the same response (ids follow the request). */
let connections = 0;
const countedNames = new WeakMap<ConnectionCache, string>();

/**
 * A Responses socket keeps its last response, to continue by previous_response_id, on the connection
 * itself (so no other traffic pushes it out); a `store: false` one is also counted in the stored pool,
 * under a name of its socket's, so that it counts against the stored responses' ceiling in bytes while
 * the socket is open. The connection's previous one goes.
 */
export function keepOnConnection(call: Call, key: string, entry: StoredResponse, stored: boolean, bytes: number): void {
  const connection = call.inbound.connection!;
  forgetOnConnection(call, connection);
  let counted: string | undefined;
  if (!stored) {
    let own = countedNames.get(connection);
    if (!own) countedNames.set(connection, (own = `socket:${++connections}:`));
    counted = own + key;
    heldFor(call, STORED).set(counted, entry, bytes);
  }
  const kept: KeptOnConnection = { entry, counted };
  Object.assign(connection, { key, value: kept });
}

/**
 * Drops what a Responses socket kept only for itself (its `store: false` last response's count): when
 * replaced, and when it closes (`call`: any of the socket's calls; they share its test).
 */
export function forgetOnConnection(call: Pick<Call, 'runtime' | 'inbound'>, connection: ConnectionCache): void {
  const counted = (connection.value as KeptOnConnection | undefined)?.counted;
  if (counted !== undefined) heldFor(call, STORED).delete(counted);
}

/** A stored response, or the real 404 (for a path id) / 400 (for previous_response_id). */
export function storedResponse(call: Call, id: string, byPath = false): StoredResponse {
  // On a Responses socket, its last response first (a `store: false` one is kept for it alone), for previous_response_id only.
  const { connection } = call.inbound;
  if (!byPath && connection?.key === `response:${id}`) return (connection.value as KeptOnConnection).entry;
  const found = heldFor(call, STORED).get(`response:${id}`) as StoredResponse | undefined;
  if (found) return found;
  if (byPath) throw new GatewayError('not_found', `Response with id '${id}' not found.`, { param: 'response_id' });
  throw new GatewayError('invalid_request', `Previous response with id '${id}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}

/** `previous`: the stored response `previous_response_id` names, or the conversation `conversation` names (its messages). */
export function parseResponsesRequest(body: JsonObject, previous: Pick<StoredResponse, 'conversation'> | undefined): ResponsesCall {
  checkFields(body, FIELDS);
  checkMetadata(body.metadata);
  if (body.previous_response_id && !previous) {
    throw new GatewayError('invalid_request', `Previous response with id '${String(body.previous_response_id)}' not found.`, {
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  }
  if (body.input === undefined && !body.prompt)
    throw invalid('input', "Missing required parameter: 'input'.", 'missing_required_parameter');
  const { messages, items } = parseInput(body.input);
  const instructions =
    typeof body.instructions === 'string' && body.instructions
      ? [{ role: 'system' as const, parts: [{ type: 'text' as const, text: body.instructions }] }]
      : [];
  // Instructions apply to this turn only; earlier turns come from the stored conversation.
  const history = (previous?.conversation ?? []).filter((m) => m.role !== 'system');
  const offered = parseResponsesTools(body.tools);
  const { choice, tools } = parseResponsesToolChoice(body.tool_choice, offered);
  const reasoning = parseReasoning(body.reasoning);
  return {
    body,
    items,
    request: {
      format: 'openai',
      operation: 'chat',
      model: body.model,
      messages: [...instructions, ...history, ...messages],
      maxTokens: body.max_output_tokens ?? undefined,
      stop: [],
      n: 1,
      stream: body.stream === true,
      tools,
      toolChoice: choice,
      parallelToolCalls: body.parallel_tool_calls !== false,
      output: parseTextFormat(body.text),
      ...(reasoning ? { reasoning } : {}),
      cache: automaticCache(body),
    },
  };
}

/** `reasoning.effort`, and a summary shown when `reasoning.summary` asks for one. */
function parseReasoning(r: JsonObject | null | undefined): CanonicalRequest['reasoning'] {
  if (r === undefined || r === null) return undefined;
  checkField('reasoning.effort', r.effort, {
    types: ['string'],
    nullable: true,
    values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  });
  checkField('reasoning.summary', r.summary, { types: ['string'], nullable: true, values: ['auto', 'concise', 'detailed'] });
  const effort = r.effort ?? undefined;
  const show = typeof r.summary === 'string';
  return effort || show ? { ...(effort ? { effort } : {}), ...(show ? { show } : {}) } : undefined;
}

/** The response's id, derived from its reply so the same request gives the same id. */
export const responseId = (reply: CanonicalReply) => makeId('resp_', 40, reply.key);

/** Whether the choice reasoned: it then leads its output with a reasoning item. */
const reasoned = (choice: Choice) => choice.reasoning !== undefined || choice.blocks.some((b) => b.type === 'thinking');

/** The reasoning item: its summary is the shown thinking, if any (none unless `reasoning.summary` asked). */
function reasoningItem(reply: CanonicalReply): JsonObject {
  const thinking = reply.choices[0].blocks.find((b) => b.type === 'thinking');
  return { id: makeId('rs_', 40, reply.key), type: 'reasoning', summary: thinking ? [{ type: 'summary_text', text: thinking.text }] : [] };
}

function itemContext(call: ResponsesCall): ItemContext {
  const include = (call.body.include ?? []).filter((i): i is string => typeof i === 'string');
  return { request: call.request, rawTools: call.body.tools ?? [], include, images: call.images };
}

/** Each block's output items (a thinking block's are the lead reasoning item's), and the reasoning item first when the choice reasoned. */
function blockItems(reply: CanonicalReply, call: ResponsesCall): { lead: JsonObject[]; byBlock: JsonObject[][] } {
  const choice = reply.choices[0];
  const ctx = itemContext(call);
  const byBlock = choice.blocks.map((block, b): JsonObject[] => {
    if (block.type === 'tool_call' && !block.builtin) {
      return [
        {
          id: `fc_${block.id}`,
          type: 'function_call',
          status: 'completed',
          arguments: block.arguments,
          call_id: callId(block.id),
          name: block.name,
        },
      ];
    }
    if (block.type !== 'text' && block.type !== 'refusal') return builtinItems(block, ctx);
    const part =
      block.type === 'refusal'
        ? { type: 'refusal', refusal: block.text }
        : { type: 'output_text', annotations: annotations(block.citations, choice.blocks), logprobs: [], text: block.text };
    return [{ id: makeId('msg_', 40, reply.key + b), type: 'message', status: 'completed', content: [part], role: 'assistant' }];
  });
  return { lead: reasoned(choice) ? [reasoningItem(reply)] : [], byBlock };
}

function outputItems(reply: CanonicalReply, call: ResponsesCall): JsonObject[] {
  const { lead, byBlock } = blockItems(reply, call);
  return lead.concat(byBlock.flat());
}

/** What the built-in tools cost as OpenAI reports it: web searches run, pictures made (absent when none). */
function toolUsage(reply: CanonicalReply, call: ResponsesCall): JsonObject {
  const uses = reply.usage.serverToolUses;
  const searches = uses?.web_search ?? 0;
  const pictures = uses?.image_generation ?? 0;
  if (!searches && !pictures) return {};
  const image = call.request.tools.find((t) => t.builtin?.kind === 'image_generation')?.builtin;
  const output = image?.kind === 'image_generation' ? image.tokens * pictures : 0;
  const prompts = reply.choices[0].blocks.reduce(
    (n, b) => n + (b.type === 'server_tool' && b.use.kind === 'image_generation' ? countTokens(b.use.prompt) : 0),
    0,
  );
  return {
    tool_usage: {
      image_gen: {
        input_tokens: prompts,
        input_tokens_details: { image_tokens: 0, text_tokens: prompts },
        output_tokens: output,
        total_tokens: prompts + output,
      },
      web_search: { num_requests: searches },
    },
  };
}

function usage(reply: CanonicalReply) {
  const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, cacheCreationInputTokens } = reply.usage;
  return responseUsage(inputTokens, outputTokens, cachedInputTokens, reasoningTokens, cacheCreationInputTokens);
}

/** A response's (or a compaction's) usage object. */
export function responseUsage(
  inputTokens: number,
  outputTokens: number,
  cachedInputTokens = 0,
  reasoningTokens = 0,
  cacheCreationInputTokens = 0,
) {
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedInputTokens, cache_write_tokens: cacheCreationInputTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

/**
 * The response object: `final` (completed or incomplete, with its output and usage), `initial` (in
 * progress, as a stream opens), or a background response's `queued` or `cancelled` (no output).
 */
export function renderResponse(
  reply: CanonicalReply,
  call: ResponsesCall,
  state: 'final' | 'initial' | 'queued' | 'cancelled' = 'final',
): JsonObject {
  refuseBlockedPrompt(reply);
  const { body, request } = call;
  const choice: Choice = reply.choices[0];
  const filtered = choice.finishReason === 'content_filter';
  const incomplete = choice.finishReason === 'length' || filtered;
  const final = state === 'final';
  return {
    id: responseId(reply),
    object: 'response',
    created_at: reply.created,
    status: final ? (incomplete ? 'incomplete' : 'completed') : state === 'initial' ? 'in_progress' : state,
    background: body.background === true,
    access_programs: null,
    completed_at: final && !incomplete ? reply.created : null,
    error: null,
    incomplete_details: final && incomplete ? { reason: filtered ? 'content_filter' : 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: request.model,
    output: final ? outputItems(reply, call) : [],
    parallel_tool_calls: request.parallelToolCalls,
    previous_response_id: body.previous_response_id ?? null,
    ...(body.conversation
      ? { conversation: { id: typeof body.conversation === 'string' ? body.conversation : body.conversation.id } }
      : {}),
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    service_tier: 'default',
    store: body.store !== false,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    // Echoed as the service does: each tool as given, with the defaults the service fills in.
    tools: echoedTools(body.tools),
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    ...(final ? { usage: usage(reply), ...toolUsage(reply, call) } : {}),
    ...(typeof body.user === 'string' ? { user: body.user } : {}),
    metadata: body.metadata ?? {},
  };
}

/** The event stream, every event numbered: created, in_progress, each item's events, completed; made as it is written. */
export function* responseStreamEvents(reply: CanonicalReply, call: ResponsesCall, latency: LatencyProfile): Generator<StreamEvent> {
  const events: StreamEvent[] = [];
  let sequence = 0;
  const emit = (due: number, type: string, data: JsonObject) =>
    events.push({ due, data: JSON.stringify({ type, ...data, sequence_number: sequence++ }), event: type });
  const { lead, byBlock } = blockItems(reply, call);
  const items = lead.concat(byBlock.flat());
  const choice = reply.choices[0];
  const ctx = itemContext(call);
  // Output items in block order, after the reasoning item when the choice reasoned (a thinking block streams as its summary).
  const itemOf = new Map<number, number>();
  const hidden = reasoned(choice) && !choice.blocks.some((b) => b.type === 'thinking');
  let n = lead.length;
  choice.blocks.forEach((b, i) => {
    if (b.type === 'thinking') itemOf.set(i, 0);
    else if (byBlock[i].length) itemOf.set(i, n);
    n += byBlock[i].length;
  });
  for (const step of planSteps(reply, latency)) {
    if (step.first) {
      // A background response opens queued, as the service runs it.
      const background = call.body.background === true;
      emit(step.due, 'response.created', { response: renderResponse(reply, call, background ? 'queued' : 'initial') });
      if (background) emit(step.due, 'response.queued', { response: renderResponse(reply, call, 'queued') });
      emit(step.due, 'response.in_progress', { response: renderResponse(reply, call, 'initial') });
      if (hidden) {
        // Reasoning with no summary: its item opens and closes before the answer.
        emit(step.due, 'response.output_item.added', { output_index: 0, item: items[0] });
        emit(step.due, 'response.output_item.done', { output_index: 0, item: items[0] });
      }
    }
    const index = itemOf.get(step.block);
    const block = choice.blocks[step.block];
    if (index !== undefined && block.type !== 'text' && block.type !== 'refusal' && (block.type !== 'tool_call' || block.builtin)) {
      if (block.type === 'thinking') reasoningEvents(emit, step, items[0]);
      else {
        // A block of several items (a tool search and its output): the first streams, the rest follow whole.
        builtinItemEvents(emit, step, items[index], index, ctx, block);
        if (step.blockEnd)
          byBlock[step.block].slice(1).forEach((item, k) => {
            emit(step.due, 'response.output_item.added', { output_index: index + 1 + k, item });
            emit(step.due, 'response.output_item.done', { output_index: index + 1 + k, item });
          });
      }
    } else if (index !== undefined) {
      const item = items[index];
      const base = { item_id: item.id, output_index: index };
      const part = item.type === 'message' ? (item.content as JsonObject[])[0] : undefined;
      // A refusal streams as refusal events, its part built up from an empty refusal.
      const refusal = part?.type === 'refusal';
      if (step.blockStart) {
        const empty =
          item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' };
        emit(step.due, 'response.output_item.added', { output_index: index, item: empty });
        if (part)
          emit(step.due, 'response.content_part.added', {
            ...base,
            content_index: 0,
            part: refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', annotations: [], logprobs: [], text: '' },
          });
      }
      if (step.text) {
        if (refusal) emit(step.due, 'response.refusal.delta', { ...base, content_index: 0, delta: step.text });
        else if (part) emit(step.due, 'response.output_text.delta', { ...base, content_index: 0, delta: step.text, logprobs: [] });
        else emit(step.due, 'response.function_call_arguments.delta', { ...base, delta: step.text });
      }
      if (step.blockEnd) {
        if (part) {
          if (refusal) emit(step.due, 'response.refusal.done', { ...base, content_index: 0, refusal: part.refusal });
          else {
            // Citations are announced once the text they cite has been sent.
            ((part.annotations ?? []) as JsonObject[]).forEach((annotation, annotation_index) =>
              emit(step.due, 'response.output_text.annotation.added', { ...base, content_index: 0, annotation_index, annotation }),
            );
            emit(step.due, 'response.output_text.done', { ...base, content_index: 0, text: part.text, logprobs: [] });
          }
          emit(step.due, 'response.content_part.done', { ...base, content_index: 0, part });
        } else {
          emit(step.due, 'response.function_call_arguments.done', { ...base, name: item.name, arguments: item.arguments });
        }
        emit(step.due, 'response.output_item.done', { output_index: index, item });
      }
    }
    if (step.last) {
      const done = renderResponse(reply, call);
      emit(step.due, done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done });
    }
    for (let i = 0; i < events.length; i++) yield events[i];
    events.length = 0;
  }
}

/** A reasoning summary's events, in the order the SDK's types give: item added, part added, text deltas, text done, part done, item done. */
function reasoningEvents(emit: (due: number, type: string, data: JsonObject) => void, step: StreamStep, item: JsonObject): void {
  const base = { item_id: item.id, output_index: 0, summary_index: 0 };
  const part = (item.summary as JsonObject[])[0];
  if (step.blockStart) {
    emit(step.due, 'response.output_item.added', { output_index: 0, item: { ...item, summary: [] } });
    emit(step.due, 'response.reasoning_summary_part.added', { ...base, part: { type: 'summary_text', text: '' } });
  }
  if (step.text) emit(step.due, 'response.reasoning_summary_text.delta', { ...base, delta: step.text });
  if (step.blockEnd) {
    emit(step.due, 'response.reasoning_summary_text.done', { ...base, text: part.text });
    emit(step.due, 'response.reasoning_summary_part.done', { ...base, part });
    emit(step.due, 'response.output_item.done', { output_index: 0, item });
  }
}

/** Input items as `GET /v1/responses/{id}/input_items` lists them. */
export function listedInputItems(items: JsonObject[], reply: CanonicalReply): JsonObject[] {
  return items.map((item, i) => {
    const type = item.type ?? 'message';
    const id = item.id ?? makeId(type === 'message' ? 'msg_' : 'fc_', 40, reply.key + 1000 + i);
    if (type !== 'message') return { id, ...item, status: 'completed' };
    const content = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content;
    return { id, type: 'message', role: item.role, content, status: 'completed' };
  });
}
