// Record and replay over real sockets: a second emulator (another seed) stands in for the real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { runCli, spawnCli, type Spawned } from './helpers/cli.ts';
import { validateFixtures } from '../src/fixtures/validate.ts';
import { verifyFixture } from '../src/record/verify.ts';
import { setupServer } from 'msw/node';
import { createGateway } from '../src/index.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const TOKEN = 'sk-record-secret-4242';
const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say something recorded' }] };
const WEATHER = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Everything a client sees of the traffic under test, through `root`. */
async function traffic(root: string, replaying = false) {
  const openai = new OpenAI({ apiKey: TOKEN, baseURL: `${root}/v1`, maxRetries: 0 });
  const chat = await openai.chat.completions.create(CHAT);
  const chunks = [];
  for await (const c of await openai.chat.completions.create({ ...CHAT, stream: true })) chunks.push(c);
  const embedding = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'record me', user: 'alice-private-user' });
  const anthropic = new Anthropic({ apiKey: TOKEN, baseURL: root, maxRetries: 0 });
  const events = [];
  const stream = anthropic.messages.stream({
    model: 'claude-sonnet-5-5',
    max_tokens: 200,
    tools: [WEATHER],
    tool_choice: { type: 'tool', name: 'get_weather' },
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  for await (const e of stream) events.push(e);
  const gemini = new GoogleGenAI({ apiKey: TOKEN, httpOptions: { baseUrl: root, apiVersion: 'v1beta' } });
  const parts = [];
  for await (const p of await gemini.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Stream me a recording' })) parts.push(p.text);
  const limited = await openai.chat.completions
    .create({ ...CHAT, messages: [{ role: 'user', content: 'too fast' }] }, // A replay must answer 429 from the recording alone, with no override asking for it.
      { headers: replaying ? {} : { 'x-mock-status': '429' } })
    .catch((e: unknown) => e);
  const plainText = await raw(root, false);
  const streamText = await raw(root, true);
  return { chat, chunks, embedding, events, parts, limited, plainText, streamText };
}

/** The chat body as bytes, plain or streamed. */
async function raw(root: string, stream: boolean): Promise<string> {
  const res = await fetch(`${root}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...CHAT, stream }),
  });
  return res.text();
}

function readDir(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => [join(d.parentPath, d.name).slice(dir.length), readFileSync(join(d.parentPath, d.name), 'utf8')]));
}

describe.runIf(socketSuites)('record and replay (socket)', () => {
  let upstream: Spawned;
  const dir = mkdtempSync(join(tmpdir(), 'mgm-record-'));
  let recorded: Awaited<ReturnType<typeof traffic>>;
  let direct: Awaited<ReturnType<typeof traffic>>;

  beforeAll(async () => {
    upstream = await spawnCli(['--seed', '7', '--token', TOKEN]);
    const recorder = await spawnCli(['--token', TOKEN, '--record', dir, '--upstream', upstream.url, '--redact-path', 'user']);
    try {
      recorded = await traffic(recorder.url);
    } finally {
      await recorder.stop();
    }
    direct = await traffic(upstream.url);
  }, 60_000);
  afterAll(() => upstream?.stop());

  it('passes the upstream answers through while recording', () => {
    expect(recorded.plainText).toBe(direct.plainText);
    expect(recorded.streamText).toBe(direct.streamText);
    expect(recorded.chat).toEqual(direct.chat);
    expect(recorded.events).toEqual(direct.events);
  });

  it('writes valid, redacted fixtures', () => {
    const files = readDir(dir);
    const json = Object.entries(files).filter(([name]) => name.endsWith('.json'));
    expect(json.length).toBeGreaterThanOrEqual(6);
    expect(() => validateFixtures(json.map(([, text]) => JSON.parse(text)), dir)).not.toThrow();
    for (const [, text] of Object.entries(files)) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('alice-private-user');
    }
    expect(Object.values(files).some((text) => text.includes('"user": "[redacted]"'))).toBe(true);
  });

  it('replays with no upstream: byte-identical bodies, the same stream events, the recorded 429', async () => {
    const replay = await spawnCli(['--token', TOKEN, '--fixtures', dir, '--strict']);
    try {
      const again = await traffic(replay.url, true);
      expect(again.plainText).toBe(direct.plainText);
      expect(again.streamText).toBe(direct.streamText);
      expect(again.chat).toEqual(direct.chat);
      expect(again.chunks).toEqual(direct.chunks);
      expect(again.embedding).toEqual(direct.embedding);
      expect(again.events).toEqual(direct.events);
      expect(again.events.some((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use')).toBe(true);
      expect(again.parts).toEqual(direct.parts);
      expect(again.limited).toBeInstanceOf(OpenAI.RateLimitError);
      // Strict: anything unrecorded fails with the near-miss report.
      const miss = await raw(replay.url, false).then(() => fetch(`${replay.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...CHAT, messages: [{ role: 'user', content: 'never recorded' }] }),
      }));
      expect(miss.status).toBe(404);
      expect(await miss.text()).toContain('requestKey');
    } finally {
      await replay.stop();
    }
  }, 30_000);

  it('records the same traffic as the same files', async () => {
    const second = mkdtempSync(join(tmpdir(), 'mgm-record-'));
    const recorder = await spawnCli(['--token', TOKEN, '--record', second, '--upstream', upstream.url, '--redact-path', 'user']);
    try {
      await traffic(recorder.url);
    } finally {
      await recorder.stop();
    }
    expect(readDir(second)).toEqual(readDir(dir));
  }, 30_000);

  it('verify passes against the same upstream and reports drift against a changed one', async () => {
    const clean = await runCli(['verify', '--fixtures', dir, '--upstream', upstream.url, '--api-key', TOKEN]);
    expect(clean.output).toContain('0 drifted');
    expect(clean.code).toBe(0);
    // An upstream whose plain chat answer lost a field and gained one.
    const [name, text] = Object.entries(readDir(dir)).find(([, t]) => t.includes('"chat.completion"'))!;
    const fixture = JSON.parse(text);
    delete fixture.raw.openai.system_fingerprint;
    fixture.raw.openai.brand_new = { nested: 1 };
    delete fixture.recorded;
    const changedDir = mkdtempSync(join(tmpdir(), 'mgm-drift-'));
    writeFileSync(join(changedDir, 'changed.json'), JSON.stringify(fixture));
    const changed = await spawnCli(['--seed', '7', '--token', TOKEN, '--fixtures', changedDir]);
    try {
      const drift = await runCli(['verify', '--fixtures', dir, '--upstream', changed.url, '--api-key', TOKEN]);
      expect(drift.code).toBe(1);
      expect(drift.output).toContain(`${name.slice(1)}`.replace('.json', ''));
      expect(drift.output).toContain('removed $.system_fingerprint (string)');
      expect(drift.output).toContain('added $.brand_new (object)');
      expect(drift.output).toContain('1 drifted');
    } finally {
      await changed.stop();
    }
    expect((await runCli(['verify', '--fixtures', dir])).code).toBe(2);
  }, 30_000);
});

