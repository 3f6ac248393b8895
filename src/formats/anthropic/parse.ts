// Anthropic messages request → canonical request, refusing what the Messages API refuses.
import {
  joinedTexts,
  type CacheRequest,
  type CanonicalRequest,
  type CitableDocument,
  type Message,
  type OutputFormat,
  type Part,
} from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import { parseMessagesTools } from './tools.ts';
import { checkField, checkFields, invalid } from './validate.ts';
import { type CheckedFields, type FieldRules, fieldsOf, type JsonObject, optional } from '../fields.ts';

/** The version that first allowed `role: "system"` inside messages. */
const SYSTEM_IN_MESSAGES_SINCE = '2026-10-21';

/** The fields of a messages request (and of count_tokens, which takes a subset). */
export const MESSAGE_FIELDS = {
  model: { types: ['string'], required: true },
  max_tokens: { types: ['integer'], required: true, min: 1 },
  messages: { types: ['array'], required: true },
  system: optional('string', 'array'),
  stop_sequences: { types: ['array'] },
  stream: { types: ['boolean'] },
  temperature: { types: ['number'], min: 0, max: 1 },
  top_p: { types: ['number'], min: 0, max: 1 },
  top_k: { types: ['integer'], min: 0 },
  tools: { types: ['array'] },
  tool_choice: { types: ['object'] },
  thinking: { types: ['object'] },
  metadata: { types: ['object'] },
  service_tier: { types: ['string'], values: ['auto', 'standard_only'] },
  output_config: optional('object'),
  container: optional('string', 'object'),
  cache_control: optional('object'),
  context_management: optional('object'),
  diagnostics: optional('object'),
  inference_geo: optional('string'),
  mcp_servers: { types: ['array'] },
  speed: { types: ['string'], nullable: true, values: ['standard', 'fast'] },
  user_profile_id: { types: ['string'] },
  workspace_id: { types: ['string'] },
} as const satisfies FieldRules;

const COUNT_FIELDS = Object.fromEntries(
  Object.entries(MESSAGE_FIELDS).filter(
    ([k]) =>
      ![
        'max_tokens',
        'stream',
        'stop_sequences',
        'temperature',
        'top_p',
        'top_k',
        'metadata',
        'service_tier',
        'container',
        'inference_geo',
      ].includes(k),
  ),
);

/**
 * A checked messages (or count_tokens) body: count_tokens takes a subset, and the fields it leaves out
 * are then absent (left out as unknown, or refused), max_tokens among them.
 */
type MessagesBody = CheckedFields<Omit<typeof MESSAGE_FIELDS, 'max_tokens'>> & { max_tokens?: number };

function checkBody(body: JsonObject, countOnly: boolean): asserts body is MessagesBody {
  checkFields(body, countOnly ? COUNT_FIELDS : MESSAGE_FIELDS);
}

function textOfBlocks(param: string, content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(param, 'Input should be a valid string or a valid list');
  return content
    .map((b, i) => {
      const block = fieldsOf(b);
      checkField(`${param}.${i}.type`, block.type, { types: ['string'], required: true });
      return block.type === 'text' ? String(block.text ?? '') : '';
    })
    .join('');
}

interface Turn {
  message: Message;
  /** Tool results split out of a user turn: they become canonical tool turns. */
  results: Message[];
}

/** The request's `document` blocks as read so far: how many, those with citations asked for, and the text of a file cited by id. */
interface Documents {
  count: number;
  citable: CitableDocument[];
  fileText: (id: string) => string | undefined;
}

/**
 * A document block's text, when it has one to read: an inline text source, a content source's text
 * blocks, or a text file cited by id; a PDF (base64, by URL or by file) is not read.
 */
function documentText(block: JsonObject, documents: Documents): { text: string; fileId?: string; citable: boolean } | undefined {
  const source = fieldsOf(block.source);
  if (source.type === 'text' && typeof source.data === 'string') return { text: source.data, citable: true };
  if (source.type === 'file' && typeof source.file_id === 'string') {
    const text = documents.fileText(source.file_id);
    return text === undefined ? undefined : { text, fileId: source.file_id, citable: true };
  }
  // A content source's citations are by block (content_block_location), not by character: read, not cited.
  if (source.type === 'content') {
    const content = source.content;
    if (typeof content === 'string') return { text: content, citable: false };
    if (Array.isArray(content))
      return { text: joinedTexts(content.map((b) => fieldsOf(b) as { type: string; text?: unknown })), citable: false };
  }
  return undefined;
}

