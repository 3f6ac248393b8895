// OpenAI chat completion request → canonical request, refusing what OpenAI refuses.
import type { CacheRequest, CanonicalRequest, Message, OutputFormat, Part, Role, ToolCallRef } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import { checkField, checkFields, checkMetadata, invalid, invalidType, invalidValue, missing } from './validate.ts';
import { chatCustomTool, chatWebSearch, functionParameters } from './tools.ts';
import { type CheckedFields, type FieldRules, fieldsOf, isJsonObject, isOneOf, type JsonObject, optional } from '../fields.ts';

const nullableInt = (min?: number, max?: number) => ({ ...optional('integer'), min, max });
const nullableNum = (min?: number, max?: number) => ({ ...optional('number'), min, max });

/** Every field of CreateChatCompletionRequest, with its type and bounds. */
export const CHAT_FIELDS = {
  model: { types: ['string'], required: true },
  messages: { types: ['array'], required: true, min: 1 },
  audio: optional('object'),
  frequency_penalty: nullableNum(-2, 2),
  function_call: optional('string', 'object'),
  functions: { types: ['array'], min: 1, max: 128 },
  logit_bias: optional('object'),
  logprobs: optional('boolean'),
  max_completion_tokens: nullableInt(1),
  max_tokens: nullableInt(1),
  metadata: optional('object'),
  modalities: optional('array'),
  moderation: optional('object'),
  n: nullableInt(1, 128),
  parallel_tool_calls: optional('boolean'),
  prediction: optional('object'),
  presence_penalty: nullableNum(-2, 2),
  prompt_cache_key: optional('string'),
  prompt_cache_options: optional('object'),
  prompt_cache_retention: optional('string'),
  reasoning_effort: { types: ['string'], nullable: true, values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] },
  response_format: optional('object'),
  safety_identifier: optional('string'),
  seed: nullableInt(),
  service_tier: { types: ['string'], nullable: true, values: ['auto', 'default', 'flex', 'scale', 'priority'] },
  stop: optional('string', 'array'),
  store: optional('boolean'),
  stream: optional('boolean'),
  stream_options: optional('object'),
  temperature: nullableNum(0, 2),
  tool_choice: optional('string', 'object'),
  tools: { types: ['array'], max: 128 },
  top_logprobs: nullableInt(0, 20),
  top_p: nullableNum(0, 1),
  user: { types: ['string'] },
  verbosity: { types: ['string'], nullable: true, values: ['low', 'medium', 'high'] },
  web_search_options: optional('object'),
} as const satisfies FieldRules;

type ChatBody = CheckedFields<typeof CHAT_FIELDS>;

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
const USER_PARTS = ['text', 'image_url', 'input_audio', 'file'];

function parsePart(param: string, part: unknown, allowed: readonly string[]): Part {
  if (!isJsonObject(part)) throw invalidType(param, ['object'], part);
  if (part.type === undefined) throw missing(`${param}.type`);
  if (typeof part.type !== 'string' || !allowed.includes(part.type)) throw invalidValue(`${param}.type`, part.type, allowed);
  switch (part.type) {
    case 'text':
    case 'refusal': {
      const key = part.type;
      const text = part[key];
      checkField(`${param}.${key}`, text, { types: ['string'], required: true });
      return { type: 'text', text };
    }
    case 'image_url': {
      checkField(`${param}.image_url`, part.image_url, { types: ['object'], required: true });
      checkField(`${param}.image_url.url`, part.image_url.url, { types: ['string'], required: true });
      return { type: 'image' };
    }
    case 'input_audio':
      checkField(`${param}.input_audio`, part.input_audio, { types: ['object'], required: true });
      return { type: 'audio' };
    default: {
      checkField(`${param}.file`, part.file, { types: ['object'], required: true });
      const id = part.file.file_id;
      // Given by id, it is read before the request is answered (readOpenAIFileParts, files.ts).
      return typeof id === 'string' ? { type: 'file', fileId: id } : { type: 'file' };
    }
  }
}

