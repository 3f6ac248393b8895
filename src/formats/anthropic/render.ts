// Canonical reply → Anthropic Message JSON and its event stream.
import type { CanonicalRequest } from '../../core/request.ts';
import type { Block, CanonicalReply, Choice, FinishReason, Usage } from '../../core/reply.ts';
import { makeId } from '../../core/seed.ts';
import { planSteps, type StreamStep } from '../../core/plan.ts';
import { messageContainer, renderedBlocks, serverToolUsage, textSegments, type Rendered } from './tool-blocks.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';

const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  // The classifiers' refusal: output blocked, or the model declining (its words stay as text).
  content_filter: 'refusal',
  refusal: 'refusal',
};

/** Every stop reason a message can end with: the canonical ones' and those only a fixture names (`vendorFinishReason`). */
export const STOP_REASONS = [...new Set(Object.values(STOP)), 'pause_turn', 'model_context_window_exceeded'];

/** Every event a message stream sends (`ping` besides the SDK's RawMessageStreamEvent members; `npm run currency` checks the union against this). */
export const STREAM_EVENTS = [
  'message_start',
  'ping',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
] as const;
type StreamEventType = (typeof STREAM_EVENTS)[number];

/** The choice's stop reason: a fixture's own when it is one of Anthropic's, else its canonical one's. */
const stopReason = (choice: Choice) =>
  choice.vendorFinishReason !== undefined && STOP_REASONS.includes(choice.vendorFinishReason)
    ? choice.vendorFinishReason
    : STOP[choice.finishReason];

/** Usage as Anthropic reports it: `input_tokens` without what was read from or written to the cache. `started`: message_start's, before any output. */
function usageBody(usage: Usage, started = false) {
  const written = usage.cacheCreationInputTokens ?? 0;
  const long = usage.cacheCreation1hInputTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: usage.cachedInputTokens,
    cache_creation: { ephemeral_5m_input_tokens: written - long, ephemeral_1h_input_tokens: long },
    output_tokens: started ? 1 : usage.outputTokens,
    output_tokens_details: !started && usage.reasoningTokens ? { thinking_tokens: usage.reasoningTokens } : null,
    server_tool_use: started ? null : serverToolUsage(usage),
    inference_geo: null,
    service_tier: 'standard',
  };
}

function messageHead(reply: CanonicalReply, request: CanonicalRequest) {
  return { id: makeId('msg_01', 22, reply.key), type: 'message', role: 'assistant', model: request.model };
}

export function renderMessage(reply: CanonicalReply, request: CanonicalRequest) {
  const choice = reply.choices[0];
  return {
    ...messageHead(reply, request),
    content: renderedBlocks(reply, request).flatMap((r) => r.blocks),
    stop_reason: stopReason(choice),
    stop_sequence: choice.stopSequence ?? null,
    stop_details: null,
    container: messageContainer(reply),
    usage: usageBody(reply.usage),
  };
}

/** The event stream: message_start, a ping, each block's start/deltas/stop, message_delta, message_stop; made as it is written. */
export function* messageStreamEvents(reply: CanonicalReply, request: CanonicalRequest, latency: LatencyProfile): Generator<StreamEvent> {
  const choice = reply.choices[0];
  const events: StreamEvent[] = [];
  const emit = (due: number, type: StreamEventType, data: Record<string, unknown>) =>
    events.push({ due, data: JSON.stringify({ type, ...data }), event: type });
  const rendered = renderedBlocks(reply, request);
  // Each canonical block's first content index (a server tool is two blocks, a cited text several).
  const first: number[] = [];
  rendered.reduce((n, r, b) => ((first[b] = n), n + r.blocks.length), 0);
  for (const step of planSteps(reply, latency)) {
    if (step.first) {
      const start = {
        ...messageHead(reply, request),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: usageBody(reply.usage, true),
      };
      emit(step.due, 'message_start', { message: start });
      emit(step.due, 'ping', {});
    }
    const block = choice.blocks[step.block];
    const shown = rendered[step.block];
    // A block another vendor's tool made (an MCP listing) renders to nothing here.
    if (block && shown?.blocks.length) blockEvents(emit, step, block, shown, first[step.block]);
    if (step.last) {
      emit(step.due, 'message_delta', {
        delta: {
          stop_reason: stopReason(choice),
          stop_sequence: choice.stopSequence ?? null,
          stop_details: null,
          container: messageContainer(reply),
        },
        usage: usageBody(reply.usage),
      });
      emit(step.due, 'message_stop', {});
    }
    for (let i = 0; i < events.length; i++) yield events[i];
    events.length = 0;
  }
}

