// Canonical reply → OpenAI chat completion JSON and `chat.completion.chunk` stream events.
import { GatewayError } from '../../core/errors.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { choiceText, searchCitations, type Block, type CanonicalReply, type Choice, type Usage } from '../../core/reply.ts';
import { deriveKey, hashString, makeId } from '../../core/seed.ts';
import { memoize } from '../../core/memo.ts';
import { planSteps, type StreamStep } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { chargeLogprobs, LogprobCount, logprobSteps, type TokenLogprob } from '../../core/synthesize/logprobs.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import { LazyArray } from '../../pipeline/pieces.ts';
import { mayBeBig } from '../../pipeline/exchange.ts';
import type { ChatOptions } from './parse.ts';

/** OpenAI's finish reasons for the canonical ones. */
export const FINISH = {
  stop: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'stop',
} as const;

/** A prompt the safety filter blocked is OpenAI's 400 `invalid_prompt`: nothing is generated. */
export function refuseBlockedPrompt(reply: CanonicalReply): void {
  if (!reply.promptBlocked) return;
  throw new GatewayError(
    'invalid_request',
    'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.',
    { code: 'invalid_prompt' },
  );
}

/** The refusal's words, if the model refused. */
const refusalOf = (choice: Choice): string | null => choice.blocks.find((b) => b.type === 'refusal')?.text ?? null;

function finishReason(choice: Choice, options: ChatOptions): string {
  return options.legacyFunctions && choice.finishReason === 'tool_calls' ? 'function_call' : FINISH[choice.finishReason];
}

/** The web pages a choice's text cites, as chat completions annotate them (offsets into the whole content). */
function urlCitations(choice: Choice) {
  let offset = 0;
  const out: { type: 'url_citation'; url_citation: { start_index: number; end_index: number; title: string; url: string } }[] = [];
  for (const block of choice.blocks) {
    if (block.type !== 'text') continue;
    for (const c of searchCitations(block.citations)) {
      const source = choice.blocks[c.block];
      const result = source?.type === 'server_tool' && source.use.kind === 'web_search' ? source.use.results[c.result] : undefined;
      if (result)
        out.push({
          type: 'url_citation',
          url_citation: { start_index: offset + c.start, end_index: offset + c.end, title: result.title, url: result.url },
        });
    }
    offset += block.text.length;
  }
  return out;
}

/** OpenAI's id for a canonical tool call. */
export const callId = (id: string) => `call_${id}`;

type ToolCallBlock = Extract<Block, { type: 'tool_call' }>;

function toolCallsOf(choice: Choice): ToolCallBlock[] {
  return choice.blocks.filter((b): b is ToolCallBlock => b.type === 'tool_call');
}

