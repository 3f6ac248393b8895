// A started gateway on a dynamic port and its realtime WebSocket URL, for suites of raw `ws` clients.
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';

/** Starts a gateway (seed 3) before the suite and closes it after; read `server` and `wsUrl` inside tests. */
export function realtimeServer(model = 'gpt-realtime'): { readonly server: RunningServer; readonly wsUrl: string } {
  const state = {} as { server: RunningServer; wsUrl: string };
  beforeAll(async () => {
    state.server = await startServer({ port: 0, seed: 3 });
    state.wsUrl = `${state.server.url.replace('http', 'ws')}/v1/realtime?model=${model}`;
  });
  afterAll(() => state.server.close());
  return state;
}
