// What loads on first use (lazy.ts), loaded now: the standalone server calls this with its first API
// request, which waits for the tokenizer and faker (its media handlers load later, after express).
import { tokenizerReady } from './tokens.ts';
import { fakerReady } from './seed.ts';

/** Starts loading every lazy module in the background; a failure shows on the first request that needs it. */
export function preloadLazy(): void {
  for (const ready of [tokenizerReady, fakerReady]) void ready()?.catch(() => {});
}

type Require = ((id: string) => unknown) & { resolve(id: string): string };
const builtin = <T>(id: string) => (globalThis as unknown as { process: { getBuiltinModule(id: string): T } }).process.getBuiltinModule(id);

/**
 * Loads a package as `from` (an import.meta.url) would require it, one package of its dependency tree
 * per event-loop turn, dependencies first, so no turn holds the loop for the whole tree (express's: ~130 ms
 * of CPU, its largest package ~20 ms). What fails to load here is left to the real import to report.
 * Between steps it waits while `busy()` gives a promise (requests in flight: each would otherwise wait
 * for a step at each of its own turns), and stops once `stopped()`.
 */
export async function loadInSteps(
  name: string,
  from: string,
  { busy = () => undefined, stopped = () => false }: { busy?: () => Promise<void> | undefined; stopped?: () => boolean } = {},
): Promise<void> {
  const { createRequire } = builtin<{ createRequire(from: string): Require }>('node:module');
  const { readFileSync, existsSync } = builtin<{ readFileSync(p: string, e: 'utf8'): string; existsSync(p: string): boolean }>('node:fs');
  const { dirname, join } = builtin<{ dirname(p: string): string; join(...p: string[]): string }>('node:path');
  const seen = new Set<string>();
  const dependenciesOf = (main: string, pkg: string): string[] => {
    // The package's own directory: the nearest package.json above its main file that names it.
    for (let dir = dirname(main); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; dependencies?: Record<string, string> };
      if (manifest.name === pkg) return Object.keys(manifest.dependencies ?? {});
    }
    return [];
  };
  // Depth first, a package required once its dependencies are; finding a package (resolving it,
  // reading its manifest) is a step too: the walk alone is ~50 ms of CPU on a cold process.
  const stack: { require: Require; pkg: string; main: string; pending: string[] }[] = [];
  const enter = (parent: string, pkg: string) => {
    const require = createRequire(parent);
    let main: string;
    try {
      main = require.resolve(pkg);
    } catch {
      return;
    }
    if (seen.has(main)) return;
    seen.add(main);
    stack.push({ require, pkg, main, pending: dependenciesOf(main, pkg) });
  };
  enter(from, name);
  while (stack.length) {
    await new Promise((resolve) => setImmediate(resolve));
    if (stopped()) return;
    const wait = busy();
    if (wait) {
      await wait;
      continue;
    }
    const top = stack[stack.length - 1];
    try {
      if (top.pending.length) enter(top.main, top.pending.shift()!);
      else {
        stack.pop();
        top.require(top.pkg);
      }
    } catch {
      // reported by the import that needs it
    }
  }
}
