// The Responses API's tools: function tools and every built-in tool of the SDK's Tool union, each
// checked field by field as the API checks it, as canonical ToolSpecs; tool_choice; and the tools as
// a response shows them back. Chat completions' web_search_options likewise.
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { BuiltinTool } from '../../types/builtin.ts';
import { checkFilter, checkRanking } from './search-options.ts';
import { checkField, checkFields, checkUrl, invalid, invalidValue, missing } from './validate.ts';
import { type CheckedFields, type FieldRules, fieldsOf, isOneOf, type JsonObject, nonObjectSchema, optional } from '../fields.ts';
import { gptImageTokens } from './image-tokens.ts';

const CALLERS = { types: ['array'], nullable: true } as const;

/** The fields of each tool type (the SDK's Tool union), `type` included. */
const RULES = {
  function: {
    type: { types: ['string'] },
    name: { types: ['string'], required: true },
    description: { types: ['string'], nullable: true },
    parameters: { types: ['object'], nullable: true },
    strict: { types: ['boolean'], nullable: true },
    allowed_callers: CALLERS,
    async: { types: ['boolean'] },
    defer_loading: { types: ['boolean'] },
    output_schema: { types: ['object'], nullable: true },
  },
  file_search: {
    type: { types: ['string'] },
    vector_store_ids: { types: ['array'], required: true },
    filters: optional('object'),
    max_num_results: { types: ['integer'], min: 1, max: 50 },
    ranking_options: { types: ['object'] },
  },
  computer: { type: { types: ['string'] } },
  computer_use_preview: {
    type: { types: ['string'] },
    display_height: { types: ['integer'], required: true, min: 1 },
    display_width: { types: ['integer'], required: true, min: 1 },
    environment: { types: ['string'], required: true, values: ['windows', 'mac', 'linux', 'ubuntu', 'browser'] },
  },
  web_search: {
    type: { types: ['string'] },
    external_web_access: { types: ['boolean'] },
    filters: optional('object'),
    search_context_size: { types: ['string'], values: ['low', 'medium', 'high'] },
    user_location: optional('object'),
  },
  web_search_preview: {
    type: { types: ['string'] },
    search_content_types: { types: ['array'] },
    search_context_size: { types: ['string'], values: ['low', 'medium', 'high'] },
    user_location: optional('object'),
  },
  mcp: {
    type: { types: ['string'] },
    server_label: { types: ['string'], required: true },
    allowed_callers: CALLERS,
    allowed_tools: optional('array', 'object'),
    authorization: { types: ['string'] },
    connector_id: {
      types: ['string'],
      values: [
        'connector_dropbox',
        'connector_gmail',
        'connector_googlecalendar',
        'connector_googledrive',
        'connector_microsoftteams',
        'connector_outlookcalendar',
        'connector_outlookemail',
        'connector_sharepoint',
      ],
    },
    defer_loading: { types: ['boolean'] },
    headers: optional('object'),
    require_approval: optional('string', 'object'),
    server_description: { types: ['string'] },
    server_url: { types: ['string'] },
    tunnel_id: { types: ['string'] },
  },
  code_interpreter: { type: { types: ['string'] }, container: { types: ['string', 'object'], required: true }, allowed_callers: CALLERS },
  programmatic_tool_calling: { type: { types: ['string'] } },
  image_generation: {
    type: { types: ['string'] },
    action: { types: ['string'], values: ['generate', 'edit', 'auto'] },
    background: { types: ['string'], values: ['transparent', 'opaque', 'auto'] },
    complexity: { types: ['string'], values: ['low', 'medium', 'high'] },
    frame_count: { types: ['integer'], min: 1 },
    frame_duration_ms: { types: ['integer'], min: 1 },
    input_fidelity: { types: ['string'], nullable: true, values: ['high', 'low'] },
    input_image_mask: { types: ['object'] },
    model: { types: ['string'] },
    moderation: { types: ['string'], values: ['auto', 'low'] },
    output_compression: { types: ['integer'], min: 0, max: 100 },
    output_format: { types: ['string'], values: ['png', 'webp', 'jpeg', 'gif', 'svg'] },
    partial_images: { types: ['integer'], min: 0, max: 3 },
    quality: { types: ['string'], values: ['low', 'medium', 'high', 'xhigh', 'max', 'auto'] },
    size: { types: ['string'] },
    svg: { types: ['object'] },
  },
  local_shell: { type: { types: ['string'] } },
  shell: { type: { types: ['string'] }, allowed_callers: CALLERS, environment: optional('object') },
  custom: {
    type: { types: ['string'] },
    name: { types: ['string'], required: true },
    allowed_callers: CALLERS,
    async: { types: ['boolean'] },
    defer_loading: { types: ['boolean'] },
    description: { types: ['string'] },
    format: { types: ['object'] },
  },
  namespace: {
    type: { types: ['string'] },
    name: { types: ['string'], required: true },
    description: { types: ['string'], required: true },
    tools: { types: ['array'], required: true, min: 1 },
  },
  tool_search: {
    type: { types: ['string'] },
    description: { types: ['string'], nullable: true },
    execution: { types: ['string'], values: ['server', 'client'] },
    parameters: optional('object'),
  },
  apply_patch: { type: { types: ['string'] }, allowed_callers: CALLERS },
} as const satisfies Record<string, FieldRules>;

