// The CLI: flags, tokens, fixtures seam, health, and the errors it stops with.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request as httpRequest } from 'node:http';
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import OpenAI from 'openai';
import { runCli, spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { SHUTDOWN_GRACE_MS, stopOnSignal } from '../src/shutdown.ts';
import { heapLimits } from '../src/cli/heap-size.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI_BIN = fileURLToPath(new URL('../bin/model-gateway-mock.js', import.meta.url));
const SIGNAL_AT = fileURLToPath(new URL('./helpers/signal-at.ts', import.meta.url));

// A file that is no PEM at all, for the TLS flags.
const NOT_PEM = join(mkdtempSync(join(tmpdir(), 'mgm-pem-')), 'not.pem');
writeFileSync(NOT_PEM, 'not a certificate\n');

describe('model-gateway-mock CLI', () => {
  it('prints help listing every flag', async () => {
    const { code, output } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--seed', '--token', '--fixtures', '--latency', '--clock', '--max-body', '--reader-timeout'])
      expect(output).toContain(flag);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port must be an integer/],
    [['--latency', 'ttft=fast'], /--latency: invalid latency "ttft=fast"/],
    // Each message names the flag, the value and what is accepted.
    [
      ['--clock', 'tomorrow'],
      /--clock must be an integer from 0 to 253402300799 \(Unix seconds, up to 9999-12-31T23:59:59Z\), fixed or real, got "tomorrow"/,
    ],
    [['--clock', '253402300800'], /--clock must be an integer from 0 to 253402300799 .* got "253402300800"/],
    [['--port', '99999'], /--port must be an integer from 0 to 65535 \(0 picks a free port\), got "99999"/],
    [['--port=-1'], /--port must be an integer from 0 to 65535 \(0 picks a free port\), got "-1"/],
    [
      ['--reader-timeout', '2147483648'],
      /--reader-timeout must be an integer from 0 to 2147483647 \(milliseconds; 0 never drops a reader\), got "2147483648"/,
    ],
    [
      ['--fixtures', '/no/such/folder'],
      /--fixtures: no folder "\/no\/such\/folder" \(it takes a folder of \*\.json, \*\.yaml and \*\.yml fixture files\)/,
    ],
    [['--fixtures', fileURLToPath(import.meta.url)], /--fixtures: ".*cli\.test\.ts" is a file; it takes a folder/],
    [['--tls-cert', 'cert.pem'], /--tls-cert needs --tls-key too/],
    [['--deployment', 'prod-chat'], /--deployment: "prod-chat" is not name=model \(e\.g\. prod-chat=gpt-4o-mini\)/],
    [['--deployment', 'prod-chat=gpt-nope-9000'], /--deployment: "prod-chat" maps to "gpt-nope-9000", which is no model of the catalogue/],
    [
      ['--tls-cert', NOT_PEM, '--tls-key', NOT_PEM],
      new RegExp(`--tls-cert: "${NOT_PEM}" is not a PEM certificate \\(a file starting with "-----BEGIN CERTIFICATE-----"\\)`),
    ],
    [['--tls-cert', '/no/such.pem', '--tls-key', NOT_PEM], /--tls-cert: cannot read "\/no\/such.pem" \(ENOENT\)/],
    [['verify', '--fixtures', '.'], /verify needs --upstream <url> \(the real service to compare with\)/],
    [['verify', '--upstream', 'https://api.openai.com'], /verify needs --fixtures <dir>/],
    [['verify', '--fixtures', '/no/such/folder', '--upstream', 'https://api.openai.com'], /--fixtures: no folder "\/no\/such\/folder"/],
    [['verify', '--fixtures', '.', '--upstream', 'api.openai.com'], /--upstream: not a URL: "api.openai.com"/],
  ])('stops on bad flags %j', async (args, message) => {
    const { code, output } = await runCli(args);
    expect(code).toBe(2);
    expect(output).toMatch(message);
  });

  it('prints the base URL and token, and is healthy', async () => {
    const cli = await spawnCli();
    try {
      expect(cli.output()).toContain(`OpenAI-compatible base URL: ${cli.url}/v1`);
      expect(cli.output()).toContain('token: sk-test');
      const res = await fetch(`${cli.url}/__admin/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'healthy' });
      const home = await (await fetch(`${cli.url}/`)).text();
      expect(home).toContain(`value="${cli.url}/v1"`);
    } finally {
      await cli.stop();
    }
  });

  it('says in its banner which modes are on and how many fixtures and scenarios it loaded', async () => {
    const plain = await spawnCli();
    await plain.stop();
    const lines = plain.output().split('\n');
    expect(lines).toContain('  fixtures: none loaded');
    for (const mode of ['strict:', 'strict params:', 'record:', 'TLS']) expect(plain.output()).not.toContain(mode);

    const dir = mkdtempSync(join(tmpdir(), 'mgm-banner-'));
    const said = (text: string) => ({ match: { userMessage: text }, reply: { text } });
    writeFileSync(
      join(dir, 'a.json'),
      JSON.stringify([said('one'), { ...said('two'), scenario: 'checkout', requiredScenarioState: 'Started', newScenarioState: 'paid' }]),
    );
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...said('three'), scenario: 'login' }));
    const recordings = mkdtempSync(join(tmpdir(), 'mgm-banner-rec-'));
    const all = await spawnCli([
      '--fixtures',
      dir,
      '--strict',
      '--strict-params',
      '--tls',
      '--record',
      recordings,
      '--upstream',
      'http://127.0.0.1:9',
      '--upstream-gemini',
      'http://127.0.0.1:8',
    ]);
    await all.stop();
    const shown = all.output().split('\n');
    expect(shown).toContain(`  fixtures: 3 fixtures and 2 scenarios loaded from ${dir}`);
    expect(shown).toContain('  strict: on (only fixtures answer; any other request gets 404 with the near-miss report)');
    expect(shown).toContain("  strict params: on (unknown request parameters get the vendor's 400)");
    expect(shown).toContain(
      `  record: on (what no fixture answers goes to http://127.0.0.1:9, http://127.0.0.1:8 for gemini; answers written to ${recordings})`,
    );
    expect(shown).toContain('  TLS: on (https and wss, a generated certificate)');
    expect(all.output()).toMatch(/^ {2}TLS certificate: \S+\.pem/m);
  }, 30_000);

  it('issues exactly the --token set, replacing sk-test', async () => {
    const cli = await spawnCli(['--token', 'sk-alpha', '--token', 'sk-beta']);
    try {
      expect(cli.output()).toContain('token: sk-alpha, sk-beta');
      const ask = (apiKey: string) =>
        new OpenAI({ apiKey, baseURL: `${cli.url}/v1`, maxRetries: 0 }).chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi' }],
        });
      await expect(ask('sk-alpha')).resolves.toBeTruthy();
      await expect(ask('sk-beta')).resolves.toBeTruthy();
      await expect(ask('sk-test')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    } finally {
      await cli.stop();
    }
  });

  it('answers from fixture files in --fixtures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    writeFileSync(
      join(dir, 'hello.json'),
      JSON.stringify({ match: { userMessage: { regex: '^hello' } }, reply: { text: 'Hello from a fixture.' } }),
    );
    const cli = await spawnCli(['--fixtures', dir]);
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
      const { data, response } = await client.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] })
        .withResponse();
      expect(data.choices[0].message.content).toBe('Hello from a fixture.');
      expect(response.headers.get('x-mock-fixture')).toBe('hello.json#0');
    } finally {
      await cli.stop();
    }
  });

  it('refuses to start on an invalid fixture file, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    writeFileSync(join(dir, 'broken.json'), '{ "reply": ');
    const { code, output } = await runCli(['--port', '0', '--fixtures', dir]);
    expect(code).toBe(2);
    expect(output).toContain('broken.json: not valid JSON');
  });

  /** A folder with one good file and three bad ones, each bad in another way. */
  const mixedFolder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    writeFileSync(join(dir, 'a-good.json'), JSON.stringify({ match: { userMessage: 'hi' }, reply: { text: 'hello' } }));
    writeFileSync(
      join(dir, 'b-schema.json'),
      JSON.stringify({ fixtures: [{ reply: { text: 'fine' } }, { name: 'second', match: { turn: 'first' }, reply: { txt: 'x' } }] }),
    );
    writeFileSync(join(dir, 'c-broken.json'), '{ "reply": ');
    writeFileSync(join(dir, 'd-latency.yaml'), '- name: slow\n  reply: { text: x }\n  latency: ttft=fast\n');
    return dir;
  };

  it('refuses to start on bad fixture files, naming every one of them, not only the first', async () => {
    const { code, output } = await runCli(['--port', '0', '--fixtures', mixedFolder()]);
    expect(code).toBe(2);
    expect(output).toContain('3 bad fixture files');
    for (const file of ['b-schema.json', 'c-broken.json', 'd-latency.yaml']) expect(output).toContain(file);
    expect(output).not.toContain('a-good.json');
  });

  it('check --fixtures reports every bad file with the JSON pointer of each problem, and exits 1', async () => {
    const dir = mixedFolder();
    const { code, output } = await runCli(['check', '--fixtures', dir]);
    expect(code).toBe(1);
    expect(output).toContain(`${join(dir, 'b-schema.json')}: invalid fixtures:`);
    expect(output).toContain('fixture 1 ("second"), at /fixtures/1/match/turn: must be integer');
    expect(output).toContain('fixture 1 ("second"), at /fixtures/1/reply: must NOT have additional properties (txt)');
    expect(output).toMatch(/c-broken\.json: not valid JSON \(/);
    expect(output).toMatch(/d-latency\.yaml: invalid fixture:\n {2}fixture 0 \("slow"\), at \/0\/latency: invalid latency "ttft=fast"/);
    expect(output).toContain(`4 fixture files in ${dir}: 1 good (1 fixture), 3 bad`);
  });

  it('check --fixtures exits 0 on a good folder, 1 on one with no fixture file, 2 without a folder', async () => {
    const dir = mixedFolder();
    for (const bad of ['b-schema.json', 'c-broken.json', 'd-latency.yaml']) rmSync(join(dir, bad));
    expect(await runCli(['check', '--fixtures', dir])).toEqual({ code: 0, output: `1 fixture file in ${dir}: 1 good (1 fixture)\n` });
    const empty = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    expect((await runCli(['check', '--fixtures', empty])).code).toBe(1);
    const none = await runCli(['check']);
    expect(none.code).toBe(2);
    expect(none.output).toContain('check needs --fixtures <dir>');
  });

  it('says when the port is taken', async () => {
    const cli = await spawnCli();
    try {
      const { code, output } = await runCli(['--port', new URL(cli.url).port]);
      expect(code).toBe(2);
      expect(output).toMatch(/port \d+ is in use/);
    } finally {
      await cli.stop();
    }
  });
});

