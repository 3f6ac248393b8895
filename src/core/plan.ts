// The stream plan: a reply cut into token-sized pieces, each with the time it is due.
// Formats render each step as their own events; none of them decides chunking or timing.
import type { CanonicalReply } from './reply.ts';
import { deriveKey } from './seed.ts';
import { pieceTimes, type LatencyProfile } from './timing.ts';
import { splitTokens } from './tokens.ts';

export interface StreamStep {
  choice: number;
  /** Position of this piece within its choice. */
  position: number;
  /** Text of this piece ('' for a choice with no text). */
  text: string;
  /** Milliseconds after arrival. */
  due: number;
  /** The choice's first piece: formats open the choice here. */
  first: boolean;
  /** The choice's last piece: formats close the choice here. */
  last: boolean;
}

export function planStream(reply: CanonicalReply, profile: LatencyProfile): StreamStep[] {
  const steps: StreamStep[] = [];
  for (const choice of reply.choices) {
    const text = choice.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const pieces = text ? splitTokens(text) : [''];
    const times = pieceTimes(profile, pieces.length, deriveKey(reply.key, `timing:${choice.index}`));
    pieces.forEach((piece, i) =>
      steps.push({ choice: choice.index, position: i, text: piece, due: times[i], first: i === 0, last: i === pieces.length - 1 }),
    );
  }
  // Choices interleave by time, and piece by piece when times tie, as the real services do.
  return steps.sort((a, b) => a.due - b.due || a.position - b.position || a.choice - b.choice);
}

/** How long a non-streamed reply takes: until its last piece would have been generated. */
export function replyDelay(reply: CanonicalReply, profile: LatencyProfile): number {
  if (profile.ttftMs === 0 && profile.tokensPerSecond === 0) return 0;
  const steps = planStream(reply, profile);
  return steps.length ? steps[steps.length - 1].due : 0;
}