function parseTurn(param: string, m: unknown, systemAllowed: boolean, documents: Documents): Turn {
  checkField(param, m, { types: ['object'], required: true });
  const roles: Message['role'][] = systemAllowed ? ['user', 'assistant', 'system'] : ['user', 'assistant'];
  checkField(`${param}.role`, m.role, { types: ['string'], required: true, values: roles });
  checkField(`${param}.content`, m.content, { types: ['string', 'array'], required: true });
  const role = m.role;
  if (typeof m.content === 'string') return { message: { role, parts: [{ type: 'text', text: m.content }] }, results: [] };
  const parts: Part[] = [];
  const toolCalls: NonNullable<Message['toolCalls']> = [];
  const results: Message[] = [];
  m.content.forEach((block, i) => {
    const at = `${param}.content.${i}`;
    checkField(at, block, { types: ['object'], required: true });
    const kinds =
      role === 'assistant' ? ASSISTANT_BLOCKS : ['text', 'image', 'document', 'search_result', 'tool_result', 'container_upload'];
    checkField(`${at}.type`, block.type, { types: ['string'], required: true, values: kinds });
    switch (block.type) {
      case 'text':
        checkField(`${at}.text`, block.text, { types: ['string'], required: true });
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        checkField(`${at}.source`, block.source, { types: ['object'], required: true });
        parts.push({ type: 'image' });
        break;
      case 'document': {
        // Read as its text where it has one (what the model reads), each document counted for document_index.
        const index = documents.count++;
        const read = documentText(block, documents);
        if (!read) {
          parts.push({ type: 'file' });
          break;
        }
        parts.push({ type: 'file', text: read.text });
        if (read.citable && fieldsOf(block.citations).enabled === true)
          documents.citable.push({
            index,
            text: read.text,
            ...(typeof block.title === 'string' && { title: block.title }),
            ...(read.fileId !== undefined && { fileId: read.fileId }),
          });
        break;
      }
      case 'search_result':
        parts.push({ type: 'file' });
        break;
      case 'server_tool_use':
      case 'mcp_tool_use':
        // The service's own tool runs (and their results, below) are context: nothing for the client to answer.
        checkField(`${at}.id`, block.id, { types: ['string'], required: true });
        checkField(`${at}.name`, block.name, { types: ['string'], required: true });
        break;
      case 'tool_use':
        checkField(`${at}.id`, block.id, { types: ['string'], required: true });
        checkField(`${at}.name`, block.name, { types: ['string'], required: true });
        checkField(`${at}.input`, block.input, { types: ['object'], required: true });
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
        break;
      case 'tool_result':
        checkField(`${at}.tool_use_id`, block.tool_use_id, { types: ['string'], required: true });
        results.push({
          role: 'tool',
          toolCallId: block.tool_use_id,
          parts: [{ type: 'text', text: block.content === undefined ? '' : textOfBlocks(`${at}.content`, block.content) }],
        });
        break;
      default:
        // thinking blocks sent back are context, not content to answer
        break;
    }
  });
  return { message: { role, parts, ...(toolCalls.length ? { toolCalls } : {}) }, results };
}

