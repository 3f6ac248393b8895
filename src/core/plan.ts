// The stream plan: a reply cut into token-sized pieces, each with the time it is due.
// Formats render each step as their own events; none of them decides chunking or timing.
import type { Block, CanonicalReply, Choice } from './reply.ts';
import { deriveKey } from './seed.ts';
import { dueTimes, type LatencyProfile } from './timing.ts';
import { tokenPieces } from './tokens.ts';

export interface StreamStep {
  choice: number;
  /** Position of this piece within its choice. */
  position: number;
  /** Index of the block (in `choice.blocks`) this piece belongs to. */
  block: number;
  /** A piece of the block's text, or of a tool call's arguments ('' for an empty block). */
  text: string;
  /** Milliseconds after arrival. */
  due: number;
  /** The choice's first piece: formats open the choice here. */
  first: boolean;
  /** The choice's last piece: formats close the choice here. */
  last: boolean;
  /** The block's first piece: formats open the block (tool call id and name) here. */
  blockStart: boolean;
  /** The block's last piece. */
  blockEnd: boolean;
}

/**
 * What of a block is generated piece by piece: its text, a call's arguments, the code or arguments a
 * server tool is given, or, for a search, its query (what the model writes; results come back whole).
 */
export function streamedText(block: Block): string {
  switch (block.type) {
    case 'audio':
    case 'image':
      return '';
    case 'tool_call':
      return block.arguments;
    case 'server_tool': {
      const u = block.use;
      if (u.kind === 'code_execution') return u.code;
      if (u.kind === 'mcp') return u.arguments;
      if (u.kind === 'web_search') return u.action.type === 'search' ? u.action.query : u.action.url;
      if (u.kind === 'web_fetch') return u.url;
      if (u.kind === 'file_search') return u.queries.join(' ');
      if (u.kind === 'image_generation') return u.prompt;
      return u.kind === 'tool_search' || u.kind === 'maps' ? u.query : '';
    }
    default:
      return block.text;
  }
}

function blockPieces(block: Block): Iterable<string> {
  // Audio and pictures go out whole, as one piece.
  const text = streamedText(block);
  return text ? tokenPieces(text) : [''];
}

/** One choice's steps, in order, made as they are taken. */
function* choiceSteps(reply: CanonicalReply, choice: Choice, profile: LatencyProfile): Generator<StreamStep> {
  const blocks: readonly Block[] = choice.blocks.length ? choice.blocks : [{ type: 'text', text: '' }];
  // No delay at all: every piece is due at once, with no draws (the commonest case, kept cheap).
  const instant = profile.ttftMs === 0 && profile.tokensPerSecond === 0;
  const times = instant ? undefined : dueTimes(profile, deriveKey(reply.key, `timing:${choice.index}`));
  let i = 0;
  for (let b = 0; b < blocks.length; b++) {
    const pieces = blockPieces(blocks[b])[Symbol.iterator]();
    let piece = pieces.next();
    for (let j = 0; !piece.done; j++, i++) {
      // One piece ahead: whether this one ends its block.
      const following = pieces.next();
      yield {
        choice: choice.index,
        position: i,
        block: b,
        text: piece.value,
        due: times ? times.next().value : 0,
        first: i === 0,
        last: following.done === true && b === blocks.length - 1,
        blockStart: j === 0,
        blockEnd: following.done === true,
      };
      piece = following;
    }
  }
}

const before = (a: StreamStep, b: StreamStep) => a.due - b.due || a.position - b.position || a.choice - b.choice;

/**
 * The stream plan, a step at a time as it is taken: a stream holds one step per choice, never the
 * plan. Choices interleave by time, and piece by piece when times tie, as the real services do (a
 * merge of the choices' steps, each choice's already in order: times never decrease).
 */
export function planSteps(reply: CanonicalReply, profile: LatencyProfile): Iterable<StreamStep> {
  return reply.choices.length === 1 ? choiceSteps(reply, reply.choices[0], profile) : mergedSteps(reply, profile);
}

function* mergedSteps(reply: CanonicalReply, profile: LatencyProfile): Generator<StreamStep> {
  // A binary heap of each choice's next step, earliest first.
  const heap: { step: StreamStep; rest: Generator<StreamStep> }[] = [];
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let least = at;
      if (l < heap.length && before(heap[l].step, heap[least].step) < 0) least = l;
      if (r < heap.length && before(heap[r].step, heap[least].step) < 0) least = r;
      if (least === at) return;
      swap(at, least);
      at = least;
    }
  };
  for (const choice of reply.choices) {
    const rest = choiceSteps(reply, choice, profile);
    const first = rest.next();
    if (first.done) continue;
    heap.push({ step: first.value, rest });
    for (let at = heap.length - 1; at > 0 && before(heap[at].step, heap[(at - 1) >> 1].step) < 0; at = (at - 1) >> 1)
      swap(at, (at - 1) >> 1);
  }
  while (heap.length) {
    const top = heap[0];
    yield top.step;
    const next = top.rest.next();
    if (next.done) {
      const last = heap.pop()!;
      if (!heap.length) return;
      heap[0] = last;
    } else top.step = next.value;
    down(0);
  }
}

/** The whole stream plan (see planSteps). */
export function planStream(reply: CanonicalReply, profile: LatencyProfile): StreamStep[] {
  return [...planSteps(reply, profile)];
}

/** How long a non-streamed reply takes: until its last piece would have been generated. */
export function replyDelay(reply: CanonicalReply, profile: LatencyProfile): number {
  if (profile.ttftMs === 0 && profile.tokensPerSecond === 0) return 0;
  let last = 0;
  for (const choice of reply.choices) for (const step of choiceSteps(reply, choice, profile)) last = Math.max(last, step.due);
  return last;
}
