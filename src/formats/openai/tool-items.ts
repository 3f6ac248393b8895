// Built-in tools in the Responses API's shapes: each server tool block as its call item (web_search_call,
// file_search_call, code_interpreter_call, image_generation_call, mcp_list_tools, mcp_call,
// tool_search_call and its output), each built-in call the client runs as its item (computer_call,
// local_shell_call, shell_call, apply_patch_call, custom_tool_call, mcp_approval_request), citations as
// annotations, and the events each streams in OpenAI's order.
import type { CanonicalRequest, ToolSpec } from '../../core/request.ts';
import { searchCitations, type Block, type CanonicalReply, type Citation } from '../../core/reply.ts';
import { encodeImage } from '../../core/synthesize/image.ts';
import { hashString, makeId } from '../../core/seed.ts';
import type { StreamStep } from '../../core/plan.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import type { ComputerAction, FileEdit } from '../../types/builtin.ts';
import { fieldsOf, type JsonObject } from '../fields.ts';
import { echoedTools } from './tools.ts';

type ServerBlock = Extract<Block, { type: 'server_tool' }>;
type CallBlock = Extract<Block, { type: 'tool_call' }>;

/** The encoded files of a reply's pictures: the final one and the partial ones, by block. */
export type ImageFiles = Map<Block, { file: Uint8Array; partials: Uint8Array[] }>;

/** The files of the reply's image_generation pictures (and their partial pictures), in the tool's format; undefined when it made none. */
export async function imageFiles(reply: CanonicalReply, request: CanonicalRequest): Promise<ImageFiles | undefined> {
  let files: ImageFiles | undefined;
  for (const block of reply.choices[0].blocks) {
    if (block.type !== 'server_tool' || block.use.kind !== 'image_generation') continue;
    const spec = toolOf(request, block)?.builtin;
    const [format, quality] = spec?.kind === 'image_generation' ? [spec.format, spec.compression] : (['png', 100] as const);
    const file = block.use.file ?? (await encodeImage(block.use.pixels!, format, quality));
    const partials: Uint8Array[] = [];
    for (const partial of block.use.partials) partials.push(await encodeImage(partial, format, quality));
    (files ??= new Map()).set(block, { file, partials });
  }
  return files;
}

/** What rendering a built-in tool's items needs besides the block. */
export interface ItemContext {
  request: CanonicalRequest;
  /** The request's `tools`, as sent (a tool search's output shows the tools it found). */
  rawTools: unknown[];
  /** The request's `include` list. */
  include: readonly string[];
  images?: ImageFiles;
}

/** The request's tool a block uses (an MCP call names its server's tool, which may not be one of the request's). */
function toolOf(request: CanonicalRequest, block: ServerBlock | CallBlock): ToolSpec | undefined {
  const kind = block.type === 'tool_call' ? block.builtin : undefined;
  return (
    request.tools.find((t) => t.name === block.name && (!kind || t.builtin?.kind === kind)) ??
    request.tools.find((t) => t.builtin?.kind === kind)
  );
}

/** The id a call's answer refers to: an approval request's own id, else the call id. */
export const callRef = (block: CallBlock) => (block.builtin === 'mcp' ? `mcpr_${block.id}` : `call_${block.id}`);

function computerAction(a: ComputerAction): JsonObject {
  switch (a.type) {
    case 'click':
      return { type: 'click', button: a.button === 'middle' ? 'wheel' : (a.button ?? 'left'), x: a.x, y: a.y };
    case 'double_click':
      return { type: 'double_click', x: a.x, y: a.y, keys: null };
    case 'scroll':
      return { type: 'scroll', x: a.x, y: a.y, scroll_x: a.scrollX, scroll_y: a.scrollY };
    case 'move':
      return { type: 'move', x: a.x, y: a.y };
    case 'drag':
      return { type: 'drag', path: a.path };
    case 'type':
      return { type: 'type', text: a.text };
    case 'keypress':
      return { type: 'keypress', keys: a.keys };
    default:
      return { type: a.type };
  }
}

