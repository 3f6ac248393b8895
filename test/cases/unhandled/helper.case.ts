// setupGateway() in-process, with its default onUnhandledRequest: 'error'.
import { expect, it } from 'vitest';
import { setupGateway } from '../../../src/vitest.ts';
import { sendEverything } from './requests.ts';

setupGateway();

it('helper: sends a real key to hosts no handler serves', async () => {
  const outcomes = await sendEverything('helper');
  for (const [what, outcome] of Object.entries(outcomes)) if (what !== 'websocket') expect(outcome, what).toMatch(/^refused/);
});
