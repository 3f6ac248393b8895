// The CLI's bundle, written beside the build in dist/src/: its module graph in a few files
// (`cli.bundle.js`, its lazily loaded parts, and shared `bundle-*.js` chunks) instead of ~200, which
// starts the server ~75 ms sooner and holds ~12 MiB less (docs/benchmarks.md). Packages stay
// external. Our own modules loaded by path (own.ts: the fixture checker, the PNG inflater, the image
// worker, the msw adapters) are entries of their own, `<name>.bundle.js` beside their unbundled copy,
// so code in the bundle loads the bundle's copy and shares its classes and state. The package's
// library entries (index, server, vitest…) stay unbundled: a user's bundler and vitest take them apart.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/src`;
const entries = [
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