/** A file edit as an apply_patch operation (V4A diff lines); one the tool cannot do (view) is an empty update. */
function patchOperation(edit: FileEdit): JsonObject {
  const lines = (text = '', mark: string) =>
    text
      .split('\n')
      .filter((l, i, all) => l || i < all.length - 1)
      .map((l) => `${mark}${l}\n`)
      .join('');
  if (edit.operation === 'create') return { type: 'create_file', path: edit.path, diff: lines(edit.content, '+') };
  if (edit.operation === 'delete') return { type: 'delete_file', path: edit.path };
  const diff = edit.operation === 'update' ? `@@\n${lines(edit.oldText, '-')}${lines(edit.newText, '+')}` : '';
  return { type: 'update_file', path: edit.path, diff };
}

/** The item of a built-in call the client runs. */
function callItem(block: CallBlock, ctx: ItemContext): JsonObject {
  const tool = toolOf(ctx.request, block);
  const call_id = `call_${block.id}`;
  const input = block.builtin === 'custom' ? {} : fieldsOf(JSON.parse(block.arguments || '{}'));
  switch (block.builtin) {
    case 'mcp':
      return {
        id: callRef(block),
        type: 'mcp_approval_request',
        server_label: tool?.builtin?.kind === 'mcp' ? tool.builtin.server : block.name,
        name: block.name,
        arguments: block.arguments,
      };
    case 'custom':
      return { id: `ctc_${block.id}`, type: 'custom_tool_call', status: 'completed', call_id, name: block.name, input: block.arguments };
    case 'computer': {
      const action = computerAction((input.action ?? { type: 'screenshot' }) as ComputerAction);
      const checks = (input.safetyChecks ?? []) as { code: string; message: string }[];
      return {
        id: `cu_${block.id}`,
        type: 'computer_call',
        call_id,
        // The GA computer tool batches its actions; the preview tool sends one.
        ...(tool?.builtin?.type === 'computer' ? { actions: [action] } : { action }),
        pending_safety_checks: checks.map((c, i) => ({
          id: makeId('cu_sc_', 24, hashString(`${block.id}:${i}`)),
          code: c.code,
          message: c.message,
        })),
        status: 'completed',
      };
    }
    case 'shell': {
      const commands = (input.commands ?? []) as string[];
      if (tool?.builtin?.type === 'local_shell')
        return {
          id: `lsh_${block.id}`,
          type: 'local_shell_call',
          call_id,
          action: {
            type: 'exec',
            command: ['bash', '-lc', commands.join(' && ')],
            env: {},
            timeout_ms: null,
            working_directory: null,
            user: null,
          },
          status: 'completed',
        };
      return {
        id: `sh_${block.id}`,
        type: 'shell_call',
        call_id,
        action: { commands, timeout_ms: null, max_output_length: null },
        status: 'completed',
        environment: null,
      };
    }
    default:
      return {
        id: `apc_${block.id}`,
        type: 'apply_patch_call',
        call_id,
        status: 'completed',
        operation: patchOperation(input as unknown as FileEdit),
      };
  }
}

