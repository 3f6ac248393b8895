// The npm package as a user gets it: `npm pack`, unpacked into an empty project's node_modules beside its declared
// dependencies, openai, msw and vitest (linked from ours: no network, no dev tools); every entry point imported, type-checked by tsc and run; `npx model-gateway-mock`
// answering the openai SDK; the vitest helper running under the user's vitest; the browser entry bundling clean.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForBrowser } from './helpers/browser-bundle.ts';
import { packedProject, projectEnv } from './helpers/packed-project.ts';
import { socketSuites } from './helpers/modes.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
// Offline: a test reaches nothing but 127.0.0.1, so npm and npx must find everything on disk.
const env = projectEnv;
const TSC = join(root, 'node_modules/typescript/bin/tsc');

/** Every entry point, with types used the way a user would; `@ts-expect-error` lines prove the types are not `any`. */
const CHECK_TS = `
import { blockUnhandled, createGateway, FIXED_EPOCH_SECONDS, type Fixture, type Gateway, type JournalEntry } from 'model-gateway-mock';
import { createGateway as createBrowserGateway } from 'model-gateway-mock/browser';
import { startServer, type RunningServer } from 'model-gateway-mock/server';
import type { VitestGatewayOptions } from 'model-gateway-mock/vitest';
import { ignoreHappyDomCancel } from 'model-gateway-mock/vitest-config';
import schema from 'model-gateway-mock/fixture.schema.json' with { type: 'json' };
import catalogue from 'model-gateway-mock/models.json' with { type: 'json' };
import OpenAI from 'openai';
import { setupServer } from 'msw/node';

const fixture: Fixture = { name: 'hi', match: { userMessage: { contains: 'hi' } }, reply: { text: 'Hello from the tarball.' } };
// @ts-expect-error seed is a number
createGateway({ seed: 'one' });
// @ts-expect-error not a fixture field
const bad: Fixture = { replay: {} };
const helperOptions: VitestGatewayOptions = { use: [fixture], onUnhandledRequest: 'error' };

const gateway: Gateway = createGateway({ fixtures: [fixture] });
const msw = setupServer(...gateway.handlers);
msw.listen(blockUnhandled());
const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
const inProcess = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const journal: JournalEntry[] = gateway.requests();
msw.close();

const server: RunningServer = await startServer({ port: 0, fixtures: [fixture] });
const socket = await new OpenAI({ apiKey: 'sk-test', baseURL: server.url + '/v1', maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
await server.close();

console.log(JSON.stringify({
  inProcess: inProcess.choices[0].message.content,
  journal: journal.map((e) => e.fixture),
  socket: socket.choices[0].message.content,
  browser: createBrowserGateway().handlers.length > 0,
  schema: schema.title,
  models: catalogue.models.length,
  epoch: FIXED_EPOCH_SECONDS,
  helper: helperOptions.use!.length,
  bad: typeof bad,
  dom: ignoreHappyDomCancel({ message: 'another error' }),
}));
`;

