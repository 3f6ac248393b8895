// Canonical reply → Anthropic Message JSON and its event stream.
import type { CanonicalRequest } from '../../core/request.ts';
import type { Block, CanonicalReply, FinishReason, Usage } from '../../core/reply.ts';
import { makeId } from '../../core/seed.ts';
import { planSteps } from '../../core/plan.ts';
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

/** Anthropic's id for a canonical tool call. */
const toolUseId = (id: string) => `toolu_01${id.slice(0, 22)}`;

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
    server_tool_use: null,
    inference_geo: null,
    service_tier: 'standard',
  };
}

function contentBlock(block: Block) {
  if (block.type === 'thinking') return { type: 'thinking', thinking: block.text, signature: block.signature };
  if (block.type === 'tool_call')
    return { type: 'tool_use', id: toolUseId(block.id), name: block.name, input: JSON.parse(block.arguments || '{}') as unknown };
  // Messages carry no audio: a spoken block is shown by its transcript.
  return {
    type: 'text',
    text: block.type === 'text' || block.type === 'refusal' ? block.text : block.type === 'audio' ? block.transcript : '',
    citations: null,
  };
}

function messageHead(reply: CanonicalReply, request: CanonicalRequest) {
  return { id: makeId('msg_01', 22, reply.key), type: 'message', role: 'assistant', model: request.model };
}

export function renderMessage(reply: CanonicalReply, request: CanonicalRequest) {
  const choice = reply.choices[0];
  return {
    ...messageHead(reply, request),
    content: choice.blocks.map(contentBlock),
    stop_reason: STOP[choice.finishReason],
    stop_sequence: choice.stopSequence ?? null,
    stop_details: null,
    container: null,
    usage: usageBody(reply.usage),
  };
}

/** The event stream: message_start, a ping, each block's start/deltas/stop, message_delta, message_stop; made as it is written. */
export function* messageStreamEvents(reply: CanonicalReply, request: CanonicalRequest, latency: LatencyProfile): Generator<StreamEvent> {
  const choice = reply.choices[0];
  const events: StreamEvent[] = [];
  const emit = (due: number, type: string, data: Record<string, unknown>) =>
    events.push({ due, data: JSON.stringify({ type, ...data }), event: type });
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
    const index = step.block;
    if (block && step.blockStart) {
      const empty =
        block.type === 'tool_call'
          ? { type: 'tool_use', id: toolUseId(block.id), name: block.name, input: {}, caller: { type: 'direct' } }
          : block.type === 'thinking'
            ? { type: 'thinking', thinking: '', signature: '' }
            : { type: 'text', text: '', citations: null };
      emit(step.due, 'content_block_start', { index, content_block: empty });
    }
    if (block && step.text) {
      const delta =
        block.type === 'tool_call'
          ? { type: 'input_json_delta', partial_json: step.text }
          : block.type === 'thinking'
            ? { type: 'thinking_delta', thinking: step.text }
            : { type: 'text_delta', text: step.text };
      emit(step.due, 'content_block_delta', { index, delta });
    }
    if (block && step.blockEnd) {
      if (block.type === 'thinking')
        emit(step.due, 'content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
      emit(step.due, 'content_block_stop', { index });
    }
    if (step.last) {
      emit(step.due, 'message_delta', {
        delta: { stop_reason: STOP[choice.finishReason], stop_sequence: choice.stopSequence ?? null, stop_details: null, container: null },
        usage: usageBody(reply.usage),
      });
      emit(step.due, 'message_stop', {});
    }
    for (let i = 0; i < events.length; i++) yield events[i];
    events.length = 0;
  }
}
