// setupGateway({ url }) and a realtime WebSocket (run alone by test/shared-server.test.ts): the helper
// lets the upgrade through untouched, and the test tags its socket with `gateway.testId` itself.
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { setupGateway } from '../../../src/vitest.ts';

const url = process.env.SHARED_GATEWAY_URL!;
const gateway = setupGateway({ url, use: [{ name: 'realtime fixture', reply: { text: 'Hello from this test.' } }] });

it('answers a realtime socket from the test fixture', async () => {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
    headers: { authorization: 'Bearer sk-test', 'x-mock-test-id': gateway.testId! },
  });
  const events: { type: string; text?: string }[] = [];
  const done = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as { type: string; text?: string };
      events.push(event);
      if (event.type === 'response.done') resolve();
    });
    socket.once('error', reject);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }));
  socket.send(
    JSON.stringify({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
    }),
  );
  socket.send(JSON.stringify({ type: 'response.create' }));
  await done;
  socket.close();
  expect(events.find((e) => e.type === 'response.output_text.done')?.text).toBe('Hello from this test.');
  expect((await gateway.requests()).map((e) => [e.path, e.fixture])).toEqual([['/v1/realtime', 'realtime fixture']]);
});
