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
import { recordingName } from '../src/record/recorder.ts';
import { verifyFixture } from '../src/record/verify.ts';
import { operationRequest } from '../src/core/request.ts';
import { setupServer } from 'msw/node';
import { createGateway } from '../src/index.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { createServer, request } from 'node:http';
import { startServer } from '../src/server.ts';
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
  // Several inputs are one recording: the whole batch is its key (issue 25).
  const batch = await openai.embeddings.create({
    model: 'text-embedding-3-small',
    input: ['record one', 'record two'],
    encoding_format: 'float',
  });
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
  for await (const p of await gemini.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Stream me a recording' }))
    parts.push(p.text);
  const limited = await openai.chat.completions
    .create(
      { ...CHAT, messages: [{ role: 'user', content: 'too fast' }] }, // A replay must answer 429 from the recording alone, with no override asking for it.
      { headers: replaying ? {} : { 'x-mock-status': '429' } },
    )
    .catch((e: unknown) => e);
  const plainText = await raw(root, false);
  const streamText = await raw(root, true);
  return { chat, chunks, embedding, batch, events, parts, limited, plainText, streamText };
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
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => [join(d.parentPath, d.name).slice(dir.length), readFileSync(join(d.parentPath, d.name), 'utf8')]),
  );
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
    expect(() =>
      validateFixtures(
        json.map(([, text]) => JSON.parse(text)),
        dir,
      ),
    ).not.toThrow();
    for (const [, text] of Object.entries(files)) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('alice-private-user');
    }
    expect(Object.values(files).some((text) => text.includes('"user": "[redacted]"'))).toBe(true);
    // Named so a person finds them, ending in the fixture's own requestKey.
    for (const [name, text] of json)
      expect(name).toMatch(new RegExp(`^/${JSON.parse(text).match.format}-[a-z0-9.-]+-${JSON.parse(text).match.requestKey}\\.json$`));
    const names = json.map(([name]) => name.replace(/-[0-9a-f]+\.json$/, ''));
    expect(names).toContain('/openai-chat-completions-gpt-4o-mini-say-something-recorded');
    expect(names).toContain('/openai-embeddings-text-embedding-3-small-record-one');
    expect(names).toContain('/anthropic-messages-claude-sonnet-5-5-weather-in-paris');
    expect(names).toContain('/gemini-stream-generate-content-gemini-2.5-flash-stream-me-a-recording');
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
      expect(again.batch.data.map((d) => d.embedding)).toEqual(recorded.batch.data.map((d) => d.embedding));
      expect(again.batch).toEqual(direct.batch);
      expect(again.events).toEqual(direct.events);
      expect(again.events.some((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use')).toBe(true);
      expect(again.parts).toEqual(direct.parts);
      expect(again.limited).toBeInstanceOf(OpenAI.RateLimitError);
      // Strict: anything unrecorded fails with the near-miss report.
      const miss = await raw(replay.url, false).then(() =>
        fetch(`${replay.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...CHAT, messages: [{ role: 'user', content: 'never recorded' }] }),
        }),
      );
      expect(miss.status).toBe(404);
      expect(await miss.text()).toContain('requestKey');
    } finally {
      await replay.stop();
    }
  }, 30_000);

  it('still replays a recording written under the old name, <requestKey>.json', async () => {
    const [, text] = Object.entries(readDir(dir)).find(([name]) => name.startsWith('/openai-chat-completions-'))!;
    const fixture = JSON.parse(text);
    const old = mkdtempSync(join(tmpdir(), 'mgm-old-names-'));
    writeFileSync(
      join(old, `${fixture.match.requestKey}.json`),
      JSON.stringify({ ...fixture, name: `recorded openai /v1/chat/completions ${fixture.match.requestKey}` }),
    );
    const replay = await spawnCli(['--token', TOKEN, '--fixtures', old, '--strict']);
    try {
      const openai = new OpenAI({ apiKey: TOKEN, baseURL: `${replay.url}/v1`, maxRetries: 0 });
      expect(await openai.chat.completions.create(CHAT)).toEqual(direct.chat);
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
    const gateway = createGateway({
      origin: 'https://gateway.test',
      tokens: [TOKEN],
      record: { dir, upstreams: { default: upstream.url } },
    });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const res = await fetch(`https://gateway.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?${query}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-goog-api-key': TOKEN,
          'proxy-authorization': `Basic ${TOKEN}`,
          cookie: `mgm_admin=${TOKEN}`,
        },
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
      expect(params).toEqual([
        ['alt', 'sse'],
        ...['key', 'api_key', 'KEY', 'access_token', 'Api-Key', 'admin_token'].map((name) => [name, '[redacted]']),
      ]);
      // verify: the key goes in the format's header; no credential parameter reaches the service.
      const seen: string[] = [];
      const spy = createServer((req, res) => {
        seen.push(`${req.url} ${req.headers['x-goog-api-key']}`);
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {}\n\n');
      });
      await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
      try {
        await runCli([
          'verify',
          '--fixtures',
          dir,
          '--upstream',
          `http://127.0.0.1:${(spy.address() as AddressInfo).port}`,
          '--api-key',
          'live-key',
        ]);
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
      seen.push({
        authorization: h.authorization,
        'x-api-key': h['x-api-key'],
        'anthropic-version': h['anthropic-version'],
        'x-goog-api-key': h['x-goog-api-key'],
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    try {
      const upstream = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
      for (const format of ['openai', 'anthropic', 'gemini'] as const) {
        await verifyFixture(
          { name: format, match: { format }, recorded: { path: '/p', request: {} }, raw: { [format]: {} } },
          upstream,
          'live-key',
        );
      }
    } finally {
      spy.close();
    }
    const only = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    expect(seen.map(only)).toEqual([
      { authorization: 'Bearer live-key' },
      { 'x-api-key': 'live-key', 'anthropic-version': '2023-06-01' },
      { 'x-goog-api-key': 'live-key' },
    ]);
  });
});

describe('record in-process (msw) against a standalone upstream', () => {
  it('passes the answers through and writes one fixture per request, past msw', async () => {
    const upstream = await spawnCli(['--seed', '7', '--token', TOKEN]);
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-msw-'));
    const gateway = createGateway({
      origin: 'https://gateway.test',
      tokens: [TOKEN],
      record: { dir, upstreams: { default: upstream.url } },
    });
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

describe('verify against an upstream that refuses the key', () => {
  /** A spy upstream answering every request 401 the OpenAI way; the authorization headers it saw. */
  async function refusingUpstream() {
    const seen: (string | undefined)[] = [];
    const spy = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(spy.address() as AddressInfo).port}`, seen, close: () => spy.close() };
  }
  const recorded = (name: string) => ({
    name,
    match: { format: 'openai', endpoint: '/v1/chat/completions', model: 'gpt-4o-mini', requestKey: name },
    raw: { openai: { id: 'x', object: 'chat.completion' } },
    recorded: { method: 'POST', path: '/v1/chat/completions', status: 200, request: CHAT },
  });

  it('says the upstream refused the credentials, names the variable, exits 3 (not drift)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-refused-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify(recorded('first')));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(recorded('second')));
    const spy = await refusingUpstream();
    try {
      const none = await runCli(['verify', '--fixtures', dir, '--upstream', spy.url], { MGM_UPSTREAM_API_KEY: undefined });
      expect(none.code).toBe(3);
      expect(none.output).toContain('the upstream refused the credentials (401)');
      expect(none.output).toContain('MGM_UPSTREAM_API_KEY');
      expect(none.output).toContain('no key');
      expect(none.output).toContain('Incorrect API key provided.');
      expect(none.output).not.toContain('drifted');
      // Stopped at the first refusal: the second fixture was never sent.
      expect(spy.seen).toEqual([undefined]);
      const wrong = await runCli(['verify', '--fixtures', dir, '--upstream', spy.url], { MGM_UPSTREAM_API_KEY: 'sk-wrong' });
      expect(wrong.code).toBe(3);
      expect(wrong.output).toContain('the key in MGM_UPSTREAM_API_KEY');
      expect(spy.seen.at(-1)).toBe('Bearer sk-wrong');
    } finally {
      spy.close();
    }
  }, 30_000);

  it('a recorded 401 answered 401 again is no refusal: it still holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-refused-'));
    const { raw: _raw, ...rest } = recorded('recorded 401');
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ ...rest, error: { status: 401, message: 'Incorrect API key provided.' } }));
    const spy = await refusingUpstream();
    try {
      const run = await runCli(['verify', '--fixtures', dir, '--upstream', spy.url], { MGM_UPSTREAM_API_KEY: undefined });
      expect(run.output).toContain('1 recorded fixture(s) checked, 0 drifted');
      expect(run.code).toBe(0);
    } finally {
      spy.close();
    }
  }, 30_000);
});

describe('recording names', () => {
  const chat = (text: string, model = 'gpt-4o-mini') => operationRequest('openai', 'embedding', model, text);

  it('say format, endpoint, model and the first words of the prompt, then the request key', () => {
    expect(recordingName(chat('What is the weather in Paris?'), '/v1/chat/completions', '3f9a1c')).toBe(
      'openai-chat-completions-gpt-4o-mini-what-is-the-weather-in-paris-3f9a1c.json',
    );
    expect(
      recordingName(
        operationRequest('gemini', 'embedding', 'gemini-2.5-flash', 'Hi'),
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
        'ab12',
      ),
    ).toBe('gemini-stream-generate-content-gemini-2.5-flash-hi-ab12.json');
  });

  it('keep the slug to whole lowercase ASCII words within 40 characters, whatever the prompt', () => {
    const long = recordingName(
      chat('Résumé: ÉCRIS un poème sur les crêpes, la mer et le vent du nord, s’il te plaît '.repeat(10_000)),
      '/v1/chat/completions',
      'k',
    );
    const words = long.slice('openai-chat-completions-gpt-4o-mini-'.length, -'-k.json'.length);
    expect(words).toBe('resume-ecris-un-poeme-sur-les-crepes-la');
    expect(words.length).toBeLessThanOrEqual(40);
    // No words to show (another script, punctuation, a path): the name still holds, and never a slash.
    expect(recordingName(chat('你好'), '/v1/embeddings', 'k')).toBe('openai-embeddings-gpt-4o-mini-k.json');
    expect(recordingName(chat('../../etc/passwd', '../x'), '/v1/embeddings', 'k')).toBe('openai-embeddings-x-etc-passwd-k.json');
  });
});

describe('the record proxy forwards only to its upstream', () => {
  /** A stand-in server on its own port that counts the requests it gets and answers a Gemini reply. */
  async function counting() {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ candidates: [], usageMetadata: {} }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { paths, port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) };
  }

  /** A request with its path sent exactly as written (fetch and URL would normalise it first). */
  function rawPost(port: number, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', 'x-goog-api-key': TOKEN } },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ contents: [{ parts: [{ text: 'Where do I go?' }] }] }));
    });
  }

  it('refuses a path that would name another host (dot segments, //, encodings) before any request is made', async () => {
    const upstream = await counting();
    const foreign = await counting();
    const dir = mkdtempSync(join(tmpdir(), 'mgm-record-proxy-'));
    const server = await startServer({
      port: 0,
      tokens: [TOKEN],
      record: { dir, upstreams: { default: `http://127.0.0.1:${upstream.port}` } },
    });
    const away = `127.0.0.1:${foreign.port}`;
    const call = 'v1beta/models/gemini-2.5-flash:generateContent';
    try {
      for (const path of [
        `/.//${away}/${call}`,
        `/x/..//${away}/${call}`,
        `/%2e//${away}/${call}`,
        `/%2E%2E//${away}/${call}`,
        `/%2f%2f${away}/${call}`,
        `/%5c${away}/${call}`,
        `/v1beta/.%2e/.%2e//${away}/${call}`,
      ]) {
        const { status, body } = await rawPost(server.port, path);
        // The route table matches paths from the root, so most of these name no endpoint (Gemini's 404);
        // one that does is refused by record mode, saying what to send instead. Neither is forwarded.
        const error = JSON.parse(body).error;
        if (status === 404) expect({ path, error }).toMatchObject({ path, error: { code: 404, status: 'NOT_FOUND' } });
        else {
          expect({ path, status }).toEqual({ path, status: 400 });
          expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
          expect(error.message).toContain('Record mode forwards only plain paths');
        }
      }
      // A path the table routes, with a traversal hidden in its model parameter: refused (an unknown model), not forwarded.
      expect((await rawPost(server.port, `/v1beta/models/..%2f..%2f${away}%2fx:generateContent`)).status).toBe(404);
      expect(foreign.paths).toEqual([]);
      expect(upstream.paths).toEqual([]);
      // A request target that starts with `//` is a path from the root (as fetch and msw read it), which no endpoint serves.
      expect((await rawPost(server.port, `//${away}/${call}`)).status).toBe(404);
      expect(upstream.paths).toEqual([]);
      // A plain path still goes to the upstream, and its recording names no other host.
      expect((await rawPost(server.port, `/${call}`)).status).toBe(200);
      expect(upstream.paths).toEqual([`/${call}`]);
      await new Promise((r) => setTimeout(r, 50));
      const names = readdirSync(dir).filter((f) => f.endsWith('.json'));
      expect(names).toEqual([expect.stringMatching(/^gemini-generate-content-gemini-2\.5-flash-where-do-i-go-[0-9a-f]+\.json$/)]);
      expect(foreign.paths).toEqual([]);
    } finally {
      await server.close();
      await upstream.close();
      await foreign.close();
    }
  });
});
