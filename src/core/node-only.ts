// Modules only Node.js has (built-ins, and packages built for Node), loaded where the code runs under
// Node. The specifier is a variable on purpose: bundlers then leave the import alone, so a browser
// build neither includes nor fails on them; the callers check they run under Node first.

export function runsOnNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

export function importNodeOnly<T>(specifier: string): Promise<T> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<T>;
}

/** The process's environment variables under Node (credentials a Node-only feature reads); none elsewhere. */
export function nodeEnv(): Record<string, string | undefined> {
  return runsOnNode() ? process.env : {};
}
