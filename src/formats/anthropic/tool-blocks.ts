// Built-in tools in the Messages API's shapes: a server tool's use as server_tool_use (or mcp_tool_use)
// and its result block (web_search_tool_result, web_fetch_tool_result, code_execution_tool_result,
// bash_code_execution_tool_result, tool_search_tool_result, mcp_tool_result); a client tool's call as
// tool_use with the input its schema defines (a bash command, a text-editor command, a computer action);
// a cited text as text blocks, each cited span its own block with its web_search_result_location.
import type { CanonicalRequest, ToolSpec } from '../../core/request.ts';
import type { Block, CanonicalReply, Usage } from '../../core/reply.ts';
import { hashString, makeId } from '../../core/seed.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import type { ComputerAction, FileEdit } from '../../types/builtin.ts';

type Content = Record<string, unknown>;

/** A canonical block as the content blocks it renders to; `stream` is where streaming it has got to. */
export interface Rendered {
  blocks: Content[];
  stream?: { offset: number; opened: number };
}

const toolUseId = (id: string) => `toolu_01${id.slice(0, 22)}`;
const serverId = (id: string) => `srvtoolu_01${id.slice(0, 22)}`;
const DIRECT = { type: 'direct' };
const opaque = (text: string) => toBase64(new TextEncoder().encode(`mgm:${text}`));

/** A text's spans: uncited stretches and cited spans, in order, covering it all. */
export function textSegments(block: Extract<Block, { type: 'text' }>): { start: number; end: number; citation?: number }[] {
  const out: { start: number; end: number; citation?: number }[] = [];
  let at = 0;
  (block.citations ?? []).forEach((c, i) => {
    if (c.start < at) return;
    if (c.start > at) out.push({ start: at, end: c.start });
    out.push({ start: c.start, end: c.end, citation: i });
    at = c.end;
  });
  if (at < block.text.length || !out.length) out.push({ start: at, end: block.text.length });
  return out;
}

/** The citation of a cited span: where in which document or search result it was read. */
function citation(blocks: readonly Block[], c: NonNullable<Extract<Block, { type: 'text' }>['citations']>[number]): Content | undefined {
  if ('document' in c)
    return {
      type: 'char_location',
      cited_text: c.document.text.slice(c.from, c.to),
      document_index: c.document.index,
      document_title: c.document.title ?? null,
      start_char_index: c.from,
      end_char_index: c.to,
      file_id: c.document.fileId ?? null,
    };
  const source = blocks[c.block];
  if (source?.type !== 'server_tool' || source.use.kind !== 'web_search') return undefined;
  const r = source.use.results[c.result];
  return (
    r && {
      type: 'web_search_result_location',
      cited_text: r.snippet,
      url: r.url,
      title: r.title,
      encrypted_index: opaque(`${c.block}:${c.result}`),
    }
  );
}

/** The canonical file edit as the text editor's (or memory tool's) command. */
function editorInput(edit: FileEdit, type: string): Content {
  switch (edit.operation) {
    case 'view':
      return { command: 'view', path: edit.path };
    case 'create':
      return { command: 'create', path: edit.path, file_text: edit.content ?? '' };
    case 'insert':
      // The 2025-01-24 editor names the inserted text new_str; later ones insert_text.
      return {
        command: 'insert',
        path: edit.path,
        insert_line: edit.line ?? 0,
        [/20250124|20241022/.test(type) ? 'new_str' : 'insert_text']: edit.content ?? '',
      };
    case 'delete':
      return { command: 'delete', path: edit.path };
    case 'rename':
      return { command: 'rename', old_path: edit.path, new_path: edit.newPath ?? edit.path };
    default:
      return { command: 'str_replace', path: edit.path, old_str: edit.oldText ?? '', new_str: edit.newText ?? '' };
  }
}

