// Gemini's built-in tools (the SDK's Tool members besides functionDeclarations): Google Search (and its
// retrieval form), code execution, URL context, Google Maps, file search, computer use, each checked
// field by field, as canonical ToolSpecs; the proto's snake_case names are taken as the camelCase ones.
import type { ToolSpec } from '../../core/tools.ts';
import type { BuiltinTool } from '../../types/builtin.ts';
import { checkField, checkFields } from './validate.ts';
import type { FieldRules, JsonObject } from '../fields.ts';

const THRESHOLDS = [
  'PHISH_BLOCK_THRESHOLD_UNSPECIFIED',
  'BLOCK_LOW_AND_ABOVE',
  'BLOCK_MEDIUM_AND_ABOVE',
  'BLOCK_HIGH_AND_ABOVE',
  'BLOCK_HIGHER_AND_ABOVE',
  'BLOCK_VERY_HIGH_AND_ABOVE',
  'BLOCK_ONLY_EXTREMELY_HIGH',
];

/** Each built-in tool's fields, and what it does (its canonical name is its own). */
const BUILTINS: Record<string, { rules: FieldRules; spec: (tool: JsonObject) => BuiltinTool }> = {
  googleSearch: {
    rules: {
      timeRangeFilter: { types: ['object'] },
      excludeDomains: { types: ['array'] },
      blockingConfidence: { types: ['string'], values: THRESHOLDS },
      searchTypes: { types: ['object'] },
    },
    spec: (t) => ({
      kind: 'web_search',
      type: 'googleSearch',
      ...(Array.isArray(t.excludeDomains) ? { blockedDomains: t.excludeDomains as string[] } : {}),
    }),
  },
  googleSearchRetrieval: {
    rules: { dynamicRetrievalConfig: { types: ['object'] } },
    spec: () => ({ kind: 'web_search', type: 'googleSearchRetrieval' }),
  },
  enterpriseWebSearch: {
    rules: { excludeDomains: { types: ['array'] }, blockingConfidence: { types: ['string'], values: THRESHOLDS } },
    spec: () => ({ kind: 'web_search', type: 'enterpriseWebSearch' }),
  },
  codeExecution: { rules: {}, spec: () => ({ kind: 'code_execution', type: 'codeExecution' }) },
  urlContext: { rules: {}, spec: () => ({ kind: 'web_fetch', type: 'urlContext' }) },
  googleMaps: {
    rules: { authConfig: { types: ['object'] }, enableWidget: { types: ['boolean'] }, groundingTypes: { types: ['object'] } },
    spec: () => ({ kind: 'maps', type: 'googleMaps' }),
  },
  fileSearch: {
    rules: { fileSearchStoreNames: { types: ['array'] }, metadataFilter: { types: ['string'] }, topK: { types: ['integer'], min: 1 } },
    spec: (t) => ({
      kind: 'file_search',
      type: 'fileSearch',
      stores: (t.fileSearchStoreNames as string[] | undefined) ?? [],
      ...(typeof t.topK === 'number' ? { maxResults: t.topK } : {}),
    }),
  },
  computerUse: {
    rules: {
      environment: {
        types: ['string'],
        values: ['ENVIRONMENT_UNSPECIFIED', 'ENVIRONMENT_BROWSER', 'ENVIRONMENT_MOBILE', 'ENVIRONMENT_DESKTOP'],
      },
      excludedPredefinedFunctions: { types: ['array'] },
      enablePromptInjectionDetection: { types: ['boolean'] },
      disabledSafetyPolicies: { types: ['array'] },
    },
    // Gemini's computer use works on a 1000 × 1000 grid, whatever the screen.
    spec: () => ({ kind: 'computer', type: 'computerUse', width: 1000, height: 1000 }),
  },
};

/** Tools accepted and never used: Vertex retrieval, third-party search, MCP servers the API connects to itself. */
const INERT = ['retrieval', 'exaAiSearch', 'parallelAiSearch', 'mcpServers'];

/** The fields a Tool may have, by either spelling. */
export const FIELD_NAMES = ['functionDeclarations', ...Object.keys(BUILTINS), ...INERT];
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A Tool with its fields under their camelCase names (the API takes either). */
export function camelTool(tool: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(tool)) out[FIELD_NAMES.includes(camel(k)) ? camel(k) : k] = v;
  return out;
}

/** The built-in tools of one Tool (`tools[i]`), as canonical ToolSpecs; its function declarations are parsed apart. */
export function builtinTools(at: string, tool: JsonObject): ToolSpec[] {
  checkFields(
    tool,
    Object.fromEntries(FIELD_NAMES.map((n) => [n, { types: n === 'mcpServers' || n === 'functionDeclarations' ? ['array'] : ['object'] }])),
    `${at}.`,
  );
  const specs: ToolSpec[] = [];
  for (const [name, { rules, spec }] of Object.entries(BUILTINS)) {
    const value = tool[name];
    if (value === undefined || value === null) continue;
    checkField(`${at}.${name}`, value, { types: ['object'] });
    checkFields(value, rules, `${at}.${name}.`);
    for (const list of ['excludeDomains', 'fileSearchStoreNames', 'excludedPredefinedFunctions'])
      ((value[list] ?? []) as unknown[]).forEach((v, i) => checkField(`${at}.${name}.${list}[${i}]`, v, { types: ['string'] }));
    specs.push({ name, parameters: { type: 'object', properties: {} }, builtin: spec(value) });
  }
  for (const name of INERT)
    if (tool[name] !== undefined)
      specs.push({ name, parameters: { type: 'object', properties: {} }, builtin: { kind: 'inert', type: name } });
  return specs;
}
