// The seam between deciding and recording: Runtime.decide throws this when recording and no fixture
// matches, and the pipeline forwards the request upstream (record/recorder.ts, loaded on first use).
import type { CanonicalRequest } from '../core/request.ts';

export class ForwardToUpstream {
  readonly request: CanonicalRequest;
  constructor(request: CanonicalRequest) {
    this.request = request;
  }
}

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
