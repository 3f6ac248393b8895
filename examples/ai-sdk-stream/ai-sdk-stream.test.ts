// The AI SDK page in headless Chromium: streamText's text stream comes from the service worker (OpenAI's
// Responses API), grows in the page delta by delta, and no request reaches the network.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectIncremental, openExample, sendAndRecord, type ExamplePage } from '../../test/helpers/example-page.ts';
import { socketSuites } from '../../test/helpers/modes.ts';

describe.runIf(socketSuites && chromiumAvailable)('example: AI SDK streamText page (setupWorker)', () => {
  let example: ExamplePage;
  beforeAll(async () => {
    example = await openExample(fileURLToPath(new URL('.', import.meta.url)));
  });
  afterAll(() => example?.close());

  it('renders the streamed story incrementally, without a request leaving the browser', async () => {
    const { page } = example;
    const states = await sendAndRecord(page, 'Tell me a story');
    const full = 'Once upon a time, a mock streamed a story, word by word, to a page.';
    expect(await page.textContent('#reply')).toBe(full);
    expect(Number(await page.getAttribute('#reply', 'data-usage'))).toBeGreaterThan(10);
    expectIncremental(states, full);
    const requests = await page.evaluate(() =>
      (window as unknown as { gateway: { requests(): { path: string; fixture?: string; stream: boolean }[] } }).gateway.requests(),
    );
    expect(requests.map((r) => [r.path, r.fixture, r.stream])).toEqual([['/v1/responses', 'story', true]]);
    expect(example.leaked).toEqual([]);
  });
});
