// Every fenced code block of README.md and docs/*.md, run as written, so the documentation cannot rot:
// - `ts`/`js` blocks run as modules under Node (written into .doc-blocks/, inside this package, so the
//   package's own name resolves to it as it does for a user); blocks that are vitest test files run under
//   vitest, all in one child run; `ts browser` blocks, a page's module, are bundled and run in a page in Chromium;
// - `sh` blocks run under bash; a block that starts the CLI in the foreground is started and its printed
//   banner compared with the block's comment lines;
// - `json`/`yaml` blocks are fixture files, loaded by the fixture loader (the one `--fixtures` uses);
// - `text` blocks are output shown to the reader, not run; a block that cannot run here says so in its info
//   string (```sh no-run: <why>), and a block that is neither run nor marked fails the suite.
// The one substitution: a block that talks to the documented port 4010 gets a server's dynamic port instead
// (one CLI shared by the blocks of a page), and `npx model-gateway-mock` becomes this repository's bin, since
// the package is not on the registry. Blocks with `cwd=clone` / `cwd=project` in their info string run in a
// scratch folder holding a "clone" (a link to this repository) and an empty project.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFixtureDir } from '../src/fixtures/load.ts';
import type { Fixture } from '../src/types/fixtures.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { chromiumAvailable, openExample } from './helpers/example-page.ts';
import { socketSuites } from './helpers/modes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'bin/model-gateway-mock.js');
// At the root, inside the package (so its name resolves) and outside test/ (so neither tsc nor the suite picks
// the written blocks up); cleared at each run, kept afterwards to look at.
const BLOCKS = join(root, '.doc-blocks');
rmSync(BLOCKS, { recursive: true, force: true });
const DOC_PORT = '4010';
// npm, npx and node in blocks are this Node (24), whatever the machine has first on its PATH.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };

interface Block {
  file: string;
  line: number;
  lang: string;
  info: string;
  code: string;
}
type Kind = 'no-run' | 'output' | 'module' | 'vitest' | 'browser' | 'shell' | 'server' | 'fixture';

const DOCS = [
  'README.md',
  'examples/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]));
    blocks.push({ file, line: start + 1, lang: open[1], info: open[2], code: `${lines.slice(start + 1, i).join('\n')}\n` });
  }
  return blocks;
}

