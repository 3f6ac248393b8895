// Built-in tools in use: what the model asks of each (a search query, code, a shell command, a file
// edit, a computer action, free-form text in a grammar), what the service's own tools give back (search
// results, the code's output, a picture, an MCP tool's answer), and the answer that cites them. All
// of it drawn from the request's key, or taken from a fixture's pins; formats only translate it.
import type { CanonicalRequest, ToolSpec } from '../request.ts';
import { lastUserText } from '../request.ts';
import type { Block, McpTool, SearchCitation, ServerToolUse } from '../reply.ts';
import { deriveKey, makeId, Rng, withFaker } from '../seed.ts';
import type {
  BuiltinTool,
  ComputerAction,
  FileEdit,
  FileSearchResult,
  PinnedBuiltinCall,
  PinnedCitation,
  PlaceResult,
  SearchResult,
} from '../../types/builtin.ts';
import { type Budget, synthesizeJson } from './json.ts';
import { drawPicture, shapeCount } from './image.ts';
import { grammarText } from './grammar.ts';
import { synthesizeText } from './text.ts';

/** What narrows a file search: an attribute filter as the API writes it, and the lowest score kept. */
interface FileSearchOptions {
  filters?: Record<string, unknown>;
  scoreThreshold?: number;
}

/**
 * Passages of the files in `stores` for `query`, at most `max`, best first: synthesized here; the
 * gateway may answer from the files it holds instead (RespondContext.searchFiles).
 */

export type FileSearcher = (
  stores: readonly string[],
  query: string,
  max: number,
  key: number,
  options?: FileSearchOptions,
) => FileSearchResult[];

export interface BuiltinContext {
  request: CanonicalRequest;
  /** The choice's key. */
  key: number;
  budget: Budget;
  searchFiles: FileSearcher;
}

type Pin<K extends PinnedBuiltinCall['tool']> = Extract<PinnedBuiltinCall, { tool: K }>;

/** How much of the last user message the tools read (a query, a command, a path): bounded work, whatever its length. */
const READ_CHARS = 4000;

/** The start of the last user message, what a tool's input is made of. */
const asked = (request: CanonicalRequest) => lastUserText(request).slice(0, READ_CHARS);

/** The longest arithmetic the code evaluates (longer is no question to compute, and would cost). */
const MAX_EXPRESSION = 200;

const FILLER = new Set([
  'for',
  'the',
  'a',
  'an',
  'me',
  'my',
  'our',
  'what',
  "what's",
  'is',
  'are',
  'was',
  'of',
  'on',
  'to',
  'how',
  'who',
  'when',
  'where',
  'which',
  'in',
]);

/** What the user asked, as a short search query: the last user message without its request phrasing. */
function searchQuery(request: CanonicalRequest): string {
  const text = asked(request)
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(
      /\b(please|can you|could you|search|look (?:it |this |that )?up|find|the web|online|on the internet|google|for me|using|use|tools?|web|about)\b/gi,
      ' ',
    );
  const words = (text.match(/[\p{L}\p{N}'-]+/gu) ?? []).map((w) => w.toLowerCase());
  // Leading filler ("for the", "what is the") says nothing a search needs.
  while (words.length > 1 && FILLER.has(words[0])) words.shift();
  return words.slice(0, 10).join(' ') || 'latest news';
}

const titleCase = (s: string) => s.replace(/(^|\s)(\p{L})/gu, (_m, sp: string, c: string) => sp + c.toUpperCase());
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'page';
const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
};

/** Whether `host` is `domain` or a subdomain of it. */
const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain.replace(/^\*\./, '')}`);

/** Web pages about `query`, on the allowed domains (and none of the blocked ones). */
function searchResults(query: string, tool: Extract<BuiltinTool, { kind: 'web_search' }>, key: number): SearchResult[] {
  return withFaker(key, (f) => {
    const out: SearchResult[] = [];
    for (let i = 0; out.length < 3 && i < 12; i++) {
      // An allowed domain may be written as a URL or a wildcard: its host is what a page is on.
      const allowed = tool.allowedDomains?.length ? tool.allowedDomains[i % tool.allowedDomains.length] : undefined;
      const domain =
        allowed
          ?.replace(/^[a-z]+:\/\//i, '')
          .replace(/^\*\./, '')
          .replace(/[/?#].*$/, '') || f.internet.domainName();
      if (tool.blockedDomains?.some((d) => under(domain, d))) continue;
      const site = titleCase(
        domain
          .replace(/^www\./, '')
          .split('.')[0]
          .replace(/-/g, ' '),
      );
      const sentence = f.hacker.phrase().replace(/^./, (c) => c.toLowerCase());
      out.push({
        title: `${titleCase(query)}${out.length ? ` (${['overview', 'guide', 'update'][out.length]})` : ''} - ${site}`,
        url: `https://${domain}/${slug(query)}${out.length ? `-${out.length + 1}` : ''}`,
        snippet: `${titleCase(query)}: ${sentence}`,
        pageAge: `${f.number.int({ min: 1, max: 30 })} days ago`,
      });
    }
    return out;
  });
}

