// Token counting with a real BPE tokenizer (o200k_base, the encoding of current OpenAI models).
// Other vendors' models tokenize differently; o200k is a close, stable stand-in for their counts.
//
// Two rules keep the cost of any input linear and bounded, whatever the text:
// - BPE is quadratic in the length of one pre-token, and a run without whitespace (base64, minified
//   code, CJK) is one pre-token. Runs longer than MAX_RUN characters are cut into MAX_RUN pieces before
//   BPE, which changes a count by at most about one token per cut.
// - At most EXACT_CHARS characters of one request's text go through BPE. Longer texts are counted from
//   evenly spaced samples scaled to their length (deterministic; within a few percent on ordinary text).
//
// The tables load on first use (see lazy.ts): in Node from the table file the build writes, in a few
// milliseconds; in a browser from the packed module the build writes beside it, in ~20 ms (o200k.ts).
import { detached } from './strings.ts';
import { textOf, type Message, type TokenFraming } from './request.ts';
import type { ToolSpec } from './tools.ts';
import { memoize } from './memo.ts';
import { inNode, lazy } from './lazy.ts';
import { O200k, tablesOfPacked, type Encoding } from './o200k.ts';
import { runAtOnce, runInSlices, type Steps } from './slices.ts';

/**
 * The tokenizer's own cache of merged pre-tokens holds 100k entries by default, of any length: tens of
 * MB after a long run of varied prompts. Counts do not depend on it; 10k keeps the common words.
 */
const MERGE_CACHE_ENTRIES = 10_000;

const tables = lazy<Encoding>('the tokenizer', inNode ? () => new O200k(MERGE_CACHE_ENTRIES) : undefined, () =>
  import('./o200k_base.packed.js').then((packed) => new O200k(MERGE_CACHE_ENTRIES, tablesOfPacked(packed.default))),
);

/** Loads the tokenizer once; undefined when it is loaded already. */
export const tokenizerReady = tables.ready;

const bpe = tables.get;

/** Fixed costs of non-text parts (OpenAI's low-detail image cost, roughly). */
export const PART_TOKENS = { image: 85, audio: 100, file: 100 } as const;

/** Longest run of whitespace or of non-whitespace that goes to BPE whole. */
export const MAX_RUN = 256;

/** Characters of text one count may put through BPE; past this, counts are estimated from samples. */
export const EXACT_CHARS = 32 * 1024;

/** Texts up to this length keep their token ids and pieces in the memos. */
const MEMO_TEXT_CHARS = 16 * 1024;

/** Longest cut of a memoized text kept beside its pieces (see truncateTokens). */
const KEPT_CUT_CHARS = 1024;

/** Sample windows per estimated text, and the smallest window worth counting on its own. */
const WINDOWS = 16;
const MIN_WINDOW = 256;

// A run that starts here (not inside a longer one) and exceeds MAX_RUN. The lookbehinds keep the scan
// linear: a match is only tried at the start of a run.
const LONG_RUN = new RegExp(`(?<!\\S)\\S{${MAX_RUN + 1},}|(?<!\\s)\\s{${MAX_RUN + 1},}`, 'g');

/** A cut position moved off the middle of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff && at > 0 ? at - 1 : at;
}

/**
 * Longest piece given to BPE in one call. The tokenizer's merge cache keeps its pre-tokens, which are
 * slices of what it was given: pieces are short, fresh copies, so the cache never holds a prompt.
 */
const CHUNK_CHARS = 4096;

/** `from` to `to` cut at spaces that start a pre-token (after and before a non-space), CHUNK_CHARS apart. */
function chunked(text: string, from: number, to: number, out: string[]): void {
  let start = from;
  for (let at = text.indexOf(' ', start + CHUNK_CHARS); at > 0 && at < to - 1; at = text.indexOf(' ', at + 1)) {
    if (/\s/.test(text[at - 1]) || /\s/.test(text[at + 1])) continue;
    out.push(detached(text.slice(start, at)));
    start = at;
    at = start + CHUNK_CHARS - 1;
  }
  out.push(detached(text.slice(start, to)));
}

