// The public types of a reply: its token counts, why it ended, and what a fixture pins of it
// (core/reply.ts and core/respond.ts do the work).
import type { PinnedBuiltinCall, PinnedCitation } from './builtin.ts';

/**
 * Why generation ended. Each format maps these onto its own words. `refusal`: the model declined
 * (a refusal block); `content_filter`: a safety filter blocked the output (no content).
 */
export type FinishReason = 'stop' | 'length' | 'stop_sequence' | 'tool_calls' | 'content_filter' | 'refusal';

export interface Usage {
  /** The whole prompt, what was read from or written to the cache included. */
  inputTokens: number;
  /** Everything generated, reasoning included. */
  outputTokens: number;
  /** Of inputTokens, what was read from the prompt cache. */
  cachedInputTokens: number;
  /** Of inputTokens, what was written to the prompt cache (explicit breakpoints); absent means none. */
  cacheCreationInputTokens?: number;
  /** Of cacheCreationInputTokens, what is kept an hour (`ttl: "1h"`); absent means none. */
  cacheCreation1hInputTokens?: number;
  /** Of outputTokens, what was spent reasoning. */
  reasoningTokens: number;
  /** Of inputTokens, what image and audio parts cost (the rest is text); absent means none. */
  imageInputTokens?: number;
  audioInputTokens?: number;
  /** Built-in tools the service ran, by kind (web_search, web_fetch, code_execution, image_generation…); absent means none. */
  serverToolUses?: Record<string, number>;
}

/** A tool call a fixture pins: arguments as an object or as a JSON string. */
export interface PinnedToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
}

/** What a fixture pins of a reply; everything left out is synthesized or counted. */
export interface PinnedReply {
  /** The fixture's name, reported with the reply. */
  name?: string;
  /** The reply text; an array gives one text per choice (cycled when n is larger). For a transcription: the transcript (the first text). */
  text?: string | string[];
  /** Tool calls to make (after the text, if any). */
  toolCalls?: PinnedToolCall[];
  /** Built-in tools used first (a web search and its results, code run and its output, a shell command…), in order. */
  builtinCalls?: PinnedBuiltinCall[];
  /** Which spans of the text cite which search results (by default, a sentence naming a result's title, URL or snippet cites it). */
  citations?: PinnedCitation[];
  /** Reasoning to show first (formats that show reasoning do). */
  thinking?: string;
  finishReason?: FinishReason;
  /**
   * A vendor's own finish reason, sent as it is by the format whose reason it is: Gemini's (`SPII`,
   * `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS`, `CONTINUATION` with its
   * `continuationToken`…, every member of @google/genai's FinishReason) or Anthropic's (`pause_turn`,
   * `model_context_window_exceeded`). Every other format sends `finishReason`'s.
   */
  vendorFinishReason?: string;
  /** Replaces counted usage figures. */
  usage?: Partial<Usage>;
  /** For an embedding request: the vector to return instead of a synthesized one. */
  embedding?: number[];
  /** For a moderation input: scores (0..1) by category (`violence`, `self-harm/intent`...) to return instead of synthesized ones; 0.5 and above is flagged. */
  moderation?: Record<string, number>;
  /** For a speech request (Gemini, or OpenAI /v1/audio/speech in any format): base64 16-bit little-endian mono PCM at 24 kHz to return instead of synthesized speech. */
  audio?: string;
  /** For an image request: a base64 PNG, JPEG or WebP file to return instead of a synthesized picture. */
  image?: string;
  /** The model declines, in these words (instead of any text or tool calls). */
  refusal?: string;
  /** A safety filter blocks the model's output (nothing is said) or the prompt (nothing is generated). */
  blocked?: 'output' | 'prompt';
}