export function usageBody(usage: Usage) {
  // A fixture's usage may pin a smaller prompt: the parts never sum past it.
  const image = Math.min(usage.imageInputTokens ?? 0, usage.inputTokens);
  const audio = Math.min(usage.audioInputTokens ?? 0, usage.inputTokens - image);
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    // The gateway's shape: each side split by modality, the parts summing to the side's total
    // (prompts are text here; reasoning is part of the completion but not of its text).
    prompt_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      text_tokens: usage.inputTokens - image - audio,
      audio_tokens: audio,
      image_tokens: image,
    },
    completion_tokens_details: {
      text_tokens: Math.max(0, usage.outputTokens - usage.reasoningTokens),
      reasoning_tokens: usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** A stable `fp_…` per model, as OpenAI reports the backend configuration. */
export const systemFingerprint = memoize((model: string) => `fp_${hashString(model).toString(16).padStart(14, '0').slice(-10)}`, 200);

const encoder = new TextEncoder();
/** A token's UTF-8 bytes as the API lists them; the same few tokens come back in every entry's alternatives. */
const tokenBytes = memoize((token: string) => [...encoder.encode(token)], {
  entries: 4096,
  sizeOf: (token) => 64 + token.length * 34,
});

/** One `logprobs.content` entry as the API writes it. */
function logprobEntry(e: TokenLogprob) {
  return {
    token: e.token,
    logprob: e.logprob,
    bytes: tokenBytes(e.token),
    top_logprobs: e.alternatives.map((a) => ({ token: a.token, logprob: a.logprob, bytes: tokenBytes(a.token) })),
  };
}

/**
 * Each choice's log probabilities, made as they are taken (undefined without `logprobs`): every
 * choice's entries are counted first (the request's 400 past the limit comes before any is made).
 */
function choiceLogprobs(reply: CanonicalReply, options: ChatOptions): ((choice: Choice) => Generator<TokenLogprob>) | undefined {
  const top = options.topLogprobs;
  if (top === undefined) return undefined;
  const count = new LogprobCount();
  for (const choice of reply.choices) chargeLogprobs(choiceText(choice), top, count);
  return (choice) => logprobSteps(choiceText(choice), top, deriveKey(reply.key, `logprobs:${choice.index}`));
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

/**
 * The chat completion. With `lazy`, log probabilities are made as the reply is written (a LazyArray
 * each, the reply marked mayBeBig): `n` = 128 at top_logprobs 20 is 9 MB, made a piece at a time.
 */
export function renderChat(reply: CanonicalReply, request: CanonicalRequest, options: ChatOptions, lazy = false) {
  refuseBlockedPrompt(reply);
  const { id, created, model, service_tier, system_fingerprint } = header(reply, request);
  const entriesOf = choiceLogprobs(reply, options);
  const body = {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: reply.choices.map((choice) => {
      const steps = entriesOf && (() => entriesOf(choice));
      const content = steps && (lazy ? new LazyArray(() => mapped(steps(), logprobEntry)) : [...mapped(steps(), logprobEntry)]);
      const calls = toolCallsOf(choice);
      const hasText = choice.blocks.some((b) => b.type === 'text');
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: hasText ? choiceText(choice) : null,
        refusal: refusalOf(choice),
        annotations: urlCitations(choice),
      };
      if (calls.length && options.legacyFunctions) message.function_call = { name: calls[0].name, arguments: calls[0].arguments };
      else if (calls.length) {
        message.tool_calls = calls.map((c) =>
          c.builtin === 'custom'
            ? { id: callId(c.id), type: 'custom', custom: { name: c.name, input: c.arguments } }
            : { id: callId(c.id), type: 'function', function: { name: c.name, arguments: c.arguments } },
        );
      }
      return {
        index: choice.index,
        message,
        logprobs: content ? { content, refusal: null } : null,
        finish_reason: finishReason(choice, options),
      };
    }),
    usage: usageBody(reply.usage),
    service_tier,
    system_fingerprint,
  };
  return lazy && entriesOf ? mayBeBig(body) : body;
}

function* mapped<T, R>(items: Iterable<T>, fn: (item: T) => R): Generator<R> {
  for (const item of items) yield fn(item);
}

/**
 * The chunk stream, each event with its due time, made as it is written: a refused prompt and too
 * many log probabilities are refused here, before the stream starts.
 */
export function chatStreamEvents(
  reply: CanonicalReply,
  request: CanonicalRequest,
  options: ChatOptions,
  latency: LatencyProfile,
): Iterable<StreamEvent> {
  refuseBlockedPrompt(reply);
  return chatEvents(reply, request, options, latency, choiceLogprobs(reply, options));
}

function* chatEvents(
  reply: CanonicalReply,
  request: CanonicalRequest,
  options: ChatOptions,
  latency: LatencyProfile,
  entriesOf: ((choice: Choice) => Generator<TokenLogprob>) | undefined,
): Generator<StreamEvent> {
  const { id, created, model, service_tier, system_fingerprint } = header(reply, request);
  const base = { id, object: 'chat.completion.chunk', created, model, service_tier, system_fingerprint };
  // Every chunk is `{...base, choices, ...usage}`: the JSON around `choices` is the same in each, so it
  // is rendered once (same bytes as stringifying each whole). With include_usage, every chunk carries
  // `usage: null` until the last one carries the figures.
  const head = `${JSON.stringify(base).slice(0, -1)},"choices":`;
  const tail = options.includeUsage ? ',"usage":null}' : '}';
  // Each choice's log probabilities, made a token at a time as its text pieces go out.
  const logprobs = reply.choices.map((c) => entriesOf?.(c));
  // The last step's time: usage and [DONE] go with it.
  let end = 0;
  const delta = (step: StreamStep, d: Record<string, unknown>, finish: string | null = null, logprob: unknown = null): StreamEvent => ({
    due: step.due,
    data: head + JSON.stringify([{ index: step.choice, delta: d, logprobs: logprob, finish_reason: finish }]) + tail,
  });
  for (const step of planSteps(reply, latency)) {
    end = step.due;
    const choice = reply.choices[step.choice];
    const lp = logprobs[step.choice];
    const block = choice.blocks[step.block];
    if (step.first) {
      const content = block?.type === 'tool_call' || block?.type === 'refusal' ? null : '';
      yield delta(
        step,
        { role: 'assistant', content, refusal: block?.type === 'refusal' ? '' : null },
        null,
        lp ? { content: [], refusal: null } : null,
      );
    }
    if (block?.type === 'refusal' && step.text) yield delta(step, { refusal: step.text });
    if (block?.type === 'tool_call') {
      const call = toolCallsOf(choice).indexOf(block);
      if (options.legacyFunctions) {
        if (step.blockStart) yield delta(step, { function_call: { name: block.name, arguments: '' } });
        yield delta(step, { function_call: { arguments: step.text } });
      } else {
        // The SDKs reassemble calls by index: the first delta names the call, the rest carry arguments
        // (a custom tool's, its input).
        const custom = block.builtin === 'custom';
        if (step.blockStart)
          yield delta(step, {
            tool_calls: [
              custom
                ? { index: call, id: callId(block.id), type: 'custom', custom: { name: block.name, input: '' } }
                : { index: call, id: callId(block.id), type: 'function', function: { name: block.name, arguments: '' } },
            ],
          });
        yield delta(step, {
          tool_calls: [custom ? { index: call, custom: { input: step.text } } : { index: call, function: { arguments: step.text } }],
        });
      }
    } else if (block?.type === 'text' && step.text) {
      // Logprobs follow the text's own pieces (reasoning and tool calls have none here): the next entry each.
      if (lp) {
        const entry = lp.next();
        yield delta(step, { content: step.text }, null, { content: entry.done ? [] : [logprobEntry(entry.value)], refusal: null });
      }
      // The commonest chunk by far, written as the JSON stringify would write it.
      else
        yield {
          due: step.due,
          data: `${head}[{"index":${step.choice},"delta":{"content":${JSON.stringify(step.text)}},"logprobs":null,"finish_reason":null}]${tail}`,
        };
    }
    if (step.last) {
      // A search model's citations come in a delta of their own, once the text is out.
      const cited = urlCitations(choice);
      if (cited.length) yield delta(step, { annotations: cited });
      yield delta(step, {}, finishReason(choice, options));
    }
  }
  if (options.includeUsage) yield { due: end, data: JSON.stringify({ ...base, choices: [], usage: usageBody(reply.usage) }) };
  yield { due: end, data: '[DONE]' };
}
