// A journal entry: what the gateway received and answered (core/journal.ts keeps them).
import type { Usage } from './reply.ts';
import type { FormatName } from '../formats/names.ts';

export interface JournalEntry {
  /** Sequence number, from 1, over the gateway's life (reset() restarts it). */
  seq: number;
  /** The request id sent back in the vendor's request-id header. */
  requestId: string;
  method: string;
  path: string;
  /** The query string ('' or `?…`), with a `key` parameter masked. */
  query: string;
  /** Request headers, credentials masked (`authorization`, `x-api-key`, `x-goog-api-key`…). */
  headers: Record<string, string>;
  /** The parsed body, when there was one; over JOURNAL_BODY_CHARS, a copy with long parts cut (see `truncated`). */
  body?: unknown;
  /** The body's size in bytes as received. */
  bodyBytes?: number;
  /** Set when `body` is a shortened copy (long strings, arrays and objects cut, each cut marked). */
  truncated?: boolean;
  /** The wire format of the endpoint that took the request. */
  format?: FormatName;
  /** The dialect it came by, when not the vendor's own paths: `azure`, `openrouter` (a cloud's or a router's door to the same endpoint). */
  dialect?: string;
  model?: string;
  /** Name (or id) of the fixture that answered, if any. */
  fixture?: string;
  /** In strict mode, for an unmatched request: the nearest fixture and its conditions. */
  nearMiss?: unknown;
  /** What the gateway accepted but did not know (`unrecognized request argument "foo"`), or a fixture calling a tool the request did not offer (also sent as x-mock-warning). */
  warnings?: string[];
  /** The response status (0 when the connection was broken instead). */
  status: number;
  /** The fault inflicted, if any. */
  fault?: string;
  stream: boolean;
  /** For streams: 'streaming' until the last event is written, then 'completed', or 'aborted' when the client left. */
  outcome: 'completed' | 'streaming' | 'aborted';
  /** Stream events written so far (for a WebSocket session: server events sent). */
  eventsSent: number;
  /** Samples of speech synthesized for this request (a realtime session: all its responses' speech, counted as it is made, so it stops where a client that left stopped it). */
  speechSamples?: number;
  /** For a WebSocket session: the event types exchanged, oldest first (bounded). */
  events?: { from: 'client' | 'server'; type: string }[];
  /** When the request arrived (Unix milliseconds, the real clock: for people reading the journal, not for replies). */
  startedAt?: number;
  /** Milliseconds from arrival to the reply being ready (for streams: to the last event written, or the client leaving). */
  durationMs?: number;
  /** What was answered, bounded (see CapturedResponse). */
  response?: CapturedResponse;
  /**
   * The token counts a request is charged: a reply's (chat, completions, responses, messages, generateContent),
   * or the input of embeddings, Jina-style rerank and a compaction. Absent on an error.
   */
  usage?: Usage;
  /**
   * For a batch's creation (Anthropic's, OpenAI's, Gemini's): each request's outcome, the first MAX_BATCH_JOURNAL_REQUESTS
   * (`more` counts the rest). Its `usage` and `costUsd` are then the sums of its requests'.
   */
  batch?: { requests: BatchRequestRecord[]; more: number };
  /** Items a request sent only to be dropped (a traces ingest: accepted, answered 204, kept nowhere). */
  dropped?: number;
  /** What the reply cost in USD at the price table in force (core/prices.ts); absent when the model has no price or nothing was replied. */
  costUsd?: number;
}

/** One request of a batch as the batch's journal entry lists it: what answered it, or the near miss that did not. */
export interface BatchRequestRecord {
  custom_id: string;
  status: 'succeeded' | 'errored';
  model?: string;
  fixture?: string;
  nearMiss?: unknown;
}

/** The answer as written: headers, and the body (a stream's framed events) up to a limit; binary bodies by size only. */
export interface CapturedResponse {
  headers: Record<string, string>;
  body?: string;
  /** The body was longer than the limit and is cut there. */
  truncated?: boolean;
  /** A binary body (audio, images) is not kept: its size is. */
  binaryBytes?: number;
}
