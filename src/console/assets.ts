// The pages' scripts: TypeScript modules in ./client, type-checked with the rest and compiled by the
// build (dist holds them as .js). Run from source (tests, development), the .ts is stripped of its
// types on first use. Either way each file is read once and kept; a name that is no file is not kept
// (40,000 requests for missing names, which need no token, held 220 MB).
import { readFile } from 'node:fs/promises';
import { STYLE } from './style.ts';
import { ownFile } from '../own.ts';

const cache = new Map<string, Promise<string | undefined>>();

async function load(name: string): Promise<string | undefined> {
  const js = new URL(ownFile(`console/client/${name}.js`));
  try {
    return await readFile(js, 'utf8');
  } catch {
    // Running from source: no compiled file beside this one.
  }
  try {
    const source = await readFile(new URL(ownFile(`console/client/${name}.ts`)), 'utf8');
    const { stripTypeScriptTypes } = await import('node:module');
    return stripTypeScriptTypes(source);
  } catch {
    return undefined;
  }
}

/** A client module's JavaScript by file name (`playground.js`; `.ts` too, as source imports name it), or undefined. */
export function clientScript(file: string): Promise<string | undefined> {
  const m = /^([a-z][a-z-]*)\.(?:js|ts)$/.exec(file);
  if (!m) return Promise.resolve(undefined);
  let script = cache.get(m[1]);
  if (!script) {
    const name = m[1];
    cache.set(name, (script = load(name)));
    void script.then((found) => found === undefined && cache.delete(name));
  }
  return script;
}

/** How many scripts are kept (the client modules asked for, never a miss). */
export const cachedScripts = (): number => cache.size;

export { STYLE };
