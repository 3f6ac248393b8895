// The canonical reply: ordered content blocks per choice, a finish reason and counted usage.
import { joinedTexts } from './request.ts';
import type { RgbaImage } from './synthesize/image.ts';
import type { FinishReason, Usage } from '../types/reply.ts';
export type { FinishReason, Usage } from '../types/reply.ts';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'thinking'; text: string; signature: string }
  /** 16-bit mono PCM at `sampleRate`, speaking `transcript`. */
  | { type: 'audio'; samples: Int16Array; sampleRate: number; transcript: string }
  /** A picture: synthesized pixels (formats encode them), or a fixture's file as pinned. */
  | { type: 'image'; pixels?: RgbaImage; file?: Uint8Array }
  /** The model declining to answer, in its own words (formats with a refusal field put it there). */
  | { type: 'refusal'; text: string };

export interface Choice {
  index: number;
  blocks: Block[];
  finishReason: FinishReason;
  /** The stop string that ended generation, when finishReason is 'stop_sequence'. */
  stopSequence?: string;
  /** Tokens of outputTokens spent reasoning (shown as a thinking block or hidden), and the signature that vouches for them. */
  reasoning?: { tokens: number; signature: string };
  outputTokens: number;
}

export interface CanonicalReply {
  /** Stable key of this reply: the seed of its ids and of its stream timing. */
  key: number;
  /** Unix seconds, from the gateway's clock. */
  created: number;
  choices: Choice[];
  usage: Usage;
  /** Name of the fixture that produced the reply, if any. */
  fixture?: string;
  /** A safety filter blocked the prompt: nothing was generated (each choice empty, `content_filter`). */
  promptBlocked?: boolean;
}

/** The text of a choice: its text blocks, joined. */
export function choiceText(choice: Choice): string {
  return joinedTexts(choice.blocks);
}
