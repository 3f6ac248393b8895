// Turns a canonical request (and the fixture that matched it, if any) into a canonical reply.
import { textOf, type CanonicalRequest } from './request.ts';
import type { Block, CanonicalReply, Choice, Citation, FinishReason, Usage } from './reply.ts';
import { deriveKey, hashStrings, makeId, Rng, stableStringify } from './seed.ts';
import { countTokens, PART_TOKENS, promptPrefixTokens, truncateTokens } from './tokens.ts';
import { reasoningTokens } from './reasoning.ts';
import { DEFAULT_CACHE_MIN_TOKENS, type PromptCache } from './cache.ts';
import type { Owner } from './stores.ts';
import type { ModelInfo } from './models.ts';
import { synthesizeText, synthesizeThinking } from './synthesize/text.ts';
import { Budget, synthesizeJson } from './synthesize/json.ts';
import { PromptValues } from './synthesize/prompt-values.ts';
import { answeredApproval, chooseTools, toolNameFor } from './tools.ts';
import {
  approvedCall,
  builtinUse,
  citationsOf,
  toolAnswer,
  toolForPin,
  toolSearchUse,
  synthesizeFileSearch,
  type BuiltinContext,
  type FileSearcher,
} from './synthesize/builtin.ts';
import {
  AUDIO_TOKENS_PER_SECOND,
  durationOf,
  pcmFromBase64,
  SPEECH_SAMPLE_RATE,
  speechWithin,
  synthesizeSpeech,
  toBase64,
  type SpeechSegment,
} from './synthesize/audio.ts';
import { lastUserText } from './request.ts';
import { documentQuote } from './synthesize/quote.ts';
import { drawPicture } from './synthesize/image.ts';
import type { PinnedToolCall, PinnedReply } from '../types/reply.ts';
import type { ToolSpec } from './request.ts';
import { streamedText } from './plan.ts';
export type { PinnedReply } from '../types/reply.ts';

/** Tokens of one generated picture (Gemini's published figure for images up to 1024×1024). */
export const IMAGE_TOKENS = 1290;

interface RespondContext {
  /** The gateway's seed. */
  seed: number;
  /** Unix seconds for `created`. */
  created: number;
  /** The model's catalogue entry: whether it reasons, its smallest cacheable prompt. */
  model?: Pick<ModelInfo, 'reasoning' | 'cache_min_tokens'>;
  /**
   * The prompt cache and the scope (an API key, and a test) this request's prefixes are cached under,
   * at `now` (Unix seconds), held as `owner`'s (its test's, dropped by that test's reset).
   */
  cache?: { store: PromptCache; scope: string; now: number; owner?: Owner };
  /** What a file search finds in the stores it names; absent: synthesized passages. */
  searchFiles?: FileSearcher;
}

/** `stableStringify([tools, output])` of the commonest request: no tools, plain text out. */
const PLAIN_REST = stableStringify([[], { type: 'text' }]);

/**
 * The key every synthesized value of a request derives from: what the request means
 * (model, conversation, tools, output format, client seed), not how it asked (stream, limits, stop
 * strings), so a streamed and a plain request, or two with different max_tokens, share the same text.
 */
export function requestKey(request: CanonicalRequest, seed: number): number {
  // Messages are built by our parsers, so their key order is fixed and plain JSON is stable; tools
  // and output formats carry the client's own schemas, whose key order varies between clients.
  const { model, messages, tools, toolChoice, output } = request;
  const rest = tools.length === 0 && output.type === 'text' ? PLAIN_REST : stableStringify([tools, output]);
  return hashStrings([JSON.stringify([model, messages, request.seed ?? null, toolChoice]), rest], seed);
}