/**
 * The text as the pieces BPE sees whole: runs longer than MAX_RUN are cut into MAX_RUN pieces, and
 * the rest into chunks of about CHUNK_CHARS at spaces where the tokenizer would split anyway.
 */
function bpeSegments(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m; m = LONG_RUN.exec(text)) {
    const end = m.index + m[0].length;
    for (let cut = safeCut(text, m.index + MAX_RUN); cut < end; cut = safeCut(text, cut + MAX_RUN)) {
      chunked(text, from, cut, out);
      from = cut;
    }
  }
  chunked(text, from, text.length, out);
  return out;
}

/**
 * Characters put through BPE between two turns of the event loop on the sliced count path. Smaller than
 * other slices: a 256-character run of CJK costs BPE far more per character than hashing does.
 */
const BPE_SLICE_CHARS = 1024;

/** The token ids of `text`, yielding the characters of each piece put through BPE. */
function* encodeSteps(text: string): Steps<number[]> {
  const ids: number[] = [];
  if (!text) return ids;
  for (const s of bpeSegments(text)) {
    if (!s) continue;
    for (const id of bpe().encode(s)) ids.push(id);
    yield s.length;
  }
  return ids;
}

function encodeAll(text: string): number[] {
  return runAtOnce(encodeSteps(text));
}

/** The token ids of `text` (of its first EXACT_CHARS characters when longer, so the cost stays bounded). */
export function tokenize(text: string): number[] {
  return encodeAll(text.length > EXACT_CHARS ? text.slice(0, safeCut(text, EXACT_CHARS)) : text);
}

/**
 * Each token of `text` (of its first EXACT_CHARS characters when longer) with its bytes, BPE run with
 * the event loop served between slices: for listing a prompt's tokens one by one.
 */
export async function tokensInSlices(text: string): Promise<{ id: number; bytes: Uint8Array }[]> {
  const head = text.length > EXACT_CHARS ? text.slice(0, safeCut(text, EXACT_CHARS)) : text;
  const ids = await runInSlices(encodeSteps(head), BPE_SLICE_CHARS);
  return ids.map((id) => ({ id, bytes: bpe().bytesOf(id)! }));
}

// Bytes a memo entry holds, at most: a key's characters (two bytes each), an array slot (8 bytes;
// arrays keep up to about half as many spare), a short string (~32 bytes), and per entry the Map's
// slots, the record and an array's first 17 slots.
const CHAR_BYTES = 2;
const SLOT_BYTES = 12;
const PIECE_BYTES = 32;
const ENTRY_BYTES = 256;

/**
 * Token ids (with long runs cut); kept for short texts, which test suites repeat, and which a reply
 * both counts and splits. Shared: do not modify.
 */
const memoIds = memoize(encodeAll, {
  entries: 4000,
  sizeOf: (text, ids) => text.length * CHAR_BYTES + ids.length * SLOT_BYTES + ENTRY_BYTES,
});

function* exactIdsSteps(text: string): Steps<readonly number[]> {
  if (text.length > MEMO_TEXT_CHARS) return yield* encodeSteps(text);
  return memoIds.peek(text) ?? memoIds.keep(text, yield* encodeSteps(text));
}

function exactIds(text: string): readonly number[] {
  return runAtOnce(exactIdsSteps(text));
}

/** Tokens and characters of `windows` evenly spaced slices of `text`, `width` characters each. */
function* sample(text: string, windows: number, width: number): Steps<{ tokens: number; chars: number }> {
  let tokens = 0;
  let chars = 0;
  const span = text.length - width;
  for (let i = 0; i < windows; i++) {
    const start = safeCut(text, windows === 1 ? 0 : Math.floor((i * span) / (windows - 1)));
    const slice = text.slice(start, safeCut(text, start + width));
    // A copy as the memo key: the slice itself would keep the whole text alive.
    tokens += (yield* exactIdsSteps(detached(slice))).length;
    chars += slice.length;
  }
  return { tokens, chars };
}

