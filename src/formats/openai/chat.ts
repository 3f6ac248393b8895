// Canonical reply → OpenAI chat completion JSON and `chat.completion.chunk` stream events.
import type { CanonicalRequest } from '../../core/request.ts';
import type { CanonicalReply, Choice, Usage } from '../../core/reply.ts';
import { deriveKey, hashString, makeId } from '../../core/seed.ts';
import { memoize } from '../../core/memo.ts';
import { planStream } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { synthesizeLogprobs, type TokenLogprob } from '../../core/synthesize/logprobs.ts';
import { sseFrame, type TimedEvent } from '../../transport/sse.ts';
import type { ChatOptions } from './parse.ts';

const FINISH = { stop: 'stop', stop_sequence: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter' } as const;

export function usageBody(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** A stable `fp_…` per model, as OpenAI reports the backend configuration. */
export const systemFingerprint = memoize((model: string) => `fp_${hashString(model).toString(16).padStart(14, '0').slice(-10)}`, 200);

function textOf(choice: Choice): string {
  return choice.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

function logprobEntries(entries: TokenLogprob[]) {
  const bytes = (s: string) => [...new TextEncoder().encode(s)];
  return entries.map((e) => ({
    token: e.token,
    logprob: e.logprob,
    bytes: bytes(e.token),
    top_logprobs: e.alternatives.map((a) => ({ token: a.token, logprob: a.logprob, bytes: bytes(a.token) })),
  }));
}

function choiceLogprobs(reply: CanonicalReply, choice: Choice, options: ChatOptions): TokenLogprob[] | undefined {
  if (options.topLogprobs === undefined) return undefined;
  return synthesizeLogprobs(textOf(choice), options.topLogprobs, deriveKey(reply.key, `logprobs:${choice.index}`));
}

function header(reply: CanonicalReply, request: CanonicalRequest) {
  return {
    id: makeId('chatcmpl-', 29, reply.key),
    created: reply.created,
    model: request.model,
    service_tier: 'default',
    system_fingerprint: systemFingerprint(request.model),
  };
}

export function renderChat(reply: CanonicalReply, request: CanonicalRequest, options: ChatOptions) {
  const { id, created, model, service_tier, system_fingerprint } = header(reply, request);
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: reply.choices.map((choice) => {
      const logprobs = choiceLogprobs(reply, choice, options);
      return {
        index: choice.index,
        message: { role: 'assistant', content: textOf(choice), refusal: null, annotations: [] },
        logprobs: logprobs ? { content: logprobEntries(logprobs), refusal: null } : null,
        finish_reason: FINISH[choice.finishReason],
      };
    }),
    usage: usageBody(reply.usage),
    service_tier,
    system_fingerprint,
  };
}

/** The whole chunk stream, each event with its due time. */
export function chatStreamEvents(
  reply: CanonicalReply,
  request: CanonicalRequest,
  options: ChatOptions,
  latency: LatencyProfile,
): TimedEvent[] {
  const { id, created, model, service_tier, system_fingerprint } = header(reply, request);
  const base = { id, object: 'chat.completion.chunk', created, model, service_tier, system_fingerprint };
  // With include_usage, every chunk carries `usage: null` until the last one carries the figures.
  const usage = options.includeUsage ? { usage: null } : {};
  const chunk = (choices: unknown[], due: number): TimedEvent => ({
    due,
    frame: sseFrame(JSON.stringify({ ...base, choices, ...usage })),
  });
  const logprobs = reply.choices.map((c) => choiceLogprobs(reply, c, options));
  const events: TimedEvent[] = [];
  for (const step of planStream(reply, latency)) {
    const choice = reply.choices[step.choice];
    const lp = logprobs[step.choice];
    if (step.first) {
      events.push(chunk([{ index: step.choice, delta: { role: 'assistant', content: '', refusal: null }, logprobs: lp ? { content: [], refusal: null } : null, finish_reason: null }], step.due));
    }
    if (step.text) {
      const tokenLp = lp ? { content: logprobEntries(lp.slice(step.position, step.position + 1)), refusal: null } : null;
      events.push(chunk([{ index: step.choice, delta: { content: step.text }, logprobs: tokenLp, finish_reason: null }], step.due));
    }
    if (step.last) {
      events.push(chunk([{ index: step.choice, delta: {}, logprobs: null, finish_reason: FINISH[choice.finishReason] }], step.due));
    }
  }
  const end = events.length ? events[events.length - 1].due : 0;
  if (options.includeUsage) {
    events.push({
      due: end,
      frame: sseFrame(JSON.stringify({ ...base, choices: [], usage: usageBody(reply.usage) })),
    });
  }
  events.push({ due: end, frame: sseFrame('[DONE]') });
  return events;
}
