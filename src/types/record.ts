// Record mode's options: the pipeline forwards what no fixture answers (pipeline/decide.ts returns a
// Forward) to record/recorder.ts, loaded on first use.

export interface RecordOptions {
  /** Directory the fixtures are written to. */
  dir: string;
  /** Upstream base URL per format ('openai', 'anthropic', 'gemini'), or `default` for all. */
  upstreams: Record<string, string | undefined>;
  /** JSON paths (`a.b.c`, `messages.0.content`) of the request body written as "[redacted]". */
  redactPaths?: string[];
  /** Largest answer recorded, in bytes; bigger ones pass through unrecorded. Default 8 MiB. */
  maxBytes?: number;
  /** Where to send the request instead of the global fetch (in-process: past msw). */
  fetch?: typeof fetch;
}