/** A text's count from samples of about `budget` characters in all, scaled to its length. */
function* estimate(text: string, budget: number): Steps<{ count: number; tokens: number; chars: number }> {
  const windows = Math.max(1, Math.min(WINDOWS, Math.floor(budget / MIN_WINDOW)));
  const s = yield* sample(text, windows, Math.floor(budget / windows));
  return { count: Math.max(1, Math.round((s.tokens * text.length) / s.chars)), ...s };
}

/**
 * The token count of each text, with EXACT_CHARS of BPE shared among them: exact when they fit, else
 * each long text is estimated from its own samples, and texts too short for a share of the budget are
 * scaled by the tokens-per-character of what was sampled (a few of them are counted whole for that).
 */
function* countEachSteps(texts: readonly string[]): Steps<number[]> {
  const total = texts.reduce((n, t) => n + t.length, 0);
  const counts: (number | undefined)[] = [];
  if (total <= EXACT_CHARS) {
    for (const text of texts) counts.push((yield* exactIdsSteps(text)).length);
    return counts as number[];
  }
  let tokens = 0;
  let chars = 0;
  for (const text of texts) {
    const share = Math.floor((EXACT_CHARS * text.length) / total);
    if (share < MIN_WINDOW) {
      counts.push(undefined);
      continue;
    }
    const e = yield* estimate(text, share);
    tokens += e.tokens;
    chars += e.chars;
    counts.push(e.count);
  }
  const rest = counts.flatMap((c, i) => (c === undefined ? [i] : []));
  if (rest.length) {
    // Count a few of the short texts whole, evenly spaced, until the budget is spent.
    const restChars = rest.reduce((n, i) => n + texts[i].length, 0);
    const step = Math.max(1, Math.ceil(restChars / EXACT_CHARS));
    for (let k = 0; k < rest.length; k += step) {
      const i = rest[k];
      counts[i] = (yield* exactIdsSteps(texts[i])).length;
      tokens += counts[i]!;
      chars += texts[i].length;
    }
    const ratio = chars ? tokens / chars : 0.25;
    for (const i of rest) counts[i] ??= texts[i] ? Math.max(1, Math.round(texts[i].length * ratio)) : 0;
  }
  return counts as number[];
}

export function countEach(texts: readonly string[]): number[] {
  return runAtOnce(countEachSteps(texts));
}

/**
 * countEach with the event loop served every BPE_SLICE_CHARS characters put through BPE: for the
 * pipeline's big texts, whose up to EXACT_CHARS of BPE would otherwise be one long step.
 */
export function countEachInSlices(texts: readonly string[]): Promise<number[]> {
  return runInSlices(countEachSteps(texts), BPE_SLICE_CHARS);
}

/** countEach of one text; a text the memo holds is counted without steps to run (a reply's texts repeat). */
export function countTokens(text: string): number {
  return (text.length <= MEMO_TEXT_CHARS ? memoIds.peek(text)?.length : undefined) ?? countEach([text])[0];
}

/** Each token's text (pieces that would cut a character are merged). */
function exactPieces(text: string): string[] {
  const pieces: string[] = [];
  for (const piece of bpe().decodeGenerator(exactIds(text))) if (piece) pieces.push(piece);
  return pieces;
}

const memoPieces = memoize(exactPieces, {
  entries: 2000,
  // The text twice (key and pieces), the pieces, and the cut truncateTokens may keep beside them.
  sizeOf: (text, pieces) =>
    (2 * text.length + Math.min(text.length, KEPT_CUT_CHARS)) * CHAR_BYTES + pieces.length * (SLOT_BYTES + PIECE_BYTES) + 2 * ENTRY_BYTES,
});

