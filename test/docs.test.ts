// Every fenced code block of README.md and docs/*.md, run as written, in a user's project made from the
// package as the README says (its `setup` blocks: `npm pack` in the clone, `npm install -D <tarball> …` in a
// project next to it), so the documentation cannot rot and cannot lean on this repository:
// - each page runs in its own copy of that project (links: cheap), block after block, so a page must say
//   every install and file it needs: `sh` blocks run under bash there (`npm install` is offline: it links
//   this repository's copy of each named package, test/helpers/offline-npm.ts, and fails for one it lacks);
//   `ts file=<path>` blocks are written there as that file;
// - `ts`/`js` blocks run there as modules under Node; blocks that are vitest test files run under the
//   project's vitest, a page's in one run (with the page's own vitest.config.ts, if a block wrote one);
//   `ts browser` blocks, a page's module, are bundled from the project and run in a page in Chromium that
//   serves the project's `public/` (where `npx msw init public` puts msw's worker script);
// - a block that starts the CLI in the foreground is started and its printed banner compared with the
//   block's comment lines;
// - `json`/`yaml` blocks are fixture files, loaded by the fixture loader (the one `--fixtures` uses);
// - `text` blocks are output shown to the reader, not run; a block that cannot run here says so in its info
//   string (```sh no-run: <why>), and a block that is neither run nor marked fails the suite; a block with
//   `same-as=<path>` must be that file, byte for byte (the file is run by its own test); `needs=chromium`
//   skips a block where Chromium is missing (outside CI), as the browser tests are.
// The one substitution: a block that talks to the documented port 4010 gets a server's dynamic port instead
// (the project's `npx model-gateway-mock`, one shared by the blocks of a page). Blocks with `cwd=clone` run in
// the "clone" (a link to this repository) beside the project.
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixtureDir } from '../src/fixtures/load.ts';
import type { Fixture } from '../src/types/fixtures.ts';
import { freePort, spawnCli, type Spawned } from './helpers/cli.ts';
import { chromiumAvailable, openExample } from './helpers/example-page.ts';
import { socketSuites } from './helpers/modes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOC_PORT = '4010';

interface Block {
  file: string;
  line: number;
  lang: string;
  info: string;
  code: string;
}
type Kind = 'no-run' | 'output' | 'same' | 'setup' | 'file' | 'module' | 'vitest' | 'browser' | 'shell' | 'server' | 'fixture';