type Emit = (due: number, type: StreamEventType, data: Record<string, unknown>) => void;

const EMPTY_THINKING = { type: 'thinking', thinking: '', signature: '' };

/** A use of a tool (its input streams as JSON deltas). */
const isUse = (block: Record<string, unknown>) =>
  block.type === 'tool_use' || block.type === 'server_tool_use' || block.type === 'mcp_tool_use';

/** A block as its content_block_start shows it: a use with an empty input (and its caller), anything else whole. */
const opened = (block: Record<string, unknown>) =>
  isUse(block) ? { ...block, input: {}, ...(block.type === 'mcp_tool_use' ? {} : { caller: { type: 'direct' } }) } : block;

const inputDelta = (emit: Emit, due: number, index: number, use: Record<string, unknown>) =>
  emit(due, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } });

/**
 * One step of a canonical block as content block events: text as text deltas (a cited span is a block
 * of its own, its citation sent first), a call's input as JSON deltas (a built-in tool's whole, at its
 * end), a server tool's use then its result block whole, thinking and its signature.
 */
function blockEvents(emit: Emit, step: StreamStep, block: Block, shown: Rendered, index: number): void {
  const { due } = step;
  if (block.type === 'text') {
    const segments = textSegments(block);
    const state = (shown.stream ??= { offset: 0, opened: 0 });
    const stop = (k: number) => emit(due, 'content_block_stop', { index: index + k });
    const openNext = () => {
      const k = state.opened++;
      if (k > 0) stop(k - 1);
      const cited = (shown.blocks[k] as { citations: unknown[] | null }).citations;
      emit(due, 'content_block_start', { index: index + k, content_block: { type: 'text', text: '', citations: cited ? [] : null } });
      for (const citation of cited ?? [])
        emit(due, 'content_block_delta', { index: index + k, delta: { type: 'citations_delta', citation } });
    };
    if (step.blockStart && state.opened === 0) openNext();
    const base = state.offset;
    const end = base + step.text.length;
    for (let at = base; at < end; ) {
      const k = state.opened - 1;
      if (at >= segments[k].end && k < segments.length - 1) {
        openNext();
        continue;
      }
      const to = k === segments.length - 1 ? end : Math.min(end, segments[k].end);
      emit(due, 'content_block_delta', { index: index + k, delta: { type: 'text_delta', text: step.text.slice(at - base, to - base) } });
      at = to;
    }
    state.offset = end;
    if (step.blockEnd) {
      while (state.opened < segments.length) openNext();
      stop(state.opened - 1);
    }
    return;
  }
  const head = shown.blocks[0] as Record<string, unknown>;
  if (step.blockStart)
    emit(due, 'content_block_start', { index, content_block: block.type === 'thinking' ? EMPTY_THINKING : opened(head) });
  if (step.text) {
    if (block.type === 'thinking') emit(due, 'content_block_delta', { index, delta: { type: 'thinking_delta', thinking: step.text } });
    else if (block.type === 'tool_call' && !block.builtin)
      emit(due, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: step.text } });
  }
  if (!step.blockEnd) return;
  if (block.type === 'thinking')
    emit(due, 'content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
  // A built-in tool's input (a server tool's, a client tool's in its schema's shape) comes as one delta.
  if (isUse(head) && (block.type !== 'tool_call' || block.builtin)) inputDelta(emit, due, index, head);
  emit(due, 'content_block_stop', { index });
  // What follows a server tool's use: its result, whole; a further use (a file written, then run) as the first.
  shown.blocks.slice(1).forEach((next, k) => {
    const at = index + 1 + k;
    emit(due, 'content_block_start', { index: at, content_block: opened(next) });
    if (isUse(next)) inputDelta(emit, due, at, next);
    emit(due, 'content_block_stop', { index: at });
  });
}
