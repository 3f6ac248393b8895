// Bundles a module for the browser platform with esbuild, recording every Node built-in on its import graph
// (with its importer) instead of letting esbuild stop at the first one.
import { builtinModules } from 'node:module';
import { build, type Metafile, type Plugin } from 'esbuild';

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function nodeBuiltins(found: string[], root: string): Plugin {
  return {
    name: 'node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!builtins.has(args.path) && !args.path.startsWith('node:')) return undefined;
        found.push(`${args.path} (imported by ${args.importer.replace(root, '')})`);
        return { path: args.path, external: true };
      });
    },
  };
}

export interface BrowserBundle {
  code: Uint8Array;
  metafile: Metafile;
  /** Node built-ins imported somewhere on the graph: empty for a browser-safe module. */
  nodeImports: string[];
}

/** Bundles `entry` (relative to `root`, whose node_modules resolve the packages), minified, msw left out (a peer). */
export async function bundleForBrowser(entry: string, root: string): Promise<BrowserBundle> {
  const found: string[] = [];
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    external: ['msw'],
    plugins: [nodeBuiltins(found, root)],
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0].contents, metafile: result.metafile, nodeImports: found };
}