/** Ends `text` where the request's stop strings and token limit say generation would end. */
function finish(text: string, request: CanonicalRequest, pinned?: FinishReason) {
  let reason: FinishReason = pinned ?? 'stop';
  let stopSequence: string | undefined;
  let cut = text;
  let at = -1;
  for (const s of request.stop) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      stopSequence = s;
    }
  }
  if (at >= 0) {
    cut = text.slice(0, at);
    reason = 'stop_sequence';
  }
  if (request.maxTokens !== undefined && countTokens(cut) > request.maxTokens) {
    cut = truncateTokens(cut, request.maxTokens);
    reason = 'length';
    stopSequence = undefined;
  }
  return { text: cut, reason, stopSequence };
}

/** The reply text when nothing pins it: JSON when the output format asks, else prose. */
function synthesizeAnswer(request: CanonicalRequest, key: number, budget: Budget): string {
  const { output } = request;
  if (output.type === 'json_schema')
    return JSON.stringify(synthesizeJson(output.schema, key, `the response schema${output.name ? ` "${output.name}"` : ''}`, budget));
  const last = request.messages.at(-1);
  let text = synthesizeText(key);
  if (last?.role === 'tool') {
    // Answer from the tool's result, so an agent loop sees its data used and ends.
    const result = textOf(last).replace(/\s+/g, ' ').trim();
    const name = toolNameFor(request, last.toolCallId) ?? 'the tool';
    text = `According to ${name}: ${result.length > 200 ? `${result.slice(0, 200)}…` : result}. ${text}`;
  }
  return output.type === 'json' ? JSON.stringify({ answer: text }) : text;
}

/**
 * Function calls as blocks, arguments as pinned or synthesized from the tool's schema, taking what
 * the prompt gives where a parameter fits it (prompt-values.ts; each call reads the prompt afresh).
 */
function functionCalls(key: number, budget: Budget, calls: (PinnedToolCall | ToolSpec)[], prompt = ''): Block[] {
  return calls.map((call, i) => ({
    type: 'tool_call',
    id: makeId('', 24, deriveKey(key, `call:${i}`)),
    name: call.name,
    arguments:
      'parameters' in call
        ? JSON.stringify(
            synthesizeJson(
              call.parameters,
              deriveKey(key, `args:${i}`),
              `the parameters of tool "${call.name}"`,
              budget,
              new PromptValues(prompt),
            ),
          )
        : typeof call.arguments === 'string'
          ? call.arguments
          : JSON.stringify(call.arguments ?? {}),
  }));
}

/**
 * The tools the choice uses: the service's own (server blocks, answered within the turn) and the
 * calls the client runs (its functions and built-in tools). Pinned when the fixture pins calls or a
 * text (a text alone means none); else the tool rule's choice, or the call the last turn approved.
 */
function toolBlocks(
  request: CanonicalRequest,
  key: number,
  budget: Budget,
  ctx: RespondContext,
  pinned?: PinnedReply,
): { server: Block[]; calls: Block[] } {
  const builtin: BuiltinContext = { request, key, budget, searchFiles: ctx.searchFiles ?? synthesizeFileSearch };
  const split = (blocks: Block[], functions: Block[]) => ({
    server: blocks.filter((b) => b.type === 'server_tool'),
    calls: [...blocks.filter((b) => b.type === 'tool_call'), ...functions],
  });
  if (pinned && (pinned.toolCalls || pinned.builtinCalls || pinned.text !== undefined)) {
    const uses = (pinned.builtinCalls ?? []).flatMap((pin, i) => {
      const tool = toolForPin(request, pin);
      return tool ? builtinUse(builtin, tool, i, pin) : [];
    });
    return split(uses, functionCalls(key, budget, pinned.toolCalls ?? []));
  }
  const approval = answeredApproval(request);
  if (approval) return { server: approval.approved ? [approvedCall(builtin, approval.tool, approval.call)] : [], calls: [] };
  const chosen = chooseTools(request);
  const uses = chosen.flatMap((tool, i) => (tool.builtin ? builtinUse(builtin, tool, i) : []));
  // Deferred tools are found by the request's tool search before they are called.
  const search = request.tools.find((t) => t.builtin?.kind === 'tool_search');
  const deferred = chosen.filter((t) => t.deferred);
  const found = search && deferred.length ? [toolSearchUse(builtin, search, deferred, chosen.length)] : [];
  return split(
    [...found, ...uses],
    functionCalls(
      key,
      budget,
      chosen.filter((t) => !t.builtin),
      lastUserText(request),
    ),
  );
}