/** Every tool type, by the rule set that checks it (dated types share their family's). */
export const TYPES: Record<string, keyof typeof RULES> = {
  function: 'function',
  file_search: 'file_search',
  computer: 'computer',
  computer_use_preview: 'computer_use_preview',
  web_search: 'web_search',
  web_search_2025_08_26: 'web_search',
  web_search_preview: 'web_search_preview',
  web_search_preview_2025_03_11: 'web_search_preview',
  mcp: 'mcp',
  code_interpreter: 'code_interpreter',
  programmatic_tool_calling: 'programmatic_tool_calling',
  image_generation: 'image_generation',
  local_shell: 'local_shell',
  shell: 'shell',
  custom: 'custom',
  namespace: 'namespace',
  tool_search: 'tool_search',
  apply_patch: 'apply_patch',
};

const NO_PARAMETERS = { type: 'object', properties: {} };

/**
 * A function's parameters as the tool rule uses them (none or `{}`: no parameters), or OpenAI's refusal
 * when they are not an object schema.
 */
export function functionParameters(param: string, name: string, parameters: JsonObject | undefined): JsonObject {
  const type = parameters && nonObjectSchema(parameters);
  if (type !== undefined) {
    throw invalid(
      param,
      `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${type}"'.`,
      'invalid_function_parameters',
    );
  }
  return parameters && Object.keys(parameters).length ? parameters : NO_PARAMETERS;
}

function strings(param: string, value: unknown, values?: readonly string[]): string[] {
  checkField(param, value, { types: ['array'], nullable: true });
  return (value ?? []).map((v, i) => {
    checkField(`${param}[${i}]`, v, { types: ['string'], required: true, ...(values ? { values } : {}) });
    return v;
  });
}

function checkLocation(param: string, location: JsonObject | null | undefined, typeRequired: boolean): void {
  if (!location) return;
  checkFields(
    location,
    {
      type: { types: ['string'], required: typeRequired, values: ['approximate'] },
      city: optional('string'),
      country: optional('string'),
      region: optional('string'),
      timezone: optional('string'),
    },
    `${param}.`,
  );
}

/** A function tool (at the top level or in a namespace). */
function functionTool(param: string, tool: JsonObject): ToolSpec {
  checkFields(tool, RULES.function, `${param}.`);
  strings(`${param}.allowed_callers`, tool.allowed_callers, ['direct', 'programmatic']);
  const parameters = functionParameters(`${param}.parameters`, tool.name, tool.parameters ?? undefined);
  // A null description is kept as given (the tools are hashed for caching), though ToolSpec says string.
  return {
    name: tool.name,
    description: tool.description as string | undefined,
    parameters,
    ...(tool.defer_loading ? { deferred: true } : {}),
  };
}

type Grammar = Extract<BuiltinTool, { kind: 'custom' }>['grammar'];

/**
 * A custom tool's `format`: plain text, or a grammar whose syntax and definition sit in the format itself
 * (Responses) or in its `grammar` (chat completions, `nested`).
 */
function customFormat(param: string, format: JsonObject | undefined, nested: boolean): Grammar {
  if (!format) return undefined;
  checkFields(format, { type: { types: ['string'], required: true, values: ['text', 'grammar'] }, ...GRAMMAR_AT(nested) }, `${param}.`);
  if (format.type !== 'grammar') return undefined;
  const at = nested ? `${param}.grammar` : param;
  const g = nested ? format.grammar : format;
  checkField(at, g, { types: ['object'], required: true });
  // Nested, the grammar object holds nothing else; inline, the format's other fields were checked above.
  if (nested) checkFields(g, GRAMMAR, `${at}.`);
  const { syntax, definition } = g;
  checkField(`${at}.syntax`, syntax, GRAMMAR.syntax);
  checkField(`${at}.definition`, definition, GRAMMAR.definition);
  return { syntax, definition };
}

