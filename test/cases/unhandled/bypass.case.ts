// The control: setupGateway({ onUnhandledRequest: 'bypass' }) lets them through, so the listener does count what reaches it.
import { expect, it } from 'vitest';
import { setupGateway } from '../../../src/vitest.ts';
import { sendEverything } from './requests.ts';

setupGateway({ onUnhandledRequest: 'bypass' });

it('bypass: sends a real key to hosts no handler serves', async () => {
  const outcomes = await sendEverything('bypass');
  expect(outcomes.azure).toBe('answered 404');
  expect(outcomes.http).toBe('answered 404');
});
