// Where the package's own files are, by their path from src/: from the sources (src/), the build
// (dist/src/) or the CLI's bundle (dist/src/*.bundle.js and its bundle-*.js chunks, written beside
// the build by scripts/bundle.ts). This module sits at the root of the tree, and the bundle keeps it in
// a file at that root too (the build checks), so its own URL anchors every path in all three layouts.
// Strings, not URL objects: under jsdom the global URL is jsdom's, which takes no file: base.

/** This module's URL: relative specifiers and paths resolve against its folder, the root of the tree. */
export const OWN_ROOT: string = import.meta.url;

const folder = OWN_ROOT.slice(0, OWN_ROOT.lastIndexOf('/') + 1);
const self = OWN_ROOT.slice(folder.length);

/** The extension a module of ours has here: `.ts` from the sources, `.bundle.js` within the bundle, else `.js`. */
const MODULE_EXTENSION = self.endsWith('.ts') ? '.ts' : /^bundle-|\.bundle\.js$/.test(self) ? '.bundle.js' : '.js';

/** A file of ours (a table, a page's script) as a file: URL, by its path from src/ with its extension. */
export function ownFile(path: string): string {
  return folder + path;
}

/**
 * One of our modules as a specifier relative to OWN_ROOT, by its path from src/ without an extension
 * (`fixtures/validate`): the copy that belongs with the running code, so a module loaded later shares
 * its imports (its classes, its state). `createRequire(OWN_ROOT)(ownModule(path))` loads it.
 */
export function ownModule(path: string): string {
  return `./${path}${MODULE_EXTENSION}`;
}