describe.runIf(socketSuites)('record mode flags', () => {
  it('stop the CLI with exit code 2 and a message when incomplete', async () => {
    const noUpstream = await runCli(['--record', mkdtempSync(join(tmpdir(), 'mgm-record-'))]);
    expect(noUpstream.code).toBe(2);
    expect(noUpstream.output).toContain('--record needs --upstream');
    const noRecord = await runCli(['--upstream', 'http://127.0.0.1:1']);
    expect(noRecord.code).toBe(2);
    expect(noRecord.output).toContain('--upstream options need --record');
  });
});

describe('record mode never writes a credential', () => {
  // Every way a key travels, in any case: the one list of credential names (src/auth/keys.ts).
  const query = `alt=sse&key=${TOKEN}&api_key=${TOKEN}&KEY=${TOKEN}&access_token=${TOKEN}&Api-Key=${TOKEN}&admin_token=${TOKEN}`;

  it('redacts every credential parameter in the recording, and verify sends none of them on', async () => {
    const upstream = await spawnCli(['--seed', '7', '--token', TOKEN]);
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-keys-'));
    const gateway = createGateway({ origin: 'https://gateway.test', tokens: [TOKEN], record: { dir, upstreams: { default: upstream.url } } });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const res = await fetch(`https://gateway.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': TOKEN, 'proxy-authorization': `Basic ${TOKEN}`, cookie: `mgm_admin=${TOKEN}` },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'Record my keys' }] }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
    } finally {
      server.close();
    }
    try {
      const files = Object.values(readDir(dir));
      expect(files).toHaveLength(1);
      expect(files[0]).not.toContain(TOKEN);
      const recorded = JSON.parse(files[0]).recorded;
      const params = [...new URLSearchParams(recorded.query)];
      expect(params).toEqual([['alt', 'sse'], ...['key', 'api_key', 'KEY', 'access_token', 'Api-Key', 'admin_token'].map((name) => [name, '[redacted]'])]);
      // verify: the key goes in the format's header; no credential parameter reaches the service.
      const seen: string[] = [];
      const spy = createServer((req, res) => {
        seen.push(`${req.url} ${req.headers['x-goog-api-key']}`);
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {}\n\n');
      });
      await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
      try {
        await runCli(['verify', '--fixtures', dir, '--upstream', `http://127.0.0.1:${(spy.address() as AddressInfo).port}`, '--api-key', 'live-key']);
      } finally {
        spy.close();
      }
      expect(seen).toEqual(['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse live-key']);
    } finally {
      await upstream.stop();
    }
  }, 30_000);
});