/** Each tool_result must answer a tool_use of the assistant turn just before it. */
function checkToolResults(turns: Turn[]): void {
  turns.forEach((turn, i) => {
    if (!turn.results.length) return;
    const asked = new Set((turns[i - 1]?.message.toolCalls ?? []).map((c) => c.id));
    const stray = turn.results.filter((r) => !asked.has(r.toolCallId!)).map((r) => r.toolCallId);
    if (stray.length) {
      throw invalid(
        `messages.${i}.content.0`,
        `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
  });
}

/** What an assistant turn may hold: text, thinking, calls, and the service's own tool runs and their results. */
const ASSISTANT_BLOCKS = [
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
];

function parseToolChoice(c: JsonObject | undefined, tools: ToolSpec[]): { choice: ToolChoice; parallel: boolean } {
  if (c === undefined) return { choice: 'auto', parallel: true };
  checkField('tool_choice.type', c.type, { types: ['string'], required: true, values: ['auto', 'any', 'tool', 'none'] });
  const parallel = c.disable_parallel_tool_use !== true;
  if (c.type === 'tool') {
    checkField('tool_choice.name', c.name, { types: ['string'], required: true });
    if (!tools.some((t) => t.name === c.name)) throw invalid('tool_choice.name', `Tool '${String(c.name)}' not found in tools`);
    return { choice: { name: c.name }, parallel };
  }
  if (c.type !== 'none' && !tools.length) throw invalid('tool_choice', 'tool_choice may only be specified while providing tools.');
  return { choice: c.type === 'any' ? 'required' : c.type, parallel };
}

/** Claude thinks only when asked to, and shows its thinking (a summary of it) when it does. */
function parseThinking(t: JsonObject | undefined, maxTokens: number | undefined): CanonicalRequest['reasoning'] {
  if (t === undefined) return { effort: 'none' };
  checkField('thinking.type', t.type, { types: ['string'], required: true, values: ['enabled', 'disabled', 'adaptive', 'between_tools'] });
  if (t.type === 'disabled') return { effort: 'none' };
  if (t.type !== 'enabled') return { budgetTokens: Math.max(1024, Math.floor((maxTokens ?? 4096) / 2)), show: true };
  checkField('thinking.budget_tokens', t.budget_tokens, { types: ['integer'], required: true, min: 1024 });
  const budget = t.budget_tokens;
  if (maxTokens !== undefined && budget >= maxTokens) {
    throw invalid(
      'max_tokens',
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size`,
    );
  }
  return { budgetTokens: budget, show: true };
}

/** The Messages API's most cache_control breakpoints in one request. */
const MAX_CACHE_BREAKPOINTS = 4;

const TTL_SECONDS: Record<string, number> = { '5m': 300, '1h': 3600 };

/** A block's cache_control, checked: its TTL in seconds, or undefined when it has none. */
function cacheTtl(param: string, c: unknown): number | undefined {
  if (c === undefined || c === null) return undefined;
  checkField(param, c, { types: ['object'] });
  checkField(`${param}.type`, c.type, { types: ['string'], required: true, values: ['ephemeral'] });
  checkField(`${param}.ttl`, c.ttl, { types: ['string'], values: Object.keys(TTL_SECONDS) });
  return TTL_SECONDS[c.ttl ?? '5m'];
}

/**
 * The request's cache_control breakpoints: on tools (after the tools), on system blocks (after the
 * system message), on a turn's blocks (after the canonical messages that turn became), and the
 * top-level one (after the last message). `ends[i]` is the last canonical message of turn i.
 */
function cacheBreakpoints(body: MessagesBody, hasSystem: boolean, ends: number[]): CacheRequest | undefined {
  const points: { after: number; ttlSeconds: number }[] = [];
  const mark = (param: string, raw: unknown, after: number) => {
    const ttl = cacheTtl(param, raw);
    if (ttl !== undefined) points.push({ after, ttlSeconds: ttl });
  };
  // By now every tool, system block and message is known to be an object; blocks are read as parsed.
  (body.tools ?? []).forEach((t, i) => mark(`tools.${i}.cache_control`, fieldsOf(t).cache_control, -1));
  if (Array.isArray(body.system))
    body.system.forEach((b, i) => mark(`system.${i}.cache_control`, fieldsOf(b).cache_control, hasSystem ? 0 : -1));
  body.messages.forEach((m, i) => {
    const { content } = fieldsOf(m);
    if (Array.isArray(content))
      content.forEach((b, j) => mark(`messages.${i}.content.${j}.cache_control`, fieldsOf(b).cache_control, ends[i]));
  });
  mark('cache_control', body.cache_control, ends.at(-1) ?? -1);
  if (points.length > MAX_CACHE_BREAKPOINTS)
    throw invalid(
      'cache_control',
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${points.length}.`,
    );
  return points.length ? { breakpoints: points } : undefined;
}

function parseOutput(config: JsonObject | null | undefined): OutputFormat {
  // format has no rule: a truthy non-object reads as a format with no fields.
  if (!config?.format) return { type: 'text' };
  const format = fieldsOf(config.format);
  checkField('output_config.format.type', format.type, { types: ['string'], required: true, values: ['json_schema'] });
  checkField('output_config.format.schema', format.schema, { types: ['object'], required: true });
  return { type: 'json_schema', schema: format.schema };
}

/** Parses a messages (or count_tokens) body. `version` is the request's anthropic-version. */
export function parseMessagesRequest(
  body: JsonObject,
  version: string,
  countOnly = false,
  fileText: (id: string) => string | undefined = () => undefined,
): CanonicalRequest {
  checkBody(body, countOnly);
  const systemAllowed = version >= SYSTEM_IN_MESSAGES_SINCE;
  const documents: Documents = { count: 0, citable: [], fileText };
  const turns = body.messages.map((m, i) => parseTurn(`messages.${i}`, m, systemAllowed, documents));
  checkToolResults(turns);
  const system =
    body.system === undefined || body.system === null
      ? []
      : [{ role: 'system' as const, parts: [{ type: 'text' as const, text: textOfBlocks('system', body.system) }] }];
  const messages: Message[] = [...system];
  const ends: number[] = [];
  for (const { message, results } of turns) {
    messages.push(...results);
    if (message.parts.length || message.toolCalls || !results.length) messages.push(message);
    ends.push(messages.length - 1);
  }
  const stop = (body.stop_sequences ?? []).map((s, i) => {
    checkField(`stop_sequences.${i}`, s, { types: ['string'], required: true });
    return s;
  });
  const tools = parseMessagesTools(body.tools, body.mcp_servers);
  const { choice, parallel } = parseToolChoice(body.tool_choice, tools);
  const maxTokens = body.max_tokens;
  return {
    format: 'anthropic',
    operation: 'chat',
    model: body.model,
    messages,
    maxTokens,
    stop,
    n: 1,
    stream: body.stream === true,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    output: parseOutput(body.output_config),
    reasoning: parseThinking(body.thinking, maxTokens),
    cache: cacheBreakpoints(body, system.length > 0, ends),
    ...(documents.citable.length && { documents: documents.citable }),
  };
}
