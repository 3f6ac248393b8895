// The published surface: the .d.ts files of the entry points, and every .d.ts they reference, name
// nothing internal. dist/ is what `npx tsc -p tsconfig.build.json` writes: test/global-setup.ts builds
// it before every run, so this reads the declarations of the code under test.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';

const DIST = fileURLToPath(new URL('../dist/src/', import.meta.url));
const ENTRY_POINTS = ['index', 'browser', 'server', 'vitest'];

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
      const target = resolve(dirname(file), spec).replace(/\.[jt]s$/, '') + '.d.ts';
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
  /\b(Runtime|runtimeOf|buildGateway|GatewayParts|EndpointSpec|FormatEdge|Call|Outbound|Inbound|heldRequests)\b|\bruntime\s*\??\s*:/;
// formats/names.d.ts is the one public leaf there: a fixture's `match.format` is a FormatName.
const INTERNAL_MODULES = /^(runtime|gateway)\.d\.ts$|^(pipeline|adapters|control|cli|console)\/|^formats\/(?!names\.d\.ts$)/;

describe('published types', () => {
  const files = publishedDeclarations();
  const names = [...files.keys()].map((f) => relative(DIST, f));

  it('reach no internal module', () => {
    expect(names).toContain('api.d.ts');
    expect(names.filter((n) => INTERNAL_MODULES.test(n))).toEqual([]);
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
