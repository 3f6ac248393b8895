// Canonical reply → Gemini GenerateContentResponse JSON, streamed as SSE or as a JSON array.
import type { CanonicalRequest } from '../../core/request.ts';
import type { Block, CanonicalReply, Choice, FinishReason } from '../../core/reply.ts';
import { deriveKey, makeId, Rng } from '../../core/seed.ts';
import { planSteps } from '../../core/plan.ts';
import type { LatencyProfile } from '../../core/timing.ts';
import { pcmBytes, toBase64 } from '../../core/synthesize/audio.ts';
import { IMAGE_TOKENS } from '../../core/respond.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import type { GeminiOptions } from './parse.ts';
import { computerCall, grounding, serverParts } from './tool-parts.ts';

const FINISH: Record<FinishReason, string> = {
  stop: 'STOP',
  stop_sequence: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  refusal: 'STOP',
};

/**
 * Gemini's own finish reasons, which a fixture names by `vendorFinishReason` (every member of
 * @google/genai's FinishReason; `npm run currency` checks the list against it).
 */
const OWN_FINISH = [
  'FINISH_REASON_UNSPECIFIED',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'IMAGE_RECITATION',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
  'MALFORMED_RESPONSE',
  'ESCALATION',
  'PUP_LIMITED_DISABLED',
  'CONTINUATION',
  'MODEL_ARMOR',
];

/** Every finish reason a Gemini reply can end with. */
export const FINISH_REASONS = [...new Set([...Object.values(FINISH), ...OWN_FINISH])];

/** What a safety block reports: one category rated HIGH and marked blocked, the rest NEGLIGIBLE. */
const BLOCKED = [
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
].map((category) =>
  category === 'HARM_CATEGORY_DANGEROUS_CONTENT'
    ? { category, probability: 'HIGH', blocked: true }
    : { category, probability: 'NEGLIGIBLE' },
);

function part(block: Block, options: GeminiOptions, signature?: string): Record<string, unknown> | undefined {
  switch (block.type) {
    case 'text':
    case 'refusal':
      // A model that spent its limit thinking sends a content of no parts.
      return block.text ? { text: block.text } : undefined;
    case 'thinking':
      return options.includeThoughts ? { text: block.text, thought: true } : undefined;
    case 'tool_call':
      // A thinking model signs its first function call with its reasoning, to be sent back with the turn.
      return {
        functionCall:
          block.builtin === 'computer' ? computerCall(block) : { name: block.name, args: JSON.parse(block.arguments || '{}') as unknown },
        ...(signature ? { thoughtSignature: signature } : {}),
      };
    case 'server_tool':
      return undefined;
    case 'audio':
      return { inlineData: { mimeType: `audio/L16;codec=pcm;rate=${block.sampleRate}`, data: toBase64(pcmBytes(block.samples)) } };
    case 'image': {
      const file = options.files?.get(block);
      return file && { inlineData: { mimeType: file.mimeType, data: toBase64(file.bytes) } };
    }
  }
}

/** The choice's reasoning signature, for its first function call only. */
function signatureFor(choice: Choice, block: Block): string | undefined {
  return block.type === 'tool_call' && choice.blocks.find((b) => b.type === 'tool_call') === block
    ? choice.reasoning?.signature
    : undefined;
}

/** Models before 2.5 (no thinking) report candidates by modality and, unstreamed, a mean log-probability. */
const before25 = (model: string) => /^gemini-(1\.|2\.0)/.test(model);

const modalities = (counts: [string, number][]) =>
  counts.filter(([, n]) => n > 0).map(([modality, tokenCount]) => ({ modality, tokenCount }));

/**
 * usageMetadata: the prompt (what the cache held of it included) and the candidates, each split by
 * modality; thoughts apart from candidates, as Google reports them for thinking models.
 */
function usageMetadata(reply: CanonicalReply, request: CanonicalRequest) {
  const { inputTokens, reasoningTokens, cachedInputTokens } = reply.usage;
  const candidates = reply.usage.outputTokens - reasoningTokens;
  const image = Math.min(reply.usage.imageInputTokens ?? 0, inputTokens);
  const audio = Math.min(reply.usage.audioInputTokens ?? 0, inputTokens - image);
  const imageTokens = IMAGE_TOKENS * reply.choices.reduce((n, c) => n + c.blocks.filter((b) => b.type === 'image').length, 0);
  const output: [string, number][] =
    request.output.type === 'audio'
      ? [['AUDIO', candidates]]
      : [
          ['TEXT', candidates - imageTokens],
          ['IMAGE', imageTokens],
        ];
  return {
    promptTokenCount: inputTokens,
    ...(candidates ? { candidatesTokenCount: candidates } : {}),
    totalTokenCount: inputTokens + reply.usage.outputTokens,
    ...(cachedInputTokens ? { cachedContentTokenCount: cachedInputTokens } : {}),
    promptTokensDetails: modalities([
      ['TEXT', inputTokens - image - audio],
      ['IMAGE', image],
      ['AUDIO', audio],
    ]),
    ...(cachedInputTokens ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cachedInputTokens }] } : {}),
    // 2.5 models split their candidates by modality only where some are not text (speech, images).
    ...(candidates && (before25(request.model) || output[0][0] !== 'TEXT' || imageTokens)
      ? { candidatesTokensDetails: modalities(output) }
      : {}),
    ...(reasoningTokens ? { thoughtsTokenCount: reasoningTokens } : {}),
  };
}

