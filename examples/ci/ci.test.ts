// The CI recipes, run as far as this machine can:
// - the GitHub Actions workflow (github-actions.yml): its `run` steps, in order, in a project made from the
//   packed package (project/ holds the tests and fixtures the workflow names), with the job's env and a free
//   port for 4010; `uses:` steps and `npm ci` are the runner's and are not run (the project is installed
//   from the tarball, offline). After its stop step nothing listens on the port.
// - with a container engine (`docker info` answers; CI starts Debian's docker.io: .ci/run): an image with
//   the Dockerfile's final stage as written (its ENV, USER, HEALTHCHECK, ENTRYPOINT) over the packed package,
//   the compose file (Debian's docker-compose) and the Testcontainers recipe. The image's base is made here
//   from this machine's Node 24, not `node:24-slim`, and the Dockerfile's build stage is not run: neither a
//   registry of images nor npm's is reached from tests. Without an engine these are skipped with a warning.
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packedProject, projectEnv, type PackedProject } from '../../test/helpers/packed-project.ts';
import { socketSuites } from '../../test/helpers/modes.ts';
import { freePort } from '../../test/helpers/cli.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');

function sh(script: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeout?: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-e', '-o', 'pipefail', '-c', script],
      { ...options, timeout: options.timeout ?? 300_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

const refused = (url: string) =>
  fetch(url).then(
    () => false,
    () => true,
  );

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
}

describe.runIf(socketSuites)('the GitHub Actions workflow, its steps run here without a runner', () => {
  let project: PackedProject;
  beforeAll(async () => {
    project = await packedProject(['openai', 'msw', 'vitest']);
    cpSync(join(here, 'project'), project.dir, { recursive: true });
  }, 120_000);
  afterAll(() => project?.remove());

  it('starts the server from the package, awaits its health, runs the tests against it with the admin token, and stops it', async () => {
    const workflow = parse(readFileSync(join(here, 'github-actions.yml'), 'utf8')) as {
      jobs: { test: { env: Record<string, string>; steps: Step[] } };
    };
    const { env: jobEnv, steps } = workflow.jobs.test;
    const port = String(await freePort());
    const env = {
      ...projectEnv,
      ...Object.fromEntries(Object.entries(jobEnv).map(([k, v]) => [k, v.replaceAll('4010', port)])),
      VITEST: '',
      NODE_OPTIONS: '',
      CI: 'true',
    };
    const ran: { name: string; code: number; output: string }[] = [];
    let failed = false;
    for (const step of steps) {
      const name = step.name ?? step.uses ?? step.run!;
      // The runner's: the checkout and Node (this is Node 24), and the install (the project holds the tarball).
      if (step.uses || step.run === 'npm ci') continue;
      if (failed && step.if !== 'always()') continue;
      const result = await sh(step.run!.replaceAll('4010', port), { cwd: project.dir, env });
      ran.push({ name, ...result });
      failed ||= result.code !== 0;
    }
    expect(
      ran.map((r) => [r.name, r.code]),
      ran.map((r) => `${r.name}:\n${r.output}`).join('\n'),
    ).toEqual([
      ['Start model-gateway-mock', 0],
      ['Wait until it is healthy', 0],
      ['Tests', 0],
      ['Stop model-gateway-mock', 0],
    ]);
    expect(ran[2].output).toMatch(/2 passed/);
    // The tests' requests reached the server the workflow started (its log shows it was told to stop).
    expect(readFileSync(join(project.dir, 'gateway.log'), 'utf8')).toContain(`listening on http://127.0.0.1:${port}`);
    // Stopped: nothing listens on the port any more.
    expect(await refused(`http://127.0.0.1:${port}/__admin/health`)).toBe(true);
  }, 300_000);
});

const dockerAnswers = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
if (!dockerAnswers)
  console.warn('examples/ci: the image, compose and Testcontainers tests are skipped: no container engine answers `docker info` here');
const composeAnswers = dockerAnswers && spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
if (dockerAnswers && !composeAnswers)
  console.warn('examples/ci: the compose test is skipped: no docker-compose here (apt-get install -y docker-compose)');

const IMAGE = 'model-gateway-mock:recipes-test';

/** The Dockerfile's final stage, but for its FROM, COPY --from and RUN lines (the build this test replaces). */
function finalStage(): string {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const last = text.split('\n').findLastIndex((l) => /^FROM\s/.test(l));
  return text
    .split('\n')
    .slice(last + 1)
    .filter((l) => !/^(RUN|COPY --from)\b/.test(l))
    .join('\n');
}

/** The packages a package needs at run time, as this repository's node_modules resolves them (top-level names). */
function runtimeClosure(names: string[]): string[] {
  const modules = join(root, 'node_modules');
  const top = new Set<string>();
  const seen = new Set<string>();
  const resolveFrom = (from: string, name: string) => {
    // As Node looks: its own node_modules, then each folder's above it, up to the repository's.
    for (let d = from; d.length >= root.length; d = dirname(d)) {
      const candidate = join(d, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    return undefined;
  };
  const queue = names.map((n) => join(modules, n));
  while (queue.length) {
    const dir = queue.pop()!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    const relative = dir.slice(modules.length + 1);
    if (!relative.includes('/node_modules/')) top.add(relative);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    const optionalPeers = pkg.peerDependenciesMeta ?? {};
    const deps = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((p) => !(optionalPeers[p] as { optional?: boolean } | undefined)?.optional),
    ];
    for (const dep of deps) {
      const found = resolveFrom(dir, dep);
      if (found) queue.push(found);
    }
  }
  return [...top];
}

/** Builds IMAGE: a base of this machine's Node 24 (and what it links), the packed package with its dependencies, and the Dockerfile's final stage. */
async function buildImage(tarball: string): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'mgm-image-'));
  try {
    const rootfs = join(context, 'rootfs');
    const node = process.execPath;
    for (const dir of ['usr/local/bin', 'tmp', 'home/node', 'etc', 'usr/bin']) mkdirSync(join(rootfs, dir), { recursive: true });
    chmodSync(join(rootfs, 'tmp'), 0o1777);
    copyFileSync(node, join(rootfs, 'usr/local/bin/node'));
    copyFileSync('/usr/bin/env', join(rootfs, 'usr/bin/env'));
    chmodSync(join(rootfs, 'usr/local/bin/node'), 0o755);
    chmodSync(join(rootfs, 'usr/bin/env'), 0o755);
    const libraries = `${spawnSync('ldd', [node], { encoding: 'utf8' }).stdout}${spawnSync('ldd', ['/usr/bin/env'], { encoding: 'utf8' }).stdout}`;
    for (const [, path] of libraries.matchAll(/(\/\S+\.so[.\d]*)/g)) {
      mkdirSync(join(rootfs, dirname(path)), { recursive: true });
      copyFileSync(realpathSync(path), join(rootfs, path));
    }
    writeFileSync(join(rootfs, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n');
    writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
    const base = spawnSync('bash', ['-c', `tar -C '${rootfs}' --owner=0 --group=0 -c . | docker import - mgm-node-base:recipes-test`], {
      encoding: 'utf8',
    });
    if (base.status !== 0) throw new Error(`docker import: ${base.stderr}`);
    // The package as `npm install --global <tarball>` lays it out.
    const app = join(context, 'app');
    mkdirSync(join(app, 'package'), { recursive: true });
    spawnSync('tar', ['xzf', tarball, '-C', app]);
    const manifest = JSON.parse(readFileSync(join(app, 'package/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of runtimeClosure([...Object.keys(manifest.dependencies), 'msw']))
      cpSync(join(root, 'node_modules', name), join(app, 'package/node_modules', name), { recursive: true, dereference: true });
    mkdirSync(join(app, 'bin'));
    symlinkSync('../lib/node_modules/model-gateway-mock/bin/model-gateway-mock.js', join(app, 'bin/model-gateway-mock'));
    writeFileSync(
      join(app, 'Dockerfile'),
      `FROM mgm-node-base:recipes-test\nENV PATH=/usr/local/bin:/usr/bin\nCOPY package /usr/local/lib/node_modules/model-gateway-mock\nCOPY bin /usr/local/bin\n${finalStage()}\n`,
    );
    const build = spawnSync('docker', ['build', '-q', '-t', IMAGE, app], { encoding: 'utf8', timeout: 600_000 });
    if (build.status !== 0) throw new Error(`docker build: ${build.stderr}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

async function healthy(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`${url}/__admin/health`).catch(() => undefined))?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became healthy`);
}

const chat = (url: string, content: string) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  });

describe.runIf(socketSuites && dockerAnswers)('the image, the compose file and the Testcontainers recipe, in a container engine', () => {
  let project: PackedProject;
  beforeAll(async () => {
    project = await packedProject(['openai']);
    await buildImage(project.tarball);
  }, 900_000);
  afterAll(() => {
    project?.remove();
    spawnSync('docker', ['rmi', '-f', IMAGE, 'mgm-node-base:recipes-test'], { stdio: 'ignore' });
  });

  it('runs the image on 0.0.0.0: /__admin answers 403 without the admin token, 200 with it; docker stop ends it with exit 0', async () => {
    const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
    const port = await freePort();
    const withToken = await freePort();
    const open = docker('run', '-d', '-p', `127.0.0.1:${port}:4010`, IMAGE, '--seed', '1').stdout.trim();
    const guarded = docker('run', '-d', '-p', `127.0.0.1:${withToken}:4010`, '-e', 'MGM_ADMIN_TOKEN=recipe-token', IMAGE).stdout.trim();
    try {
      await healthy(`http://127.0.0.1:${port}`);
      await healthy(`http://127.0.0.1:${withToken}`);
      // Reached through the published port, the client is not on the container's loopback.
      const refusedAdmin = await fetch(`http://127.0.0.1:${port}/__admin/requests`);
      expect(refusedAdmin.status).toBe(403);
      expect(await refusedAdmin.text()).toMatch(/admin-token/);
      expect((await fetch(`http://127.0.0.1:${withToken}/__admin/requests`)).status).toBe(403);
      expect((await fetch(`http://127.0.0.1:${withToken}/__admin/requests`, { headers: { 'x-admin-token': 'recipe-token' } })).status).toBe(
        200,
      );
      expect((await chat(`http://127.0.0.1:${port}`, 'hi')).choices[0].message.content).toBeTruthy();
      // The image's HEALTHCHECK, and a prompt, clean stop (the CLI's SIGTERM handler, as PID 1).
      expect(docker('inspect', '-f', '{{.Config.User}} {{json .Config.Healthcheck.Test}}', open).stdout).toContain('node ["CMD","node"');
      expect(docker('stop', '-t', '10', open).status).toBe(0);
      expect(docker('inspect', '-f', '{{.State.ExitCode}}', open).stdout.trim()).toBe('0');
    } finally {
      docker('rm', '-f', open, guarded);
    }
  }, 300_000);

  it.runIf(composeAnswers)(
    'brings the compose file up with the fixtures mounted and the admin token set, and down',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mgm-compose-'));
      const port = String(await freePort());
      const env = { ...process.env, MGM_IMAGE: IMAGE, GATEWAY_PORT: port, MGM_ADMIN_TOKEN: 'compose-token' };
      const compose = (...args: string[]) =>
        spawnSync('docker-compose', ['-p', `mgm${port}`, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 180_000 });
      try {
        cpSync(join(here, 'compose.yaml'), join(dir, 'compose.yaml'));
        cpSync(join(here, 'project/test/fixtures'), join(dir, 'test/fixtures'), { recursive: true });
        const up = compose('up', '-d');
        expect(up.status, up.stderr).toBe(0);
        const url = `http://127.0.0.1:${port}`;
        await healthy(url);
        expect((await chat(url, 'hello')).choices[0].message.content).toBe('Hi from CI!');
        expect((await fetch(`${url}/__admin/requests`)).status).toBe(403);
        const journal = await fetch(`${url}/__admin/requests`, { headers: { 'x-admin-token': 'compose-token' } });
        expect(((await journal.json()) as { requests: unknown[] }).requests).toHaveLength(1);
        const down = compose('down');
        expect(down.status, down.stderr).toBe(0);
        expect(await refused(`${url}/__admin/health`)).toBe(true);
      } finally {
        compose('down');
        rmSync(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it('starts the Testcontainers recipe on a random port, healthy, with the fixtures and the admin token, and stops it', async () => {
    // Ryuk, Testcontainers' reaper, is an image from a registry: off here (the test stops what it starts).
    process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
    const { startGateway } = await import('./testcontainers.ts');
    const gateway = await startGateway({ image: IMAGE, fixtures: join(here, 'project/test/fixtures') });
    try {
      expect((await chat(gateway.url, 'hello')).choices[0].message.content).toBe('Hi from CI!');
      expect((await fetch(`${gateway.url}/__admin/requests`)).status).toBe(403);
      expect((await fetch(`${gateway.url}/__admin/requests`, { headers: { 'x-admin-token': gateway.adminToken } })).status).toBe(200);
    } finally {
      await gateway.container.stop();
    }
    expect(await refused(`${gateway.url}/__admin/health`)).toBe(true);
  }, 300_000);
});