/** A computer action as the computer tool's input, or as a toolset member's name and input. */
function computerInput(a: ComputerAction): { action: string; input: Content } {
  const at = (x: number, y: number) => ({ coordinate: [x, y] });
  switch (a.type) {
    case 'click':
      return { action: `${a.button ?? 'left'}_click`, input: at(a.x, a.y) };
    case 'double_click':
      return { action: 'double_click', input: at(a.x, a.y) };
    case 'move':
      return { action: 'mouse_move', input: at(a.x, a.y) };
    case 'drag': {
      const [from, to] = [a.path[0] ?? { x: 0, y: 0 }, a.path.at(-1) ?? { x: 0, y: 0 }];
      return { action: 'left_click_drag', input: { start_coordinate: [from.x, from.y], coordinate: [to.x, to.y] } };
    }
    case 'scroll':
      return {
        action: 'scroll',
        input: {
          ...at(a.x, a.y),
          scroll_direction: a.scrollY < 0 ? 'up' : a.scrollY > 0 ? 'down' : a.scrollX < 0 ? 'left' : 'right',
          scroll_amount: Math.max(1, Math.round(Math.abs(a.scrollY || a.scrollX) / 100)),
        },
      };
    case 'type':
      return { action: 'type', input: { text: a.text } };
    case 'keypress':
      return { action: 'key', input: { text: a.keys.join('+') } };
    case 'wait':
      return { action: 'wait', input: { duration: 1 } };
    default:
      return { action: a.type, input: {} };
  }
}

/** The tool_use of a built-in client tool: its name and the input its schema defines. */
function builtinInput(block: Extract<Block, { type: 'tool_call' }>, tool: ToolSpec | undefined): Content {
  const input = JSON.parse(block.arguments || '{}') as Record<string, unknown>;
  const type = tool?.builtin?.type ?? '';
  const base = { type: 'tool_use', id: toolUseId(block.id), caller: DIRECT };
  if (block.builtin === 'shell')
    return { ...base, name: block.name, input: { command: ((input.commands ?? []) as string[]).join(' && ') } };
  if (block.builtin === 'editor') return { ...base, name: block.name, input: editorInput(input as unknown as FileEdit, type) };
  const { action, input: args } = computerInput((input.action ?? { type: 'screenshot' }) as ComputerAction);
  // A toolset's members are tools of their own, named by the action.
  if (type.includes('toolset')) return { ...base, name: action, input: args, toolset_name: block.name };
  return { ...base, name: block.name, input: { action, ...args } };
}

/** A server tool's use and its result, as content blocks. */
function serverBlocks(block: Extract<Block, { type: 'server_tool' }>, tool: ToolSpec | undefined, created: number): Content[] {
  const u = block.use;
  const id = serverId(block.id);
  const use = (name: string, input: unknown) => ({ type: 'server_tool_use', id, name, input, caller: DIRECT });
  switch (u.kind) {
    case 'web_search':
      return [
        use('web_search', { query: u.action.type === 'search' ? u.action.query : u.action.url }),
        {
          type: 'web_search_tool_result',
          tool_use_id: id,
          caller: DIRECT,
          content: u.results.map((r) => ({
            type: 'web_search_result',
            url: r.url,
            title: r.title,
            encrypted_content: opaque(r.snippet),
            page_age: r.pageAge ?? null,
          })),
        },
      ];
    case 'web_fetch':
      return [
        use('web_fetch', { url: u.url }),
        {
          type: 'web_fetch_tool_result',
          tool_use_id: id,
          caller: DIRECT,
          content: {
            type: 'web_fetch_result',
            url: u.url,
            retrieved_at: new Date(created * 1000).toISOString(),
            content: {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: u.content },
              title: u.title,
              citations: { enabled: tool?.builtin?.kind === 'web_fetch' && tool.builtin.citations === true },
            },
          },
        },
      ];
    case 'code_execution': {
      const result = { stdout: u.stdout, stderr: u.stderr, return_code: u.returnCode, content: [] };
      // The first code execution tool runs Python; later ones write the script with the container's text
      // editor, then run it with bash.
      if (tool?.builtin?.type === 'code_execution_20250522')
        return [
          use('code_execution', { code: u.code }),
          { type: 'code_execution_tool_result', tool_use_id: id, content: { type: 'code_execution_result', ...result } },
        ];
      const write = serverId(makeId('', 22, hashString(`${block.id}:write`)));
      return [
        { ...use('text_editor_code_execution', { command: 'create', path: '/tmp/script.py', file_text: `${u.code}\n` }), id: write },
        {
          type: 'text_editor_code_execution_tool_result',
          tool_use_id: write,
          content: { type: 'text_editor_code_execution_create_result', is_file_update: false },
        },
        use('bash_code_execution', { command: 'python3 /tmp/script.py' }),
        { type: 'bash_code_execution_tool_result', tool_use_id: id, content: { type: 'bash_code_execution_result', ...result } },
      ];
    }
    case 'tool_search':
      return [
        use(
          tool?.name ?? 'tool_search_tool_bm25',
          tool?.name === 'tool_search_tool_regex' ? { pattern: u.found.join('|') } : { query: u.query },
        ),
        {
          type: 'tool_search_tool_result',
          tool_use_id: id,
          content: {
            type: 'tool_search_tool_search_result',
            tool_references: u.found.map((name) => ({ type: 'tool_reference', tool_name: name })),
          },
        },
      ];
    case 'mcp': {
      const mcpId = `mcptoolu_01${block.id.slice(0, 22)}`;
      return [
        { type: 'mcp_tool_use', id: mcpId, name: u.tool, server_name: u.server, input: JSON.parse(u.arguments || '{}') as unknown },
        {
          type: 'mcp_tool_result',
          tool_use_id: mcpId,
          is_error: Boolean(u.error),
          content: [{ type: 'text', text: u.error ?? u.output, citations: null }],
        },
      ];
    }
    default:
      // Listings, pictures, file and map searches are other vendors' tools.
      return [];
  }
}

