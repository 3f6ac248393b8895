// Heavy modules (the tokenizer's tables, faker) load on first use instead of at start-up. The
// endpoint pipeline awaits `ready()` before a handler runs, so the core's functions stay synchronous.
// In Node a module loads with require (require(esm) for ES modules), so a caller that never awaited
// still gets it, synchronously, and there is only ever one copy; a browser loads it with import().

import { OWN_ROOT, ownModule } from '../own.ts';

type NodeRequire = (id: string) => unknown;

const nodeModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
  'node:module',
) as { createRequire(from: string): NodeRequire } | undefined;

export interface Lazy<T> {
  /** Starts loading (off the current turn); undefined once loaded, so the hot path needs no await. */
  ready(): Promise<void> | undefined;
  /** The module; in Node loads it now if need be. */
  get(): T;
  /** Hands over the value, imported up front by the caller (a browser entry that needs it synchronously). */
  provide(value: T): void;
}

/**
 * `specifier` as resolved from `from` (an import.meta.url); `load` is the same import for browsers (a
 * literal, for bundlers); `init` runs once on the loaded module.
 */
export function lazyModule<T>(specifier: string, from: string, load: () => Promise<T>, init: (module: T) => void = () => {}): Lazy<T> {
  const require = nodeModule && (() => nodeModule.createRequire(from)(specifier) as T);
  return lazy(specifier, require, load, init);
}

/**
 * One of our own modules, by its path from src/ without an extension (see own.ts), loaded now and
 * synchronously (require of an ES module, Node >= 22.12: the same instance an import gets). Node only.
 */
export function requireOwn<T>(path: string): T {
  if (!nodeModule) throw new Error(`model-gateway-mock: ${path} loads by require, which needs Node.js.`);
  return nodeModule.createRequire(OWN_ROOT)(ownModule(path)) as T;
}

/** One of our own modules, by its path from src/ without an extension (see own.ts), on first use. */
export function lazyOwnModule<T>(path: string, load: () => Promise<T>): Lazy<T> {
  return lazy(path, nodeModule && (() => requireOwn<T>(path)), load);
}

/**
 * A module loaded on first use by `load` (a literal import()) everywhere, Node included: for callers that
 * can await its loading (request handlers). Under a module runner (vitest) import() goes through the
 * runner, so the module shares its imports (GatewayError, counters) with the code that loaded it, where
 * require would load a second copy of them.
 */
export function lazyImport<T>(name: string, load: () => Promise<T>): Lazy<T> {
  return lazy(name, undefined, load);
}

/**
 * A value built on first use: in Node by `node` (synchronous), in a browser by `browser`; `init` runs
 * once on it.
 */
export function lazy<T>(
  name: string,
  node: (() => T) | undefined,
  browser: () => Promise<T>,
  init: (value: T) => void = () => {},
): Lazy<T> {
  let value: T | undefined;
  let loading: Promise<void> | undefined;
  const get = (): T => {
    if (value !== undefined) return value;
    if (!node) throw new Error(`model-gateway-mock: ${name} is still loading; await the gateway's first request.`);
    const loaded = node();
    init(loaded);
    return (value = loaded);
  };
  return {
    get,
    provide(given) {
      if (value === undefined) init(given);
      value ??= given;
    },
    ready() {
      if (value !== undefined) return undefined;
      return (loading ??= node
        ? new Promise<void>((resolve, reject) =>
            setTimeout(() => {
              try {
                get();
                resolve();
              } catch (error) {
                reject(error instanceof Error ? error : new Error(String(error)));
              }
            }, 0),
          )
        : browser().then((m) => {
            init(m);
            value = m;
          }));
    },
  };
}

/** True in Node (where `lazy` builds values synchronously). */
export const inNode = nodeModule !== undefined;
