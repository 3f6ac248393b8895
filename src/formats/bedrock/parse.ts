// Bedrock Converse request → canonical request, refusing what Converse refuses in its words. The
// same body serves Converse, ConverseStream and CountTokens' `converse` input.
import type { CacheRequest, CanonicalRequest, Message, OutputFormat, Part, ToolChoice, ToolSpec } from '../../core/request.ts';
import type { ModelInfo } from '../../core/models.ts';
import { type FieldRules, fieldsOf, isJsonObject, type JsonObject, nonObjectSchema } from '../fields.ts';
import { checkField, checkFields, invalid, member } from './validate.ts';

/** The fields of a Converse (or ConverseStream) body; the model comes in the path. */
const CONVERSE_FIELDS = {
  messages: { types: ['array'] },
  system: { types: ['array'] },
  inferenceConfig: { types: ['object'] },
  toolConfig: { types: ['object'] },
  guardrailConfig: { types: ['object'] },
  additionalModelRequestFields: { types: ['object'] },
  promptVariables: { types: ['object'] },
  additionalModelResponseFieldPaths: { types: ['array'] },
  requestMetadata: { types: ['object'] },
  performanceConfig: { types: ['object'] },
  serviceTier: { types: ['object'] },
  outputConfig: { types: ['object'] },
} as const satisfies FieldRules;

const INFERENCE_FIELDS = {
  maxTokens: { types: ['integer'], min: 1 },
  temperature: { types: ['number'], min: 0, max: 1 },
  topP: { types: ['number'], min: 0, max: 1 },
  stopSequences: { types: ['array'], max: 2500 },
  // Not in AWS's model, but the AI SDK sends it (Bedrock passes it to models that take it).
  topK: { types: ['integer'], min: 0 },
} as const satisfies FieldRules;

/** Every member a message's content block may have; a block has exactly one. */
const CONTENT_MEMBERS = [
  'text',
  'image',
  'document',
  'video',
  'audio',
  'toolUse',
  'toolResult',
  'guardContent',
  'cachePoint',
  'reasoningContent',
  'citationsContent',
  'searchResult',
  'toolAddition',
  'toolRemoval',
] as const;
const SYSTEM_MEMBERS = ['text', 'guardContent', 'cachePoint'] as const;
const TOOL_MEMBERS = ['toolSpec', 'systemTool', 'cachePoint'] as const;
const TOOL_RESULT_MEMBERS = ['text', 'json', 'image', 'document', 'video', 'searchResult'] as const;
const TOOL_CHOICE_MEMBERS = ['auto', 'any', 'tool'] as const;
const IMAGE_FORMATS = ['gif', 'jpeg', 'png', 'webp'];
const DOCUMENT_FORMATS = ['csv', 'doc', 'docx', 'html', 'md', 'pdf', 'txt', 'xls', 'xlsx'];

/** Claude on Bedrock, as elsewhere, takes at most 4 cache points in one request. */
const MAX_CACHE_POINTS = 4;
const TTL_SECONDS: Record<string, number> = { '5m': 300, '1h': 3600 };

/** The one member of a union set in `value` (an object), refusing none or several as AWS does. */
function unionMember<const M extends string>(param: string, value: unknown, members: readonly M[]): { name: M; value: unknown } {
  checkField(param, value, { types: ['object'], required: true });
  const set = members.filter((name) => value[name] !== undefined && value[name] !== null);
  if (set.length === 1) return { name: set[0], value: value[set[0]] };
  const found = set.length
    ? `found ${set.length}: ${set.join(', ')}`
    : `found none${
        Object.keys(value).length
          ? ` (unknown: ${Object.keys(value)
              .slice(0, 5)
              .map((k) => k.slice(0, 40))
              .join(', ')})`
          : ''
      }`;
  throw invalid(
    param,
    `1 validation error detected: Value at '${param}' failed to satisfy constraint: Member must have exactly one of the following members set: ${members.join(', ')} (${found}). Put each piece of content in its own block.`,
  );
}

/** A cache point's TTL in seconds. */
function cacheTtl(param: string, value: unknown): number {
  checkField(param, value, { types: ['object'], required: true });
  checkField(`${param}.type`, value.type, { types: ['string'], required: true, values: ['default'] });
  checkField(`${param}.ttl`, value.ttl, { types: ['string'], values: Object.keys(TTL_SECONDS) });
  return TTL_SECONDS[value.ttl ?? '5m'];
}

