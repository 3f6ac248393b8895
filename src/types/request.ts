// The canonical request every wire format parses into: the public types (core/request.ts does the work).
import type { FormatName } from '../formats/names.ts';
import type { BuiltinTool } from './builtin.ts';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type Part =
  | { type: 'text'; text: string }
  | { type: 'image' }
  | { type: 'audio' }
  /**
   * A document or file (`fileId`: given by id); `text` when the gateway reads it (counted as the model
   * reads it; not the user's words a fixture matches).
   */
  | { type: 'file'; text?: string; fileId?: string };

export interface ToolCallRef {
  id: string;
  name: string;
  arguments: string;
}

export interface Message {
  role: Role;
  parts: Part[];
  /** Tool calls an assistant turn made. */
  toolCalls?: ToolCallRef[];
  /** On a tool turn: the call it answers. */
  toolCallId?: string;
  /** On a tool turn answering a call that waited for approval (an MCP call): whether the client approved it. */
  approved?: boolean;
}

/** The shape the reply's text must take. */
export type OutputFormat =
  | { type: 'text' }
  /** Any JSON object (OpenAI `json_object`, Gemini `application/json` without a schema). */
  | { type: 'json' }
  | { type: 'json_schema'; schema: Record<string, unknown>; name?: string }
  /** Speech of the prompt's text: one voice, or named speakers each with a voice (lines `Name: …`). */
  | { type: 'audio'; voice: string; speakers?: { name: string; voice: string }[] }
  /** A picture of the prompt, width × height, after a line of text when `text` is set. */
  | { type: 'image'; width: number; height: number; text: boolean };

/**
 * A document a request gives with citations asked for (Anthropic's `document` block with `citations:
 * {enabled: true}`): its text as read (inline, or the file it names), and its place among all the
 * request's documents (what a citation's `document_index` says).
 */
export interface CitableDocument {
  index: number;
  text: string;
  title?: string;
  /** The file it was read from, when given by id. */
  fileId?: string;
}

/** What a client asked for, independent of the format it asked in. */
export interface CanonicalRequest {
  /** The wire format's name; the core records it for matching and never branches on it. */
  format: FormatName;
  /**
   * The operation: 'chat' (any generation), 'embedding' (one input), 'rerank' (the query), 'speech' (the
   * input), 'transcription' (what the audio says, or the prompt), 'image' (a picture of the prompt),
   * 'moderation' (one input's texts).
   */
  operation: 'chat' | 'embedding' | 'rerank' | 'speech' | 'transcription' | 'image' | 'moderation';
  model: string;
  messages: Message[];
  /** Upper bound on generated tokens per choice. */
  maxTokens?: number;
  /** Generation stops before the first of these strings. */
  stop: string[];
  /** Number of choices. */
  n: number;
  /** The client's own sampling seed (OpenAI `seed`), part of the synthesis key. */
  seed?: number;
  stream: boolean;
  /** Tools the model may call. */
  tools: ToolSpec[];
  toolChoice: ToolChoice;
  /** Whether several tools may be called in one turn. */
  parallelToolCalls: boolean;
  output: OutputFormat;
  /**
   * Reasoning as asked: an effort level or a token budget (absent: the model's default, which is
   * `medium` for a reasoning model), and whether its text (thinking, a summary) is shown. Only
   * reasoning models reason (see core/reasoning.ts), except that shown thinking asked with a budget is
   * given on any model.
   */
  /**
   * `firstFromLimit`: thinking comes first out of `maxTokens` and the answer gets what is left (none
   * when thinking took it all), rather than thinking being cut to what the answer leaves.
   */
  reasoning?: { effort?: ReasoningEffort; budgetTokens?: number; show?: boolean; firstFromLimit?: boolean };
  /** Documents the reply may cite, in the order given; absent: none. */
  documents?: CitableDocument[];
  /** Prompt caching as the client asked for it (see core/cache.ts); absent: none. */
  cache?: CacheRequest;
  /** How this format frames a conversation in tokens; absent: OpenAI's chat framing (core/tokens.ts). */
  framing?: TokenFraming;
  /**
   * Every input of the call this request is one input of (an embeddings batch), when there are several:
   * a recording holds the answer to the whole batch, so the match key covers the whole batch.
   */
  batch?: readonly string[];
}

/** How hard a reasoning model thinks, from none to extra high. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Prompt caching: explicit breakpoints (the prefix up to and including message `after`, or the tools
 * alone for -1, is cached for `ttlSeconds`), or automatic caching of every message-boundary prefix, its
 * cached figure rounded down to a multiple of `stepTokens`, kept `ttlSeconds`, routed by `key`; or an
 * explicit cache's tokens (`held`), which the request names and the gateway keeps apart.
 */
export interface CacheRequest {
  /** Tokens an explicit cache the request names holds (Gemini's `cachedContent`): read from the cache, whatever else. */
  held?: number;
  breakpoints?: { after: number; ttlSeconds: number }[];
  automatic?: { stepTokens: number; ttlSeconds: number; key?: string };
}

/** Tokens a format adds around a conversation: once per prompt, per message, and each message's role. */
export interface TokenFraming {
  priming: number;
  perMessage: number;
  roles: boolean;
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /** A vendor's built-in tool (absent: a function the client runs with arguments of `parameters`). */
  builtin?: BuiltinTool;
  /** Loaded only when a tool search finds it (the vendors' `defer_loading`). */
  deferred?: boolean;
}

/** `auto`, `none`, `required` (any tool), or one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };
