// The Messages API's tools: custom tools (with input_schema) and every server and client tool of the
// SDK's ToolUnion and BetaToolUnion, each checked by its type as the API checks it (pydantic paths
// `tools.N.<type>.<field>`), and the MCP connector's servers, as canonical ToolSpecs.
import type { ToolSpec } from '../../core/tools.ts';
import type { BuiltinTool } from '../../types/builtin.ts';
import { checkField, checkFields, invalid } from './validate.ts';
import { type FieldRules, type JsonObject, optional } from '../fields.ts';

const COMMON = {
  type: { types: ['string'] },
  allowed_callers: { types: ['array'] },
  cache_control: optional('object'),
  defer_loading: { types: ['boolean'] },
  strict: { types: ['boolean'] },
} as const satisfies FieldRules;

const named = (name: string) => ({ name: { types: ['string'], required: true, values: [name] } }) as const;
const EXAMPLES = { input_examples: { types: ['array'] } } as const;
const DOMAINS = {
  allowed_domains: { types: ['array'], nullable: true },
  blocked_domains: { types: ['array'], nullable: true },
  max_uses: { types: ['integer'], nullable: true, min: 1 },
} as const;
const SCREEN = {
  display_height_px: { types: ['integer'], required: true, min: 1 },
  display_width_px: { types: ['integer'], required: true, min: 1 },
  display_number: { types: ['integer'], nullable: true, min: 0 },
} as const;

type Family = 'bash' | 'editor' | 'memory' | 'computer' | 'code' | 'search' | 'fetch' | 'tool_search' | 'toolset' | 'advisor' | 'mcp';

/** Every built-in tool type: its family, its fixed name (toolsets have none) and its fields. */
const TYPES: Record<string, { family: Family; name?: string; rules: FieldRules }> = {};
const add = (family: Family, name: string | undefined, rules: FieldRules, ...types: string[]) => {
  for (const type of types) TYPES[type] = { family, name, rules: { ...COMMON, ...(name ? named(name) : {}), ...rules } };
};
add('bash', 'bash', EXAMPLES, 'bash_20241022', 'bash_20250124');
add('editor', 'str_replace_editor', EXAMPLES, 'text_editor_20241022', 'text_editor_20250124');
add('editor', 'str_replace_based_edit_tool', EXAMPLES, 'text_editor_20250429');
add(
  'editor',
  'str_replace_based_edit_tool',
  { ...EXAMPLES, max_characters: { types: ['integer'], nullable: true, min: 1 } },
  'text_editor_20250728',
);
add('memory', 'memory', EXAMPLES, 'memory_20250818');
add('computer', 'computer', { ...EXAMPLES, ...SCREEN }, 'computer_20241022', 'computer_20250124');
add('computer', 'computer', { ...EXAMPLES, ...SCREEN, enable_zoom: { types: ['boolean'] } }, 'computer_20251124');
add(
  'code',
  'code_execution',
  {},
  'code_execution_20250522',
  'code_execution_20250825',
  'code_execution_20260120',
  'code_execution_20260521',
);
add('search', 'web_search', { ...DOMAINS, user_location: optional('object') }, 'web_search_20250305', 'web_search_20260209');
add(
  'search',
  'web_search',
  { ...DOMAINS, user_location: optional('object'), response_inclusion: { types: ['string'], values: ['full', 'excluded'] } },
  'web_search_20260318',
);
const FETCH = {
  ...DOMAINS,
  citations: optional('object'),
  max_content_tokens: { types: ['integer'], nullable: true, min: 1 },
  url_sources: optional('object'),
} as const;
add('fetch', 'web_fetch', FETCH, 'web_fetch_20250910', 'web_fetch_20260209');
add('fetch', 'web_fetch', { ...FETCH, use_cache: { types: ['boolean'] } }, 'web_fetch_20260309');
add(
  'fetch',
  'web_fetch',
  { ...FETCH, use_cache: { types: ['boolean'] }, response_inclusion: { types: ['string'], values: ['full', 'excluded'] } },
  'web_fetch_20260318',
);
add('tool_search', 'tool_search_tool_bm25', {}, 'tool_search_tool_bm25_20251119', 'tool_search_tool_bm25');
add('tool_search', 'tool_search_tool_regex', {}, 'tool_search_tool_regex_20251119', 'tool_search_tool_regex');
TYPES.computer_toolset_20260801 = {
  family: 'toolset',
  rules: { type: COMMON.type, cache_control: COMMON.cache_control, configs: optional('object') },
};
TYPES.browser_toolset_20260801 = TYPES.computer_toolset_20260801;
add(
  'advisor',
  'advisor',
  {
    model: { types: ['string'], required: true },
    caching: optional('object'),
    max_tokens: { types: ['integer'], nullable: true, min: 1 },
    max_uses: { types: ['integer'], nullable: true, min: 1 },
  },
  'advisor_20260301',
);
TYPES.mcp_toolset = {
  family: 'mcp',
  rules: {
    type: COMMON.type,
    mcp_server_name: { types: ['string'], required: true },
    cache_control: COMMON.cache_control,
    configs: optional('object'),
    default_config: { types: ['object'] },
    tools: { types: ['array'], nullable: true },
  },
};