/**
 * The text split into one piece per token. Past EXACT_CHARS the rest is cut into pieces of the
 * average token length seen so far, so a huge text streams in linear time. Shared: do not modify.
 */
export function splitTokens(text: string): readonly string[] {
  return text.length <= MEMO_TEXT_CHARS ? memoPieces(text) : [...longPieces(text)];
}

/** splitTokens' pieces, a long text's made as they are taken (a stream holds no array of them). */
export function tokenPieces(text: string): Iterable<string> {
  return text.length <= MEMO_TEXT_CHARS ? memoPieces(text) : longPieces(text);
}

function* longPieces(text: string): Generator<string> {
  const head = text.slice(0, safeCut(text, EXACT_CHARS));
  const pieces = exactPieces(head);
  yield* pieces;
  const width = Math.max(1, Math.round(head.length / Math.max(1, pieces.length)));
  for (let at = head.length; at < text.length; ) {
    let next = Math.min(text.length, at + width);
    if (next < text.length) next = safeCut(text, next);
    if (next <= at) next = at + 2; // a one-character width landed inside a surrogate pair
    yield text.slice(at, next);
    at = next;
  }
}

/** Text of token ids (for prompts sent as token arrays); false unless every id is in the vocabulary. */
export function detokenize(ids: readonly unknown[]): string | false {
  if (!ids.length || ids.some((id) => typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= bpe().vocabularySize))
    return false;
  return bpe().decode(ids as number[]);
}

// A text cut at the same limit again (the same reply asked again) gets the same string: a new join
// would be hashed and compared afresh by every memo it is looked up in. One cut per memoized text, the
// last; memoPieces counts it in its bytes.
const lastCut = new WeakMap<readonly string[], { max: number; text: string }>();

/** The first `max` tokens of `text`. */
export function truncateTokens(text: string, max: number): string {
  const pieces = splitTokens(text);
  if (pieces.length <= max) return text;
  const last = lastCut.get(pieces);
  if (last?.max === max) return last.text;
  const cut = pieces.slice(0, max).join('');
  // Longer texts get fresh pieces each time (not memoized): a kept cut could never be found again.
  if (text.length <= MEMO_TEXT_CHARS && cut.length <= KEPT_CUT_CHARS) lastCut.set(pieces, { max, text: cut });
  return cut;
}

/**
 * The texts of a conversation whose tokens count as input, in order, and where each message's texts
 * end; the tools' JSON last.
 */
function promptTexts(messages: readonly Message[], tools: readonly ToolSpec[]): { texts: string[]; ends: number[] } {
  const texts: string[] = [];
  const ends: number[] = [];
  for (const m of messages) {
    texts.push(m.role, textOf(m));
    for (const part of m.parts) if (part.type === 'file' && part.text !== undefined) texts.push(part.text);
    for (const call of m.toolCalls ?? []) texts.push(call.name, call.arguments);
    ends.push(texts.length);
  }
  if (tools.length) texts.push(JSON.stringify(tools));
  return { texts, ends };
}

/** A conversation's tokens before framing: the tools' JSON, and each message's role and content. */
interface PromptParts {
  tools: number;
  roles: number[];
  contents: number[];
}

/** OpenAI's chat framing: each message costs its content plus 3 tokens and its role, and every reply is primed with 3 more. */
const OPENAI_FRAMING: TokenFraming = { priming: 3, perMessage: 3, roles: true };

// The context check, the reply and the cache count the same conversation: count it once. One entry
// per conversation (the tools it was last counted with), not a WeakMap of tools made per request.
const promptCounts = new WeakMap<readonly Message[], { tools: readonly ToolSpec[]; parts: PromptParts }>();

