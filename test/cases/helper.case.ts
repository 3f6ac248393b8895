// Uses model-gateway-mock/vitest as a user would; some of these tests must fail, by the helper's afterEach.
import { expect, it } from 'vitest';
import { setupGateway } from '../../src/vitest.ts';

const gateway = setupGateway({
  strict: process.env.CASE_STRICT === '1',
  use: [{ name: 'weather', match: { userMessage: { contains: 'weather' } }, reply: { text: 'Sunny.' } }],
});
const chat = (content: string) =>
  fetch('http://127.0.0.1:2/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });

it('answers from the per-test fixture', async () => {
  const reply = await (await chat('weather in Porto?')).json();
  expect(reply.choices[0].message.content).toBe('Sunny.');
  expect(gateway.requests()).toHaveLength(1);
});

it('starts each test with a reset journal', () => {
  expect(gateway.requests()).toEqual([]);
});

it('calls a host no handler serves', async () => {
  await fetch('http://127.0.0.1:2/not-an-endpoint').catch(() => undefined);
});

it('asks something no fixture matches', async () => {
  await chat('hello');
});

it('embeds one input a fixture matches and one no fixture matches', async () => {
  await fetch('http://127.0.0.1:2/v1/embeddings', {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'text-embedding-3-small', input: ['weather in Porto?', 'hello'] }),
  });
});