const GRAMMAR = {
  syntax: { types: ['string'], required: true, values: ['lark', 'regex'] },
  definition: { types: ['string'], required: true },
} as const satisfies FieldRules;

/** A format's fields besides its type: the grammar's own (Responses), or the grammar object (chat completions). */
const GRAMMAR_AT = (nested: boolean): FieldRules =>
  nested ? { grammar: { types: ['object'] } } : { syntax: { types: ['string'] }, definition: { types: ['string'] } };

/** A custom tool: free-form input, in its grammar if it has one. */
function customSpec(name: string, description: unknown, grammar: Grammar, deferred?: unknown): ToolSpec {
  return {
    name,
    ...(typeof description === 'string' ? { description } : {}),
    parameters: NO_PARAMETERS,
    builtin: { kind: 'custom', type: 'custom', ...(grammar ? { grammar } : {}) },
    ...(deferred === true ? { deferred: true } : {}),
  };
}

function customTool(param: string, tool: JsonObject): ToolSpec {
  checkFields(tool, RULES.custom, `${param}.`);
  strings(`${param}.allowed_callers`, tool.allowed_callers, ['direct', 'programmatic']);
  return customSpec(tool.name, tool.description, customFormat(`${param}.format`, tool.format, false), tool.defer_loading);
}

/** A custom tool of chat completions (`{type: "custom", custom: {name, description?, format?}}`). */
export function chatCustomTool(param: string, tool: JsonObject): ToolSpec {
  checkFields(tool, { type: { types: ['string'] }, custom: { types: ['object'], required: true } }, `${param}.`);
  const custom = tool.custom;
  checkFields(
    custom,
    { name: { types: ['string'], required: true }, description: { types: ['string'] }, format: { types: ['object'] } },
    `${param}.custom.`,
  );
  return customSpec(custom.name, custom.description, customFormat(`${param}.custom.format`, custom.format, true));
}

/** The sizes the GPT image models draw (a newer model's other sizes follow gpt-image-1's rules, as the images endpoint does). */
const IMAGE_SIZES: Record<string, [number, number]> = {
  auto: [1024, 1024],
  '1024x1024': [1024, 1024],
  '1536x1024': [1536, 1024],
  '1024x1536': [1024, 1536],
};

function imageTool(param: string, tool: CheckedFields<typeof RULES.image_generation>): BuiltinTool {
  const format = tool.output_format ?? 'png';
  if (format === 'gif' || format === 'svg')
    throw invalid(`${param}.output_format`, `model-gateway-mock does not make ${format} images: ask for png, jpeg or webp.`);
  const transparent = tool.background === 'transparent';
  if (transparent && format === 'jpeg')
    throw invalid(`${param}.background`, "Transparent background is not supported for output format 'jpeg'; use 'png' or 'webp'.");
  const size = tool.size ?? 'auto';
  if (!Object.hasOwn(IMAGE_SIZES, size)) throw invalidValue(`${param}.size`, size, Object.keys(IMAGE_SIZES));
  const [width, height] = IMAGE_SIZES[size];
  const quality = tool.quality === undefined || tool.quality === 'auto' ? 'high' : tool.quality;
  return {
    kind: 'image_generation',
    type: 'image_generation',
    width,
    height,
    format,
    compression: tool.output_compression ?? 100,
    transparent,
    partialImages: tool.partial_images ?? 0,
    tokens: gptImageTokens(quality, `${width}x${height}`, width, height),
  };
}

/** The tool names an allowed_tools list or filter gives (a filter by read-only says nothing of names). */
function toolNames(param: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return strings(param, value);
  const filter = fieldsOf(value);
  checkFields(filter, { read_only: { types: ['boolean'] }, tool_names: { types: ['array'] } }, `${param}.`);
  return filter.tool_names ? strings(`${param}.tool_names`, filter.tool_names) : undefined;
}

function approval(param: string, value: unknown): Extract<BuiltinTool, { kind: 'mcp' }>['approval'] {
  if (value === undefined || value === null) return 'always';
  if (typeof value === 'string') {
    if (!isOneOf(['always', 'never'], value)) throw invalidValue(param, value, ['always', 'never']);
    return value;
  }
  const filter = fieldsOf(value);
  checkFields(filter, { always: { types: ['object'] }, never: { types: ['object'] } }, `${param}.`);
  const always = toolNames(`${param}.always`, filter.always);
  const never = toolNames(`${param}.never`, filter.never);
  return { ...(always ? { always } : {}), ...(never ? { never } : {}) };
}

