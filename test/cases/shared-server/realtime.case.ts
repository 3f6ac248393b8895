// setupGateway({ url }) and a realtime WebSocket (run alone by test/shared-server.test.ts): the helper
// lets the upgrade through untouched, and the test tags its socket with `gateway.testId` itself.
import { expect, it } from 'vitest';
import { setupGateway } from '../../../src/vitest.ts';
import { realtimeTextTurn } from '../../helpers/realtime-turn.ts';

const url = process.env.SHARED_GATEWAY_URL!;
const gateway = setupGateway({ url, use: [{ name: 'realtime fixture', reply: { text: 'Hello from this test.' } }] });

it('answers a realtime socket from the test fixture', async () => {
  expect(await realtimeTextTurn(url.replace('http', 'ws'), gateway.testId!)).toBe('Hello from this test.');
  expect((await gateway.requests()).map((e) => [e.path, e.fixture])).toEqual([['/v1/realtime', 'realtime fixture']]);
});