/** The source union of an image or a document: its bytes (base64 in JSON), a text, content or an S3 location. */
function checkSource(param: string, source: unknown, members: readonly string[]): void {
  const { name, value } = unionMember(`${param}.source`, source, members);
  if (name === 'bytes') {
    checkField(`${param}.source.bytes`, value, { types: ['string'], required: true });
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value))
      throw invalid(`${param}.source.bytes`, `The bytes at ${param}.source are not valid base64. Send the file's bytes base64-encoded.`);
  }
}

/** The text of a guard content block (text to check, and send on), or undefined for an image. */
function guardText(param: string, block: unknown): string | undefined {
  const { name, value } = unionMember(param, block, ['text', 'image'] as const);
  if (name === 'image') return undefined;
  checkField(`${param}.text`, value, { types: ['object'], required: true });
  checkField(`${param}.text.text`, value.text, { types: ['string'], required: true });
  return value.text;
}

interface Turn {
  message: Message;
  /** Tool results of a user message: each becomes a canonical tool message. */
  results: Message[];
  /** Cache points in this message: after its last canonical message. */
  cachePoints: number[];
}

/** A toolResult's content as text: its texts and JSON values, in order. */
function resultText(param: string, result: JsonObject): string {
  checkField(`${param}.toolUseId`, result.toolUseId, { types: ['string'], required: true });
  checkField(`${param}.content`, result.content, { types: ['array'], required: true });
  checkField(`${param}.status`, result.status, { types: ['string'], values: ['success', 'error'] });
  return result.content
    .map((block, i) => {
      const { name, value } = unionMember(member(`${param}.content`, i), block, TOOL_RESULT_MEMBERS);
      if (name === 'text') checkField(`${member(`${param}.content`, i)}.text`, value, { types: ['string'], required: true });
      return name === 'text' ? (value as string) : name === 'json' ? JSON.stringify(value) : '';
    })
    .join('');
}

function parseTurn(index: number, raw: unknown): Turn {
  const param = member('messages', index);
  checkField(param, raw, { types: ['object'], required: true });
  checkField(`${param}.role`, raw.role, { types: ['string'], required: true, values: ['user', 'assistant'] });
  checkField(`${param}.content`, raw.content, { types: ['array'], required: true });
  const role = raw.role;
  if (!raw.content.length) {
    throw invalid(
      `messages.${index}.content`,
      `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`,
    );
  }
  const parts: Part[] = [];
  const toolCalls: NonNullable<Message['toolCalls']> = [];
  const results: Message[] = [];
  const cachePoints: number[] = [];
  raw.content.forEach((block, j) => {
    const at = member(`${param}.content`, j);
    const { name, value } = unionMember(at, block, CONTENT_MEMBERS);
    const own = (roleNeeded: 'user' | 'assistant') => {
      if (role !== roleNeeded)
        throw invalid(at, `messages.${index}.content.${j}: a ${name} block belongs in a message with the ${roleNeeded} role, not ${role}.`);
    };
    switch (name) {
      case 'text':
        checkField(`${at}.text`, value, { types: ['string'], required: true });
        if (!value.trim())
          throw invalid(
            `${at}.text`,
            `The text field in the ContentBlock object at messages.${index}.content.${j} is blank. Add text to the text field, and try again.`,
          );
        parts.push({ type: 'text', text: value });
        break;
      case 'image':
        checkField(`${at}.image`, value, { types: ['object'], required: true });
        checkField(`${at}.image.format`, value.format, { types: ['string'], required: true, values: IMAGE_FORMATS });
        checkSource(`${at}.image`, value.source, ['bytes', 's3Location']);
        parts.push({ type: 'image' });
        break;
      case 'document':
        checkField(`${at}.document`, value, { types: ['object'], required: true });
        checkField(`${at}.document.name`, value.name, { types: ['string'], required: true });
        checkField(`${at}.document.format`, value.format, { types: ['string'], values: DOCUMENT_FORMATS });
        checkSource(`${at}.document`, value.source, ['bytes', 'text', 'content', 's3Location']);
        parts.push({ type: 'file' });
        break;
      case 'video':
      case 'searchResult':
        parts.push({ type: 'file' });
        break;
      case 'audio':
        parts.push({ type: 'audio' });
        break;
      case 'guardContent': {
        const text = guardText(`${at}.guardContent`, value);
        parts.push(text === undefined ? { type: 'image' } : { type: 'text', text });
        break;
      }
      case 'citationsContent': {
        const content = fieldsOf(value).content;
        const text = Array.isArray(content) ? content.map((c) => String(fieldsOf(c).text ?? '')).join('') : '';
        if (text) parts.push({ type: 'text', text });
        break;
      }
      case 'toolUse':
        own('assistant');
        checkField(`${at}.toolUse`, value, { types: ['object'], required: true });
        checkField(`${at}.toolUse.toolUseId`, value.toolUseId, { types: ['string'], required: true });
        checkField(`${at}.toolUse.name`, value.name, { types: ['string'], required: true });
        if (value.input === undefined)
          throw invalid(
            `${at}.toolUse.input`,
            `1 validation error detected: Value null at '${at}.toolUse.input' failed to satisfy constraint: Member must not be null`,
          );
        toolCalls.push({ id: value.toolUseId, name: value.name, arguments: JSON.stringify(value.input) });
        break;
      case 'toolResult': {
        own('user');
        checkField(`${at}.toolResult`, value, { types: ['object'], required: true });
        const text = resultText(`${at}.toolResult`, value);
        results.push({ role: 'tool', toolCallId: value.toolUseId as string, parts: [{ type: 'text', text }] });
        break;
      }
      case 'cachePoint':
        cachePoints.push(cacheTtl(`${at}.cachePoint`, value));
        break;
      // Reasoning sent back is the model's own context; tool additions and removals change nothing answered here.
      case 'reasoningContent':
        own('assistant');
        break;
      case 'toolAddition':
      case 'toolRemoval':
        break;
    }
  });
  const message: Message = { role, parts, ...(toolCalls.length ? { toolCalls } : {}) };
  return { message, results, cachePoints };
}