const DOCS = [
  'README.md',
  'examples/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

function blocksOf(file: string, text = readFileSync(join(root, file), 'utf8')): Block[] {
  const lines = text.split('\n');
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
  if (/(^|\s)same-as=\S/.test(b.info)) return 'same';
  if (/^no-run:\s*\S/.test(b.info)) return 'no-run';
  if (b.lang === 'text') return 'output';
  if (/(^|\s)setup(\s|$)/.test(b.info)) return 'setup';
  if (/(^|\s)file=\S/.test(b.info)) return 'file';
  if ((b.lang === 'ts' || b.lang === 'js') && /^browser\b/.test(b.info)) return 'browser';
  if (b.lang === 'ts' || b.lang === 'js') return /from 'vitest'/.test(b.code) && /^\s*(it|test)\(/m.test(b.code) ? 'vitest' : 'module';
  if (b.lang === 'sh' || b.lang === 'bash') {
    const first = b.code.split('\n').find((l) => l.trim() && !l.startsWith('#')) ?? '';
    return /^npx model-gateway-mock(?! verify)\b/.test(first) ? 'server' : 'shell';
  }
  if (b.lang === 'json' || b.lang === 'yaml') return 'fixture';
  return undefined;
}

const all = DOCS.flatMap((f) => blocksOf(f));
const label = (b: Block) => `${b.file}:${b.line} ${b.lang}${b.info ? ` ${b.info}` : ''}`;
const stem = (b: Block) => `${b.file.replace(/\.md$/, '').replace(/\W/g, '-')}-${b.line}`;
const talksToServer = (b: Block) => b.code.includes(DOC_PORT);
const cwdOf = (b: Block) => /\bcwd=(\w+)/.exec(b.info)?.[1];
const fileOf = (b: Block) => /\bfile=(\S+)/.exec(b.info)?.[1];
const needsChromium = (b: Block) => /\bneeds=chromium\b/.test(b.info) || kindOf(b) === 'browser';

// The scratch folder: the "clone" (a link to this repository), the project the setup blocks make next to it,
// each page's copy of that project, and the offline `npm` first on the blocks' PATH.
const scratch = mkdtempSync(join(tmpdir(), 'mgm-docs-'));
const CLONE = join(scratch, 'model-gateway-mock');
const PROJECT = join(scratch, 'my-project');
const SHIMS = join(scratch, 'bin');
// npm, npx and node in blocks are this Node (24), whatever the machine has first on its PATH; npm is offline
// (npx runs the project's own bins). VITEST and NODE_OPTIONS are this run's: a block's vitest is its own.
const env = {
  ...process.env,
  PATH: `${SHIMS}:${dirname(process.execPath)}:${process.env.PATH}`,
  npm_config_update_notifier: 'false',
  npm_config_offline: 'true',
  VITEST: '',
  NODE_OPTIONS: '',
  DOC_REAL_NPM: execFileSync('bash', ['-c', 'command -v npm'], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
  }).trim(),
};

function run(command: string, args: string[], options: { cwd: string; timeout: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** A page's own project: the setup's package.json, and its node_modules as links to the setup's. */
function copyProject(name: string): string {
  const dir = join(scratch, 'pages', name);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), readFileSync(join(PROJECT, 'package.json')));
  const base = join(PROJECT, 'node_modules');
  for (const entry of readdirSync(base)) {
    if (entry === '.bin') {
      for (const bin of readdirSync(join(base, '.bin'))) symlinkSync(readlinkSync(join(base, '.bin', bin)), join(modules, '.bin', bin));
    } else if (entry.startsWith('@')) {
      mkdirSync(join(modules, entry));
      for (const scoped of readdirSync(join(base, entry))) symlinkSync(join(base, entry, scoped), join(modules, entry, scoped), 'dir');
    } else if (!entry.startsWith('.')) symlinkSync(join(base, entry), join(modules, entry), 'dir');
  }
  return dir;
}

interface Outcome {
  ok: boolean;
  output: string;
  skipped?: string;
}

/** What a block sent to the page's server: something (if it calls the API: pages are not journaled), and got no error back. */
async function answered(s: Spawned, code: string): Promise<string | undefined> {
  const { requests } = (await (await fetch(`${s.url}/__admin/requests`)).json()) as {
    requests: { method: string; path: string; status: number }[];
  };
  if (!requests.length && /\/v1(beta)?\/\w/.test(code)) return 'the block sent the server nothing';
  const failed = requests.filter((r) => r.status >= 400).map((r) => `${r.method} ${r.path} → ${r.status}`);
  return failed.length ? `the server answered errors: ${failed.join(', ')}` : undefined;
}

// The packages a vitest environment loads, by its name.
const ENVIRONMENT_PACKAGES: Record<string, string> = { 'happy-dom': 'happy-dom', jsdom: 'jsdom', 'edge-runtime': '@edge-runtime/vm' };

/**
 * Packages a block imports (or names as a vitest environment) that the project has not installed. The
 * offline npm links this repository's copies, and a linked package resolves what it loads from there
 * (vitest finds happy-dom so): this is the check a real project's resolution would make.
 */
function notInstalled(code: string, project: string): string[] {
  const specs = [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'([^'.][^']*)'/gm)].map((m) => m[1]);
  for (const m of code.matchAll(/@vitest-environment\s+([\w-]+)|\benvironment:\s*'([\w-]+)'/g)) {
    const name = ENVIRONMENT_PACKAGES[m[1] ?? m[2]];
    if (name) specs.push(name);
  }
  const names = specs
    .filter((spec) => !spec.startsWith('node:'))
    .map((spec) =>
      spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(names)].filter((name) => !existsSync(join(project, 'node_modules', name, 'package.json')));
}

