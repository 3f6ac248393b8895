// The stream plan: a reply cut into token-sized pieces, each with the time it is due.
// Formats render each step as their own events; none of them decides chunking or timing.
import type { Block, CanonicalReply } from './reply.ts';
import { deriveKey } from './seed.ts';
import { pieceTimes, type LatencyProfile } from './timing.ts';
import { splitTokens } from './tokens.ts';

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

function blockPieces(block: Block): readonly string[] {
  // Audio and pictures go out whole, as one piece.
  const text = streamedText(block);
  return text ? splitTokens(text) : [''];
}

export function planStream(reply: CanonicalReply, profile: LatencyProfile): StreamStep[] {
  const steps: StreamStep[] = [];
  for (const choice of reply.choices) {
    const blocks: readonly Block[] = choice.blocks.length ? choice.blocks : [{ type: 'text', text: '' }];
    const pieces = blocks.map(blockPieces);
    const count = pieces.reduce((n, p) => n + p.length, 0);
    const times = pieceTimes(profile, count, deriveKey(reply.key, `timing:${choice.index}`));
    let i = 0;
    for (let b = 0; b < blocks.length; b++) {
      const texts = pieces[b];
      for (let j = 0; j < texts.length; j++, i++) {
        steps.push({
          choice: choice.index,
          position: i,
          block: b,
          text: texts[j],
          due: times[i],
          first: i === 0,
          last: i === count - 1,
          blockStart: j === 0,
          blockEnd: j === texts.length - 1,
        });
      }
    }
  }
  // Choices interleave by time, and piece by piece when times tie, as the real services do. One
  // choice's steps are in order already (times never decrease).
  return reply.choices.length > 1 ? steps.sort((a, b) => a.due - b.due || a.position - b.position || a.choice - b.choice) : steps;
}

/** How long a non-streamed reply takes: until its last piece would have been generated. */
export function replyDelay(reply: CanonicalReply, profile: LatencyProfile): number {
  if (profile.ttftMs === 0 && profile.tokensPerSecond === 0) return 0;
  const steps = planStream(reply, profile);
  return steps.length ? steps[steps.length - 1].due : 0;
}
