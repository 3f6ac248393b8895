// The published surface: the .d.ts files of the entry points, and every .d.ts they reference, are the
// entry points, api.d.ts and the public type modules (src/types/), declare no class and name nothing
// internal; every published function, and every method of a published interface, shows an example in its doc comment. dist/ is what `npx tsc -p tsconfig.build.json` writes: test/global-setup.ts builds
// it before every run, so this reads the declarations of the code under test.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';

const DIST = fileURLToPath(new URL('../dist/src/', import.meta.url));
const ENTRY_POINTS = ['index', 'browser', 'server', 'vitest', 'vitest-config'];

/** Every .d.ts reachable from the entry points through relative imports and `import()` types. */
function publishedDeclarations(): Map<string, string> {
  const found = new Map<string, string>();
  const pending = ENTRY_POINTS.map((name) => resolve(DIST, `${name}.d.ts`));
  while (pending.length) {
    const file = pending.pop()!;
    if (found.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    found.set(file, text);
    for (const [, spec] of text.matchAll(/(?:\bfrom|\bimport\s*\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      if (spec.endsWith('.json')) continue;
      const target = `${resolve(dirname(file), spec).replace(/\.[jt]s$/, '')}.d.ts`;
      expect(existsSync(target), `${relative(DIST, file)} imports ${spec}`).toBe(true);
      pending.push(target);
    }
  }
  return found;
}

/** The declarations without comments: a doc comment may say "runtime" in prose. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

// The live state and the machinery behind the gateway: none of it is the package's API.
const INTERNAL_NAMES =
  /\b(Runtime|runtimeOf|buildGateway|GatewayParts|EndpointSpec|FormatEdge|Call|Outbound|Inbound|heldRequests|Journal|ScopedJournal|FixtureSet|FixtureScope|KeyStore|BoundedStore|RateLimiter|RateLimitError|Spending|Catalogue|PromptCache|TestScopes|TestScope|ImageWork|GatewayError)\b|\bruntime\s*\??\s*:/;
// What a published .d.ts may be: an entry point, api.d.ts, a public type module (src/types/: types and
// constants, no code), or formats/names.d.ts, the one public leaf elsewhere (a fixture's `match.format`
// is a FormatName). A module that implements something declares its internals next to its types.
const PUBLIC_MODULES = /^(index|browser|server|vitest|vitest-config|api)\.d\.ts$|^types\/[\w-]+\.d\.ts$|^formats\/names\.d\.ts$/;
// Classes the published types may declare: public error classes a caller catches, once one is exported.
const PUBLIC_CLASSES: string[] = [];

/** The classes or functions a .d.ts declares at its top level. */
const declared = (text: string, kind: 'class' | 'function') =>
  [...code(text).matchAll(new RegExp(`^(?:export )?declare (?:abstract )?${kind} (\\w+)`, 'gm'))].map((m) => m[1]);

describe('published types', () => {
  const files = publishedDeclarations();
  const names = [...files.keys()].map((f) => relative(DIST, f));

  it('reach only the entry points, api.d.ts and the public type modules', () => {
    expect(names).toContain('api.d.ts');
    expect(names.filter((n) => !PUBLIC_MODULES.test(n))).toEqual([]);
  });

  it('declare no internal class', () => {
    const classes = [...files].flatMap(([file, text]) => declared(text, 'class').map((name) => `${relative(DIST, file)}: ${name}`));
    expect(classes.filter((c) => !PUBLIC_CLASSES.includes(c.split(': ')[1]))).toEqual([]);
  });

  it('the public type modules hold no code', () => {
    for (const name of names.filter((n) => n.startsWith('types/')))
      expect(declared(files.get(resolve(DIST, name))!, 'function'), name).toEqual([]);
  });

  it('name no internal', () => {
    const found = [...files].flatMap(([file, text]) => {
      const hit = INTERNAL_NAMES.exec(code(text));
      return hit ? [`${relative(DIST, file)}: ${hit[0]}`] : [];
    });
    expect(found).toEqual([]);
  });

  it('the entry points list their exports (no export *)', () => {
    for (const name of ENTRY_POINTS) expect(readFileSync(resolve(DIST, `${name}.d.ts`), 'utf8'), name).not.toMatch(/export \*/);
  });
});

/** Each declaration `pattern` finds in `text` (its name in group 1), with the doc comment right before it, if any. */
function documented(text: string, pattern: string): { name: string; doc: string }[] {
  const doc = String.raw`(?:(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\s*)?`;
  return [...text.matchAll(new RegExp(doc + pattern, 'gm'))].map((m) => ({ doc: m[1] ?? '', name: m[2] }));
}

/**
 * The members of each interface `text` declares that are methods or function-typed properties, nested
 * object types' included (`Gateway.tokens`' `list()`: named `Gateway.list()`), with their doc comments.
 */
function interfaceMethods(text: string): { name: string; doc: string }[] {
  // A member: `name(`, or `name?: (…) =>` (one level of parentheses inside the parameters).
  const member = String.raw`^ +(?:readonly )?(\w+)\??(?:\(|: \((?:[^()]|\([^()]*\))*\) =>)`;
  return [...text.matchAll(/^(?:export )?interface (\w+)[^\n]*\{$([\s\S]*?)^\}$/gm)].flatMap(([, name, body]) =>
    documented(body, member).map((m) => ({ ...m, name: `${name}.${m.name}()` })),
  );
}

describe('published functions and interface methods', () => {
  // The entry points, and vitest-remote.ts, whose setupRemoteGateway is setupGateway({ url }).
  const modules = [...ENTRY_POINTS, 'vitest-remote'].map((name) => [name, readFileSync(resolve(DIST, `${name}.d.ts`), 'utf8')] as const);

  it('carry a doc comment with an @example', () => {
    const functions = modules.flatMap(([module, text]) =>
      documented(text, String.raw`^export declare function (\w+)`).map((f) => ({ ...f, name: `${module}: ${f.name}()` })),
    );
    // Every interface of every published .d.ts (the entry points', api.d.ts, types/).
    const methods = [...publishedDeclarations()].flatMap(([file, text]) =>
      interfaceMethods(text).map((m) => ({ ...m, name: `${relative(DIST, file)}: ${m.name}` })),
    );
    expect(functions.map((f) => f.name)).toContain('index: createGateway()');
    const names = methods.map((m) => m.name);
    // A method, one of a nested object type, one of an interface not exported by name, a function-typed property.
    for (const name of [
      'api.d.ts: Gateway.reset()',
      'api.d.ts: Gateway.revoke()',
      'api.d.ts: ScenarioOperations.set()',
      'types/fixtures.d.ts: FixtureMatch.predicate()',
    ])
      expect(names).toContain(name);
    // Properties are not methods, though their types hold parentheses.
    expect(names).not.toContain('api.d.ts: Gateway.handlers()');
    expect([...functions, ...methods].filter((d) => !d.doc.includes('@example')).map((d) => d.name)).toEqual([]);
  });
});

describe('a gateway object', () => {
  it('carries no runtime of its own: internal code reaches it through runtimeOf()', () => {
    const gateway = createGateway();
    expect('runtime' in gateway).toBe(false);
    expect(Object.values(Object.getOwnPropertyDescriptors(gateway)).some((d) => d.value === runtimeOf(gateway))).toBe(false);
    expect(() => runtimeOf({ ...gateway })).toThrow(/not a gateway/);
  });

  it('leaves the caller’s record options as given once its handlers are made', () => {
    const record = { dir: '/nonexistent', upstreams: { default: 'http://127.0.0.1:9' } };
    const gateway = createGateway({ record });
    expect(gateway.handlers.length).toBeGreaterThan(0);
    expect(record).toEqual({ dir: '/nonexistent', upstreams: { default: 'http://127.0.0.1:9' } });
    // The gateway's own copy is what the in-process transport filled in.
    expect(runtimeOf(gateway).record?.fetch).toBeTypeOf('function');
  });
});
