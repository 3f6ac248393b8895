// Faults as the public API names them: `x-mock-fault`, a fixture's `fault` (core/faults.ts inflicts them).

/** The connection breaks: reset, closed with no answer, a broken chunk, random bytes. */
export type ConnectionFault = 'CONNECTION_RESET_BY_PEER' | 'EMPTY_RESPONSE' | 'MALFORMED_RESPONSE_CHUNK' | 'RANDOM_DATA_THEN_CLOSE';
/** The stream breaks: cut, an in-stream error, or a stall. */
export type StreamFault = 'STREAM_CUT' | 'STREAM_ERROR' | 'STALL';
/** The model refuses; a safety filter blocks the output; a safety filter blocks the prompt. */
export type ReplyFault = 'REFUSAL' | 'CONTENT_FILTER' | 'PROMPT_BLOCKED';
/** The model is overloaded: the vendor's overload error (Anthropic 529, OpenAI and Gemini 503), which SDKs retry. */
export type ErrorFault = 'OVERLOADED';

export interface FaultSpec {
  type: ConnectionFault | StreamFault | ReplyFault | ErrorFault;
  /** Stream faults: after how many events (default 1). */
  after?: number;
  /** STALL: how long the stream stops, in ms (default 10000). */
  ms?: number;
  /** STREAM_ERROR: the status whose vendor error goes into the stream (default 500). */
  status?: number;
  /** STREAM_ERROR and OVERLOADED: the error's message; REFUSAL: the refusal's text. */
  message?: string;
  /** Chance of the fault, 0..1 (default 1), drawn from the request's seed so a failing run replays. */
  probability?: number;
}