function mcpTools(param: string, tool: CheckedFields<typeof RULES.mcp>): ToolSpec[] {
  if (tool.server_url === undefined && tool.connector_id === undefined && tool.tunnel_id === undefined)
    throw missing(`${param}.server_url`);
  checkUrl(`${param}.server_url`, tool.server_url, 'a URL');
  if (typeof tool.tunnel_id === 'string' && !/^tunnel_[a-z0-9]{32}$/.test(tool.tunnel_id))
    throw invalid(`${param}.tunnel_id`, `Invalid '${param}.tunnel_id': string does not match pattern '^tunnel_[a-z0-9]{32}$'.`);
  if (tool.headers) for (const [k, v] of Object.entries(tool.headers)) checkField(`${param}.headers.${k}`, v, { types: ['string'] });
  const names = toolNames(`${param}.allowed_tools`, tool.allowed_tools);
  const builtin: BuiltinTool = {
    kind: 'mcp',
    type: 'mcp',
    server: tool.server_label,
    ...(names?.length ? { tools: names } : {}),
    approval: approval(`${param}.require_approval`, tool.require_approval),
  };
  const deferred = tool.defer_loading ? { deferred: true } : {};
  // One tool per listed MCP tool (a prompt may name one), else the server itself.
  return (names?.length ? names : [tool.server_label]).map((name) => ({ name, parameters: NO_PARAMETERS, builtin, ...deferred }));
}

/** Tools the client runs, each named by its type: how a prompt or tool_choice names it. */
const builtin = (type: string, spec: BuiltinTool, description?: string): ToolSpec => ({
  name: type,
  ...(description ? { description } : {}),
  parameters: NO_PARAMETERS,
  builtin: spec,
});

/** One entry of `tools` as canonical ToolSpecs (a namespace or an MCP server may give several). */
function parseTool(param: string, raw: unknown): ToolSpec[] {
  checkField(param, raw, { types: ['object'], required: true });
  const tool = raw;
  if (tool.type === undefined) throw missing(`${param}.type`);
  const kind = typeof tool.type === 'string' && Object.hasOwn(TYPES, tool.type) ? TYPES[tool.type] : undefined;
  if (!kind) throw invalidValue(`${param}.type`, tool.type, Object.keys(TYPES));
  const type = tool.type as string;
  const at = `${param}.`;
  const callers = () => strings(`${param}.allowed_callers`, tool.allowed_callers, ['direct', 'programmatic']);
  switch (kind) {
    case 'function':
      return [functionTool(param, tool)];
    case 'custom':
      return [customTool(param, tool)];
    case 'file_search': {
      checkFields(tool, RULES.file_search, at);
      const stores = strings(`${param}.vector_store_ids`, tool.vector_store_ids);
      // Filters and ranking options read as the /search endpoint reads its own (search-options.ts).
      const filters = tool.filters ? checkFilter(tool.filters, `${param}.filters`) : undefined;
      const scoreThreshold = checkRanking(tool.ranking_options, `${param}.ranking_options`);
      return [
        builtin(type, {
          kind: 'file_search',
          type,
          stores,
          ...(tool.max_num_results ? { maxResults: tool.max_num_results } : {}),
          ...(filters && { filters }),
          ...(scoreThreshold && { scoreThreshold }),
        }),
      ];
    }
    case 'web_search': {
      checkFields(tool, RULES.web_search, at);
      const filters = fieldsOf(tool.filters);
      checkFields(filters, { allowed_domains: { types: ['array'], nullable: true } }, `${param}.filters.`);
      const allowed = strings(`${param}.filters.allowed_domains`, filters.allowed_domains);
      checkLocation(`${param}.user_location`, tool.user_location, false);
      return [builtin(type, { kind: 'web_search', type, ...(allowed.length ? { allowedDomains: allowed } : {}) })];
    }
    case 'web_search_preview':
      checkFields(tool, RULES.web_search_preview, at);
      strings(`${param}.search_content_types`, tool.search_content_types, ['text', 'image']);
      checkLocation(`${param}.user_location`, tool.user_location, true);
      return [builtin(type, { kind: 'web_search', type })];
    case 'computer':
      checkFields(tool, RULES.computer, at);
      return [builtin(type, { kind: 'computer', type, width: 1024, height: 768 })];
    case 'computer_use_preview':
      checkFields(tool, RULES.computer_use_preview, at);
      return [builtin(type, { kind: 'computer', type, width: tool.display_width, height: tool.display_height })];
    case 'mcp':
      checkFields(tool, RULES.mcp, at);
      callers();
      return mcpTools(param, tool);
    case 'code_interpreter': {
      checkFields(tool, RULES.code_interpreter, at);
      callers();
      const container = tool.container;
      if (typeof container === 'object') {
        checkFields(
          container,
          {
            type: { types: ['string'], required: true, values: ['auto'] },
            file_ids: { types: ['array'] },
            memory_limit: { types: ['string'], nullable: true, values: ['1g', '4g', '16g', '64g'] },
            network_policy: { types: ['object'] },
          },
          `${param}.container.`,
        );
        strings(`${param}.container.file_ids`, container.file_ids);
      }
      return [builtin(type, { kind: 'code_execution', type, ...(typeof container === 'string' ? { container } : {}) })];
    }
    case 'image_generation':
      checkFields(tool, RULES.image_generation, at);
      return [builtin(type, imageTool(param, tool))];
    case 'local_shell':
      checkFields(tool, RULES.local_shell, at);
      return [builtin(type, { kind: 'shell', type })];
    case 'shell':
      checkFields(tool, RULES.shell, at);
      callers();
      return [builtin(type, { kind: 'shell', type })];
    case 'apply_patch':
      checkFields(tool, RULES.apply_patch, at);
      callers();
      return [builtin(type, { kind: 'editor', type, operations: ['update', 'create', 'delete'] })];
    case 'namespace':
      checkFields(tool, RULES.namespace, at);
      return tool.tools.flatMap((inner, j) => {
        const where = `${param}.tools[${j}]`;
        checkField(where, inner, { types: ['object'], required: true });
        if (inner.type !== 'function' && inner.type !== 'custom') throw invalidValue(`${where}.type`, inner.type, ['function', 'custom']);
        return [inner.type === 'function' ? functionTool(where, inner) : customTool(where, inner)];
      });
    case 'tool_search':
      checkFields(tool, RULES.tool_search, at);
      return [builtin(type, { kind: 'tool_search', type }, tool.description ?? undefined)];
    default:
      // programmatic_tool_calling: accepted, never used.
      checkFields(tool, RULES.programmatic_tool_calling, at);
      return [builtin(type, { kind: 'inert', type })];
  }
}

