// The chat component in a simulated DOM (jsdom and happy-dom projects), its SDK calls answered in-process by
// the vitest helper; the same file runs in vitest's browser mode with setupWorker (test/browser-mode).
import { expect, it } from 'vitest';
import { setupGateway } from '../../src/vitest.ts';
import { mountChat, send } from './chat-widget.ts';

const gateway = setupGateway({
  tokens: ['sk-frontend'],
  use: [{ name: 'hello', match: { userMessage: { contains: 'hello' } }, reply: { text: 'Hi there, from the mock.' } }],
});
// Never a real host: should interception fail, the request goes nowhere.
const baseURL = 'http://127.0.0.1:2/v1';

it(`runs in ${navigator.userAgent.includes('jsdom') ? 'jsdom' : navigator.userAgent.includes('HappyDOM') ? 'happy-dom' : 'a DOM'}`, () => {
  expect(document.body).toBeInstanceOf(HTMLElement);
});

it('streams the fixture reply into the page', async () => {
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-frontend' });
  expect(await send(root, 'hello there')).toBe('Hi there, from the mock.');
  expect(root.dataset.state).toBe('done');
  expect(gateway.requests().map((r) => [r.path, r.fixture, r.stream])).toEqual([['/v1/chat/completions', 'hello', true]]);
});

it('synthesizes a reply when no fixture matches, the same on every run', async () => {
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-frontend' });
  const first = await send(root, 'something else');
  expect(root.dataset.state).toBe('done');
  expect(first.length).toBeGreaterThan(0);
  expect(await send(root, 'something else')).toBe(first);
});

it('shows the SDK error for a wrong key', async () => {
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-wrong' });
  expect(await send(root, 'hello')).toMatch(/^401 Incorrect API key provided/);
  expect(root.dataset.state).toBe('error');
});