/** The parts of a conversation already counted with these tools (any empty list is the same as another). */
function countedParts(messages: readonly Message[], tools: readonly ToolSpec[]): PromptParts | undefined {
  const known = promptCounts.get(messages);
  return known && (known.tools === tools || (!known.tools.length && !tools.length)) ? known.parts : undefined;
}

/**
 * Prompt tokens of a conversation, framed as `framing` says (OpenAI's chat framing by default); tool
 * definitions count as their JSON.
 */
export function countPromptTokens(
  messages: readonly Message[],
  tools: readonly ToolSpec[] = [],
  framing: TokenFraming = OPENAI_FRAMING,
): number {
  return promptPrefixTokens(messages, tools, framing).at(-1)!;
}

/**
 * Tokens of each prefix of the prompt, in caching order: the framing's priming and the tools first,
 * then after each message; the last is the prompt's count.
 */
export function promptPrefixTokens(
  messages: readonly Message[],
  tools: readonly ToolSpec[] = [],
  framing: TokenFraming = OPENAI_FRAMING,
): number[] {
  const parts = countedParts(messages, tools) ?? heldParts(messages, tools) ?? runAtOnce(promptPartSteps(messages, tools));
  const prefix = [framing.priming + parts.tools];
  parts.contents.forEach((n, i) => prefix.push(prefix[i] + framing.perMessage + (framing.roles ? parts.roles[i] : 0) + n));
  return prefix;
}

/**
 * countPromptTokens with the event loop served between slices of BPE (see countEachInSlices). The
 * count is kept for the conversation, so the synchronous calls that follow (the context check, the
 * reply's usage) find it.
 */
export async function countPromptTokensInSlices(
  messages: readonly Message[],
  tools: readonly ToolSpec[] = [],
  framing: TokenFraming = OPENAI_FRAMING,
): Promise<number> {
  if (!countedParts(messages, tools) && !heldParts(messages, tools)) await runInSlices(promptPartSteps(messages, tools), BPE_SLICE_CHARS);
  return countPromptTokens(messages, tools, framing);
}

function* promptPartSteps(messages: readonly Message[], tools: readonly ToolSpec[]): Steps<PromptParts> {
  const known = countedParts(messages, tools);
  if (known !== undefined) return known;
  const { texts, ends } = promptTexts(messages, tools);
  return keptParts(messages, tools, ends, yield* countEachSteps(texts));
}

/**
 * The parts of a conversation whose every text the memo holds (a suite repeating its prompts): counted
 * without steps to run. The counts are countEach's, which counts such texts exactly.
 */
function heldParts(messages: readonly Message[], tools: readonly ToolSpec[]): PromptParts | undefined {
  const { texts, ends } = promptTexts(messages, tools);
  const counts: number[] = [];
  let total = 0;
  for (const text of texts) {
    total += text.length;
    const ids = text.length <= MEMO_TEXT_CHARS && total <= EXACT_CHARS ? memoIds.peek(text) : undefined;
    if (ids === undefined) return undefined;
    counts.push(ids.length);
  }
  return keptParts(messages, tools, ends, counts);
}

/** A conversation's parts from its texts' counts (promptTexts' order), kept for the conversation. */
function keptParts(
  messages: readonly Message[],
  tools: readonly ToolSpec[],
  ends: readonly number[],
  counts: readonly number[],
): PromptParts {
  const parts: PromptParts = { tools: tools.length ? counts[counts.length - 1] : 0, roles: [], contents: [] };
  messages.forEach((m, i) => {
    const from = i ? ends[i - 1] : 0;
    let content = 0;
    for (let k = from + 1; k < ends[i]; k++) content += counts[k];
    // A part read as text is counted as its text; the others at a fixed cost.
    for (const part of m.parts)
      if (part.type !== 'text' && !(part.type === 'file' && part.text !== undefined)) content += PART_TOKENS[part.type];
    parts.roles.push(counts[from]);
    parts.contents.push(content);
  });
  promptCounts.set(messages, { tools, parts });
  return parts;
}
