// The package's Node entries and the CLI as a bundle, written beside the build in dist/src/: their module
// graph in a few files (`<entry>.bundle.js`, their lazily loaded parts, and shared `bundle-*.js` chunks)
// instead of ~90 to ~200 modules, which starts the server ~75 ms sooner and holds ~12 MiB less, and
// halves the in-process import (docs/benchmarks.md). package.json's exports point at these for Node
// (index, server, vitest, vitest-config; one build with shared chunks, so the entries share one copy of
// every module: scopes, classes, state); the browser entry stays unbundled for the user's bundler, and
// the types stay the unbundled modules' .d.ts. Packages stay external. Our own modules loaded by path
// (own.ts: the fixture checker, the PNG inflater, the image worker, the msw adapters) are entries of
// their own, `<name>.bundle.js` beside their unbundled copy, so code in the bundle loads the bundle's
// copy and shares its classes and state.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/src`;
const entries = [
  'index',
  'server',
  'vitest',
  'vitest-config',
  'cli',
  'shutdown',
  'fixtures/validate',
  'core/synthesize/inflate',
  'core/synthesize/image-thread',
  'adapters/msw',
  'adapters/websocket-msw',
];
// Every module of ours loaded by path must be an entry: one that is not would load in the sources and
// the build, and fail only in the CLI.
const byPath = /(?:lazyOwnModule<[^>]*>|requireOwn<[^>]*>|ownModule)\('([^']+)'/g;
const src = `${root}src`;
for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')))
  for (const [, path] of readFileSync(`${src}/${file}`, 'utf8').matchAll(byPath))
    if (!entries.includes(path)) throw new Error(`bundle: src/${file} loads ${path} by path; add it to scripts/bundle.ts's entries`);
await build({
  entryPoints: entries.map((e) => `${out}/${e}.js`),
  outbase: out,
  outdir: out,
  entryNames: '[dir]/[name].bundle',
  chunkNames: 'bundle-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  logLevel: 'warning',
  plugins: [
    {
      // The browser's packed tokenizer table (2 MB) is never loaded in Node: left where it is, not copied.
      name: 'packed-table',
      setup(b) {
        b.onResolve({ filter: /o200k_base\.packed\.js$/ }, () => ({ path: './core/o200k_base.packed.js', external: true }));
      },
    },
  ],
});
// own.ts anchors paths at the root of the tree: its code must sit in a file at the bundle's root.
const anchored = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter(
  (f) => /(^|\/)bundle-[^/]*\.js$|\.bundle\.js$/.test(f) && readFileSync(`${out}/${f}`, 'utf8').includes('bundle\\.js$/.test('),
);
if (anchored.length !== 1 || anchored[0].includes('/'))
  throw new Error(`bundle: own.ts landed in ${anchored.join(', ') || 'no file'}, not in one file at the root`);