/** The tag names a wrong `type` is told (pydantic's discriminated union lists them). */
export const TAGS = ['custom', ...Object.keys(TYPES)];

const NO_PARAMETERS = { type: 'object', properties: {} };

function strings(param: string, value: unknown): string[] {
  checkField(param, value, { types: ['array'], nullable: true });
  return (value ?? []).map((v, i) => {
    checkField(`${param}.${i}`, v, { types: ['string'], required: true });
    return v;
  });
}

function customTool(param: string, tool: JsonObject): ToolSpec {
  checkField(`${param}.name`, tool.name, { types: ['string'], required: true });
  if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) throw invalid(`${param}.name`, "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
  checkField(`${param}.custom.input_schema`, tool.input_schema, { types: ['object'], required: true });
  if (tool.input_schema.type !== 'object') throw invalid(`${param}.custom.input_schema.type`, "Input should be 'object'");
  // The description is passed on unchecked, as before.
  return {
    name: tool.name,
    description: tool.description as string | undefined,
    parameters: tool.input_schema,
    ...(tool.defer_loading === true ? { deferred: true } : {}),
  };
}

/** A built-in tool's canonical spec, once its fields are checked. */
function builtinSpec(at: string, family: Family, type: string, tool: JsonObject): BuiltinTool {
  switch (family) {
    case 'bash':
      return { kind: 'shell', type };
    case 'editor':
      return { kind: 'editor', type, operations: ['view', 'create', 'update', 'insert'] };
    case 'memory':
      return { kind: 'editor', type, operations: ['view', 'create', 'update', 'insert', 'delete', 'rename'], root: '/memories' };
    case 'computer':
      return { kind: 'computer', type, width: tool.display_width_px as number, height: tool.display_height_px as number };
    case 'toolset':
      return { kind: 'computer', type, width: 1280, height: 800 };
    case 'code':
      return { kind: 'code_execution', type };
    case 'search':
    case 'fetch': {
      const allowed = strings(`${at}allowed_domains`, tool.allowed_domains);
      const blocked = strings(`${at}blocked_domains`, tool.blocked_domains);
      if (allowed.length && blocked.length)
        throw invalid(at.slice(0, -1), 'Cannot specify both allowed_domains and blocked_domains in the same request.');
      if (family === 'search' && tool.user_location)
        checkFields(
          tool.user_location as JsonObject,
          {
            type: { types: ['string'], required: true, values: ['approximate'] },
            city: optional('string'),
            country: optional('string'),
            region: optional('string'),
            timezone: optional('string'),
          },
          `${at}user_location.`,
        );
      const limits = {
        ...(allowed.length ? { allowedDomains: allowed } : {}),
        ...(blocked.length ? { blockedDomains: blocked } : {}),
        ...(typeof tool.max_uses === 'number' ? { maxUses: tool.max_uses } : {}),
      };
      if (family === 'search') return { kind: 'web_search', type, ...limits };
      return {
        kind: 'web_fetch',
        type,
        ...limits,
        ...((tool.citations as { enabled?: unknown } | null)?.enabled === true ? { citations: true } : {}),
      };
    }
    case 'tool_search':
      return { kind: 'tool_search', type };
    default:
      // The advisor is accepted and never consulted.
      return { kind: 'inert', type };
  }
}