/** The items of a server tool block (a tool search is its call and its output). */
function serverItems(block: ServerBlock, ctx: ItemContext): JsonObject[] {
  const u = block.use;
  const id = block.id;
  const tool = toolOf(ctx.request, block)?.builtin;
  switch (u.kind) {
    case 'web_search': {
      const a = u.action;
      const sources = ctx.include.includes('web_search_call.action.sources')
        ? { sources: u.results.map((r) => ({ type: 'url', url: r.url })) }
        : {};
      const action = a.type === 'search' ? { type: 'search', query: a.query, queries: [a.query], ...sources } : { ...a };
      return [{ id: `ws_${id}`, type: 'web_search_call', status: 'completed', action }];
    }
    case 'file_search':
      return [
        {
          id: `fs_${id}`,
          type: 'file_search_call',
          status: 'completed',
          queries: u.queries,
          results: ctx.include.includes('file_search_call.results')
            ? u.results.map((r) => ({
                file_id: r.fileId,
                filename: r.filename,
                score: r.score,
                text: r.text,
                attributes: r.attributes ?? {},
              }))
            : null,
        },
      ];
    case 'code_execution':
      return [
        {
          id: `ci_${id}`,
          type: 'code_interpreter_call',
          status: 'completed',
          code: u.code,
          container_id: (tool?.kind === 'code_execution' && tool.container) || makeId('cntr_', 32, hashString(id)),
          outputs: ctx.include.includes('code_interpreter_call.outputs') ? [{ type: 'logs', logs: u.stdout + u.stderr }] : null,
        },
      ];
    case 'image_generation': {
      const file = ctx.images?.get(block)?.file;
      const spec = tool?.kind === 'image_generation' ? tool : undefined;
      return [
        {
          id: `ig_${id}`,
          type: 'image_generation_call',
          status: 'completed',
          result: file ? toBase64(file) : null,
          revised_prompt: u.prompt,
          ...(spec
            ? { output_format: spec.format, size: `${spec.width}x${spec.height}`, background: spec.transparent ? 'transparent' : 'opaque' }
            : {}),
        },
      ];
    }
    case 'mcp_list':
      return [
        {
          id: `mcpl_${id}`,
          type: 'mcp_list_tools',
          server_label: u.server,
          tools: u.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema, annotations: null })),
          error: null,
        },
      ];
    case 'mcp':
      return [
        {
          id: `mcp_${id}`,
          type: 'mcp_call',
          status: u.error ? 'failed' : 'completed',
          server_label: u.server,
          name: u.tool,
          arguments: u.arguments,
          output: u.error ? null : u.output,
          error: u.error ? { type: 'mcp_tool_execution_error', content: [{ type: 'text', text: u.error }] } : null,
          approval_request_id: u.approvalId ?? null,
        },
      ];
    case 'tool_search': {
      const found = echoedTools(ctx.rawTools.map(fieldsOf).filter((t) => u.found.includes(String(t.name))));
      return [
        {
          id: `tsc_${id}`,
          type: 'tool_search_call',
          call_id: null,
          execution: 'server',
          arguments: { query: u.query },
          status: 'completed',
        },
        { id: `tso_${id}`, type: 'tool_search_output', call_id: null, execution: 'server', tools: found, status: 'completed' },
      ];
    }
    default:
      // Web fetches and maps are other vendors' tools.
      return [];
  }
}

/** The items a built-in tool block renders as (none for a block of no built-in tool). */
export function builtinItems(block: Block, ctx: ItemContext): JsonObject[] {
  if (block.type === 'server_tool') return serverItems(block, ctx);
  if (block.type === 'tool_call' && block.builtin) return [callItem(block, ctx)];
  return [];
}

/** A text's citations as output_text annotations. */
export function annotations(citations: readonly Citation[] | undefined, blocks: readonly Block[]): JsonObject[] {
  return searchCitations(citations).flatMap((c): JsonObject[] => {
    const block = blocks[c.block];
    if (block?.type !== 'server_tool') return [];
    const u = block.use;
    if (u.kind === 'web_search') {
      const r = u.results[c.result];
      return r ? [{ type: 'url_citation', start_index: c.start, end_index: c.end, url: r.url, title: r.title }] : [];
    }
    if (u.kind === 'file_search') {
      const r = u.results[c.result];
      return r ? [{ type: 'file_citation', file_id: r.fileId, filename: r.filename, index: c.end }] : [];
    }
    return [];
  });
}

type Emit = (due: number, type: string, data: JsonObject) => void;

