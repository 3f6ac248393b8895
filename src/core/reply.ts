// The canonical reply: ordered content blocks per choice, a finish reason and counted usage.
import type { RgbaImage } from './synthesize/image.ts';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'thinking'; text: string; signature: string }
  /** 16-bit mono PCM at `sampleRate`, speaking `transcript`. */
  | { type: 'audio'; samples: Int16Array; sampleRate: number; transcript: string }
  /** A picture: synthesized pixels (formats encode them), or a fixture's file as pinned. */
  | { type: 'image'; pixels?: RgbaImage; file?: Uint8Array };

/** Why generation ended. Each format maps these onto its own words. */
export type FinishReason = 'stop' | 'length' | 'stop_sequence' | 'tool_calls' | 'content_filter';

export interface Choice {
  index: number;
  blocks: Block[];
  finishReason: FinishReason;
  /** The stop string that ended generation, when finishReason is 'stop_sequence'. */
  stopSequence?: string;
  outputTokens: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  cacheCreationInputTokens?: number;
  /** Of inputTokens, what image and audio parts cost (the rest is text); absent means none. */
  imageInputTokens?: number;
  audioInputTokens?: number;
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
}

/** The text of a choice: its text blocks, joined. */
export function choiceText(choice: Choice): string {
  return choice.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