/** `tools` of a Responses request as canonical ToolSpecs. */
export function parseResponsesTools(raw: unknown[] = []): ToolSpec[] {
  return raw.flatMap((tool, i) => parseTool(`tools[${i}]`, tool));
}

/** The tool types a ToolChoiceTypes names, and the canonical kinds each may be. */
const CHOICE_TYPES: Record<string, string[]> = {
  file_search: ['file_search'],
  web_search_preview: ['web_search_preview', 'web_search_preview_2025_03_11', 'web_search', 'web_search_2025_08_26'],
  web_search_preview_2025_03_11: ['web_search_preview', 'web_search_preview_2025_03_11', 'web_search', 'web_search_2025_08_26'],
  computer: ['computer', 'computer_use_preview'],
  computer_use_preview: ['computer_use_preview', 'computer'],
  computer_use: ['computer', 'computer_use_preview'],
  image_generation: ['image_generation'],
  code_interpreter: ['code_interpreter'],
  apply_patch: ['apply_patch'],
  shell: ['shell', 'local_shell'],
};

/** A built-in tool's type as the request spelled it. */
const typeOf = (t: ToolSpec) => t.builtin?.type;

/** tool_choice: a mode, a named function or custom tool, a built-in tool by type, an MCP server (or its tool), or allowed tools. */
export function parseResponsesToolChoice(choice: unknown, tools: ToolSpec[]): { choice: ToolChoice; tools: ToolSpec[] } {
  if (choice === undefined || choice === null) return { choice: 'auto', tools };
  if (typeof choice === 'string') {
    if (!isOneOf(['none', 'auto', 'required'], choice)) throw invalidValue('tool_choice', choice, ['none', 'auto', 'required']);
    return { choice, tools };
  }
  const c = fieldsOf(choice);
  const types = ['function', 'custom', 'mcp', 'allowed_tools', 'programmatic_tool_calling', ...Object.keys(CHOICE_TYPES)];
  if (typeof c.type !== 'string' || !types.includes(c.type)) throw invalidValue('tool_choice.type', c.type, types);
  const type = c.type;
  const absent = (what: string) => invalid('tool_choice', `Invalid value for 'tool_choice': ${what} is not among the provided tools.`);
  if (c.type === 'function' || c.type === 'custom') {
    const tool = tools.find((t) => t.name === c.name && (c.type === 'custom' ? t.builtin?.kind === 'custom' : !t.builtin));
    if (!tool)
      throw invalid(
        'tool_choice.name',
        `Invalid value for 'tool_choice.name': no tool named '${String(c.name)}' is among the provided tools.`,
      );
    return { choice: { name: tool.name }, tools };
  }
  if (c.type === 'mcp') {
    checkField('tool_choice.server_label', c.server_label, { types: ['string'], required: true });
    checkField('tool_choice.name', c.name, { types: ['string'], nullable: true });
    const server = tools.filter((t) => t.builtin?.kind === 'mcp' && t.builtin.server === c.server_label);
    if (!server.length) throw absent(`the MCP server '${c.server_label}'`);
    // A tool the server's listing is not given may still be the server's: its first spec stands for it.
    return { choice: { name: server.find((t) => t.name === c.name)?.name ?? server[0].name }, tools };
  }
  if (c.type === 'allowed_tools') {
    checkField('tool_choice.mode', c.mode, { types: ['string'], required: true, values: ['auto', 'required'] });
    checkField('tool_choice.tools', c.tools, { types: ['array'], required: true });
    const allowed = c.tools.map((a, i) => {
      checkField(`tool_choice.tools[${i}]`, a, { types: ['object'], required: true });
      checkField(`tool_choice.tools[${i}].type`, a.type, { types: ['string'], required: true });
      return a;
    });
    const kept = tools.filter((t) =>
      allowed.some((a) =>
        a.type === 'function' || a.type === 'custom'
          ? a.name === t.name && (a.type === 'custom') === (t.builtin?.kind === 'custom')
          : a.type === 'mcp'
            ? t.builtin?.kind === 'mcp' && t.builtin.server === a.server_label
            : a.type === typeOf(t),
      ),
    );
    return { choice: c.mode, tools: kept };
  }
  if (c.type === 'programmatic_tool_calling') return { choice: 'auto', tools };
  const tool = tools.find((t) => CHOICE_TYPES[type].includes(typeOf(t) ?? ''));
  if (!tool) throw absent(`a tool of type '${type}'`);
  return { choice: { name: tool.name }, tools };
}