const HELPER_TEST = `
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import { setupGateway } from 'model-gateway-mock/vitest';

const gateway = setupGateway({ use: [{ reply: { text: 'From the helper.' } }] });

it('answers with the per-test fixture', async () => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
  expect(reply.choices[0].message.content).toBe('From the helper.');
  expect(gateway.requests()).toHaveLength(1);
});
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
  },
  include: ['*.ts'],
};

describe.runIf(socketSuites)('the npm package', () => {
  let tarball: string;
  let installed: string;
  let remove: (() => void) | undefined;
  beforeAll(async () => {
    const project = await packedProject(['openai', 'msw', 'vitest']);
    tarball = project.tarball;
    installed = project.dir;
    remove = project.remove;
  }, 60_000);
  afterAll(() => remove?.());

  it('holds built code, types, the tokenizer table, the catalogue and price table, the schemas, README, the docs, LICENSE and CHANGELOG, and nothing else', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''));
    const allowed =
      /^(package\.json|README\.md|docs\/[\w-]+\.md|LICENSE|CHANGELOG\.md|bin\/model-gateway-mock\.js|catalog\/(models|prices)\.json|schemas\/(fixture|fixture-file)\.schema\.json|dist\/package\.json|dist\/catalog\/(models|prices)\.json|dist\/schemas\/fixture\.schema\.json|dist\/src\/core\/o200k_base\.bin|dist\/src\/.+\.(js|d\.ts))$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    for (const f of [
      'README.md',
      'docs/options.md',
      'LICENSE',
      'CHANGELOG.md',
      'catalog/models.json',
      'schemas/fixture.schema.json',
      'schemas/fixture-file.schema.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/browser.d.ts',
      'dist/src/vitest.d.ts',
      'dist/src/vitest-config.d.ts',
      'dist/src/server.d.ts',
      'dist/src/core/o200k_base.bin',
      'dist/src/core/o200k_base.packed.js',
    ]) {
      expect(files).toContain(f);
    }
    // The CLI and the Node entries run from their bundle (scripts/bundle.ts), beside the modules.
    for (const entry of ['cli', 'index', 'server', 'vitest', 'vitest-config']) expect(files).toContain(`dist/src/${entry}.bundle.js`);
    // Every module ships with its types (the entries' types are their modules' .d.ts).
    const bundled = /(^|\/)bundle-[^/]+\.js$|\.bundle\.js$/;
    const js = files.filter((f) => f.endsWith('.js') && f.startsWith('dist/') && !bundled.test(f));
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, '.d.ts')))).toEqual([]);
  });

  it('type-checks every entry point with tsc, and runs them: in-process and standalone answers', async () => {
    writeFileSync(join(installed, 'check.ts'), CHECK_TS);
    writeFileSync(join(installed, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: installed, env }).catch((e: { stdout: string }) => e);
    expect(tsc.stdout).toBe('');
    const { stdout } = await run(process.execPath, ['check.ts'], { cwd: installed, env });
    expect(JSON.parse(stdout)).toEqual({
      inProcess: 'Hello from the tarball.',
      journal: ['hi'],
      socket: 'Hello from the tarball.',
      browser: true,
      schema: 'model-gateway-mock fixture',
      models: expect.any(Number),
      epoch: expect.any(Number),
      helper: 1,
      bad: 'object',
      dom: true,
    });
  });

  it('runs `npx model-gateway-mock`, which answers the openai SDK and loads a fixture file that names its schema', async () => {
    const fixtures = join(installed, 'fixtures');
    mkdirSync(fixtures, { recursive: true });
    const file = {
      $schema: '../node_modules/model-gateway-mock/schemas/fixture-file.schema.json',
      fixtures: [{ name: 'cli', reply: { text: 'From npx.' } }],
    };
    writeFileSync(join(fixtures, 'chat.json'), JSON.stringify(file));
    // Its own process group: npx runs the CLI as a child of its own, which a signal to npx alone leaves running.
    const child = spawn('npx', ['model-gateway-mock', '--port', '0', '--fixtures', 'fixtures'], {
      cwd: installed,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npx model-gateway-mock did not start:\n${out}`)), 30_000);
        const read = (d: Buffer) => {
          out += d;
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
      });
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 });
      const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      expect(reply.choices[0].message.content).toBe('From npx.');
      const health = await fetch(`${url}/__admin/health`);
      expect(await health.json()).toMatchObject({ status: 'healthy', version: expect.any(String) });
    } finally {
      const exited = new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  });

  it('ships fixture schemas an editor can check a file with', () => {
    const dir = join(installed, 'node_modules/model-gateway-mock/schemas');
    const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const fixtureSchema = read('fixture.schema.json');
    // An editor resolves the file schema's relative $ref next to it; here ajv does, by the fixture schema's $id.
    const validate = new Ajv2020({ strict: false })
      .addSchema(fixtureSchema)
      .compile({ ...read('fixture-file.schema.json'), $id: new URL('fixture-file.schema.json', fixtureSchema.$id).href });
    expect(validate({ $schema: 'x', fixtures: [{ name: 'a', reply: { text: 'b' } }] })).toBe(true);
    expect(validate([{ reply: { text: 'b' } }])).toBe(true);
    expect(validate({ reply: { text: 'b' } })).toBe(true);
    expect(validate({ $schema: 'x', fixtures: [{ replay: {} }] })).toBe(false);
  });

  it("runs the vitest helper in the user's vitest", async () => {
    writeFileSync(join(installed, 'helper.test.ts'), HELPER_TEST);
    const { stdout } = await run('npx', ['vitest', 'run', 'helper.test.ts'], {
      cwd: installed,
      env: { ...env, VITEST: '', NODE_OPTIONS: '', CI: '1' },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/1 passed/);
  });

  it('bundles the installed browser entry for the browser with no Node built-in', async () => {
    writeFileSync(join(installed, 'browser-app.js'), "export { createGateway } from 'model-gateway-mock/browser';\n");
    const { nodeImports, code } = await bundleForBrowser('browser-app.js', installed);
    expect(nodeImports).toEqual([]);
    expect(code.length).toBeGreaterThan(100_000);
  });
});