/** Runs a page's blocks in order in its own project; the outcome of each block that runs. */
async function runPage(name: string, blocks: Block[]): Promise<Map<Block, Outcome>> {
  const project = copyProject(name);
  const outcomes = new Map<Block, Outcome>();
  let shared: Promise<Spawned> | undefined;
  const server = async () => {
    shared ??= spawnCli(
      [],
      { ...env, PATH: env.PATH },
      { bin: join(project, 'node_modules/model-gateway-mock/bin/model-gateway-mock.js'), cwd: project },
    );
    const s = await shared;
    await fetch(`${s.url}/__admin/requests`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    return s;
  };
  const withPort = async (b: Block): Promise<{ code: string; s?: Spawned }> => {
    if (!talksToServer(b)) return { code: b.code };
    const s = await server();
    return { code: b.code.replaceAll(DOC_PORT, new URL(s.url).port), s };
  };
  const checked = async (b: Block, exit: number, output: string, s?: Spawned): Promise<Outcome> => {
    if (exit !== 0) return { ok: false, output: `exit ${exit}\n${output}` };
    const problem = s && (await answered(s, b.code));
    return problem ? { ok: false, output: `${problem}\n${output}` } : { ok: true, output };
  };
  const vitestBlocks = blocks.filter((b) => kindOf(b) === 'vitest');
  try {
    for (const b of blocks) {
      const kind = kindOf(b);
      if (needsChromium(b) && !chromiumAvailable) {
        outcomes.set(b, { ok: true, output: '', skipped: 'no Chromium here' });
        continue;
      }
      try {
        const missing = ['file', 'module', 'browser'].includes(kind!) ? notInstalled(b.code, project) : [];
        if (missing.length) {
          outcomes.set(b, {
            ok: false,
            output: `imports what the project has not installed (no block of the page installs it): ${missing.join(', ')}`,
          });
          continue;
        }
        if (kind === 'file') {
          const path = join(project, fileOf(b)!);
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, b.code);
          outcomes.set(b, { ok: true, output: `wrote ${fileOf(b)}` });
        } else if (kind === 'module') {
          const { code, s } = await withPort(b);
          const path = join(project, `${stem(b)}.ts`);
          writeFileSync(path, code);
          const { code: exit, output } = await run(process.execPath, [path], { cwd: project, timeout: 60_000 });
          outcomes.set(b, await checked(b, exit, output, s));
        } else if (kind === 'vitest' && b === vitestBlocks.at(-1)) {
          // The page's vitest blocks in one run, once every block before the last of them has run (those that
          // import what the project lacks fail without it).
          const runnable = vitestBlocks.filter((v) => !notInstalled(v.code, project).length);
          for (const v of runnable) writeFileSync(join(project, `${stem(v)}.test.ts`), v.code);
          const report = join(project, 'vitest-report.json');
          const { code: exit, output } = !runnable.length
            ? { code: 0, output: '' }
            : await run(
                process.execPath,
                [
                  join(project, 'node_modules/vitest/vitest.mjs'),
                  'run',
                  ...runnable.map((v) => `${stem(v)}.test.ts`),
                  '--reporter=json',
                  `--outputFile=${report}`,
                ],
                { cwd: project, timeout: 180_000 },
              );
          const results = new Map<string, { status: string; tests: number; message: string }>();
          if (existsSync(report)) {
            const json = JSON.parse(readFileSync(report, 'utf8')) as {
              testResults: { name: string; status: string; message: string; assertionResults: { failureMessages: string[] }[] }[];
            };
            for (const r of json.testResults)
              results.set(resolve(r.name), {
                status: r.status,
                tests: r.assertionResults.length,
                message: [r.message, ...r.assertionResults.flatMap((a) => a.failureMessages)].join('\n'),
              });
          }
          for (const v of vitestBlocks) {
            const result = results.get(join(project, `${stem(v)}.test.ts`));
            const missing = notInstalled(v.code, project);
            outcomes.set(
              v,
              missing.length
                ? {
                    ok: false,
                    output: `imports what the project has not installed (no block of the page installs it): ${missing.join(', ')}`,
                  }
                : exit !== 0
                  ? { ok: false, output: `vitest exited ${exit} (${result?.status ?? 'no result'} for this file)\n${output}` }
                  : result?.status === 'passed' && result.tests > 0
                    ? { ok: true, output }
                    : {
                        ok: false,
                        output: `${result ? `${result.status}, ${result.tests} tests: ${result.message}` : 'no result'}\n${output}`,
                      },
            );
          }
        } else if (kind === 'browser') {
          outcomes.set(b, await runBrowserBlock(b, project));
        } else if (kind === 'shell') {
          const { code, s } = await withPort(b);
          const cwd = cwdOf(b) === 'clone' ? CLONE : project;
          const { code: exit, output } = await run('bash', ['-e', '-o', 'pipefail', '-c', code], { cwd, timeout: 240_000 });
          outcomes.set(b, await checked(b, exit, output, s));
        } else if (kind === 'server') {
          outcomes.set(b, await runServerBlock(b, project));
        } else if (kind === 'fixture') {
          const dir = mkdtempSync(join(tmpdir(), 'mgm-doc-fixture-'));
          try {
            writeFileSync(join(dir, `block.${b.lang}`), b.code);
            const fixtures = loadFixtureDir(dir);
            const unreachable = unreachableStates(fixtures);
            outcomes.set(
              b,
              fixtures.length && !unreachable.length
                ? { ok: true, output: '' }
                : { ok: false, output: `fixtures: ${fixtures.length}; unreachable states: ${unreachable.join(', ')}` },
            );
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      } catch (error) {
        outcomes.set(b, { ok: false, output: String((error as Error).stack ?? error) });
      }
    }
  } finally {
    if (shared) await (await shared).stop();
  }
  return outcomes;
}

/** A block that starts the CLI in the foreground: started in the project, its banner compared with the block's comment lines. */
async function runServerBlock(b: Block, project: string): Promise<Outcome> {
  const port = String(await freePort());
  const [command, ...shown] = b.code.trim().split('\n');
  const expected = shown.map((l) => l.replace(/^# ?/, '').replaceAll(DOC_PORT, port));
  // Its own process group: npx runs the CLI as its child, which a signal to npx alone would leave running.
  const child = spawn('bash', ['-c', command.replaceAll(DOC_PORT, port)], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), 30_000);
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
    const printed = out.split('\n').slice(0, expected.length);
    if (JSON.stringify(printed) !== JSON.stringify(expected))
      return { ok: false, output: `printed:\n${printed.join('\n')}\nshown:\n${expected.join('\n')}` };
    const health = await fetch(`http://127.0.0.1:${port}/__admin/health`);
    return health.status === 200 ? { ok: true, output: out } : { ok: false, output: `health ${health.status}\n${out}` };
  } finally {
    const exited = new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

/**
 * A page's module in Chromium, bundled from the project: the worker the block started answers the page's own
 * origin, and a request to another host (a listener on 127.0.0.1 standing in for a real one, with a key)
 * never reaches it.
 */
async function runBrowserBlock(b: Block, project: string): Promise<Outcome> {
  const dir = join(project, '.doc-page', stem(b));
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
  const reached: string[] = [];
  const real = createHttpServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' }).end();
  });
  await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve));
  const elsewhere = `http://127.0.0.1:${(real.address() as AddressInfo).port}/v2/chat/completions`;
  try {
    const page = await openExample(dir, project);
    try {
      const result = await page.page.evaluate(
        async (url) => ({
          own: (await fetch('/v1/models', { headers: { authorization: 'Bearer sk-test' } })).status,
          elsewhere: await fetch(url, { method: 'POST', headers: { authorization: 'Bearer sk-REAL-KEY' } }).then(
            (r) => `answered ${r.status}`,
            (e: Error) => `refused: ${e.message}`,
          ),
        }),
        elsewhere,
      );
      const ok = result.own === 200 && result.elsewhere.startsWith('refused') && !reached.length && !page.leaked.length;
      return { ok, output: JSON.stringify({ ...result, reached, leaked: page.leaked }) };
    } finally {
      await page.close();
    }
  } finally {
    await new Promise((resolve) => real.close(resolve));
  }
}