describe("the CLI's heap limits", () => {
  const GiB = 1024 ** 3;
  it('applies both unless the user sized the heap with node flags, in either spelling', () => {
    expect(heapLimits('', 4 * GiB)).toEqual({ youngCap: true, oldGrowth: true });
    expect(heapLimits('--max-semi-space-size=64', 4 * GiB)).toEqual({ youngCap: false, oldGrowth: true });
    expect(heapLimits('--enable-source-maps --max_semi_space_size=64', 4 * GiB)).toEqual({ youngCap: false, oldGrowth: true });
    expect(heapLimits('--heap_growing_percent=30', 4 * GiB)).toEqual({ youngCap: true, oldGrowth: false });
    expect(heapLimits('--max-heap-size=300', 0.3 * GiB)).toEqual({ youngCap: false, oldGrowth: false });
  });

  it('limits old-generation growth only where V8 would grow by more (heaps of 2 GiB and up)', () => {
    // --max-old-space-size=512: V8 grows by 10–30% itself; =4096 (common in CI): by up to 300%.
    expect(heapLimits('--max-old-space-size=512', 0.5 * GiB).oldGrowth).toBe(false);
    expect(heapLimits('--max-old-space-size=4096', 4 * GiB).oldGrowth).toBe(true);
  });

  it('changes nothing when flags are frozen (a change would abort), unless unfrozen again', () => {
    expect(heapLimits('--freeze-flags-after-init', 4 * GiB)).toEqual({ youngCap: false, oldGrowth: false });
    expect(heapLimits('--no-freeze-flags-after-init', 4 * GiB)).toEqual({ youngCap: true, oldGrowth: true });
    expect(heapLimits('--no-freeze-flags-after-init --freeze_flags_after_init', 4 * GiB)).toEqual({ youngCap: false, oldGrowth: false });
  });
});