/** The rules of a conversation: a user starts, roles alternate, each tool result answers a tool use of the turn before. */
function checkConversation(turns: Turn[]): void {
  if (turns[0]?.message.role !== 'user')
    throw invalid(
      'messages',
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  turns.forEach((turn, i) => {
    if (i > 0 && turn.message.role === turns[i - 1].message.role) {
      throw invalid(
        'messages',
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    }
    if (!turn.results.length) return;
    const asked = (turns[i - 1]?.message.toolCalls ?? []).map((c) => c.id);
    if (turn.results.length > asked.length) {
      throw invalid(
        `messages.${i}.content`,
        `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`,
      );
    }
    const missing = asked.filter((id) => !turn.results.some((r) => r.toolCallId === id));
    if (missing.length)
      throw invalid(
        `messages.${i}.content`,
        `Expected toolResult blocks at messages.${i}.content for the following Ids: ${missing.join(', ')}`,
      );
  });
}

function parseTools(config: JsonObject | undefined, cachePoints: number[]): { tools: ToolSpec[]; choice: ToolChoice } {
  if (config === undefined) return { tools: [], choice: 'auto' };
  checkField('toolConfig.tools', config.tools, { types: ['array'], required: true, min: 1 });
  const tools: ToolSpec[] = [];
  config.tools.forEach((tool, i) => {
    const at = member('toolConfig.tools', i);
    const { name, value } = unionMember(at, tool, TOOL_MEMBERS);
    if (name === 'cachePoint') return void cachePoints.push(cacheTtl(`${at}.cachePoint`, value));
    if (name === 'systemTool') return;
    checkField(`${at}.toolSpec`, value, { types: ['object'], required: true });
    checkField(`${at}.toolSpec.name`, value.name, { types: ['string'], required: true });
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(value.name))
      throw invalid(
        `${at}.toolSpec.name`,
        `1 validation error detected: Value '${value.name.slice(0, 64)}' at '${at}.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+ (1 to 64 characters)`,
      );
    checkField(`${at}.toolSpec.description`, value.description, { types: ['string'] });
    const schema = unionMember(`${at}.toolSpec.inputSchema`, value.inputSchema, ['json'] as const).value;
    checkField(`${at}.toolSpec.inputSchema.json`, schema, { types: ['object'], required: true });
    const type = nonObjectSchema(schema);
    if (type !== undefined)
      throw invalid(
        `${at}.toolSpec.inputSchema.json.type`,
        `The value at toolConfig.tools.${i}.toolSpec.inputSchema.json.type must be one of the following: object (got ${type.slice(0, 40)}). A tool's input is an object: put the value in one of its properties.`,
      );
    // `{}` is a tool without parameters: its input is an empty object.
    tools.push({
      name: value.name,
      description: value.description,
      parameters: Object.keys(schema).length ? schema : { type: 'object', properties: {} },
    });
  });
  if (config.toolChoice === undefined) return { tools, choice: 'auto' };
  const { name, value } = unionMember('toolConfig.toolChoice', config.toolChoice, TOOL_CHOICE_MEMBERS);
  if (name !== 'tool') return { tools, choice: name === 'any' ? 'required' : 'auto' };
  const wanted = fieldsOf(value).name;
  checkField('toolConfig.toolChoice.tool.name', wanted, { types: ['string'], required: true });
  if (!tools.some((t) => t.name === wanted))
    throw invalid(
      'toolConfig.toolChoice.tool.name',
      `The tool ${wanted} named in toolChoice is not in toolConfig.tools. Add it there, or choose one of: ${tools.map((t) => t.name).join(', ')}.`,
    );
  return { tools, choice: { name: wanted } };
}

/** An effort a Bedrock model takes (`maxReasoningEffort`, `reasoning_effort`, `output_config.effort`), canonically. */
function effortOf(value: unknown): NonNullable<CanonicalRequest['reasoning']>['effort'] {
  const efforts = { minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' } as const;
  return typeof value === 'string' && Object.hasOwn(efforts, value) ? efforts[value as keyof typeof efforts] : undefined;
}

/**
 * Reasoning as the request's additionalModelRequestFields ask for it: Claude's `thinking` (and
 * `output_config.effort`), Nova's `reasoningConfig`, gpt-oss's `reasoning_effort`. Claude thinks only
 * when asked, as on Anthropic's own API; other models reason as they do by default.
 */
function reasoningOf(extra: JsonObject, maxTokens: number | undefined, model: ModelInfo): CanonicalRequest['reasoning'] {
  const thinking = fieldsOf(extra.thinking);
  if (thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    checkField('additionalModelRequestFields.thinking.budget_tokens', budget, { types: ['integer'], required: true, min: 1024 });
    if (maxTokens !== undefined && budget >= maxTokens)
      throw invalid(
        'inferenceConfig.maxTokens',
        '`max_tokens` must be greater than `thinking.budget_tokens`. Raise inferenceConfig.maxTokens above the thinking budget.',
      );
    return { budgetTokens: budget, show: true };
  }
  if (thinking.type === 'adaptive') return { budgetTokens: Math.max(1024, Math.floor((maxTokens ?? 4096) / 2)), show: true };
  const config = fieldsOf(extra.reasoningConfig ?? extra.reasoning_config);
  if (config.type === 'enabled') {
    const budget = typeof config.budgetTokens === 'number' ? config.budgetTokens : undefined;
    return {
      effort: effortOf(config.maxReasoningEffort) ?? (budget === undefined ? 'medium' : undefined),
      budgetTokens: budget,
      show: true,
    };
  }
  const effort =
    effortOf(extra.reasoning_effort) ?? effortOf(fieldsOf(extra.output_config).effort) ?? effortOf(fieldsOf(extra.reasoning).effort);
  if (effort) return { effort };
  if (thinking.type === 'disabled' || config.type === 'disabled' || model.owned_by === 'anthropic') return { effort: 'none' };
  return undefined;
}

/** The shape of the reply: outputConfig's JSON schema (a JSON text), or Claude's own output_config passed through. */
function outputOf(config: JsonObject | undefined, extra: JsonObject): OutputFormat {
  const format = fieldsOf(config?.textFormat);
  if (config?.textFormat !== undefined) {
    checkField('outputConfig.textFormat.type', format.type, { types: ['string'], required: true, values: ['json_schema'] });
    const { value } = unionMember('outputConfig.textFormat.structure', format.structure, ['jsonSchema'] as const);
    checkField('outputConfig.textFormat.structure.jsonSchema', value, { types: ['object'], required: true });
    checkField('outputConfig.textFormat.structure.jsonSchema.schema', value.schema, { types: ['string'], required: true });
    let schema: unknown;
    try {
      schema = JSON.parse(value.schema);
    } catch {
      schema = undefined;
    }
    if (!isJsonObject(schema))
      throw invalid(
        'outputConfig.textFormat.structure.jsonSchema.schema',
        'The JSON schema in outputConfig.textFormat is not a JSON object: send the schema as a JSON text.',
      );
    return { type: 'json_schema', schema, ...(typeof value.name === 'string' ? { name: value.name } : {}) };
  }
  const passed = fieldsOf(fieldsOf(extra.output_config).format);
  if (passed.type === 'json_schema' && isJsonObject(passed.schema)) return { type: 'json_schema', schema: passed.schema };
  return { type: 'text' };
}

/**
 * A Converse body as the canonical request for `model` (the catalogue's name the path's id resolved
 * to): the conversation, tools, inference settings, cache points, reasoning and output shape.
 */
export function parseConverse(body: JsonObject, model: ModelInfo, stream: boolean): CanonicalRequest {
  checkFields(body, CONVERSE_FIELDS);
  if (!body.messages)
    throw invalid(
      'messages',
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  const turns = body.messages.map((m, i) => parseTurn(i, m));
  checkConversation(turns);
  const cachePoints: { after: number; ttlSeconds: number }[] = [];
  const systemTexts: string[] = [];
  const systemCache: number[] = [];
  (body.system ?? []).forEach((block, i) => {
    const at = member('system', i);
    const { name, value } = unionMember(at, block, SYSTEM_MEMBERS);
    if (name === 'cachePoint') return void systemCache.push(cacheTtl(`${at}.cachePoint`, value));
    const text = name === 'text' ? value : guardText(`${at}.guardContent`, value);
    checkField(`${at}.text`, text, { types: ['string'] });
    if (text) systemTexts.push(text);
  });
  const system: Message[] = systemTexts.length ? [{ role: 'system', parts: [{ type: 'text', text: systemTexts.join('\n') }] }] : [];
  const toolCache: number[] = [];
  const { tools, choice } = parseTools(body.toolConfig, toolCache);
  if (!body.toolConfig && turns.some((t) => t.results.length || t.message.toolCalls))
    throw invalid('toolConfig', 'The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  for (const ttl of toolCache) cachePoints.push({ after: -1, ttlSeconds: ttl });
  for (const ttl of systemCache) cachePoints.push({ after: system.length ? 0 : -1, ttlSeconds: ttl });
  const messages: Message[] = [...system];
  for (const turn of turns) {
    messages.push(...turn.results);
    if (turn.message.parts.length || turn.message.toolCalls || !turn.results.length) messages.push(turn.message);
    for (const ttl of turn.cachePoints) cachePoints.push({ after: messages.length - 1, ttlSeconds: ttl });
  }
  if (cachePoints.length > MAX_CACHE_POINTS)
    throw invalid('messages', `A maximum of ${MAX_CACHE_POINTS} cachePoint blocks may be provided. Found ${cachePoints.length}.`);
  const inference = body.inferenceConfig ?? {};
  checkFields(inference, INFERENCE_FIELDS, 'inferenceConfig.');
  const stop = (inference.stopSequences ?? []).map((s, i) => {
    checkField(member('inferenceConfig.stopSequences', i), s, { types: ['string'], required: true });
    return s;
  });
  const extra = body.additionalModelRequestFields ?? {};
  const cache: CacheRequest | undefined = cachePoints.length ? { breakpoints: cachePoints } : undefined;
  return {
    format: 'bedrock',
    operation: 'chat',
    model: model.id,
    messages,
    maxTokens: inference.maxTokens,
    stop,
    n: 1,
    stream,
    tools,
    toolChoice: choice,
    parallelToolCalls: true,
    output: outputOf(body.outputConfig, extra),
    reasoning: reasoningOf(extra, inference.maxTokens, model),
    cache,
  };
}