describe('verify', () => {
  it("sends the key in each format's own header (the format objects' credentialHeaders)", async () => {
    const seen: Record<string, unknown>[] = [];
    const spy = createServer((req, res) => {
      const h = req.headers;
      seen.push({ authorization: h.authorization, 'x-api-key': h['x-api-key'], 'anthropic-version': h['anthropic-version'], 'x-goog-api-key': h['x-goog-api-key'] });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    try {
      const upstream = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
      for (const format of ['openai', 'anthropic', 'gemini'] as const) {
        await verifyFixture({ name: format, match: { format }, recorded: { path: '/p', request: {} }, raw: { [format]: {} } }, upstream, 'live-key');
      }
    } finally {
      spy.close();
    }
    const only = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    expect(seen.map(only)).toEqual([{ authorization: 'Bearer live-key' }, { 'x-api-key': 'live-key', 'anthropic-version': '2023-06-01' }, { 'x-goog-api-key': 'live-key' }]);
  });
});

describe('record in-process (msw) against a standalone upstream', () => {
  it('passes the answers through and writes one fixture per request, past msw', async () => {
    const upstream = await spawnCli(['--seed', '7', '--token', TOKEN]);
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-msw-'));
    const gateway = createGateway({ origin: 'https://gateway.test', tokens: [TOKEN], record: { dir, upstreams: { default: upstream.url } } });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    let listening = true;
    try {
      const openai = new OpenAI({ apiKey: TOKEN, baseURL: 'https://gateway.test/v1', maxRetries: 0 });
      const chat = await openai.chat.completions.create(CHAT);
      const chunks = [];
      for await (const c of await openai.chat.completions.create({ ...CHAT, stream: true })) chunks.push(c);
      server.close();
      listening = false;
      const direct = new OpenAI({ apiKey: TOKEN, baseURL: `${upstream.url}/v1`, maxRetries: 0 });
      expect(chat).toEqual(await direct.chat.completions.create(CHAT));
      const directChunks = [];
      for await (const c of await direct.chat.completions.create({ ...CHAT, stream: true })) directChunks.push(c);
      expect(chunks).toEqual(directChunks);
      const files = readDir(dir);
      expect(Object.keys(files)).toHaveLength(2);
      expect(Object.values(files).join('\n')).not.toContain(TOKEN);
    } finally {
      if (listening) server.close();
      await upstream.stop();
    }
  }, 30_000);
});
