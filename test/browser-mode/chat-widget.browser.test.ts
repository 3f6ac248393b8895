// vitest's browser mode, in real Chromium: the same chat component, its SDK calls answered by the gateway
// in the page's service worker (msw's setupWorker; vitest serves mockServiceWorker.js, see vitest.config.ts).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { setupWorker } from 'msw/browser';
import { createGateway } from '../../src/browser.ts';
import { mountChat, send } from '../dom/chat-widget.ts';

const gateway = createGateway({ tokens: ['sk-frontend'] });
const worker = setupWorker(...gateway.handlers);
const unhandled: string[] = [];
// msw 3 names the option onUnhandledFrame, msw 2 onUnhandledRequest.
const onUnhandled = (...args: unknown[]) => {
  const first = args[0] as { frame?: { data: { request?: Request } } } & Partial<Request>;
  const request = first.frame?.data.request ?? (first as Request);
  // The page's own assets (vitest's modules) are the test runner's, not the app's.
  if (new URL(request.url).origin !== location.origin) unhandled.push(`${request.method} ${request.url}`);
};
// The SDK's requests go to a host that does not exist: only the worker can answer them.
const baseURL = 'https://gateway.invalid/v1';

beforeAll(async () => {
  await worker.start({ quiet: true, onUnhandledRequest: onUnhandled, onUnhandledFrame: onUnhandled } as never);
});
afterEach(() => {
  gateway.reset();
  expect(unhandled.splice(0)).toEqual([]);
});
afterAll(() => worker.stop());


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

it('shows the SDK error for a wrong key', async () => {
  const root = document.body.appendChild(document.createElement('div'));
  mountChat(root, { baseURL, apiKey: 'sk-wrong' });
  expect(await send(root, 'hello')).toMatch(/^401 Incorrect API key provided/);
});
