// Where the package's own files are, by their path from src/: from the sources (src/), the build
// (dist/src/) or the CLI's bundle (dist/src/*.bundle.js and its bundle-*.js chunks, written beside
// the build by scripts/bundle.ts). This module sits at the root of the tree, and the bundle keeps it in
// a file at that root too (the build checks), so its own URL anchors every path in all three layouts.

/** This module's file name: a bundle's chunk (`bundle-….js`) or entry (`….bundle.js`) when the CLI runs bundled. */
const self = String(import.meta.url).slice(String(import.meta.url).lastIndexOf('/') + 1);

/** The extension a module of ours has here: `.ts` from the sources, `.bundle.js` within the bundle, else `.js`. */
const MODULE_EXTENSION = self.endsWith('.ts') ? '.ts' : /^bundle-|\.bundle\.js$/.test(self) ? '.bundle.js' : '.js';

/** A file of ours (a table, a page's script), by its path from src/ with its extension. */
export function ownFile(path: string): URL {
  return new URL(path, import.meta.url);
}

/**
 * One of our modules, by its path from src/ without an extension (`fixtures/validate`): the copy that
 * belongs with the running code, so a module loaded later shares its imports (its classes, its state).
 */
export function ownModule(path: string): URL {
  return new URL(`${path}${MODULE_EXTENSION}`, import.meta.url);
}