/** The opaque signature that vouches for a choice's reasoning (a thinking block's, Gemini's thoughtSignature). */
function reasoningSignature(key: number): string {
  const bytes = new Rng(deriveKey(key, 'signature'));
  return toBase64(Uint8Array.from({ length: 48 }, () => bytes.int(0, 255)));
}

/**
 * A thinking block, pinned or shown when asked: a summary of the choice's `tokens` of reasoning, never
 * longer than them (a reasoning model's shown thinking is a summary; its tokens count in full).
 */
function thinkingBlock(request: CanonicalRequest, key: number, tokens: number, pinned?: string): Block | undefined {
  if (pinned === undefined && (!request.reasoning?.show || tokens <= 0)) return undefined;
  const text = pinned ?? truncateTokens(synthesizeThinking(deriveKey(key, 'thinking')), tokens);
  return { type: 'thinking', text, signature: reasoningSignature(key) };
}

/** Output tokens of speech a reply may hold when the request sets no limit: the speech models' output limit (16 384 tokens, about 11 minutes). */
export const SPEECH_MAX_OUTPUT_TOKENS = 16384;

/** The prompt's text spoken: lines `Name: …` by that speaker's voice when speakers are named. */
function speechBlock(request: CanonicalRequest, key: number, pinnedAudio?: string): { block: Block; cut: boolean } {
  const output = request.output as Extract<CanonicalRequest['output'], { type: 'audio' }>;
  const transcript = lastUserText(request);
  const spoken = (samples: Int16Array, text: string, cut: boolean) => ({
    block: { type: 'audio', samples, sampleRate: SPEECH_SAMPLE_RATE, transcript: text } as Block,
    cut,
  });
  if (pinnedAudio !== undefined) return spoken(pcmFromBase64(pinnedAudio), transcript, false);
  const segments: SpeechSegment[] = transcript
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const speaker = output.speakers?.find((s) => line.startsWith(`${s.name}:`));
      return { text: speaker ? line.slice(speaker.name.length + 1) : line, voice: speaker?.voice ?? output.voice };
    });
  // An output limit ends speech early, after the last word that fits (what the samples carry says so);
  // without one, the speech models' own output limit does, so no prompt makes more than that of speech.
  const fitted = speechWithin(segments, (request.maxTokens ?? SPEECH_MAX_OUTPUT_TOKENS) / AUDIO_TOKENS_PER_SECOND);
  if (fitted.cut) {
    const text = fitted.segments.map((s) => s.text).join('\n');
    return spoken(synthesizeSpeech(fitted.segments, key, { text }), text, true);
  }
  return spoken(synthesizeSpeech(segments, key, { text: transcript }), transcript, false);
}

/** A picture of the prompt (or the fixture's file), after a line of text when the output asks for text too. */
function imageBlocks(request: CanonicalRequest, key: number, pinned?: PinnedReply): Block[] {
  const output = request.output as Extract<CanonicalRequest['output'], { type: 'image' }>;
  const prompt = lastUserText(request);
  const image: Block =
    pinned?.image !== undefined
      ? { type: 'image', file: Uint8Array.from(atob(pinned.image), (c) => c.charCodeAt(0)) }
      : { type: 'image', pixels: drawPicture(prompt, output.width, output.height, deriveKey(key, 'image')) };
  if (!output.text) return [image];
  const text =
    pinned?.text === undefined
      ? `Here is a picture of ${prompt.trim().replace(/[.!?\s]+$/, '') || 'your prompt'}.`
      : [pinned.text].flat()[0];
  return [{ type: 'text', text }, image];
}

