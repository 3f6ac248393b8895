// Runs an example page in headless Chromium: bundles its entry with esbuild, serves it and msw's worker script
// from a static server on 127.0.0.1, and records every other request that reaches that server: an API call the
// service worker failed to answer lands there (the pages aim their SDKs at their own origin), never on the Internet.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';
import { expect } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
export { chromiumAvailable } from './chromium.ts';

export interface ExamplePage {
  page: Page;
  /** Requests that reached the static server beyond the page, its bundle and the worker script. */
  leaked: string[];
  close(): Promise<void>;
}

/**
 * Bundles `<dir>/src/main.ts` for the browser: the package name resolves to this repository's sources, or,
 * with `project`, everything resolves from that project's node_modules as a user's bundler would.
 */
async function bundle(dir: string, project?: string): Promise<string> {
  const result = await build({
    absWorkingDir: project ?? root,
    entryPoints: [join(dir, 'src/main.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    alias: project ? {} : ({ 'model-gateway-mock': join(root, 'src') } as Record<string, string>),
  });
  return result.outputFiles[0].text;
}

/**
 * Opens `<dir>/index.html` with its bundle as /main.js. msw's worker script is this repository's copy, or,
 * with `project`, whatever that project's `public/` folder holds (where `npx msw init public` puts it).
 */
export async function openExample(dir: string, project?: string): Promise<ExamplePage> {
  const files: Record<string, [string, string]> = {
    '/': ['text/html', readFileSync(join(dir, 'index.html'), 'utf8')],
    '/main.js': ['text/javascript', await bundle(dir, project)],
  };
  const worker = project ? join(project, 'public/mockServiceWorker.js') : join(root, 'node_modules/msw/lib/mockServiceWorker.js');
  if (existsSync(worker)) files['/mockServiceWorker.js'] = ['text/javascript', readFileSync(worker, 'utf8')];
  const leaked: string[] = [];
  const server: Server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file || req.method !== 'GET') {
      leaked.push(`${req.method} ${req.url}`);
      return void res.writeHead(599).end();
    }
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  // The app renders once its mocks are in place (see each example's src/main.ts).
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 }).catch((e: Error) => {
    throw new Error(`${e.message}\npage errors: ${errors.join('\n')}`);
  });
  return {
    page,
    leaked,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Starts recording every text the element at `selector` shows, so a test can see a reply grow. */
async function recordTexts(page: Page, selector: string): Promise<() => Promise<string[]>> {
  await page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const seen: string[] = [];
    (window as unknown as { __texts: string[] }).__texts = seen;
    new MutationObserver(() => {
      const text = el.textContent ?? '';
      if (seen.at(-1) !== text) seen.push(text);
    }).observe(el, { childList: true, characterData: true, subtree: true });
  }, selector);
  return () => page.evaluate(() => (window as unknown as { __texts: string[] }).__texts);
}

/** Sends `message` from the example's form and returns the texts the reply showed, once it is done. */
export async function sendAndRecord(page: Page, message: string): Promise<string[]> {
  const texts = await recordTexts(page, '#reply');
  await page.fill('#message', message);
  await page.click('button');
  await page.waitForSelector('#reply[data-state="done"]');
  return texts();
}

/** The reply rendered incrementally: several partial states, each growing the one before, ending with `full`. */
export function expectIncremental(states: string[], full: string): void {
  expect(states.length).toBeGreaterThanOrEqual(5);
  states.forEach(
    (s, i) => i > 0 && expect(s.startsWith(states[i - 1]), `${JSON.stringify(s)} grows ${JSON.stringify(states[i - 1])}`).toBe(true),
  );
  expect(states.at(-1)).toBe(full);
}
