// Legacy completions (/v1/completions): prompts → canonical requests (one per prompt), replies →
// `text_completion` objects and chunks, with echo and legacy logprobs.
import type { CanonicalRequest } from '../../core/request.ts';
import { choiceText, type CanonicalReply, type Choice } from '../../core/reply.ts';
import { deriveKey, makeId } from '../../core/seed.ts';
import { countTokens } from '../../core/tokens.ts';
import { planSteps } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { chargeLogprobs, LogprobCount, logprobSteps, synthesizeLogprobs } from '../../core/synthesize/logprobs.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import { FINISH, refuseBlockedPrompt, systemFingerprint, usageBody } from './chat.ts';
import { parseStop } from './parse.ts';
import { checkFields, invalid, invalidType } from './validate.ts';
import { tokenIdsText } from './validate.ts';
import { type FieldRules, type JsonObject, optional } from '../fields.ts';

const FIELDS = {
  model: { types: ['string'], required: true },
  prompt: { types: ['string', 'array'], required: true },
  best_of: { types: ['integer'], nullable: true, min: 0, max: 20 },
  echo: optional('boolean'),
  frequency_penalty: { types: ['number'], nullable: true, min: -2, max: 2 },
  logit_bias: optional('object'),
  logprobs: { types: ['integer'], nullable: true, min: 0, max: 5 },
  max_tokens: { types: ['integer'], nullable: true, min: 0 },
  n: { types: ['integer'], nullable: true, min: 1, max: 128 },
  presence_penalty: { types: ['number'], nullable: true, min: -2, max: 2 },
  seed: optional('integer'),
  stop: optional('string', 'array'),
  stream: optional('boolean'),
  stream_options: optional('object'),
  suffix: optional('string'),
  temperature: { types: ['number'], nullable: true, min: 0, max: 2 },
  top_p: { types: ['number'], nullable: true, min: 0, max: 1 },
  user: { types: ['string'] },
} as const satisfies FieldRules;

interface Prompt {
  text: string;
  /** Prompt tokens: the ids sent, or the text's count. */
  tokens: number;
}

const fromText = (text: string): Prompt => ({ text, tokens: countTokens(text) });
const fromIds = (param: string, ids: unknown[]): Prompt => ({ text: tokenIdsText(param, ids), tokens: ids.length });

/** The prompt in any of its four shapes. */
function prompts(list: string | unknown[]): Prompt[] {
  if (typeof list === 'string') return [fromText(list)];
  if (!list.length)
    throw invalid(
      'prompt',
      "Invalid 'prompt': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'empty_array',
    );
  if (list.every((p) => typeof p === 'number')) return [fromIds('prompt', list)];
  return list.map((p, i) => {
    if (typeof p === 'string') return fromText(p);
    if (Array.isArray(p)) return fromIds(`prompt[${i}]`, p);
    throw invalidType(`prompt[${i}]`, ['string', 'array'], p);
  });
}

interface CompletionCall {
  prompts: Prompt[];
  requests: CanonicalRequest[];
  echo: boolean;
  logprobs?: number;
  includeUsage: boolean;
  n: number;
}

export function parseCompletionRequest(body: JsonObject): CompletionCall {
  checkFields(body, FIELDS);
  const given = prompts(body.prompt);
  const choices = given.length * (body.n ?? 1);
  if (given.length > 2048)
    throw invalid(
      'prompt',
      `Invalid 'prompt': array too long. Expected an array with maximum length 2048, but got an array with length ${given.length} instead.`,
      'array_above_max_length',
    );
  if (choices > 2048)
    throw invalid('n', `Invalid 'n': ${given.length} prompts × n = ${choices} choices; at most 2048 choices per request.`);
  const stream = body.stream === true;
  const n = body.n ?? 1;
  const bestOf = body.best_of;
  if (bestOf != null && bestOf < n) throw invalid('best_of', `best_of must be greater than or equal to n (got best_of=${bestOf}, n=${n}).`);
  if (bestOf != null && bestOf > 1 && stream)
    throw invalid('best_of', "Invalid 'best_of': cannot be used when streaming ('stream': true).", undefined);
  if (body.stream_options != null && !stream)
    throw invalid('stream_options', "The 'stream_options' parameter is only allowed when 'stream' is enabled.", undefined);
  const stop = parseStop(body.stop);
  const requests = given.map(
    ({ text }): CanonicalRequest => ({
      format: 'openai',
      operation: 'chat',
      model: body.model,
      messages: [{ role: 'user', parts: [{ type: 'text', text }] }],
      // OpenAI's default for legacy completions.
      maxTokens: body.max_tokens ?? 16,
      stop,
      n,
      seed: body.seed ?? undefined,
      stream,
      tools: [],
      toolChoice: 'none',
      parallelToolCalls: false,
      output: { type: 'text' },
    }),
  );
  return {
    prompts: given,
    requests,
    echo: body.echo === true,
    logprobs: body.logprobs ?? undefined,
    includeUsage: body.stream_options?.include_usage === true,
    n,
  };
}

