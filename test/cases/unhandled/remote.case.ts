// setupGateway({ url }) against a standalone server (SHARED_GATEWAY_URL), with its default onUnhandledRequest: 'error'.
import { expect, it } from 'vitest';
import { setupGateway } from '../../../src/vitest.ts';
import { sendEverything } from './requests.ts';

setupGateway({ url: process.env.SHARED_GATEWAY_URL! });

it('remote: sends a real key to hosts no handler serves', async () => {
  const outcomes = await sendEverything('remote');
  for (const [what, outcome] of Object.entries(outcomes)) if (what !== 'websocket') expect(outcome, what).toMatch(/^refused/);
});
