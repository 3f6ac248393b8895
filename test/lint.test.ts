// The lint step (`npm run lint`, run by .ci/run) on scratch trees: Biome with the project's biome.jsonc
// refuses an import cycle (a type-only one too), and scripts/unused-exports.ts names an export nobody
// imports. Each runs as `npm run lint` runs it, on files written to a temporary directory, so src/ needs
// no planted fault.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIOME = join(ROOT, 'node_modules/.bin/biome');
const UNUSED_EXPORTS = join(ROOT, 'scripts/unused-exports.ts');

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A scratch tree holding `files` (paths relative to it) and a copy of the project's biome.jsonc. */
function tree(files: Record<string, string>): string {
  scratch = mkdtempSync(join(tmpdir(), 'lint-test-'));
  copyFileSync(join(ROOT, 'biome.jsonc'), join(scratch, 'biome.jsonc'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  return scratch;
}

/** Runs `file args` in `cwd`: its exit code and everything it printed. */
async function run(file: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout}${failed.stderr}` };
  }
}

// No git repository in the scratch tree: the configuration's `vcs` (the .gitignore) is turned off.
const biomeLint = (dir: string) => run(BIOME, ['lint', '--vcs-enabled=false', '.'], dir);

describe('biome lint (the project rules)', () => {
  // Type imports count too (ignoreTypes: false): two modules that name each other's types are a cycle.
  const cycles = {
    'import each other': {
      'src/a.ts': "import { b } from './b.ts';\n\nexport const a = (): number => b() + 1;\n",
      'src/b.ts': "import { a } from './a.ts';\n\nexport const b = (): number => (typeof a === 'function' ? 1 : 0);\n",
    },
    'import only types from each other': {
      'src/a.ts': "import type { B } from './b.ts';\n\nexport interface A {\n  b?: B;\n}\n",
      'src/b.ts': "import type { A } from './a.ts';\n\nexport interface B {\n  a?: A;\n}\n",
    },
  };
  it.each(Object.entries(cycles))('fails on two modules that %s, naming noImportCycles', async (_, files) => {
    const { code, output } = await biomeLint(tree(files));
    expect(code).not.toBe(0);
    expect(output).toContain('lint/suspicious/noImportCycles');
    expect(output).toContain('src/a.ts');
  });

  it('passes on the same pair without the cycle', async () => {
    const dir = tree({
      'src/a.ts': "import { b } from './b.ts';\n\nexport const a = (): number => b() + 1;\n",
      'src/b.ts': 'export const b = (): number => 1;\n',
    });
    const { code, output } = await biomeLint(dir);
    expect(output).not.toContain('noImportCycles');
    expect(code).toBe(0);
  });
});

describe('scripts/unused-exports.ts', () => {
  // a.ts is the package's entry point (package.json `exports`), so its own exports are published.
  const files = {
    'package.json': JSON.stringify({ name: 'scratch', type: 'module', exports: { '.': './dist/src/a.js' } }),
    'src/a.ts': [
      "import { used } from './b.ts';",
      "const handlers = () => import('./c.ts').then((m) => m.handler);",
      'export const a = () => [used(), handlers()];',
      '',
    ].join('\n'),
    'src/b.ts': ['export const used = () => 1;', 'export const orphan = () => 2;', ''].join('\n'),
    // Loaded lazily: `handler` is read by a.ts, `unread` by nobody.
    'src/c.ts': ['export const handler = () => 3;', 'export const unread = () => 4;', ''].join('\n'),
  };
  const unusedExports = (dir: string) => run(process.execPath, [UNUSED_EXPORTS, '--root', dir], dir);

  it('exits 1 naming the exports nobody imports, by file and line', async () => {
    const { code, output } = await unusedExports(tree(files));
    expect(code).toBe(1);
    expect(output.split('\n').filter((line) => line.startsWith('src/'))).toEqual(['src/b.ts:2 orphan', 'src/c.ts:2 unread']);
  });

  it('passes once another file (a test) imports them', async () => {
    const dir = tree({
      ...files,
      'test/b.test.ts': "import { orphan } from '../src/b.ts';\nimport { unread } from '../src/c.ts';\n\norphan(unread);\n",
    });
    const { code, output } = await unusedExports(dir);
    expect(output).not.toContain('src/');
    expect(code).toBe(0);
  });
});