/** The tools as a response shows them back: as given, with the defaults the service fills in. */
export function echoedTools(raw: unknown[] = []): JsonObject[] {
  return raw.map(fieldsOf).map((t) => {
    switch (t.type) {
      case 'function':
        return { ...t, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? true };
      case 'web_search':
      case 'web_search_2025_08_26':
        return {
          ...t,
          filters: t.filters ?? null,
          search_context_size: t.search_context_size ?? 'medium',
          user_location: t.user_location ?? null,
        };
      case 'web_search_preview':
      case 'web_search_preview_2025_03_11':
        return { ...t, search_context_size: t.search_context_size ?? 'medium', user_location: t.user_location ?? null };
      case 'file_search':
        return { ...t, filters: t.filters ?? null, max_num_results: t.max_num_results ?? 20 };
      case 'mcp': {
        // Secrets are not shown back: the token, and the headers that may carry one.
        const { authorization: _secret, ...shown } = t;
        return { ...shown, allowed_tools: t.allowed_tools ?? null, headers: null, require_approval: t.require_approval ?? 'always' };
      }
      default:
        return t;
    }
  });
}

/**
 * Chat completions' web_search_options, checked: a search model (or a request that asks for search
 * options) searches the web before it answers. The tool is the request's only one when it has no functions.
 */
export function chatWebSearch(options: JsonObject | null | undefined, model: string): ToolSpec | undefined {
  if (options) {
    checkFields(
      options,
      { search_context_size: { types: ['string'], values: ['low', 'medium', 'high'] }, user_location: optional('object') },
      'web_search_options.',
    );
    const location = options.user_location;
    if (location) {
      checkFields(
        location,
        { type: { types: ['string'], required: true, values: ['approximate'] }, approximate: { types: ['object'], required: true } },
        'web_search_options.user_location.',
      );
      checkLocation('web_search_options.user_location.approximate', { type: 'approximate', ...location.approximate }, false);
    }
  } else if (!/-search-/.test(model)) return undefined;
  return builtin('web_search', { kind: 'web_search', type: 'web_search_options' });
}
