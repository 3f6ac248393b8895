// vitest's browser mode, in real Chromium: the same chat component, its SDK calls answered by the gateway
// in the page's service worker (msw's setupWorker; vitest serves mockServiceWorker.js, see vitest.config.ts).
import { expect, it } from 'vitest';
import { mountChat, send } from '../dom/chat-widget.ts';
import { BASE, useWorkerGateway } from './worker.ts';

const gateway = useWorkerGateway({ tokens: ['sk-frontend'] });
const baseURL = `${BASE}/v1`;

it('runs in Chromium with a service worker', () => {
  expect(navigator.userAgent).toMatch(/Chrome\//);
  expect(navigator.serviceWorker.controller).not.toBeNull();
});

it('streams the fixture reply into the page', async () => {
  gateway.use({ name: 'hello', match: { userMessage: { contains: 'hello' } }, reply: { text: 'Hi there, from the worker.' } });
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-frontend' });
  expect(await send(root, 'hello there')).toBe('Hi there, from the worker.');
  expect(root.dataset.state).toBe('done');
  expect(gateway.requests().map((r) => [r.path, r.fixture, r.stream])).toEqual([['/v1/chat/completions', 'hello', true]]);
});

it('matches fixture patterns with RE2 in the browser too: the nested quantifier that wedged V8 answers at once', async () => {
  gateway.use({ name: 'words', match: { userMessage: { regex: '^(\\w+\\s?)*$' } }, reply: { text: 'Only words.' } });
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-frontend' });
  expect(await send(root, 'plain words here')).toBe('Only words.');
  expect(await send(root, `${'a'.repeat(45)}!`)).not.toBe('Only words.');
  expect(() => gateway.use({ match: { userMessage: { regex: '(a)\\1' } } })).toThrow(/not a valid RE2 regular expression/);
});

it('shows the SDK error for a wrong key', async () => {
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-wrong' });
  expect(await send(root, 'hello')).toMatch(/^401 Incorrect API key provided/);
});
