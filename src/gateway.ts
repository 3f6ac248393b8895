// createGateway(): the emulator as msw handlers plus the small API a test needs.
import type { HttpHandler } from 'msw';
import type { JournalEntry } from './core/journal.ts';
import type { Fixture } from './fixtures/types.ts';
import { openaiEndpoints } from './formats/openai/routes.ts';
import { anthropicEndpoints } from './formats/anthropic/routes.ts';
import { geminiEndpoints } from './formats/gemini/routes.ts';
import { Runtime, type GatewayOptions } from './runtime.ts';
import type { EndpointSpec } from './transport/endpoint.ts';
import { mswHandlers } from './transport/msw.ts';

/** Every endpoint of every format; both transports serve exactly these. Where two share a path, the first that accepts a request serves it. */
export const endpoints: readonly EndpointSpec[] = [...anthropicEndpoints, ...geminiEndpoints, ...openaiEndpoints];

export interface Gateway {
  /** msw request handlers: `setupServer(...gateway.handlers)` or `setupWorker(...gateway.handlers)`. */
  readonly handlers: HttpHandler[];
  /** Adds fixtures that take precedence over all earlier ones until `reset()`. */
  use(...fixtures: Fixture[]): void;
  /** The requests received so far, oldest first (bounded by `journalSize`). */
  requests(): JournalEntry[];
  /** Clears the journal and the fixtures added by `use()`, and revives `once` fixtures. */
  reset(): void;
  /** The issued tokens. */
  readonly tokens: string[];
  /** Streams still being written (useful to see that aborted streams stop). */
  readonly activeStreams: number;
  /** @internal the live state, for the standalone server. */
  readonly runtime: Runtime;
}

export function createGateway(options: GatewayOptions = {}): Gateway {
  const runtime = new Runtime(options);
  const origin = options.origin?.replace(/\/+$/, '') ?? '*';
  const handlers = mswHandlers(runtime, origin, endpoints);
  return {
    handlers,
    use: (...fixtures) => runtime.fixtures.use(...fixtures),
    requests: () => runtime.journal.list(),
    reset() {
      runtime.journal.clear();
      runtime.fixtures.reset();
    },
    get tokens() {
      return runtime.tokens.list().map((t) => t.token);
    },
    get activeStreams() {
      return runtime.activeStreams;
    },
    runtime,
  };
}