function kindOf(b: Block): Kind | undefined {
  if (/^no-run:\s*\S/.test(b.info)) return 'no-run';
  if (b.lang === 'text') return 'output';
  if ((b.lang === 'ts' || b.lang === 'js') && /^browser\b/.test(b.info)) return 'browser';
  if (b.lang === 'ts' || b.lang === 'js') return /from 'vitest'/.test(b.code) && /^\s*(it|test)\(/m.test(b.code) ? 'vitest' : 'module';
  if (b.lang === 'sh' || b.lang === 'bash') {
    const first = b.code.split('\n').find((l) => l.trim() && !l.startsWith('#')) ?? '';
    return /^npx model-gateway-mock(?! verify)\b/.test(first) ? 'server' : 'shell';
  }
  if (b.lang === 'json' || b.lang === 'yaml') return 'fixture';
  return undefined;
}

const all = DOCS.flatMap(blocksOf);
const label = (b: Block) => `${b.file}:${b.line} ${b.lang}${b.info ? ` ${b.info}` : ''}`;
const stem = (b: Block) => `${b.file.replace(/\.md$/, '').replace(/\W/g, '-')}-${b.line}`;
const talksToServer = (b: Block) => b.code.includes(DOC_PORT);
const cwdOf = (b: Block) => /\bcwd=(\w+)/.exec(b.info)?.[1];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function run(command: string, args: string[], options: { cwd: string; timeout: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** `npx model-gateway-mock` is this repository's CLI until the package is on the registry. */
const localCli = (code: string) => code.replaceAll('npx model-gateway-mock', `'${process.execPath}' '${BIN}'`);

// One child vitest run for every block that is a vitest test file (a run costs seconds; a block, milliseconds).
let vitestRun: Promise<{ results: Map<string, { status: string; tests: number; message: string }>; output: string }> | undefined;
function runVitestBlocks() {
  vitestRun ??= (async () => {
    const dir = join(BLOCKS, 'vitest');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const b of all.filter((x) => kindOf(x) === 'vitest')) writeFileSync(join(dir, `${stem(b)}.test.ts`), b.code);
    // A plain object: no globalSetup (dist/ is built by this run's), nothing else of the repository's config.
    writeFileSync(join(dir, 'vitest.config.ts'), `export default { test: { include: ['*.test.ts'] } };\n`);
    const report = join(dir, 'report.json');
    const { output } = await run(
      process.execPath,
      [
        join(root, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--root',
        dir,
        '--config',
        join(dir, 'vitest.config.ts'),
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      { cwd: dir, timeout: 120_000 },
    );
    const results = new Map<string, { status: string; tests: number; message: string }>();
    if (existsSync(report)) {
      const json = JSON.parse(readFileSync(report, 'utf8')) as {
        testResults: { name: string; status: string; message: string; assertionResults: unknown[] }[];
      };
      for (const r of json.testResults)
        results.set(resolve(r.name), { status: r.status, tests: r.assertionResults.length, message: r.message });
    }
    return { results, output };
  })();
  return vitestRun;
}

// The scratch folder of the `cwd=clone` / `cwd=project` blocks: a "clone" (a link to this repository) and an
// empty project next to it, as the README lays them out.
let scratch: string | undefined;
function scratchDir(): string {
  if (!scratch) {
    scratch = mkdtempSync(join(tmpdir(), 'mgm-docs-'));
    symlinkSync(root, join(scratch, 'model-gateway-mock'));
    mkdirSync(join(scratch, 'my-project'));
    writeFileSync(join(scratch, 'my-project/package.json'), JSON.stringify({ name: 'my-project', private: true, type: 'module' }));
  }
  return scratch;
}
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  // What `npm pack` in the "clone" wrote.
  for (const f of readdirSync(root).filter((f) => /^model-gateway-mock-.*\.tgz$/.test(f))) rmSync(join(root, f));
});

/** Every relative link of a Markdown file: [text](target#anchor), images included. */
function linksOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/.test(t));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    seen.add(
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return seen;
}

describe('the documentation', () => {
  it('has every block run or marked: none skipped silently', () => {
    const counts: Record<string, number> = {};
    for (const b of all) counts[kindOf(b) ?? 'unmarked'] = (counts[kindOf(b) ?? 'unmarked'] ?? 0) + 1;
    console.info(
      `doc blocks: ${JSON.stringify(counts)}; not run:\n${all
        .filter((b) => ['no-run', 'output'].includes(kindOf(b)!))
        .map((b) => `  ${label(b)}`)
        .join('\n')}`,
    );
    expect(all.filter((b) => !kindOf(b)).map(label)).toEqual([]);
    expect(all.length).toBeGreaterThan(20);
  });

  it('has every relative link and anchor resolving', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const link of linksOf(file)) {
        const [path, anchor] = link.split('#');
        const target = path ? resolve(dirname(join(root, file)), path) : join(root, file);
        if (!existsSync(target)) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor && !anchorsOf(target).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

const RUN: Kind[] = ['module', 'vitest', 'browser', 'shell', 'server', 'fixture'];
const pagesToRun = DOCS.filter((f) => all.some((b) => b.file === f && RUN.includes(kindOf(b)!)));

describe.runIf(socketSuites).each(pagesToRun)('%s', (file) => {
  const blocks = all.filter((b) => b.file === file);
  let shared: Promise<Spawned> | undefined;
  afterAll(async () => {
    if (shared) await (await shared).stop();
  });

  /** The page's server, started by its first block that needs one; its journal is cleared for each block. */
  async function server(): Promise<Spawned> {
    shared ??= spawnCli();
    const s = await shared;
    await fetch(`${s.url}/__admin/requests`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    return s;
  }
  /** What a block sent to the page's server: it must have sent something, and got no error back. */
  async function expectAnswered(s: Spawned) {
    const { requests } = (await (await fetch(`${s.url}/__admin/requests`)).json()) as {
      requests: { method: string; path: string; status: number }[];
    };
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.status >= 400).map((r) => `${r.method} ${r.path} → ${r.status}`)).toEqual([]);
  }
  async function withPort(b: Block): Promise<{ code: string; s?: Spawned }> {
    if (!talksToServer(b)) return { code: b.code };
    const s = await server();
    return { code: b.code.replaceAll(DOC_PORT, new URL(s.url).port), s };
  }

  for (const b of blocks) {
    const kind = kindOf(b);
    if (kind === 'module') {
      it(`${label(b)}: runs as a module`, async () => {
        const { code, s } = await withPort(b);
        mkdirSync(BLOCKS, { recursive: true });
        const path = join(BLOCKS, `${stem(b)}.ts`);
        writeFileSync(path, code);
        const { code: exit, output } = await run(process.execPath, [path], { cwd: root, timeout: 60_000 });
        expect(exit, output).toBe(0);
        if (s) await expectAnswered(s);
      });
    } else if (kind === 'vitest') {
      it(`${label(b)}: runs as a vitest test file`, async () => {
        const { results, output } = await runVitestBlocks();
        const result = results.get(join(BLOCKS, 'vitest', `${stem(b)}.test.ts`));
        expect(result, output).toBeDefined();
        expect(result!.status, `${result!.message}\n${output}`).toBe('passed');
        expect(result!.tests).toBeGreaterThan(0);
      });
    } else if (kind === 'browser') {
      // Without Chromium (outside CI) skipped with the browser tests, as the examples are.
      it.runIf(chromiumAvailable)(`${label(b)}: runs in a page in Chromium`, async () => {
        const dir = join(BLOCKS, stem(b));
        mkdirSync(join(dir, 'src'), { recursive: true });
        writeFileSync(join(dir, 'src/block.ts'), b.code);
        // The page: what vite gives a module (import.meta.env; one bundle shares one import.meta), then the block.
        writeFileSync(
          join(dir, 'src/main.ts'),
          `Object.assign(import.meta, { env: { DEV: true } });\nawait import('./block.ts');\ndocument.body.dataset.ready = '';\n`,
        );
        writeFileSync(
          join(dir, 'index.html'),
          '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><p>doc block</p><script type="module" src="/main.js"></script></body></html>',
        );
        const page = await openExample(dir);
        try {
          // The worker the block started answers the page's own origin.
          const status = await page.page.evaluate(
            async () => (await fetch('/v1/models', { headers: { authorization: 'Bearer sk-test' } })).status,
          );
          expect(status).toBe(200);
          expect(page.leaked).toEqual([]);
        } finally {
          await page.close();
        }
      });
    } else if (kind === 'shell') {
      const where = cwdOf(b);
      it(`${label(b)}: runs under bash${where ? ` in the ${where}` : ''}`, async () => {
        const { code, s } = await withPort(b);
        const cwd =
          where === 'clone' ? join(scratchDir(), 'model-gateway-mock') : where === 'project' ? join(scratchDir(), 'my-project') : root;
        // In the project, `npx model-gateway-mock` is the package the block installed there.
        const script = where === 'project' ? code : localCli(code);
        const { code: exit, output } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, timeout: 240_000 });
        expect(exit, output).toBe(0);
        if (s) await expectAnswered(s);
      }, 300_000);
    } else if (kind === 'server') {
      it(`${label(b)}: starts the CLI, which prints what the block shows`, async () => {
        const port = String(await freePort());
        const [command, ...shown] = b.code.trim().split('\n');
        const expected = shown.map((l) => l.replace(/^# ?/, '').replaceAll(DOC_PORT, port));
        const child = spawn('bash', ['-c', localCli(command.replaceAll(DOC_PORT, port))], {
          cwd: root,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
        let out = '';
        try {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), 15_000);
            const read = (d: Buffer) => {
              out += d;
              if (out.split('\n').length > expected.length) {
                clearTimeout(timer);
                resolve();
              }
            };
            child.stdout.on('data', read);
            child.stderr.on('data', read);
            child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
          });
          expect(out.split('\n').slice(0, expected.length)).toEqual(expected);
          expect((await fetch(`http://127.0.0.1:${port}/__admin/health`)).status).toBe(200);
        } finally {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          process.kill(-child.pid!, 'SIGTERM');
          await exited;
        }
      });
    } else if (kind === 'fixture') {
      it(`${label(b)}: loads as a fixture file`, () => {
        const dir = mkdtempSync(join(tmpdir(), 'mgm-doc-fixture-'));
        try {
          writeFileSync(join(dir, `block.${b.lang}`), b.code);
          const fixtures = loadFixtureDir(dir);
          expect(fixtures.length).toBeGreaterThan(0);
          expect(unreachableStates(fixtures)).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});

/** Scenario states a fixture requires that no fixture of its scenario ever moves to (nor `Started`). */
function unreachableStates(fixtures: Fixture[]): string[] {
  const reached = new Set(fixtures.filter((f) => f.scenario && f.newScenarioState).map((f) => `${f.scenario}/${f.newScenarioState}`));
  return fixtures
    .filter(
      (f) =>
        f.scenario &&
        f.requiredScenarioState &&
        f.requiredScenarioState !== 'Started' &&
        !reached.has(`${f.scenario}/${f.requiredScenarioState}`),
    )
    .map((f) => `${f.name}: ${f.scenario}/${f.requiredScenarioState}`);
}