function parseContent(param: string, content: unknown, allowed: readonly string[]): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidType(param, ['string', 'array'], content);
  return content.map((p, i) => parsePart(`${param}[${i}]`, p, allowed));
}

function parseMessage(param: string, m: unknown): Message {
  if (!isJsonObject(m)) throw invalidType(param, ['object'], m);
  if (m.role === undefined) throw missing(`${param}.role`);
  if (typeof m.role !== 'string' || !ROLES.includes(m.role)) throw invalidValue(`${param}.role`, m.role, ROLES);
  const role = m.role;
  if (role === 'assistant') {
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    const hasCalls = calls.length > 0;
    if ((m.content === undefined || m.content === null) && !hasCalls && !m.function_call) throw missing(`${param}.content`);
    const parts = m.content === undefined || m.content === null ? [] : parseContent(`${param}.content`, m.content, ['text', 'refusal']);
    let legacyCalls: ToolCallRef[] | undefined;
    if (m.function_call) {
      const legacy = fieldsOf(m.function_call);
      checkField(`${param}.function_call.name`, legacy.name, { types: ['string'], required: true });
      checkField(`${param}.function_call.arguments`, legacy.arguments, { types: ['string'], required: true });
      // A legacy function call is answered by a `function` message naming it: its name is its id.
      legacyCalls = [{ id: legacy.name, name: legacy.name, arguments: legacy.arguments }];
    }
    const toolCalls = hasCalls
      ? calls.map((c, i) => {
          const call = fieldsOf(c);
          checkField(`${param}.tool_calls[${i}].id`, call.id, { types: ['string'], required: true });
          if (call.type === 'custom') {
            // A custom tool's call: its free-form input stands as its arguments.
            checkField(`${param}.tool_calls[${i}].custom`, call.custom, { types: ['object'], required: true });
            checkField(`${param}.tool_calls[${i}].custom.name`, call.custom.name, { types: ['string'], required: true });
            checkField(`${param}.tool_calls[${i}].custom.input`, call.custom.input, { types: ['string'], required: true });
            return { id: call.id, name: call.custom.name, arguments: call.custom.input };
          }
          checkField(`${param}.tool_calls[${i}].function`, call.function, { types: ['object'], required: true });
          const fn = call.function;
          checkField(`${param}.tool_calls[${i}].function.name`, fn.name, { types: ['string'], required: true });
          checkField(`${param}.tool_calls[${i}].function.arguments`, fn.arguments, { types: ['string'], required: true });
          return { id: call.id, name: fn.name, arguments: fn.arguments };
        })
      : legacyCalls;
    return { role: 'assistant', parts, toolCalls };
  }
  if (m.content === undefined || m.content === null) throw missing(`${param}.content`);
  if (role === 'tool') {
    checkField(`${param}.tool_call_id`, m.tool_call_id, { types: ['string'], required: true });
    return { role: 'tool', parts: parseContent(`${param}.content`, m.content, ['text']), toolCallId: m.tool_call_id };
  }
  if (role === 'function') {
    checkField(`${param}.name`, m.name, { types: ['string'], required: true });
    return { role: 'tool', parts: parseContent(`${param}.content`, m.content, ['text']), toolCallId: m.name };
  }
  const canonicalRole: Role = role === 'user' ? 'user' : 'system';
  return { role: canonicalRole, parts: parseContent(`${param}.content`, m.content, role === 'user' ? USER_PARTS : ['text']) };
}