/** The events of one built-in tool item, step by step, in OpenAI's order for its type. */
export function builtinItemEvents(emit: Emit, step: StreamStep, item: JsonObject, index: number, ctx: ItemContext, block: Block): void {
  const base = { output_index: index, item_id: item.id as string };
  const type = item.type as string;
  const start = step.blockStart;
  const end = step.blockEnd;
  const added = (shown: JsonObject) => emit(step.due, 'response.output_item.added', { output_index: index, item: shown });
  const done = () => emit(step.due, 'response.output_item.done', { output_index: index, item });
  const phases = (prefix: string, first: string[], last: string[]) => {
    if (start) for (const p of first) emit(step.due, `response.${prefix}.${p}`, base);
    if (end) for (const p of last) emit(step.due, `response.${prefix}.${p}`, base);
  };
  switch (type) {
    case 'web_search_call': {
      const action = item.action as JsonObject;
      if (start) added({ ...item, status: 'in_progress', action: action.type === 'search' ? { type: 'search' } : action });
      phases('web_search_call', ['in_progress', 'searching'], ['completed']);
      break;
    }
    case 'file_search_call':
      if (start) added({ ...item, status: 'in_progress', results: null });
      phases('file_search_call', ['in_progress', 'searching'], ['completed']);
      break;
    case 'code_interpreter_call':
      if (start) {
        added({ ...item, status: 'in_progress', code: '', outputs: null });
        emit(step.due, 'response.code_interpreter_call.in_progress', base);
      }
      if (step.text) emit(step.due, 'response.code_interpreter_call_code.delta', { ...base, delta: step.text });
      if (end) {
        emit(step.due, 'response.code_interpreter_call_code.done', { ...base, code: item.code as string });
        emit(step.due, 'response.code_interpreter_call.interpreting', base);
        emit(step.due, 'response.code_interpreter_call.completed', base);
      }
      break;
    case 'image_generation_call':
      if (start) {
        added({ ...item, status: 'in_progress', result: null });
        emit(step.due, 'response.image_generation_call.in_progress', base);
        emit(step.due, 'response.image_generation_call.generating', base);
      }
      if (end) {
        (ctx.images?.get(block)?.partials ?? []).forEach((partial, n) =>
          emit(step.due, 'response.image_generation_call.partial_image', {
            ...base,
            partial_image_index: n,
            partial_image_b64: toBase64(partial),
            ...(item.size
              ? { size: item.size as string, output_format: item.output_format as string, background: item.background as string }
              : {}),
          }),
        );
        emit(step.due, 'response.image_generation_call.completed', base);
      }
      break;
    case 'mcp_list_tools':
      if (start) added({ ...item, tools: [] });
      phases('mcp_list_tools', ['in_progress'], ['completed']);
      break;
    case 'mcp_call':
      if (start) {
        added({ ...item, status: 'in_progress', arguments: '', output: null, error: null });
        emit(step.due, 'response.mcp_call.in_progress', base);
      }
      if (step.text) emit(step.due, 'response.mcp_call_arguments.delta', { ...base, delta: step.text });
      if (end) {
        emit(step.due, 'response.mcp_call_arguments.done', { ...base, arguments: item.arguments as string });
        emit(step.due, item.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', base);
      }
      break;
    case 'custom_tool_call':
      if (start) added({ ...item, input: '' });
      if (step.text) emit(step.due, 'response.custom_tool_call_input.delta', { ...base, delta: step.text });
      if (end) emit(step.due, 'response.custom_tool_call_input.done', { ...base, input: item.input as string });
      break;
    case 'shell_call':
      if (start) added({ ...item, status: 'in_progress', action: { ...(item.action as JsonObject), commands: [] } });
      if (end)
        ((item.action as JsonObject).commands as string[]).forEach((command, n) => {
          emit(step.due, 'response.shell_call_command.added', { output_index: index, command_index: n, command: '' });
          emit(step.due, 'response.shell_call_command.delta', { output_index: index, command_index: n, delta: command });
          emit(step.due, 'response.shell_call_command.done', { output_index: index, command_index: n, command });
        });
      break;
    default:
      // computer_call, local_shell_call, apply_patch_call, mcp_approval_request, tool search items: whole.
      if (start) added('status' in item ? { ...item, status: 'in_progress' } : item);
  }
  if (end) done();
}