// The project every page starts from, made by the setup blocks (the README's: pack in the clone, install in
// the project); the package's own tarball is then removed from the clone.
let setup: Promise<Map<Block, Outcome>> | undefined;
function setUp(): Promise<Map<Block, Outcome>> {
  setup ??= (async () => {
    symlinkSync(root, CLONE);
    mkdirSync(PROJECT);
    writeFileSync(join(PROJECT, 'package.json'), JSON.stringify({ name: 'my-project', private: true, type: 'module' }));
    mkdirSync(SHIMS);
    writeFileSync(join(SHIMS, 'npm'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'test/helpers/offline-npm.ts')}' "$@"\n`, {
      mode: 0o755,
    });
    const outcomes = new Map<Block, Outcome>();
    for (const b of all.filter((x) => kindOf(x) === 'setup')) {
      const { code: exit, output } = await run('bash', ['-e', '-o', 'pipefail', '-c', b.code], {
        cwd: cwdOf(b) === 'clone' ? CLONE : PROJECT,
        timeout: 240_000,
      });
      outcomes.set(b, { ok: exit === 0, output });
    }
    return outcomes;
  })();
  return setup;
}
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
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

  it('shows each `same-as=<path>` block exactly as that file is (the file has its own test)', () => {
    const same = all.filter((b) => kindOf(b) === 'same');
    const differ = same.filter((b) => {
      const path = join(root, /\bsame-as=(\S+)/.exec(b.info)![1]);
      return !existsSync(path) || readFileSync(path, 'utf8') !== b.code;
    });
    expect(differ.map(label)).toEqual([]);
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

const RUN: Kind[] = ['file', 'module', 'vitest', 'browser', 'shell', 'server', 'fixture'];
const pagesToRun = DOCS.filter((f) => all.some((b) => b.file === f && RUN.includes(kindOf(b)!)));
// A page runs as a whole the first time one of its blocks is asked for: minutes on a busy machine.
const PAGE_TIMEOUT = 900_000;

describe.runIf(socketSuites)('the setup (README)', () => {
  for (const b of all.filter((x) => kindOf(x) === 'setup')) {
    it(
      `${label(b)}: makes the project every page runs in`,
      async () => {
        const outcome = (await setUp()).get(b)!;
        expect(outcome.ok, outcome.output).toBe(true);
      },
      PAGE_TIMEOUT,
    );
  }
});

describe.runIf(socketSuites).each(pagesToRun)('%s', (file) => {
  const blocks = all.filter((b) => b.file === file && RUN.includes(kindOf(b)!));
  let page: Promise<Map<Block, Outcome>> | undefined;
  const outcomeOf = async (b: Block) => {
    page ??= (async () => {
      const made = await setUp();
      if ([...made.values()].some((o) => !o.ok)) throw new Error('the setup blocks failed: see the setup tests');
      return runPage(stem({ ...b, line: 0 }), blocks);
    })();
    return (await page).get(b) ?? { ok: false, output: 'not run: a block before it stopped the page' };
  };
  for (const b of blocks) {
    it(
      `${label(b)}: runs in the project`,
      async (context) => {
        const outcome = await outcomeOf(b);
        if (outcome.skipped) {
          console.warn(`${label(b)}: skipped (${outcome.skipped})`);
          return context.skip();
        }
        expect(outcome.ok, outcome.output).toBe(true);
      },
      PAGE_TIMEOUT,
    );
  }
});

describe.runIf(socketSuites)('a page that leaves out an install step', () => {
  // The simulated-DOM section of docs/in-process.md: its install block, its config file and its test files.
  const section = all.filter((b) => b.file === 'docs/in-process.md' && /happy-dom|jsdom/.test(b.code) && RUN.includes(kindOf(b)!));
  const install = section.find((b) => kindOf(b) === 'shell' && /^npm install\b.*happy-dom/m.test(b.code));

  it(
    'fails without the step, naming the missing package (the page itself runs green above)',
    async () => {
      expect(install, 'docs/in-process.md installs happy-dom in a block').toBeDefined();
      expect(section.filter((b) => kindOf(b) === 'vitest').length).toBeGreaterThan(0);
      expect((await setUp()).size).toBeGreaterThan(0);
      const without = await runPage(
        'without-install',
        section.filter((b) => b !== install),
      );
      const failed = [...without.values()].filter((o) => !o.ok);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.map((o) => o.output).join('\n')).toMatch(/not installed.*happy-dom/);
      // And the config's filter is what makes the happy-dom run exit 0: without it, the tests pass and the run exits 1
      // (happy-dom's uncaught ERR_INVALID_STATE).
      const unfiltered = section.map((b) =>
        kindOf(b) === 'file' ? { ...b, code: b.code.replace(/, onUnhandledError: ignoreHappyDomCancel/, '') } : b,
      );
      expect(unfiltered.map((b) => b.code)).not.toEqual(section.map((b) => b.code));
      const bare = [...(await runPage('without-filter', unfiltered)).values()].filter((o) => !o.ok);
      expect(bare.map((o) => o.output).join('\n')).toMatch(/vitest exited 1 \(passed for this file\)/);
    },
    PAGE_TIMEOUT,
  );
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