/** `stop` as a string or up to four strings. */
export function parseStop(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return [stop];
  // Callers check `stop` by its field rule first, so this refusal is only a guard.
  if (!Array.isArray(stop)) throw invalidType('stop', ['string', 'array'], stop);
  if (stop.length > 4) {
    throw invalid(
      'stop',
      `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stop.length} instead.`,
      'array_above_max_length',
    );
  }
  return stop.map((s, i) => {
    checkField(`stop[${i}]`, s, { types: ['string'], required: true });
    return s;
  });
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
function parseFunction(param: string, fn: unknown): ToolSpec {
  checkField(param, fn, { types: ['object'], required: true });
  checkField(`${param}.name`, fn.name, { types: ['string'], required: true });
  if (!NAME.test(fn.name)) {
    throw invalid(
      `${param}.name`,
      `Invalid '${param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
      'invalid_value',
    );
  }
  checkField(`${param}.description`, fn.description, { types: ['string'] });
  checkField(`${param}.parameters`, fn.parameters, { types: ['object'] });
  checkField(`${param}.strict`, fn.strict, { types: ['boolean'], nullable: true });
  const parameters = functionParameters(`${param}.parameters`, fn.name, fn.parameters);
  return { name: fn.name, description: fn.description, parameters };
}

function parseTools(body: ChatBody): ToolSpec[] {
  if (Array.isArray(body.tools)) {
    return body.tools.map((tool, i) => {
      checkField(`tools[${i}]`, tool, { types: ['object'], required: true });
      if (tool.type === 'custom') return chatCustomTool(`tools[${i}]`, tool);
      if (tool.type !== 'function') throw invalidValue(`tools[${i}].type`, tool.type, ['function', 'custom']);
      return parseFunction(`tools[${i}].function`, tool.function);
    });
  }
  // The legacy `functions` list means the same, answered in the legacy `function_call` shape.
  return Array.isArray(body.functions) ? body.functions.map((f, i) => parseFunction(`functions[${i}]`, f)) : [];
}

function parseToolChoice(body: ChatBody, tools: ToolSpec[]): ToolChoice {
  const param = body.tool_choice !== undefined ? 'tool_choice' : 'function_call';
  const raw = body.tool_choice ?? body.function_call;
  if (raw === undefined || raw === null) return 'auto';
  if (!tools.length) {
    throw invalid(
      param,
      `Invalid value for '${param}': '${param}' is only allowed when '${param === 'tool_choice' ? 'tools' : 'functions'}' are specified.`,
    );
  }
  if (typeof raw === 'string') {
    const allowed: Extract<ToolChoice, string>[] = param === 'tool_choice' ? ['none', 'auto', 'required'] : ['none', 'auto'];
    if (!isOneOf(allowed, raw)) throw invalidValue(param, raw, allowed);
    return raw;
  }
  const choice = raw;
  const custom = param === 'tool_choice' && choice.type === 'custom';
  const name = param === 'tool_choice' ? fieldsOf(custom ? choice.custom : choice.function).name : choice.name;
  if (param === 'tool_choice' && choice.type !== 'function' && !custom)
    throw invalidValue('tool_choice.type', choice.type, ['function', 'custom']);
  const path = param === 'tool_choice' ? `tool_choice.${custom ? 'custom' : 'function'}.name` : 'function_call.name';
  checkField(path, name, { types: ['string'], required: true });
  if (!tools.some((t) => t.name === name)) {
    throw invalid(
      path,
      `Invalid value for '${path}': no tool named '${String(name)}' is among the provided tools (${tools.map((t) => t.name).join(', ')}).`,
    );
  }
  return { name };
}

function parseResponseFormat(format: JsonObject | null | undefined, messages: Message[]): OutputFormat {
  if (format === undefined || format === null) return { type: 'text' };
  const types = ['text', 'json_object', 'json_schema'];
  if (typeof format.type !== 'string' || !types.includes(format.type)) throw invalidValue('response_format.type', format.type, types);
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') {
    if (!messages.some((m) => /json/i.test(m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')))) {
      throw invalid(
        'messages',
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        undefined,
      );
    }
    return { type: 'json' };
  }
  checkField('response_format.json_schema', format.json_schema, { types: ['object'], required: true });
  const spec = format.json_schema;
  checkField('response_format.json_schema.name', spec.name, { types: ['string'], required: true });
  if (!NAME.test(spec.name)) {
    throw invalid(
      'response_format.json_schema.name',
      `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
    );
  }
  checkField('response_format.json_schema.schema', spec.schema, { types: ['object'] });
  checkField('response_format.json_schema.strict', spec.strict, { types: ['boolean'], nullable: true });
  return { type: 'json_schema', name: spec.name, schema: spec.schema ?? { type: 'object' } };
}

/** Every tool message must answer a call of an earlier assistant turn, and every call be answered. */
function checkToolTurns(messages: Message[]): void {
  const open = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) open.set(call.id, i);
    if (m.role === 'tool' && !open.delete(m.toolCallId ?? '')) {
      throw invalid(
        `messages[${i}].tool_call_id`,
        `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; no earlier assistant message has a tool call with id '${m.toolCallId}'.`,
        undefined,
      );
    }
  });
  const last = messages.length - 1;
  const unanswered = [...open].filter(([, at]) => at < last).map(([id]) => id);
  if (unanswered.length) {
    throw invalid(
      'messages',
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.join(', ')}`,
      undefined,
    );
  }
}

/** How long automatic caching keeps a prefix after its last use: in memory 5 minutes, or 24 hours when `prompt_cache_retention: "24h"`. */
const RETENTION_SECONDS: Record<string, number> = { in_memory: 300, '24h': 86400 };

/** OpenAI's automatic prefix caching: cached figures in steps of 128 tokens, routed by prompt_cache_key. */
export function automaticCache(body: JsonObject): CacheRequest {
  const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
  const ttlSeconds = RETENTION_SECONDS[String(body.prompt_cache_retention)] ?? RETENTION_SECONDS.in_memory;
  return { automatic: { stepTokens: 128, ttlSeconds, ...(key ? { key } : {}) } };
}

export interface ChatOptions {
  /** Append a usage chunk to the stream. */
  includeUsage: boolean;
  /** Top alternatives per token when logprobs are asked for, else undefined. */
  topLogprobs?: number;
  /** The request used the legacy `functions`: answer with `function_call`. */
  legacyFunctions: boolean;
}

export function parseChatRequest(body: JsonObject): { request: CanonicalRequest; options: ChatOptions } {
  checkFields(body, CHAT_FIELDS);
  checkMetadata(body.metadata);
  const messages = body.messages.map((m, i) => parseMessage(`messages[${i}]`, m));
  const stream = body.stream === true;
  if (body.stream_options != null && !stream) {
    throw invalid('stream_options', "The 'stream_options' parameter is only allowed when 'stream' is enabled.", undefined);
  }
  if (body.top_logprobs != null && body.logprobs !== true) {
    throw invalid('top_logprobs', "Invalid 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.", undefined);
  }
  const streamOptions = body.stream_options ?? {};
  checkField('stream_options.include_usage', streamOptions.include_usage, { types: ['boolean'], nullable: true });
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  if (body.tools !== undefined && body.functions !== undefined) {
    throw invalid(
      'functions',
      "Invalid parameter: 'functions' and 'tools' cannot both be set; 'functions' is the legacy form of 'tools'.",
      undefined,
    );
  }
  const functions = parseTools(body);
  // A search model, or a request with web_search_options, searches the web before it answers.
  const search = chatWebSearch(body.web_search_options, body.model);
  const tools = search ? [...functions, search] : functions;
  const legacyFunctions = body.functions !== undefined && body.functions !== null;
  checkToolTurns(messages);
  return {
    request: {
      format: 'openai',
      operation: 'chat',
      model: body.model,
      messages,
      maxTokens,
      stop: parseStop(body.stop),
      n: body.n ?? 1,
      seed: body.seed ?? undefined,
      stream,
      tools,
      toolChoice: search && !functions.length ? { name: search.name } : parseToolChoice(body, functions),
      // Legacy functions are called one at a time.
      parallelToolCalls: !legacyFunctions && body.parallel_tool_calls !== false,
      output: parseResponseFormat(body.response_format, messages),
      ...(typeof body.reasoning_effort === 'string' ? { reasoning: { effort: body.reasoning_effort } } : {}),
      cache: automaticCache(body),
    },
    options: {
      includeUsage: streamOptions.include_usage === true,
      topLogprobs: body.logprobs === true ? (body.top_logprobs ?? 0) : undefined,
      legacyFunctions,
    },
  };
}