/** A block of no built-in tool, as its one content block. */
function contentBlock(block: Block): Content {
  if (block.type === 'thinking') return { type: 'thinking', thinking: block.text, signature: block.signature };
  if (block.type === 'tool_call')
    return {
      type: 'tool_use',
      id: toolUseId(block.id),
      name: block.name,
      input: JSON.parse(block.arguments || '{}') as unknown,
      caller: DIRECT,
    };
  // Messages carry no audio: a spoken block is shown by its transcript.
  return {
    type: 'text',
    text: block.type === 'text' || block.type === 'refusal' ? block.text : block.type === 'audio' ? block.transcript : '',
    citations: null,
  };
}

const toolOf = (request: CanonicalRequest, name: string) => request.tools.find((t) => t.name === name);

/** Each canonical block of the first choice as the content blocks it renders to. */
export function renderedBlocks(reply: CanonicalReply, request: CanonicalRequest): Rendered[] {
  const blocks = reply.choices[0].blocks;
  return blocks.map((block): Rendered => {
    if (block.type === 'server_tool') return { blocks: serverBlocks(block, toolOf(request, block.name), reply.created) };
    if (block.type === 'tool_call' && block.builtin) return { blocks: [builtinInput(block, toolOf(request, block.name))] };
    if (block.type === 'text' && block.citations?.length)
      return {
        blocks: textSegments(block).map((seg) => {
          const cited = seg.citation === undefined ? undefined : citation(blocks, block.citations![seg.citation]);
          return { type: 'text', text: block.text.slice(seg.start, seg.end), citations: cited ? [cited] : null };
        }),
      };
    return { blocks: [contentBlock(block)] };
  });
}

/** usage.server_tool_use: the web searches and fetches run, once the service ran a tool (else null). */
export function serverToolUsage(usage: Usage) {
  const uses = usage.serverToolUses;
  if (!uses) return null;
  return { web_search_requests: uses.web_search ?? 0, web_fetch_requests: uses.web_fetch ?? 0 };
}

/** The code execution container a reply ran in (an hour's life), or null when it ran no code. */
export function messageContainer(reply: CanonicalReply) {
  const ran = reply.choices[0].blocks.some((b) => b.type === 'server_tool' && b.use.kind === 'code_execution');
  if (!ran) return null;
  return {
    id: makeId('container_011', 22, hashString(String(reply.key))),
    expires_at: new Date((reply.created + 3600) * 1000).toISOString(),
    skills: null,
  };
}
