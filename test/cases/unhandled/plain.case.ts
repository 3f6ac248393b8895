// createGateway() under msw's setupServer, listening as the docs say: server.listen(blockUnhandled()).
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { blockUnhandled, createGateway } from '../../../src/index.ts';
import { maskKey } from '../../../src/auth/keys.ts';
import { REAL_KEY, sendEverything } from './requests.ts';

const blocked: string[] = [];
const server = setupServer(...createGateway().handlers);
beforeAll(() => {
  server.listen(blockUnhandled({ onBlocked: (request) => blocked.push(request) }));
  // What the vitest helper does for node:http's ESM named exports (requests.ts imports `request` so).
  syncBuiltinESMExports();
});
afterAll(() => server.close());

it('plain: sends a real key to hosts no handler serves', async () => {
  const outcomes = await sendEverything('plain');
  for (const [what, outcome] of Object.entries(outcomes)) if (what !== 'websocket') expect(outcome, what).toMatch(/^refused/);
  // Named, with the key in the query masked.
  expect(blocked).toContain(`GET ${process.env.REAL_HOST}/plain/vertex/models/gemini-2.5-flash:generateContent?key=${maskKey(REAL_KEY)}`);
});
