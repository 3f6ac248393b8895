// When to call a tool: one rule for every format.
//
// - No tools, or tool choice `none`: never.
// - The last turn is a tool result: never; the reply is text that uses the result, so agent loops end.
// - A forced choice (`required` / `any`, or a named tool): always; `required` picks the tool whose name
//   best matches the last user message (the first tool when none does).
// - `auto`: a tool is called when the last user message plainly asks for what it does: it contains a
//   word of the tool's name (split at `_`, `-` and camelCase; words of 4+ letters, not generic verbs
//   such as get/set/fetch), singular or plural. Several matching tools are called in parallel when
//   parallel calls are allowed, else only the best.
// - Built-in tools are chosen the same way; besides a word of its name (a custom or an MCP tool's),
//   the last user message may name what one does (KIND_WORDS: `web` or `search` for a web search,
//   `code` or `python` for code execution, `image` or `draw` for an image…), and a URL in it names a
//   web fetch. A call that waited for the client's approval runs when the last turn approves it.
// The tool types are the canonical request's (request.ts), so the two modules import one way only.
import { textOf, type CanonicalRequest, type Message, type ToolCallRef, type ToolSpec } from './request.ts';
import type { BuiltinKind } from '../types/builtin.ts';

export type { ToolChoice, ToolSpec } from './request.ts';

const GENERIC = new Set([
  'get',
  'set',
  'fetch',
  'make',
  'call',
  'tool',
  'function',
  'data',
  'info',
  'list',
  'find',
  'with',
  'from',
  'into',
  'this',
  'that',
  'current',
]);

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 4 && !GENERIC.has(w));
}

function singular(word: string): string {
  return word.endsWith('s') && word.length > 4 ? word.slice(0, -1) : word;
}

/** The words that name what each kind of built-in tool does (singular, lower case). */
const KIND_WORDS: Record<BuiltinKind, readonly string[]> = {
  web_search: ['web', 'search', 'google', 'internet', 'online'],
  web_fetch: ['fetch', 'url', 'link', 'webpage'],
  file_search: ['file', 'document', 'knowledge'],
  code_execution: ['code', 'python', 'execute', 'calculate', 'compute'],
  image_generation: ['image', 'picture', 'draw', 'illustration'],
  mcp: ['mcp'],
  tool_search: [],
  maps: ['map', 'place', 'restaurant', 'nearby', 'direction'],
  shell: ['shell', 'bash', 'command', 'terminal'],
  editor: ['edit', 'patch', 'memory', 'remember'],
  computer: ['computer', 'screen', 'click', 'screenshot', 'browser'],
  custom: [],
  inert: [],
};

/** Built-in tools the vendor names for itself are known by what they do; custom and MCP tools by their names too. */
const NAMED: ReadonlySet<BuiltinKind> = new Set(['custom', 'mcp']);

/** How many of the tool's words (its name's, or what a built-in one does) the text mentions. */
function relevance(tool: ToolSpec, words: Set<string>, text: string): number {
  const kind = tool.builtin?.kind;
  const own = !kind || NAMED.has(kind) ? nameWords(tool.name).filter((w) => words.has(singular(w))).length : 0;
  if (!kind) return own;
  const url = kind === 'web_fetch' && /\bhttps?:\/\/\S/i.test(text) ? 1 : 0;
  return own + url + KIND_WORDS[kind].filter((w) => words.has(w)).length;
}

/** The tools to call for this request, in order; empty for a text reply. */
export function chooseTools(request: CanonicalRequest): ToolSpec[] {
  const { tools, toolChoice } = request;
  if (!tools.length || toolChoice === 'none') return [];
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return [];
  if (typeof toolChoice === 'object') return tools.filter((t) => t.name === toolChoice.name).slice(0, 1);
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = lastUser ? textOf(lastUser) : '';
  const words = new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map(singular),
  );
  // A tool that is never used (an inert built-in) is never chosen, even when the choice is forced.
  const usable = tools.filter((t) => t.builtin?.kind !== 'inert' && t.builtin?.kind !== 'tool_search');
  if (!usable.length) return [];
  const ranked = usable
    .map((tool, index) => ({ tool, index, score: relevance(tool, words, text) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  if (toolChoice === 'required') return [ranked[0].tool];
  if (!request.parallelToolCalls) return ranked[0].score > 0 ? [ranked[0].tool] : [];
  return ranked
    .filter((r) => r.score > 0)
    .sort((a, b) => a.index - b.index)
    .map((r) => r.tool);
}

/** The call that produced a tool result, from the assistant turn that made it. */
function callFor(messages: readonly Message[], callId: string | undefined): ToolCallRef | undefined {
  for (const m of messages) for (const call of m.toolCalls ?? []) if (call.id === callId) return call;
  return undefined;
}

/** The tool name that produced a tool result, from the assistant turn that called it. */
export function toolNameFor(request: CanonicalRequest, callId: string | undefined): string | undefined {
  return callFor(request.messages, callId)?.name;
}

/** When the last turn answers a call that waited for approval: the call, its tool, and whether it was approved. */
export function answeredApproval(request: CanonicalRequest): { call: ToolCallRef; tool: ToolSpec; approved: boolean } | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool' || last.approved === undefined) return undefined;
  const call = callFor(request.messages, last.toolCallId);
  // An MCP tool's call names the server's tool, which may not be a tool of the request (its server's is).
  const tool = call && (request.tools.find((t) => t.name === call.name) ?? request.tools.find((t) => t.builtin?.kind === 'mcp'));
  return call && tool ? { call, tool, approved: last.approved } : undefined;
}
