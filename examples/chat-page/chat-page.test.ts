// The chat page in headless Chromium: the openai SDK's streamed reply comes from the service worker, grows in
// the page token by token, and no request reaches the network (the static server sees none).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectIncremental, openExample, sendAndRecord, type ExamplePage } from '../../test/helpers/example-page.ts';
import { socketSuites } from '../../test/helpers/modes.ts';

describe.runIf(socketSuites && chromiumAvailable)('example: chat page (openai SDK, setupWorker)', () => {
  let example: ExamplePage;
  beforeAll(async () => {
    example = await openExample(fileURLToPath(new URL('.', import.meta.url)));
  });
  afterAll(() => example?.close());

  it('streams the fixture reply into the page, incrementally, without a request leaving the browser', async () => {
    const { page } = example;
    const states = await sendAndRecord(page, 'hello there');
    const full = 'Hello! I am a mock, streaming one token at a time.';
    expect(await page.textContent('#reply')).toBe(full);
    expectIncremental(states, full);
    const requests = await page.evaluate(() =>
      (window as unknown as { gateway: { requests(): { path: string; fixture?: string }[] } }).gateway.requests(),
    );
    expect(requests.map((r) => [r.path, r.fixture])).toEqual([['/v1/chat/completions', 'greeting']]);
    expect(example.leaked).toEqual([]);
  });
});
