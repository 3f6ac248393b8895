// The tokenizer's first use in a browser: a fresh Chromium page imports the browser entry's token counter
// (the built dist/src/core/tokens.js, bundled with esbuild as an app's bundler would) and counts one ASCII
// and one non-ASCII text; beside it, the same with gpt-tokenizer's own o200k module, what the browser entry
// loaded before the build packed the tables. Prints medians over fresh pages, alternated, as JSON lines:
// the time from the import to the first count, and the JS heap then. Needs Debian's chromium.
// Usage: node bench/cold-browser.ts [--runs 9]   (after npm run build)
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/helpers/chromium.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '9' } } });
const root = fileURLToPath(new URL('..', import.meta.url));
const TEXTS = ['Hello there, how are you today?', 'Grüß Gott! 東京の天気は？ 😀 naïve café'];

// Each entry sets window.result once its counts are done.
const entries = {
  packed: `const t0 = performance.now();
const { tokenizerReady, countTokens } = await import('./dist/src/core/tokens.js');
await tokenizerReady();
const counts = ${JSON.stringify(TEXTS)}.map((t) => countTokens(t));
window.result = { ms: performance.now() - t0, counts, heap: performance.memory.usedJSHeapSize };`,
  'gpt-tokenizer': `const t0 = performance.now();
const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
const counts = ${JSON.stringify(TEXTS)}.map((t) => encode(t).length);
window.result = { ms: performance.now() - t0, counts, heap: performance.memory.usedJSHeapSize };`,
};

const bundles = new Map<string, Uint8Array>();
for (const [name, contents] of Object.entries(entries)) {
  const out = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  bundles.set(name, out.outputFiles[0].contents);
}

const server = createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url!, 'http://x').searchParams.get('b') ?? '');
  const code = bundles.get(name);
  if (req.url!.startsWith('/b.js') && code) {
    res.setHeader('content-type', 'text/javascript');
    return res.end(code);
  }
  res.setHeader('content-type', 'text/html');
  res.end(`<script type="module" src="/b.js?b=${encodeURIComponent(name)}"></script>`);
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };

const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--enable-precise-memory-info'] });
const rows = new Map<string, { ms: number; heap: number; counts: number[] }[]>();
for (let run = 0; run < Number(values.runs); run++) {
  for (const name of bundles.keys()) {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?b=${encodeURIComponent(name)}`);
    await page.waitForFunction(() => (window as { result?: unknown }).result, undefined, { timeout: 60_000 });
    rows.set(name, [...(rows.get(name) ?? []), await page.evaluate(() => (window as unknown as { result: never }).result)]);
    await page.close();
  }
}
await browser.close();
server.close();

const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const [name, list] of rows)
  console.log(
    JSON.stringify({
      tokenizer: name,
      bundleBytes: bundles.get(name)!.length,
      firstCountMs: Math.round(median(list.map((r) => r.ms))),
      heapMiB: Math.round(median(list.map((r) => r.heap)) / 2 ** 20),
      counts: list[0].counts,
      runs: list.length,
      loadAverage: loadavg()[0].toFixed(1),
    }),
  );
