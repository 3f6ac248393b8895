// Turns a canonical request (and the fixture that matched it, if any) into a canonical reply.
import type { CanonicalRequest } from './request.ts';
import type { CanonicalReply, Choice, FinishReason, Usage } from './reply.ts';
import { deriveKey, hashString } from './seed.ts';
import { countPromptTokens, countTokens, truncateTokens } from './tokens.ts';
import { synthesizeText } from './synthesize/text.ts';

/** What a fixture pins of a reply; everything left out is synthesized or counted. */
export interface PinnedReply {
  name?: string;
  text?: string | string[];
  finishReason?: FinishReason;
  usage?: Partial<Usage>;
}

export interface RespondContext {
  /** The gateway's seed. */
  seed: number;
  /** Unix seconds for `created`. */
  created: number;
}

/**
 * The key every synthesized value of a request derives from: what the request means
 * (model, conversation, client seed), not how it asked (stream, limits, stop strings), so a
 * streamed and a plain request, or two with different max_tokens, share the same text.
 */
export function requestKey(request: CanonicalRequest, seed: number): number {
  // Canonical requests are built by our parsers, so their key order is fixed: plain JSON is stable.
  return hashString(JSON.stringify([request.model, request.messages, request.seed ?? null]), seed);
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

export function respond(request: CanonicalRequest, ctx: RespondContext, pinned?: PinnedReply): CanonicalReply {
  const key = requestKey(request, ctx.seed);
  const choices: Choice[] = [];
  for (let index = 0; index < request.n; index++) {
    const texts = pinned?.text === undefined ? undefined : [pinned.text].flat();
    const raw = texts ? texts[index % texts.length] : synthesizeText(deriveKey(key, index));
    const { text, reason, stopSequence } = finish(raw, request, pinned?.finishReason);
    choices.push({
      index,
      blocks: [{ type: 'text', text }],
      finishReason: reason,
      stopSequence,
      outputTokens: countTokens(text),
    });
  }
  const outputTokens = choices.reduce((sum, c) => sum + c.outputTokens, 0);
  const usage: Usage = {
    inputTokens: countPromptTokens(request.messages),
    outputTokens,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    ...pinned?.usage,
  };
  return { key, created: ctx.created, choices, usage, fixture: pinned?.name };
}
