// createGateway() under msw's setupServer with msw's own 'error' strategy (msw 3 names it onUnhandledFrame, msw 2 onUnhandledRequest).
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { createGateway } from '../../../src/index.ts';
import { sendEverything } from './requests.ts';

const server = setupServer(...createGateway().handlers);
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error', onUnhandledFrame: 'error' } as never);
  syncBuiltinESMExports();
});
afterAll(() => server.close());

it('msw-error: sends a real key to hosts no handler serves', async () => {
  const outcomes = await sendEverything('msw-error');
  for (const [what, outcome] of Object.entries(outcomes)) if (what !== 'websocket') expect(outcome, what).toMatch(/^refused/);
});