/** The replies of all prompts as one: choices ordered prompt × n, usage summed. */
export function combine(replies: CanonicalReply[], call: CompletionCall): CanonicalReply {
  const choices: Choice[] = replies.flatMap((r, p) =>
    r.choices.map((c) => {
      const text = choiceText(c);
      // Echo puts the prompt in front of each choice's text (usage still counts only the completion).
      return {
        ...c,
        index: p * call.n + c.index,
        blocks: [{ type: 'text' as const, text: call.echo ? call.prompts[p].text + text : text }],
      };
    }),
  );
  // A legacy prompt is raw text: its tokens, without the chat framing.
  const usage = {
    inputTokens: call.prompts.reduce((n, p) => n + p.tokens, 0),
    outputTokens: replies.reduce((n, r) => n + r.usage.outputTokens, 0),
    cachedInputTokens: 0,
    reasoningTokens: replies.reduce((n, r) => n + r.usage.reasoningTokens, 0),
  };
  // A blocked prompt blocks the request, as on chat completions (rendering refuses it).
  const promptBlocked = replies.some((r) => r.promptBlocked);
  return {
    key: replies[0].key,
    created: replies[0].created,
    choices,
    usage,
    fixture: replies[0].fixture,
    ...(promptBlocked && { promptBlocked }),
  };
}

function legacyLogprobs(reply: CanonicalReply, choice: Choice, top: number, count: LogprobCount) {
  const entries = synthesizeLogprobs(choiceText(choice), Math.max(top, 1), deriveKey(reply.key, `logprobs:${choice.index}`), count);
  let offset = 0;
  const text_offset = entries.map((e) => {
    const at = offset;
    offset += e.token.length;
    return at;
  });
  return {
    tokens: entries.map((e) => e.token),
    token_logprobs: entries.map((e) => e.logprob),
    top_logprobs: entries.map((e) => Object.fromEntries(e.alternatives.slice(0, top).map((a) => [a.token, a.logprob]))),
    text_offset,
  };
}

function head(reply: CanonicalReply, model: string) {
  return {
    id: makeId('cmpl-', 29, reply.key),
    object: 'text_completion',
    created: reply.created,
    model,
    system_fingerprint: systemFingerprint(model),
  };
}

export function renderCompletion(reply: CanonicalReply, call: CompletionCall, model: string) {
  refuseBlockedPrompt(reply);
  const count = new LogprobCount();
  return {
    ...head(reply, model),
    choices: reply.choices.map((c) => ({
      text: choiceText(c),
      index: c.index,
      logprobs: call.logprobs === undefined ? null : legacyLogprobs(reply, c, call.logprobs, count),
      finish_reason: FINISH[c.finishReason],
    })),
    usage: usageBody(reply.usage),
  };
}

/** A choice's legacy log probabilities a token at a time, by position (positions only grow): what legacyLogprobs lists at each. */
function legacyCursor(reply: CanonicalReply, choice: Choice, top: number) {
  const entries = logprobSteps(choiceText(choice), Math.max(top, 1), deriveKey(reply.key, `logprobs:${choice.index}`));
  let position = -1;
  let offset = 0;
  let entry: ReturnType<typeof entries.next> | undefined;
  return (at: number) => {
    while (position < at) {
      if (entry && !entry.done) offset += entry.value.token.length;
      entry = entries.next();
      position++;
    }
    if (!entry || entry.done) return { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
    const e = entry.value;
    return {
      tokens: [e.token],
      token_logprobs: [e.logprob],
      top_logprobs: [Object.fromEntries(e.alternatives.slice(0, top).map((a) => [a.token, a.logprob]))],
      text_offset: [offset],
    };
  };
}

/** The chunk stream, made as it is written (a refused prompt and too many log probabilities are refused first). */
export function completionStreamEvents(
  reply: CanonicalReply,
  call: CompletionCall,
  model: string,
  latency: LatencyProfile,
): Iterable<StreamEvent> {
  refuseBlockedPrompt(reply);
  const top = call.logprobs;
  if (top !== undefined) {
    const count = new LogprobCount();
    for (const c of reply.choices) chargeLogprobs(choiceText(c), Math.max(top, 1), count);
  }
  return completionEvents(reply, call, model, latency);
}

function* completionEvents(reply: CanonicalReply, call: CompletionCall, model: string, latency: LatencyProfile): Generator<StreamEvent> {
  const base = head(reply, model);
  const top = call.logprobs;
  const lps = reply.choices.map((c) => (top === undefined ? undefined : legacyCursor(reply, c, top)));
  const chunk = (due: number, choice: unknown): StreamEvent => ({ due, data: JSON.stringify({ ...base, choices: [choice] }) });
  let end = 0;
  for (const step of planSteps(reply, latency)) {
    const choice = reply.choices[step.choice];
    const lp = lps[step.choice];
    if (step.text)
      yield chunk(step.due, { text: step.text, index: choice.index, logprobs: lp?.(step.position) ?? null, finish_reason: null });
    if (step.last) yield chunk(step.due, { text: '', index: choice.index, logprobs: null, finish_reason: FINISH[choice.finishReason] });
    if (step.text || step.last) end = step.due;
  }
  if (call.includeUsage) yield { due: end, data: JSON.stringify({ ...base, choices: [], usage: usageBody(reply.usage) }) };
  yield { due: end, data: '[DONE]' };
}
