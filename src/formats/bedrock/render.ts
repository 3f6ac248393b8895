// Canonical reply → Bedrock's Converse JSON, and ConverseStream's events (framed by pipeline/framing.ts's eventStream):
// messageStart, a block's contentBlockStart (tool uses only), its contentBlockDelta events (each with
// exactly one member: text, toolUse.input or reasoningContent), contentBlockStop, messageStop, then
// metadata with the usage and metrics. No wrapper object: the event's name (the frame's `:event-type`) says which.
import type { CanonicalRequest } from '../../core/request.ts';
import type { Block, CanonicalReply, Choice, FinishReason, Usage } from '../../core/reply.ts';
import { planStream, replyDelay } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';

const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
  // The model declining in its own words ends its turn like any answer.
  refusal: 'end_turn',
};

/** Why the turn ended; an output a filter blocked is a guardrail's intervention when the request named one. */
const stopReason = (choice: Choice, guarded: boolean) =>
  choice.finishReason === 'content_filter' && guarded ? 'guardrail_intervened' : STOP[choice.finishReason];

/** Bedrock's id for a canonical tool call. */
const toolUseId = (id: string) => `tooluse_${id.slice(0, 22)}`;

/**
 * Usage as Converse reports it: `inputTokens` without what was read from or written to the cache,
 * which are counted apart (with the write's TTLs) when the request used cache points; the total is all of it.
 */
function converseUsage(usage: Usage, request: Pick<CanonicalRequest, 'cache'>) {
  const read = usage.cachedInputTokens;
  const written = usage.cacheCreationInputTokens ?? 0;
  const hour = usage.cacheCreation1hInputTokens ?? 0;
  const input = Math.max(0, usage.inputTokens - read - written);
  const cached = request.cache !== undefined || read > 0 || written > 0;
  const details = [
    ...(written - hour > 0 ? [{ ttl: '5m', inputTokens: written - hour }] : []),
    ...(hour > 0 ? [{ ttl: '1h', inputTokens: hour }] : []),
  ];
  return {
    inputTokens: input,
    outputTokens: usage.outputTokens,
    totalTokens: input + read + written + usage.outputTokens,
    ...(cached ? { cacheReadInputTokens: read, cacheWriteInputTokens: written } : {}),
    ...(details.length ? { cacheDetails: details } : {}),
  };
}

/** A block as Converse content, or undefined for one it does not carry (pictures). */
function contentBlock(block: Block): Record<string, unknown> | undefined {
  switch (block.type) {
    case 'text':
    case 'refusal':
      return { text: block.text };
    case 'thinking':
      return { reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } };
    case 'tool_call':
      return { toolUse: { toolUseId: toolUseId(block.id), name: block.name, input: JSON.parse(block.arguments || '{}') as unknown } };
    case 'audio':
      return { text: block.transcript };
    case 'image':
      return undefined;
  }
}

/** How long the reply took to make, as Converse's metrics report it: until its last piece. */
const latencyMs = (reply: CanonicalReply, latency: LatencyProfile) => Math.round(replyDelay(reply, latency));

/** The Converse response: the assistant's message, why it stopped, usage and metrics. */
export function renderConverse(reply: CanonicalReply, request: CanonicalRequest, latency: LatencyProfile, guarded: boolean) {
  const choice = reply.choices[0];
  const content = choice.blocks.map(contentBlock).filter((b) => b !== undefined);
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: stopReason(choice, guarded),
    usage: converseUsage(reply.usage, request),
    metrics: { latencyMs: latencyMs(reply, latency) },
  };
}

/** ConverseStream's events, each made as it is pulled. */
export function* converseStreamEvents(
  reply: CanonicalReply,
  request: CanonicalRequest,
  latency: LatencyProfile,
  guarded: boolean,
): Generator<StreamEvent> {
  const choice = reply.choices[0];
  // Content indexes count only the blocks Converse carries.
  const indexes: number[] = [];
  let carried = 0;
  for (const block of choice.blocks) indexes.push(contentBlock(block) ? carried++ : -1);
  const event = (due: number, type: string, payload: unknown): StreamEvent => ({ due, event: type, data: JSON.stringify(payload) });
  const steps = planStream(reply, latency);
  for (const step of steps) {
    if (step.first) yield event(step.due, 'messageStart', { role: 'assistant' });
    const block = choice.blocks[step.block];
    const contentBlockIndex = indexes[step.block] ?? -1;
    if (block && contentBlockIndex >= 0) {
      if (step.blockStart && block.type === 'tool_call')
        yield event(step.due, 'contentBlockStart', {
          start: { toolUse: { toolUseId: toolUseId(block.id), name: block.name } },
          contentBlockIndex,
        });
      const text = block.type === 'audio' && step.blockStart ? block.transcript : step.text;
      if (text) {
        const delta =
          block.type === 'tool_call' ? { toolUse: { input: text } } : block.type === 'thinking' ? { reasoningContent: { text } } : { text };
        yield event(step.due, 'contentBlockDelta', { delta, contentBlockIndex });
      }
      if (step.blockEnd) {
        if (block.type === 'thinking')
          yield event(step.due, 'contentBlockDelta', { delta: { reasoningContent: { signature: block.signature } }, contentBlockIndex });
        yield event(step.due, 'contentBlockStop', { contentBlockIndex });
      }
    }
    if (step.last) {
      yield event(step.due, 'messageStop', { stopReason: stopReason(choice, guarded) });
      yield event(step.due, 'metadata', { usage: converseUsage(reply.usage, request), metrics: { latencyMs: Math.round(step.due) } });
    }
  }
}
