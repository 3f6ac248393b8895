// The CLI: flags, tokens, fixtures seam, health, and the errors it stops with.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { runCli, spawnCli } from './helpers/cli.ts';
import { heapLimits } from '../src/transport/heap-size.ts';

describe('model-gateway-mock CLI', () => {
  it('prints help listing every flag', async () => {
    const { code, output } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--seed', '--token', '--fixtures', '--latency', '--clock', '--max-body']) expect(output).toContain(flag);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port must be an integer/],
    [['--latency', 'ttft=fast'], /--latency: invalid latency "ttft=fast"/],
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

  it('issues exactly the --token set, replacing sk-test', async () => {
    const cli = await spawnCli(['--token', 'sk-alpha', '--token', 'sk-beta']);
    try {
      expect(cli.output()).toContain('token: sk-alpha, sk-beta');
      const ask = (apiKey: string) =>
        new OpenAI({ apiKey, baseURL: `${cli.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      await expect(ask('sk-alpha')).resolves.toBeTruthy();
      await expect(ask('sk-beta')).resolves.toBeTruthy();
      await expect(ask('sk-test')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    } finally {
      await cli.stop();
    }
  });

  it('answers from fixture files in --fixtures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    writeFileSync(join(dir, 'hello.json'), JSON.stringify({ match: { userMessage: { regex: '^hello' } }, reply: { text: 'Hello from a fixture.' } }));
    const cli = await spawnCli(['--fixtures', dir]);
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] }).withResponse();
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
  it('applies both unless the user sized the heap with node flags, in either spelling', () => {
    expect(heapLimits('')).toEqual({ youngCap: true, oldGrowth: true });
    expect(heapLimits('--max-semi-space-size=64')).toEqual({ youngCap: false, oldGrowth: true });
    expect(heapLimits('--enable-source-maps --max_semi_space_size=64')).toEqual({ youngCap: false, oldGrowth: true });
    // A smaller old-space limit makes V8 grow by less than 100% on its own.
    expect(heapLimits('--max-old-space-size=512')).toEqual({ youngCap: true, oldGrowth: false });
    expect(heapLimits('--heap_growing_percent=30')).toEqual({ youngCap: true, oldGrowth: false });
    expect(heapLimits('--max-heap-size=300')).toEqual({ youngCap: false, oldGrowth: false });
    // Frozen flags: setting one would abort the process.
    expect(heapLimits('--freeze-flags-after-init')).toEqual({ youngCap: false, oldGrowth: false });
  });
});
