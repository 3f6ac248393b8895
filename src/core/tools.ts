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
// The tool types are the canonical request's (request.ts), so the two modules import one way only.
import { textOf, type CanonicalRequest, type ToolSpec } from './request.ts';

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

/** How many of the tool's name words the text mentions. */
function relevance(tool: ToolSpec, words: Set<string>): number {
  return nameWords(tool.name).filter((w) => words.has(singular(w))).length;
}

/** The tools to call for this request, in order; empty for a text reply. */
export function chooseTools(request: CanonicalRequest): ToolSpec[] {
  const { tools, toolChoice } = request;
  if (!tools.length || toolChoice === 'none') return [];
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return [];
  if (typeof toolChoice === 'object') return tools.filter((t) => t.name === toolChoice.name).slice(0, 1);
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const words = new Set(
    (lastUser ? textOf(lastUser) : '')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map(singular),
  );
  const ranked = tools
    .map((tool, index) => ({ tool, index, score: relevance(tool, words) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  if (toolChoice === 'required') return [ranked[0].tool];
  if (!request.parallelToolCalls) return ranked[0].score > 0 ? [ranked[0].tool] : [];
  return ranked
    .filter((r) => r.score > 0)
    .sort((a, b) => a.index - b.index)
    .map((r) => r.tool);
}

/** The tool name that produced a tool result, from the assistant turn that called it. */
export function toolNameFor(request: CanonicalRequest, callId: string | undefined): string | undefined {
  for (const m of request.messages) for (const call of m.toolCalls ?? []) if (call.id === callId) return call.name;
  return undefined;
}
