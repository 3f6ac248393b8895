// A fixture folder that follows edits: POST /__admin/fixtures/reload, startServer({ fixturesDir, watch })
// and the CLI's --watch. No test waits a fixed time: each polls the fixture list (or the CLI's output)
// until the edit shows, with a timeout that only detects a hang.
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import { startServer } from '../src/server.ts';
import { socketSuites } from './helpers/modes.ts';
import { spawnCli } from './helpers/cli.ts';

const HANG = { timeout: 60_000, interval: 20 };

const fixture = (name: string, text: string) => JSON.stringify({ name, match: { userMessage: 'hello?' }, reply: { text } });

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mgm-folder-'));
  writeFileSync(join(dir, 'greeting.json'), fixture('greeting', 'first version'));
  return dir;
}

/** Writes a file as editors do: a temporary file renamed over the old one. */
function save(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, `.${file}.tmp`), text);
  renameSync(join(dir, `.${file}.tmp`), join(dir, file));
}

const ask = async (root: string) =>
  (
    await new OpenAI({ apiKey: 'sk-test', baseURL: `${root}/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello?' }],
    })
  ).choices[0].message.content;

describe.runIf(socketSuites)('a fixture folder read again', () => {
  it('POST /__admin/fixtures/reload puts the edited files in force; a bad file is answered by its error and the previous fixtures stay', async () => {
    const dir = folder();
    const server = await startServer({
      port: 0,
      fixturesDir: dir,
      fixtures: [{ name: 'given', match: { userMessage: 'given?' }, reply: { text: 'kept' } }],
    });
    try {
      const reload = () => fetch(`${server.url}/__admin/fixtures/reload`, { method: 'POST' });
      expect(await ask(server.url)).toBe('first version');
      writeFileSync(join(dir, 'greeting.json'), fixture('greeting', 'second version'));
      writeFileSync(join(dir, 'more.yaml'), '- name: more\n  match: { userMessage: more? }\n  reply: { text: more }\n');
      // Not read until asked.
      expect(await ask(server.url)).toBe('first version');
      const ok = await reload();
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ reloaded: true, dir, files: 2, fixtures: 2 });
      expect(await ask(server.url)).toBe('second version');
      // The fixtures given besides the folder stay, ahead of the folder's.
      expect(server.gateway.fixtures.list().map((e) => e.fixture.name)).toEqual(['given', 'greeting', 'more']);

      writeFileSync(join(dir, 'greeting.json'), fixture('greeting', 'third version').replace('"text"', '"txt"'));
      writeFileSync(join(dir, 'broken.json'), '{ "reply": ');
      const bad = await reload();
      expect(bad.status).toBe(400);
      const { error } = await bad.json();
      expect(error).toMatch(/^POST \/__admin\/fixtures\/reload: .*2 bad fixture files:/);
      expect(error).toContain(
        `${join(dir, 'greeting.json')}: invalid fixture:\n  fixture 0 ("greeting"), at /reply: must NOT have additional properties (txt)`,
      );
      expect(error).toContain(`${join(dir, 'broken.json')}: not valid JSON`);
      expect(error).toContain('(the fixtures in force stay)');
      expect(await ask(server.url)).toBe('second version');
    } finally {
      await server.close();
    }
    // A server without a folder says so.
    const bare = await startServer({ port: 0 });
    try {
      const res = await fetch(`${bare.url}/__admin/fixtures/reload`, { method: 'POST' });
      expect(res.status).toBe(409);
      expect((await res.json()).error).toContain('no fixture folder');
    } finally {
      await bare.close();
    }
  });

  it('startServer({ fixturesDir, watch: true }) answers an edited file without a restart, and keeps the fixtures in force past a bad save', async () => {
    const dir = folder();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const server = await startServer({ port: 0, fixturesDir: dir, watch: true });
    try {
      const texts = () => server.gateway.fixtures.list().map((e) => e.fixture.reply?.text);
      expect(await ask(server.url)).toBe('first version');
      save(dir, 'greeting.json', fixture('greeting', 'edited'));
      await vi.waitFor(() => expect(texts()).toEqual(['edited']), HANG);
      expect(await ask(server.url)).toBe('edited');
      save(dir, 'greeting.json', '{ "reply": ');
      await vi.waitFor(
        () => expect(warn.mock.calls.flat().join('\n')).toContain('fixtures not reloaded (the previous ones stay in force)'),
        HANG,
      );
      expect(warn.mock.calls.flat().join('\n')).toContain(`${join(dir, 'greeting.json')}: not valid JSON`);
      expect(await ask(server.url)).toBe('edited');
    } finally {
      await server.close();
      warn.mockRestore();
    }
  });

  it('the CLI follows --fixtures with --watch, and says so in its banner', async () => {
    const dir = folder();
    const cli = await spawnCli(['--fixtures', dir, '--watch']);
    try {
      expect(cli.output()).toContain(`1 fixture and 0 scenarios loaded from ${dir}, watched for changes`);
      expect(await ask(cli.url)).toBe('first version');
      save(dir, 'greeting.json', fixture('greeting', 'from the edit'));
      await vi.waitFor(() => expect(cli.output()).toContain(`fixtures reloaded from ${dir}: 1 fixture in 1 file`), HANG);
      expect(await ask(cli.url)).toBe('from the edit');
    } finally {
      await cli.stop();
    }
  });

  it('refuses a watch with no folder to follow', async () => {
    await expect(startServer({ port: 0, watch: true })).rejects.toThrow('`watch` needs `fixturesDir`');
  });
});