/** Passages about `query` in files of the stores named (the synthesized FileSearcher). */
export const synthesizeFileSearch: FileSearcher = (stores, query, max, key) =>
  withFaker(key, (f) =>
    Array.from({ length: Math.min(max, 3) }, (_, i) => {
      const store = stores[i % Math.max(1, stores.length)] ?? 'vs_default';
      const name = `${slug(query)}-${f.word.noun()}.${['pdf', 'md', 'txt'][i % 3]}`;
      return {
        fileId: makeId('file-', 22, deriveKey(key, `${store}:${i}`)),
        filename: name,
        text: `${titleCase(query)}: ${f.hacker.phrase()}`,
        score: Math.round((0.92 - i * 0.11) * 1000) / 1000,
      };
    }),
  );

/** The first URL in the last user message. */
const promptUrl = (request: CanonicalRequest) => /https?:\/\/[^\s)>"']+/.exec(asked(request))?.[0];

// Arithmetic the prompt asks for, evaluated as Python would print it: integers exactly (BigInt),
// `/` as a float. Digits are bounded, so no input makes this costly.
const MAX_DIGITS = 400;

function evaluate(expression: string): string | undefined {
  const tokens = expression.match(/\d+(?:\.\d+)?|\*\*|[-+*/%()]/g) ?? [];
  let at = 0;
  const float = /[/.]/.test(expression);
  type V = { big?: bigint; num: number };
  const make = (s: string): V => (float || s.includes('.') ? { num: Number(s) } : { big: BigInt(s), num: Number(s) });
  const op = (a: V, o: string, b: V): V => {
    if (a.big !== undefined && b.big !== undefined && o !== '/') {
      if (o === '+') return { big: a.big + b.big, num: 0 };
      if (o === '-') return { big: a.big - b.big, num: 0 };
      if (o === '*') return { big: a.big * b.big, num: 0 };
      if (o === '%') return b.big === 0n ? { num: Number.NaN } : { big: ((a.big % b.big) + b.big) % b.big, num: 0 };
      if (b.big < 0n || b.big > 4096n) return { num: Number.NaN };
      return { big: a.big ** b.big, num: 0 };
    }
    const x = a.big !== undefined ? Number(a.big) : a.num;
    const y = b.big !== undefined ? Number(b.big) : b.num;
    const r = o === '+' ? x + y : o === '-' ? x - y : o === '*' ? x * y : o === '/' ? x / y : o === '%' ? x % y : x ** y;
    return { num: r };
  };
  const check = (v: V): V => {
    if (v.big !== undefined && v.big.toString().length > MAX_DIGITS) throw new RangeError('too long');
    return v;
  };
  const atom = (): V => {
    const t = tokens[at++];
    if (t === '(') {
      const v = sum();
      if (tokens[at++] !== ')') throw new SyntaxError('(');
      return v;
    }
    if (t === '-') {
      const v = atom();
      return v.big !== undefined ? { big: -v.big, num: 0 } : { num: -v.num };
    }
    if (t === undefined || !/^\d/.test(t)) throw new SyntaxError(String(t));
    return make(t);
  };
  const power = (): V => {
    const base = atom();
    if (tokens[at] !== '**') return base;
    at++;
    return check(op(base, '**', power()));
  };
  const product = (): V => {
    let v = power();
    while (tokens[at] === '*' || tokens[at] === '/' || tokens[at] === '%') v = check(op(v, tokens[at++], power()));
    return v;
  };
  const sum = (): V => {
    let v = product();
    while (tokens[at] === '+' || tokens[at] === '-') v = check(op(v, tokens[at++], product()));
    return v;
  };
  try {
    const v = sum();
    if (at !== tokens.length) return undefined;
    if (v.big !== undefined) return v.big.toString();
    if (!Number.isFinite(v.num)) return undefined;
    return Number.isInteger(v.num) && Math.abs(v.num) < 1e16 ? `${v.num}.0` : String(v.num);
  } catch {
    return undefined;
  }
}