/** What the service says of a 2.5 model's finish on function calls (and of no other finish). */
const CALLED = 'Model generated function call(s).';

/** A mean log-probability in the range the recorded 2.0 replies show, from the reply's key. */
const avgLogprobs = (reply: CanonicalReply, choice: Choice) =>
  -(0.02 + 0.4 * new Rng(deriveKey(reply.key, `avgLogprobs${choice.index}`)).next());

/**
 * A candidate as the service sends it: safety ratings only on a block (the recorded unblocked replies
 * carry none), finishMessage on a 2.5 model's function calls, avgLogprobs on an older model's unstreamed one.
 */
function candidate(choice: Choice, parts: unknown[], finished: boolean, request: CanonicalRequest, key: number, logprobs?: number) {
  // Output the filter blocked is withheld: the candidate has no content at all.
  const blocked = choice.finishReason === 'content_filter';
  const called = !before25(request.model) && choice.blocks.some((b) => b.type === 'tool_call');
  const reason =
    choice.vendorFinishReason !== undefined && FINISH_REASONS.includes(choice.vendorFinishReason)
      ? choice.vendorFinishReason
      : FINISH[choice.finishReason];
  return {
    ...(blocked ? {} : { content: { ...(parts.length ? { parts } : {}), role: 'model' } }),
    ...(finished
      ? {
          finishReason: reason,
          ...(blocked ? { safetyRatings: BLOCKED } : {}),
          ...(called ? { finishMessage: CALLED } : {}),
          ...(logprobs !== undefined ? { avgLogprobs: logprobs } : {}),
          ...grounding(choice),
        }
      : {}),
    // A reply cut short to be continued carries the opaque token the next request sends back.
    ...(finished && reason === 'CONTINUATION' ? { continuationToken: continuationToken(key, choice.index) } : {}),
    index: choice.index,
  };
}

/** The opaque (base64) token of a CONTINUATION finish: the reply's, so the same request gets the same token. */
const continuationToken = (key: number, index: number) => toBase64(new TextEncoder().encode(`continue:${makeId('', 24, key)}:${index}`));

/** A block's parts: code run is two, a search none (it grounds the candidate), the rest one. */
function partsOf(choice: Choice, block: Block, options: GeminiOptions): unknown[] {
  if (block.type === 'server_tool') return serverParts(block);
  const one = part(block, options, signatureFor(choice, block));
  return one ? [one] : [];
}

const tail = (reply: CanonicalReply, request: CanonicalRequest) => ({ modelVersion: request.model, responseId: makeId('', 23, reply.key) });

/** A blocked prompt: no candidates, the reason in promptFeedback, only the prompt counted. */
function promptBlocked(reply: CanonicalReply, request: CanonicalRequest) {
  const tokens = reply.usage.inputTokens;
  return {
    promptFeedback: { blockReason: 'SAFETY', safetyRatings: BLOCKED },
    usageMetadata: { promptTokenCount: tokens, totalTokenCount: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] },
    ...tail(reply, request),
  };
}

export function renderGenerate(reply: CanonicalReply, request: CanonicalRequest, options: GeminiOptions) {
  if (reply.promptBlocked) return promptBlocked(reply, request);
  return {
    candidates: reply.choices.map((c) =>
      candidate(
        c,
        c.blocks.flatMap((b) => partsOf(c, b, options)),
        true,
        request,
        reply.key,
        before25(request.model) ? avgLogprobs(reply, c) : undefined,
      ),
    ),
    usageMetadata: usageMetadata(reply, request),
    ...tail(reply, request),
  };
}

/**
 * One response per piece (a whole function call or audio clip per chunk); the last carries the finish
 * and usage. Made as it is written; SSE frames them with alt=sse, else one JSON array does.
 */
export function* generateStreamEvents(
  reply: CanonicalReply,
  request: CanonicalRequest,
  options: GeminiOptions,
  latency: LatencyProfile,
): Generator<StreamEvent> {
  const steps = planSteps(reply, latency)[Symbol.iterator]();
  // A blocked prompt is one chunk, when the first would have been.
  if (reply.promptBlocked) {
    const first = steps.next();
    if (!first.done) yield { due: first.value.due, data: JSON.stringify(promptBlocked(reply, request)) };
    return;
  }
  const prompt = { promptTokenCount: reply.usage.inputTokens, totalTokenCount: reply.usage.inputTokens };
  for (let next = steps.next(); !next.done; ) {
    const step = next.value;
    // One step ahead: whether this one is the stream's last.
    next = steps.next();
    const choice = reply.choices[step.choice];
    const block = choice.blocks[step.block];
    let parts: unknown[] = [];
    if (block?.type === 'tool_call' || block?.type === 'audio' || block?.type === 'image' || block?.type === 'server_tool')
      parts = step.blockEnd ? partsOf(choice, block, options) : [];
    else if (block && step.text) parts = [part({ ...block, text: step.text }, options)].filter(Boolean);
    if (!parts.length && !step.last) continue;
    const body = {
      candidates: [candidate(choice, parts, step.last, request, reply.key)],
      usageMetadata: next.done ? usageMetadata(reply, request) : prompt,
      ...tail(reply, request),
    };
    yield { due: step.due, data: JSON.stringify(body) };
  }
}