/** The MCP connector's servers (beta): each server's tools, or the server itself, as MCP tools that need no approval. */
function mcpServers(raw: unknown[] | undefined): { specs: ToolSpec[]; names: Set<string> } {
  const specs: ToolSpec[] = [];
  const names = new Set<string>();
  (raw ?? []).forEach((s, i) => {
    const at = `mcp_servers.${i}`;
    checkField(at, s, { types: ['object'], required: true });
    checkFields(
      s,
      {
        type: { types: ['string'], required: true, values: ['url'] },
        url: { types: ['string'], required: true },
        name: { types: ['string'], required: true },
        authorization_token: optional('string'),
        tool_configuration: optional('object'),
      },
      `${at}.`,
    );
    if (!URL.canParse(s.url)) throw invalid(`${at}.url`, 'Input should be a valid URL');
    if (names.has(s.name)) throw invalid(`${at}.name`, `Duplicate MCP server name '${s.name}'.`);
    names.add(s.name);
    const config = s.tool_configuration ?? {};
    checkFields(config, { allowed_tools: { types: ['array'], nullable: true }, enabled: optional('boolean') }, `${at}.tool_configuration.`);
    if (config.enabled === false) return;
    const allowed = strings(`${at}.tool_configuration.allowed_tools`, config.allowed_tools);
    const builtin: BuiltinTool = {
      kind: 'mcp',
      type: 'mcp',
      server: s.name,
      ...(allowed.length ? { tools: allowed } : {}),
      approval: 'never',
    };
    for (const name of allowed.length ? allowed : [s.name]) specs.push({ name, parameters: NO_PARAMETERS, builtin });
  });
  return { specs, names };
}

/** `tools` (and the MCP connector's `mcp_servers`) as canonical ToolSpecs. */
export function parseMessagesTools(raw: unknown[] | undefined, servers: unknown[] | undefined): ToolSpec[] {
  const mcp = mcpServers(servers);
  const tools = (raw ?? []).flatMap((tool, i): ToolSpec[] => {
    const param = `tools.${i}`;
    checkField(param, tool, { types: ['object'], required: true });
    const type = tool.type;
    if (type === undefined || type === null || type === 'custom') return [customTool(param, tool)];
    const known = typeof type === 'string' && Object.hasOwn(TYPES, type) ? TYPES[type] : undefined;
    if (!known)
      throw invalid(
        param,
        `Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${TAGS.map((t) => `'${t}'`).join(', ')}`,
      );
    const at = `${param}.${type as string}.`;
    checkFields(tool, known.rules, at);
    if (known.family === 'mcp') {
      if (!mcp.names.has(tool.mcp_server_name as string))
        throw invalid(`${at}mcp_server_name`, `MCP server '${String(tool.mcp_server_name)}' is not among the request's mcp_servers.`);
      return [];
    }
    const name = known.name ?? (type === 'browser_toolset_20260801' ? 'browser' : 'computer');
    return [
      {
        name,
        parameters: NO_PARAMETERS,
        builtin: builtinSpec(at, known.family, type as string, tool),
        ...(tool.defer_loading === true ? { deferred: true } : {}),
      },
    ];
  });
  const all = [...tools, ...mcp.specs];
  const seen = new Set<string>();
  all.forEach((t, i) => {
    if (seen.has(t.name))
      throw invalid(`tools.${Math.min(i, (raw ?? []).length - 1)}.name`, `Tool names must be unique. Found duplicate: '${t.name}'`, {
        error_code: 'tool_name_conflict',
      });
    seen.add(t.name);
  });
  return all;
}
