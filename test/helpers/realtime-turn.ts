// One text turn over a realtime WebSocket, for the tests of per-test isolation: the socket carries a
// test id, says "Hi", and the response's text is what that test's fixture says.
import WebSocket from 'ws';

/** Opens `${wsRoot}/v1/realtime` tagged with `testId`, asks one text response, and gives its text. */
export async function realtimeTextTurn(wsRoot: string, testId: string): Promise<string | undefined> {
  const socket = new WebSocket(`${wsRoot}/v1/realtime?model=gpt-realtime`, {
    headers: { authorization: 'Bearer sk-test', 'x-mock-test-id': testId },
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
  return events.find((e) => e.type === 'response.output_text.done')?.text;
}