describe('the CLI reads its options from the environment too', () => {
  it('takes every option from MGM_* variables', async () => {
    const cli = await spawnCli([], {
      MGM_HOST: '0.0.0.0',
      MGM_ADMIN_TOKEN: 'env-admin-token',
      MGM_TOKEN: 'sk-env-a, sk-env-b',
      MGM_STRICT: '1',
      MGM_MAX_BODY: '1000',
    });
    try {
      // A generated admin token would be random: this one is the variable's.
      expect(cli.output()).toContain('admin token (needed for /__admin and the console from other machines): env-admin-token');
      expect(cli.output()).toContain('token: sk-env-a, sk-env-b');
      const port = new URL(cli.url).port;
      // Bound to every interface, it prints an address a client can reach, and says where it listens.
      expect(cli.url).toBe(`http://127.0.0.1:${port}`);
      expect(cli.output()).toContain(`OpenAI-compatible base URL: http://127.0.0.1:${port}/v1`);
      expect(cli.output()).toContain(`on all interfaces (--host 0.0.0.0): other machines reach it at this machine's address, port ${port}`);
      expect(cli.output()).not.toContain('0.0.0.0:');
      const client = new OpenAI({ apiKey: 'sk-env-b', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
      // MGM_STRICT: an unmatched request gets the near-miss 404.
      const strict = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
      expect(strict.status).toBe(404);
      // MGM_MAX_BODY.
      const big = await client.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(2000) }] })
        .catch((e) => e);
      expect(big.status).toBe(413);
      expect((await fetch(`http://127.0.0.1:${port}/__admin/requests`, { headers: { 'x-admin-token': 'env-admin-token' } })).status).toBe(
        200,
      );
    } finally {
      await cli.stop();
    }
  });

  it('lets a flag win over its variable', async () => {
    const embed = async (url: string) =>
      (
        await new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }).embeddings.create({
          model: 'text-embedding-3-small',
          input: 'seeded',
        })
      ).data[0].embedding;
    const servers = await Promise.all([
      spawnCli(['--seed', '6'], { MGM_SEED: '5' }),
      spawnCli(['--seed', '6']),
      spawnCli([], { MGM_SEED: '5' }),
      spawnCli(['--seed', '5']),
    ]);
    try {
      const [both, flag6, env5, flag5] = await Promise.all(servers.map((s) => embed(s.url)));
      expect(both).toEqual(flag6);
      expect(env5).toEqual(flag5);
      expect(env5).not.toEqual(flag6);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 60_000);

  it('names the variable, not a flag, when its value is wrong', async () => {
    const port = await runCli([], { MGM_PORT: 'abc' });
    expect(port.code).toBe(2);
    expect(port.output).toContain('MGM_PORT must be an integer');
    const strict = await runCli([], { MGM_STRICT: 'yes' });
    expect(strict.code).toBe(2);
    expect(strict.output).toContain('MGM_STRICT must be 1 or true (on) or 0 or false (off), got "yes"');
  });

  it('documents the variables in --help', async () => {
    const { output } = await runCli(['--help']);
    expect(output).toContain('MGM_PORT');
    expect(output).toContain('MGM_ADMIN_TOKEN');
    expect(output).toContain('A flag wins');
  });
});

