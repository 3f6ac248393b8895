// The browser entry bundles for the browser platform with no Node built-in on its import graph, and our own
// modules on it use no Node globals; prints the bundle's size (msw, a peer dependency, left out).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from './helpers/browser-bundle.ts';
import { socketSuites } from './helpers/modes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundleBrowserEntry = (entry = 'src/browser.ts') => bundleForBrowser(entry, root);

describe.runIf(socketSuites)('browser bundle', () => {
  it('has no Node built-in on the import graph of the browser and root entries', async () => {
    for (const entry of ['src/browser.ts', 'src/index.ts']) {
      const { nodeImports } = await bundleBrowserEntry(entry);
      expect(nodeImports, `${entry} pulls in Node built-ins`).toEqual([]);
    }
  });

  it('uses no Node globals (Buffer, process, global, require) in our own modules on that graph', async () => {
    const { metafile } = await bundleBrowserEntry();
    // node-only.ts is the one module that asks whether it runs under Node (and loads Node-only modules behind that check).
    const ours = Object.keys(metafile.inputs).filter((p) => p.startsWith('src/') && p !== 'src/core/node-only.ts');
    expect(ours.length).toBeGreaterThan(20);
    const offenders = ours.filter((p) => {
      // Comments may name them; code may not.
      const code = readFileSync(`${root}/${p}`, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      return /\b(Buffer|process|global|require|__dirname)\s*[.(]/.test(code);
    });
    expect(offenders).toEqual([]);
  });

  it('prints its size: raw and gzip, and the part the tokenizer tables take (packed by the build, not gpt-tokenizer)', async () => {
    const { code, metafile } = await bundleBrowserEntry();
    const gzip = gzipSync(code).length;
    const output = Object.values(metafile.outputs)[0];
    expect(Object.keys(metafile.inputs).filter((p) => p.includes('gpt-tokenizer'))).toEqual([]);
    const tables = output.inputs['src/core/o200k_base.packed.js']?.bytesInOutput ?? 0;
    expect(tables).toBeGreaterThan(1024 * 1024);
    const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
    console.log(
      `browser bundle (minified, msw external): ${kib(code.length)} raw, ${kib(gzip)} gzip; tokenizer tables ${kib(tables)} of the raw`,
    );
    // A guard against a heavy dependency slipping in unnoticed: today ~3.2 MiB raw, ~1.5 MiB gzip.
    expect(gzip).toBeLessThan(2 * 1024 * 1024);
  });
});