function blockTokens(block: Block): number {
  if (block.type === 'image') return IMAGE_TOKENS;
  if (block.type === 'audio') return Math.ceil(durationOf(block.samples, block.sampleRate) * AUDIO_TOKENS_PER_SECOND);
  if (block.type === 'server_tool') return countTokens(block.name) + countTokens(streamedText(block));
  return block.type === 'tool_call' ? countTokens(block.name) + countTokens(block.arguments) : countTokens(block.text);
}

/** Built-in tools the service ran, by kind (a search that opened a page is no search request). */
function serverToolUses(choices: readonly Choice[]): Record<string, number> | undefined {
  const counts: Record<string, number> = {};
  for (const c of choices)
    for (const b of c.blocks) {
      if (b.type !== 'server_tool' || b.use.kind === 'mcp_list') continue;
      if (b.use.kind === 'web_search' && b.use.action.type !== 'search') continue;
      counts[b.use.kind] = (counts[b.use.kind] ?? 0) + 1;
    }
  return Object.keys(counts).length ? counts : undefined;
}

export function respond(request: CanonicalRequest, ctx: RespondContext, pinned?: PinnedReply): CanonicalReply {
  const key = requestKey(request, ctx.seed);
  const texts = pinned?.text === undefined ? undefined : [pinned.text].flat();
  const choices: Choice[] = [];
  // One ceiling on the schema work of the whole request: n choices × tool calls × each schema.
  const budget = new Budget();
  const prefix = promptPrefixTokens(request.messages, request.tools, request.framing);
  const inputTokens = prefix.at(-1)!;
  for (let index = 0; index < request.n; index++) {
    const choiceKey = deriveKey(key, index);
    const safety = pinned && safetyChoice(index, pinned);
    if (safety) {
      choices.push(safety);
      continue;
    }
    if (request.output.type === 'image') {
      const blocks = imageBlocks(request, choiceKey, pinned);
      choices.push({ index, blocks, finishReason: 'stop', outputTokens: blocks.reduce((n, b) => n + blockTokens(b), 0) });
      continue;
    }
    if (request.output.type === 'audio' && !texts) {
      // A pinned clip, or the prompt spoken.
      const { block: audio, cut } = speechBlock(request, choiceKey, pinned?.audio);
      choices.push({ index, blocks: [audio], finishReason: cut ? 'length' : 'stop', outputTokens: blockTokens(audio) });
      continue;
    }
    // A pinned text alone means no tool calls; pinned calls alone mean no text. The service's own
    // tools run first; their results are what the answer says, and cites.
    const { server, calls } = toolBlocks(request, choiceKey, budget, ctx, pinned);
    const text = texts
      ? texts[index % texts.length]
      : calls.length
        ? undefined
        : server.length && request.output.type === 'text'
          ? toolAnswer(server, choiceKey)
          : synthesizeAnswer(request, choiceKey, budget);
    let blocks = [...server, ...calls];
    let reason: FinishReason = pinned?.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
    let stopSequence: string | undefined;
    const thought = reasoningTokens(request, ctx.model?.reasoning === true, inputTokens, choiceKey);
    // Where thinking is spent first, the answer is cut to what it left of the limit.
    const first = request.reasoning?.firstFromLimit && request.maxTokens !== undefined;
    const limited = first ? { ...request, maxTokens: Math.max(0, request.maxTokens! - thought) } : request;
    // An answer to documents given with citations asked for opens with a sentence of one, cited.
    const quote =
      text !== undefined && !texts && !calls.length && !server.length && request.output.type === 'text' && request.documents?.length
        ? documentQuote(request.documents, choiceKey)
        : undefined;
    const quoted = quote && quote.document.text.slice(quote.from, quote.to);
    if (text !== undefined) {
      const cut = finish(quoted ? `${quoted} ${text}` : text, limited, pinned?.finishReason ?? (calls.length ? 'tool_calls' : undefined));
      const citations: Citation[] = server.length
        ? citationsOf(cut.text, server, pinned?.citations)
        : quote && quoted && cut.text.length >= quoted.length
          ? [{ start: 0, end: quoted.length, document: quote.document, from: quote.from, to: quote.to }]
          : [];
      blocks = [...server, { type: 'text', text: cut.text, ...(citations.length ? { citations } : {}) }, ...calls];
      reason = cut.reason;
      stopSequence = cut.stopSequence;
    }
    const visible = blocks.reduce((n, b) => n + blockTokens(b), 0);
    // Reasoning never takes the reply past its token limit: it is cut to what the answer leaves.
    let reasoning = thought;
    if (request.maxTokens !== undefined) reasoning = Math.min(reasoning, Math.max(0, request.maxTokens - (first ? 0 : visible)));
    const thinking = thinkingBlock(request, choiceKey, reasoning, pinned?.thinking);
    if (thinking) {
      blocks = [thinking, ...blocks];
      reasoning = Math.max(reasoning, blockTokens(thinking));
    }
    choices.push({
      index,
      blocks,
      finishReason: reason,
      ...(pinned?.vendorFinishReason !== undefined && { vendorFinishReason: pinned.vendorFinishReason }),
      stopSequence,
      outputTokens: visible + reasoning,
      ...(reasoning > 0
        ? {
            reasoning: { tokens: reasoning, signature: thinking?.type === 'thinking' ? thinking.signature : reasoningSignature(choiceKey) },
          }
        : {}),
    });
  }
  const uses = serverToolUses(choices);
  const cached = ctx.cache?.store.account(
    ctx.cache.scope,
    ctx.cache.now,
    request,
    prefix,
    ctx.model?.cache_min_tokens ?? DEFAULT_CACHE_MIN_TOKENS,
    ctx.cache.owner,
  );
  const usage: Usage = {
    inputTokens,
    outputTokens: choices.reduce((sum, c) => sum + c.outputTokens, 0),
    cachedInputTokens: cached?.read ?? 0,
    ...(cached?.written ? { cacheCreationInputTokens: cached.written } : {}),
    ...(cached?.writtenLong ? { cacheCreation1hInputTokens: cached.writtenLong } : {}),
    reasoningTokens: choices.reduce((sum, c) => sum + (c.reasoning?.tokens ?? 0), 0),
    imageInputTokens: partTokens(request.messages, 'image'),
    audioInputTokens: partTokens(request.messages, 'audio'),
    ...(uses ? { serverToolUses: uses } : {}),
    ...pinned?.usage,
  };
  return { key, created: ctx.created, choices, usage, fixture: pinned?.name, ...(pinned?.blocked === 'prompt' && { promptBlocked: true }) };
}

/** A blocked choice says nothing and ends by the filter; a refusal is its words alone. */
function safetyChoice(index: number, pinned: PinnedReply): Choice | undefined {
  if (pinned.blocked)
    return {
      index,
      blocks: [],
      finishReason: 'content_filter',
      ...(pinned.vendorFinishReason !== undefined && { vendorFinishReason: pinned.vendorFinishReason }),
      outputTokens: 0,
    };
  if (pinned.refusal === undefined) return undefined;
  return { index, blocks: [{ type: 'refusal', text: pinned.refusal }], finishReason: 'refusal', outputTokens: countTokens(pinned.refusal) };
}

/** What the prompt's parts of one kind cost (their share of countPromptTokens). */
function partTokens(messages: CanonicalRequest['messages'], kind: 'image' | 'audio'): number {
  let n = 0;
  for (const m of messages) for (const part of m.parts) if (part.type === kind) n += PART_TOKENS[kind];
  return n;
}