describe('stop signals', () => {
  // The handler itself, with a close that never settles (requests still in flight) and fake timers:
  // what happens is shown by order and counted calls, not by the clock.
  const never = () => new Promise<void>(() => {});

  it('exits at once on a second signal, however the first is getting on', () => {
    const exits: number[] = [];
    const stop = stopOnSignal(never, (code) => void exits.push(code));
    stop();
    expect(exits).toEqual([]);
    stop();
    expect(exits).toEqual([0]);
  });

  it('exits after the grace period even if closing never ends, and not before', () => {
    vi.useFakeTimers();
    try {
      const exits: number[] = [];
      stopOnSignal(never, (code) => void exits.push(code))();
      vi.advanceTimersByTime(SHUTDOWN_GRACE_MS - 1);
      expect(exits).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(exits).toEqual([0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('exits as soon as closing ends, or fails', async () => {
    for (const close of [
      () => Promise.resolve(),
      () => Promise.reject(new Error('gone')),
      (): Promise<void> => {
        throw new Error('sync');
      },
    ]) {
      const exited = new Promise<number>((resolve) => stopOnSignal(close, resolve)());
      expect(await exited).toBe(0);
    }
  });
});

describe.runIf(socketSuites)('shutdown of the CLI', () => {
  // The process signals itself at a point of its start-up (test/helpers/signal-at.ts), so the signal
  // lands exactly there on any machine: once the server could be reached or announced, a SIGTERM must
  // find the handler (exit 0), never the default action (ended by the signal: exit code null, and under
  // docker, where the CLI is PID 1, a signal with no handler is dropped and the stop waits for SIGKILL).
  it.each(['load', 'listen', 'banner'])('exits 0 on a SIGTERM that arrives at the start-up point "%s"', async (at) => {
    const child = spawn(process.execPath, ['--import', SIGNAL_AT, CLI_BIN, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MGM_TEST_SIGNAL_AT: at },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    if (at === 'banner') expect(output).toContain('listening on');
  });

  it('`npm start` stopped by the PID of npm leaves nothing listening', async () => {
    // In a process group of its own, so that whatever it leaves behind is ended after the test.
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    onTestFinished(() => {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    });
    let output = '';
    npm.stdout.on('data', (d) => (output += d));
    npm.stderr.on('data', (d) => (output += d));
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      npm.stdout.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(output);
        if (m) resolve(m[1]);
      });
      npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
    });
    expect((await fetch(`${url}/__admin/health`)).status).toBe(200);
    npm.kill('SIGTERM');
    await exited;
    // npm waits for its script's process: once npm is gone, so is the server.
    await expect(fetch(`${url}/__admin/health`)).rejects.toThrow();
  });

  /** Waits for the child's exit, and records it in `order`. */
  const exitOf = (cli: Spawned, order: string[]) =>
    new Promise<number | null>((resolve) => cli.child.once('exit', (code) => (order.push('exit'), resolve(code))));

  it('exits on SIGTERM mid-stream, before the stream could end: the client sees it cut', async () => {
    const cli = await spawnCli();
    const order: string[] = [];
    // A time to first token no run reaches: the stream can only end by the server going away.
    const res = await fetch(`${cli.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'x-mock-latency': 'ttft=3600000' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a long answer please' }], stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reading = res.text().then(
      (text) => (order.push('stream ended'), text),
      (error: Error) => (order.push('stream cut'), error),
    );
    const exited = exitOf(cli, order);
    cli.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const result = await reading;
    // Ended without its last event, or cut: never a complete reply.
    expect(typeof result === 'string' ? result : '').not.toContain('[DONE]');
    // The server ends the stream, then exits: both happened, and the reply never completed.
    expect(order.sort()).toEqual(['exit', 'stream cut']);
  });

  it('exits on SIGTERM while a costly request is being served, before its reply is complete', async () => {
    const cli = await spawnCli();
    const order: string[] = [];
    // 1000 inputs to the largest embedding model: 3 million numbers to compute and write.
    const body = JSON.stringify({
      model: 'text-embedding-3-large',
      input: Array.from({ length: 1000 }, (_, i) => `input number ${i}: ${'words to embed '.repeat(20)}`),
    });
    const { port } = new URL(cli.url);
    let flushed!: () => void;
    const sent = new Promise<void>((resolve) => (flushed = resolve));
    const reply = new Promise<string>((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/embeddings',
          method: 'POST',
          headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let size = 0;
          res.on('data', (c: Buffer) => (size += c.length));
          res.once(
            'end',
            () => (
              order.push(res.complete ? 'reply complete' : 'reply cut'), resolve(`${res.complete ? 'complete' : 'cut'} after ${size} bytes`)
            ),
          );
          res.once('error', () => (order.push('reply cut'), resolve(`cut after ${size} bytes`)));
        },
      );
      req.once('error', (error) => (order.push('reply cut'), resolve(`cut: ${error.message}`)));
      req.end(body, () => flushed());
    });
    await sent;
    const exited = exitOf(cli, order);
    cli.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await reply).toMatch(/^cut/);
    expect(order.sort()).toEqual(['exit', 'reply cut']);
  });
});