/** Code for the prompt, with what it prints: its arithmetic if it has some, else a small computation. */
function codeFor(request: CanonicalRequest, key: number): { code: string; stdout: string } {
  const text = asked(request)
    .replace(/\^/g, '**')
    .replace(/[×x](?=\s*\d)/g, '*');
  for (const m of text.matchAll(/[-(]*\d[\d.\s()+\-*/%]*[\d)]/g)) {
    const expression = m[0].trim();
    if (expression.length > MAX_EXPRESSION || !/\d\s*(\*\*|[-+*/%])\s*[-(]*\d/.test(expression)) continue;
    const result = evaluate(expression);
    if (result !== undefined) return { code: `result = ${expression}\nprint(result)`, stdout: `${result}\n` };
  }
  const rng = new Rng(deriveKey(key, 'code'));
  const values = Array.from({ length: 5 }, () => rng.int(1, 99));
  const total = values.reduce((a, b) => a + b, 0);
  const mean = total / values.length;
  return {
    code: `values = [${values.join(', ')}]\nprint(f"sum={sum(values)} mean={sum(values) / len(values)}")`,
    stdout: `sum=${total} mean=${Number.isInteger(mean) ? `${mean}.0` : mean}\n`,
  };
}

/** Text quoted in the prompt ('…', "…", `…`), in order. */
const quoted = (text: string) => [...text.matchAll(/`([^`]+)`|"([^"]+)"|'([^']{2,})'/g)].map((m) => m[1] ?? m[2] ?? m[3]);

function shellCommands(request: CanonicalRequest, key: number): string[] {
  const text = asked(request);
  const code = /`([^`]+)`/.exec(text)?.[1];
  if (code) return [code];
  if (/\btests?\b/i.test(text)) return ['npm test'];
  if (/\bgit\b|\bstatus\b/i.test(text)) return ['git status'];
  return [new Rng(deriveKey(key, 'shell')).pick(['ls -la', 'pwd', 'cat README.md'])];
}

function fileEdit(request: CanonicalRequest, tool: Extract<BuiltinTool, { kind: 'editor' }>): FileEdit {
  const text = asked(request);
  // A word that looks like a file's path (a name with an extension), its sentence's punctuation dropped.
  const named = text
    .replace(/https?:\/\/\S+/g, '')
    .split(/\s+/)
    .map((w) => w.replace(/[,;:!?)'"`]+$|\.$/, '').replace(/^['"`(]+/, ''))
    .find((w) => /^[\w./-]+$/.test(w) && /\w\.[A-Za-z0-9]{1,6}$/.test(w));
  const path = tool.root ? `${tool.root}${named ? `/${named.replace(/^.*\//, '')}` : ''}` : (named ?? 'README.md');
  // Two quoted texts ("replace 'a' with 'b'") are an edit; else the file is looked at first, where the tool can.
  const said = quoted(text);
  const [oldText = 'TODO', newText = 'DONE'] = said;
  const update = tool.operations.includes('update');
  if (update && (said.length >= 2 || !tool.operations.includes('view'))) return { operation: 'update', path, oldText, newText };
  if (tool.operations.includes('view')) return { operation: 'view', path };
  return { operation: 'create', path, content: `${newText}\n` };
}

function computerAction(request: CanonicalRequest, tool: Extract<BuiltinTool, { kind: 'computer' }>): ComputerAction {
  const text = asked(request);
  const typed = quoted(text)[0];
  if (typed && /\btype\b/i.test(text)) return { type: 'type', text: typed };
  if (/\bclick\b/i.test(text)) return { type: 'click', x: Math.floor(tool.width / 2), y: Math.floor(tool.height / 2), button: 'left' };
  if (/\bscroll\b/i.test(text))
    return { type: 'scroll', x: Math.floor(tool.width / 2), y: Math.floor(tool.height / 2), scrollX: 0, scrollY: 400 };
  return { type: 'screenshot' };
}

/** The tools of an MCP server: the ones the client lists, else a search and a fetch. */
function mcpTools(tool: Extract<BuiltinTool, { kind: 'mcp' }>): McpTool[] {
  const schema = (property: string) => ({
    type: 'object',
    properties: { [property]: { type: 'string' } },
    required: [property],
    additionalProperties: false,
  });
  const names = tool.tools?.length ? tool.tools : ['search', 'fetch'];
  return names.map((name) => ({
    name,
    description: `${titleCase(name.replace(/[_-]+/g, ' '))} on the ${tool.server} server.`,
    inputSchema: schema(name === 'fetch' ? 'id' : 'query'),
  }));
}

/** Whether a call of `name` on this server waits for the client's approval. */
function needsApproval(tool: Extract<BuiltinTool, { kind: 'mcp' }>, name: string): boolean {
  const a = tool.approval;
  if (typeof a === 'string') return a === 'always';
  if (a.never?.includes(name)) return false;
  return a.always === undefined || a.always.includes(name);
}

const useId = (key: number, i: number) => makeId('', 24, deriveKey(key, `use:${i}`));

/** A server tool block. */
const server = (key: number, i: number, tool: ToolSpec, use: ServerToolUse): Block => ({
  type: 'server_tool',
  id: useId(key, i),
  name: tool.name,
  use,
});

/** A call the client runs, of a built-in tool; `input` is its canonical input (a custom tool's text as is). */
const clientCall = (key: number, i: number, tool: ToolSpec, input: unknown): Block => ({
  type: 'tool_call',
  id: makeId('', 24, deriveKey(key, `builtin-call:${i}`)),
  name: tool.name,
  arguments: typeof input === 'string' ? input : JSON.stringify(input),
  builtin: tool.builtin!.kind,
});

/**
 * The blocks of built-in tool `tool`'s use, the `i`-th use of the reply: synthesized, with what
 * `pin` fixes taken as given. A server tool's use is one or more server blocks (an MCP server is
 * listed before its first call); a client tool's is a call.
 */
export function builtinUse(ctx: BuiltinContext, tool: ToolSpec, i: number, pin?: PinnedBuiltinCall): Block[] {
  const spec = tool.builtin!;
  const key = deriveKey(ctx.key, `builtin:${i}`);
  const { request } = ctx;
  switch (spec.kind) {
    case 'web_search': {
      const p = pin as Pin<'web_search'> | undefined;
      const query = p?.query ?? searchQuery(request);
      const action =
        p?.action === 'open_page' || p?.action === 'find_in_page'
          ? p.action === 'open_page'
            ? { type: 'open_page' as const, url: p.url ?? `https://example.com/${slug(query)}` }
            : { type: 'find_in_page' as const, url: p.url ?? `https://example.com/${slug(query)}`, pattern: p.pattern ?? query }
          : { type: 'search' as const, query };
      const results = p?.results
        ? p.results.map((r) => ({ ...r, snippet: r.snippet ?? r.title }))
        : action.type === 'search'
          ? searchResults(query, spec, key)
          : [];
      return [server(ctx.key, i, tool, { kind: 'web_search', action, results })];
    }
    case 'web_fetch': {
      const p = pin as Pin<'web_fetch'> | undefined;
      const url = p?.url ?? promptUrl(request) ?? `https://example.com/${slug(searchQuery(request))}`;
      const last = /^https?:\/\/[^/?#]*\/?([^?#]*)/.exec(url)?.[1].split('/').filter(Boolean).pop();
      const title = p?.title ?? titleCase((last ?? hostOf(url)).replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' '));
      const content = p?.content ?? withFaker(deriveKey(key, 'page'), (f) => Array.from({ length: 4 }, () => f.hacker.phrase()).join(' '));
      return [server(ctx.key, i, tool, { kind: 'web_fetch', url, title, content })];
    }
    case 'file_search': {
      const p = pin as Pin<'file_search'> | undefined;
      const queries = p?.queries ?? [searchQuery(request)];
      const results =
        p?.results?.map((r, n) => ({
          fileId: r.fileId ?? makeId('file-', 22, deriveKey(key, `pinned:${n}`)),
          filename: r.filename ?? `file-${n + 1}.txt`,
          text: r.text,
          score: r.score ?? Math.round((0.9 - n * 0.1) * 1000) / 1000,
        })) ??
        ctx.searchFiles(spec.stores, queries[0], spec.maxResults ?? 10, key, {
          filters: spec.filters,
          scoreThreshold: spec.scoreThreshold,
        });
      return [server(ctx.key, i, tool, { kind: 'file_search', queries, results })];
    }
    case 'code_execution': {
      const p = pin as Pin<'code_execution'> | undefined;
      const made = p?.code === undefined || p.output === undefined ? codeFor(request, key) : undefined;
      const code = p?.code ?? made!.code;
      const stdout = p?.output ?? (p?.code === undefined ? made!.stdout : '');
      const stderr = p?.error ?? '';
      return [server(ctx.key, i, tool, { kind: 'code_execution', code, stdout, stderr, returnCode: p?.returnCode ?? (stderr ? 1 : 0) })];
    }
    case 'image_generation': {
      const p = pin as Pin<'image_generation'> | undefined;
      const prompt =
        p?.prompt ??
        (asked(request)
          .replace(/^\s*(please\s+)?(draw|generate|create|make)\s+(me\s+)?(an?\s+)?(image|picture|illustration)\s+(of\s+)?/i, '')
          .trim() ||
          'a picture');
      const file = p?.image === undefined ? undefined : Uint8Array.from(atob(p.image), (c) => c.charCodeAt(0));
      const draw = (shapes?: number) =>
        drawPicture(prompt, spec.width, spec.height, deriveKey(key, 'image'), {
          transparent: spec.transparent,
          ...(shapes === undefined ? {} : { shapes }),
        });
      const total = shapeCount(prompt);
      const partials =
        request.stream && !file
          ? Array.from({ length: spec.partialImages }, (_, n) => draw(Math.floor((total * (n + 1)) / (spec.partialImages + 1))))
          : [];
      return [server(ctx.key, i, tool, { kind: 'image_generation', prompt, ...(file ? { file } : { pixels: draw() }), partials })];
    }
    case 'mcp': {
      const p = pin as Pin<'mcp'> | undefined;
      const tools = mcpTools(spec);
      const called = tools.find((t) => t.name === tool.name) ?? tools[0];
      const args =
        p?.arguments === undefined
          ? JSON.stringify(
              called.inputSchema.properties && 'query' in (called.inputSchema.properties as object)
                ? { query: searchQuery(request) }
                : synthesizeJson(called.inputSchema, deriveKey(key, 'args'), `the input of MCP tool "${called.name}"`, ctx.budget),
            )
          : typeof p.arguments === 'string'
            ? p.arguments
            : JSON.stringify(p.arguments);
      const list = server(ctx.key, i, tool, { kind: 'mcp_list', server: spec.server, tools });
      // Listed once per conversation: a server the conversation called before is not listed again.
      const listed = request.messages.some((m) => m.toolCalls?.some((c) => tools.some((t) => t.name === c.name)));
      const lead = listed ? [] : [{ ...list, id: makeId('', 24, deriveKey(key, 'list')) }];
      if (!p && needsApproval(spec, called.name)) {
        const ask = clientCall(ctx.key, i, tool, args) as Extract<Block, { type: 'tool_call' }>;
        return [...lead, { ...ask, name: called.name }];
      }
      return [...lead, server(ctx.key, i, tool, mcpCall(spec.server, called.name, args, key, p))];
    }
    case 'maps': {
      const p = pin as Pin<'maps'> | undefined;
      const query = p?.query ?? searchQuery(request);
      const places: PlaceResult[] = withFaker(key, (f) =>
        (p?.places ?? [{ title: '' }, { title: '' }, { title: '' }]).map((place, n) => {
          const id = makeId('ChIJ', 23, deriveKey(key, `place:${n}`));
          return {
            title: place.title || `${f.company.name()} ${f.helpers.arrayElement(['Café', 'Bistro', 'Market', 'Books'])}`,
            uri: place.uri ?? `https://maps.google.com/?cid=${new Rng(deriveKey(key, `cid:${n}`)).int(1e9, 9e9)}`,
            placeId: place.placeId ?? `places/${id}`,
            text: place.text ?? `${f.location.streetAddress()}, ${f.location.city()}`,
          };
        }),
      );
      return [server(ctx.key, i, tool, { kind: 'maps', query, places })];
    }
    case 'shell':
      return [clientCall(ctx.key, i, tool, { commands: (pin as Pin<'shell'> | undefined)?.commands ?? shellCommands(request, key) })];
    case 'editor': {
      const p = pin as Pin<'editor'> | undefined;
      const edit: FileEdit = p ? { ...p } : fileEdit(request, spec);
      delete (edit as { tool?: string }).tool;
      delete (edit as { name?: string }).name;
      return [clientCall(ctx.key, i, tool, edit)];
    }
    case 'computer': {
      const p = pin as Pin<'computer'> | undefined;
      return [clientCall(ctx.key, i, tool, { action: p?.action ?? computerAction(request, spec), safetyChecks: p?.safetyChecks ?? [] })];
    }
    case 'custom': {
      const p = pin as Pin<'custom'> | undefined;
      const text = asked(request);
      const input =
        p?.input ?? (spec.grammar ? grammarText(spec.grammar, deriveKey(key, 'grammar'), ctx.budget) : (quoted(text)[0] ?? text.trim()));
      return [clientCall(ctx.key, i, tool, input)];
    }
    default:
      return [];
  }
}

/** An MCP tool's call and what it answered. */
function mcpCall(serverName: string, name: string, args: string, key: number, pin?: Pin<'mcp'>, approvalId?: string): ServerToolUse {
  const output =
    pin?.output ?? (pin?.error ? '' : `${titleCase(name)} result: ${withFaker(deriveKey(key, 'mcp'), (f) => f.hacker.phrase())}`);
  return {
    kind: 'mcp',
    server: serverName,
    tool: name,
    arguments: args,
    output,
    ...(pin?.error ? { error: pin.error } : {}),
    ...(approvalId ? { approvalId } : {}),
  };
}

/** The MCP call the client approved, now run. */
export function approvedCall(ctx: BuiltinContext, tool: ToolSpec, call: { id: string; name: string; arguments: string }): Block {
  const spec = tool.builtin as Extract<BuiltinTool, { kind: 'mcp' }>;
  return server(ctx.key, 0, tool, mcpCall(spec.server, call.name, call.arguments, deriveKey(ctx.key, 'approved'), undefined, call.id));
}

/** The tool search that finds the deferred tools `found` before they are called. */
export function toolSearchUse(ctx: BuiltinContext, search: ToolSpec, found: ToolSpec[], i: number): Block {
  const query = found.map((t) => t.name.replace(/[_-]+/g, ' ')).join(' ');
  return server(ctx.key, i, search, { kind: 'tool_search', query, found: found.map((t) => t.name) });
}

/** A pinned use's tool: the one it names, else the request's first of its kind. */
export function toolForPin(request: CanonicalRequest, pin: PinnedBuiltinCall): ToolSpec | undefined {
  return request.tools.find((t) => t.builtin?.kind === pin.tool && (pin.name === undefined || t.name === pin.name));
}

const firstSentence = (text: string) => /^[^.!?]*[.!?]?/.exec(text.trim())?.[0] ?? text;

/** What a result says, for citing: each source's title, address and text, in block order. */
export function citedSources(blocks: readonly Block[]): { block: number; result: number; title: string; url: string; text: string }[] {
  const out: { block: number; result: number; title: string; url: string; text: string }[] = [];
  blocks.forEach((b, block) => {
    if (b.type !== 'server_tool') return;
    const u = b.use;
    if (u.kind === 'web_search') u.results.forEach((r, result) => out.push({ block, result, title: r.title, url: r.url, text: r.snippet }));
    else if (u.kind === 'web_fetch') out.push({ block, result: 0, title: u.title, url: u.url, text: firstSentence(u.content) });
    else if (u.kind === 'file_search')
      u.results.forEach((r, result) => out.push({ block, result, title: r.filename, url: r.fileId, text: r.text }));
    else if (u.kind === 'maps') u.places.forEach((p, result) => out.push({ block, result, title: p.title, url: p.uri, text: p.text }));
  });
  return out;
}

/** The answer after the service's tools ran: what each gave, in sentences that name their sources. */
export function toolAnswer(blocks: readonly Block[], key: number): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type !== 'server_tool') continue;
    const u = b.use;
    if (u.kind === 'web_search' && u.action.type === 'search')
      parts.push(
        u.results.length ? `Here is what I found about ${u.action.query}.` : `I searched for ${u.action.query} but found nothing.`,
        ...u.results.map((r) => `According to ${r.title}, ${r.snippet.replace(/^[^:]*:\s*/, '').replace(/[.!?]*$/, '.')}`),
      );
    else if (u.kind === 'web_search') parts.push(`I opened ${u.action.type === 'search' ? u.action.query : u.action.url}.`);
    else if (u.kind === 'web_fetch')
      parts.push(`According to ${u.title}, ${firstSentence(u.content).replace(/^./, (c) => c.toLowerCase())}`);
    else if (u.kind === 'file_search') parts.push(...u.results.map((r) => `${r.filename} says: ${r.text.replace(/[.!?]*$/, '.')}`));
    else if (u.kind === 'maps') parts.push(`Places for ${u.query}: ${u.places.map((p) => p.title).join(', ')}.`);
    else if (u.kind === 'code_execution')
      parts.push(
        u.returnCode === 0 ? `I ran the code; it printed: ${u.stdout.trim() || '(nothing)'}.` : `The code failed: ${u.stderr.trim()}.`,
      );
    else if (u.kind === 'image_generation') parts.push(`Here is the image of ${u.prompt.replace(/[.!?\s]+$/, '')}.`);
    else if (u.kind === 'mcp')
      parts.push(u.error ? `The ${u.tool} tool failed: ${u.error}.` : `The ${u.tool} tool of ${u.server} answered: ${u.output}`);
  }
  return parts.length ? parts.join(' ') : synthesizeText(key);
}

/**
 * Which spans of `text` cite which sources: the pinned citations, else each sentence that names a
 * source's title, URL or text cites the first such source.
 */
export function citationsOf(text: string, blocks: readonly Block[], pinned?: readonly PinnedCitation[]): SearchCitation[] {
  const sources = citedSources(blocks);
  if (!sources.length) return [];
  if (pinned) {
    return pinned.flatMap((p) => {
      const source = sources[p.result - 1];
      const start = text.indexOf(p.text);
      return source && start >= 0 && p.text ? [{ start, end: start + p.text.length, block: source.block, result: source.result }] : [];
    });
  }
  const out: SearchCitation[] = [];
  const lower = text.toLowerCase();
  // Sentences end at . ! or ? before a space or the end (not inside a file name or a URL).
  for (const m of text.matchAll(/(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*/g)) {
    const sentence = lower.slice(m.index, m.index + m[0].length);
    const source = sources.find(
      (s) =>
        (s.title && sentence.includes(s.title.toLowerCase())) ||
        (s.url && sentence.includes(s.url.toLowerCase())) ||
        (s.text.length >= 12 && sentence.includes(s.text.toLowerCase())),
    );
    if (!source) continue;
    const lead = m[0].length - m[0].trimStart().length;
    out.push({ start: m.index + lead, end: m.index + m[0].trimEnd().length, block: source.block, result: source.result });
  }
  return out;
}
