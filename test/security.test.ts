// The control plane is the owner's: loopback only (or the admin token), no cross-site state changes,
// no DNS rebinding, credentials masked in the journal. (Shutdown: test/cli.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import Anthropic from '@anthropic-ai/sdk';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './helpers/chromium.ts';
import { guardControlPlane } from '../src/control/guard.ts';
import { startServer } from '../src/server.ts';
import { setupServer } from 'msw/node';
import { createGateway, type JournalEntry } from '../src/index.ts';
import { strictListen } from './helpers/modes.ts';
import WebSocket from 'ws';

// Every name a credential travels under (the one list in src/auth/keys.ts), in odd cases too.
const CREDENTIAL_QUERY = (secret: string) =>
  `${['key', 'api_key', 'KEY', 'access_token', 'Api-Key', 'admin_token'].map((name) => `${name}=${secret}`).join('&')}&alt=json`;
const CREDENTIAL_HEADERS = (secret: string): Record<string, string> => ({
  'x-goog-api-key': secret,
  'X-Api-Key': secret,
  'api-key': secret,
  'x-admin-token': secret,
  'proxy-authorization': `Basic ${secret}`,
  cookie: `mgm_admin=${secret}`,
});

/** The journal text holds no trace of `secret`, and each credential shows as its masked form. */
function expectMasked(journal: string, entry: JournalEntry, secret: string): void {
  expect(journal).not.toContain(secret);
  expect(journal).not.toContain(secret.slice(-10));
  // A fixed 3-character prefix, the length and a short hash: the same for the same secret, wherever it went.
  const masked = entry.headers['x-goog-api-key'];
  expect(masked).toMatch(new RegExp(`^${secret.slice(0, 3)}\\*\\*\\*-${secret.length}chars-[0-9a-f]{4}$`));
  expect([...new URLSearchParams(entry.query)]).toEqual([
    ...['key', 'api_key', 'KEY', 'access_token', 'Api-Key', 'admin_token'].map((name) => [name, masked]),
    ['alt', 'json'],
  ]);
  expect(entry.query).toContain(`key=${masked}&`);
  for (const name of ['x-goog-api-key', 'x-api-key', 'api-key', 'x-admin-token']) expect(entry.headers[name], name).toBe(masked);
  // Basic credentials open with the user name: none of it shows.
  expect(entry.headers['proxy-authorization']).toBe(`Basic ${masked.slice(3)}`);
}

describe('masks that reveal nothing useful', () => {
  it('show at most a fixed 3-character prefix of a long key, then its length and a short hash; a short secret not a character of it', async () => {
    const secrets = ['s3cr3t-9c', 'ten-x0!q9z', 'twelve-q7k2Z', 'sk-Zq8Xw3Vn7Lk2Jh5Gf9Dd4Ss1Aa6Pp0Oo'];
    const gateway = createGateway({ tokens: secrets });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      for (const secret of secrets) {
        const res = await fetch('https://api.openai.com/v1/models', {
          headers: { authorization: `Bearer ${secret}`, 'proxy-authorization': `Basic ${btoa(`alice:${secret}`)}` },
        });
        expect(res.status).toBe(200);
      }
      // A refused key in the 401 message, masked the same way.
      const refused = await fetch('https://api.openai.com/v1/models', { headers: { authorization: 'Bearer wrong-key9' } });
      expect((await refused.json()).error.message).toMatch(/^Incorrect API key provided: \*\*\*-10chars-[0-9a-f]{4}\. /);
      const entries = gateway.requests().slice(0, secrets.length);
      const journal = JSON.stringify(gateway.requests());
      entries.forEach((entry, i) => {
        const secret = secrets[i];
        const masked = entry.headers.authorization.slice('Bearer '.length);
        // The shortest secrets (9 to 12 characters) show nothing; a long one its kind only.
        expect(masked).toMatch(new RegExp(`^${secret.length >= 20 ? 'sk-' : ''}\\*\\*\\*-${secret.length}chars-[0-9a-f]{4}$`));
        for (let at = 0; at + 4 <= secret.length; at++)
          if (at > 0 || secret.length < 20) expect(journal).not.toContain(secret.slice(at, at + 4));
        // Basic auth: neither the user name nor its base64 shows.
        expect(entry.headers['proxy-authorization']).toMatch(/^Basic \*\*\*-\d+chars-[0-9a-f]{4}$/);
      });
      expect(journal).not.toContain('alice');
      expect(journal).not.toContain(btoa('alice').slice(0, 4));
      // Two keys are told apart by their hashes.
      expect(new Set(entries.map((e) => e.headers.authorization)).size).toBe(secrets.length);
    } finally {
      server.close();
    }
  });
});

describe('the journal masks every credential name (in-process)', () => {
  it('in gateway.requests(), headers and query alike', async () => {
    const secret = 'AIza-inprocess-secret-9876543210';
    const gateway = createGateway({ tokens: [secret] });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const res = await fetch(
        `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?${CREDENTIAL_QUERY(secret)}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...CREDENTIAL_HEADERS(secret) },
          body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
        },
      );
      expect(res.status).toBe(200);
      const entries = gateway.requests();
      expect(entries).toHaveLength(1);
      expectMasked(JSON.stringify(entries), entries[0], secret);
    } finally {
      server.close();
    }
  });
});

/** A raw request, so the Host header can be anything (fetch does not let a caller set it). */
function raw(
  url: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const fakeRequest = (remoteAddress: string, headers: Record<string, string> = {}, method = 'GET') =>
  ({ method, headers: { host: '127.0.0.1:4010', ...headers }, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe.runIf(socketSuites)('scopes that hold on every route: ephemeral keys', () => {
  /** The HTTP answer to a WebSocket handshake, or 101 once it opens (then closed at once). */
  const handshake = (url: string, protocols: string[]) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const socket = new WebSocket(url, protocols);
      socket.on('open', () => {
        socket.close();
        resolve({ status: 101, body: '' });
      });
      socket.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      socket.on('error', () => {});
    });

  it("mints a key only for the minting token's models, with the same 403 as using them, and the key inherits that token's scope and quota", async () => {
    const server = await startServer({ port: 0 });
    const ws = (model: string) => `${server.url.replace('http', 'ws')}/v1/realtime?model=${model}`;
    try {
      const scoped = server.gateway.tokens.issue({ models: ['gpt-4o-mini', 'gpt-realtime-mini'], quota: 5 });
      const mint = (model: string) =>
        fetch(`${server.url}/v1/realtime/client_secrets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scoped.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ session: { type: 'realtime', model } }),
        });
      // Minting for a model outside the scope is the 403 that using it directly is.
      const refused = await mint('gpt-realtime');
      const direct = await handshake(ws('gpt-realtime'), ['realtime', `openai-insecure-api-key.${scoped.token}`]);
      expect(refused.status).toBe(403);
      expect(direct.status).toBe(403);
      expect((await refused.json()).error).toEqual(JSON.parse(direct.body).error);
      // A key minted within the scope keeps to it: another model in the URL is refused.
      const minted = await mint('gpt-realtime-mini');
      expect(minted.status).toBe(200);
      const key = (await minted.json()).value as string;
      expect(key).toMatch(/^ek_/);
      const other = await handshake(ws('gpt-realtime'), ['realtime', `openai-insecure-api-key.${key}`]);
      expect(other.status).toBe(403);
      expect(JSON.parse(other.body).error.message).toContain('may not use model `gpt-realtime`');
      // The minting token's quota counts what the key does; the refusals for scope spent none of it: the
      // mint was the first use, these four sessions the rest, the next one past it.
      for (let i = 0; i < 4; i++)
        expect((await handshake(ws('gpt-realtime-mini'), ['realtime', `openai-insecure-api-key.${key}`])).status).toBe(101);
      const spent = await handshake(ws('gpt-realtime-mini'), ['realtime', `openai-insecure-api-key.${key}`]);
      expect(spent.status).toBe(429);
      expect(JSON.parse(spent.body).error.code).toBe('insufficient_quota');
      // Revoking the minting token ends its keys.
      server.gateway.tokens.revoke(scoped.token);
      expect((await handshake(ws('gpt-realtime-mini'), ['realtime', `openai-insecure-api-key.${key}`])).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('control-plane guard', () => {
  const url = new URL('http://127.0.0.1:4010/__admin/requests');

  it('refuses a client on another machine without the admin token, and says how to get in', () => {
    const verdict = guardControlPlane(fakeRequest('10.1.2.3'), url, '0.0.0.0', 'secret-admin');
    expect(verdict).toMatchObject({ ok: false, status: 403 });
    expect(verdict.message).toMatch(/x-admin-token/);
    expect(guardControlPlane(fakeRequest('::ffff:192.168.1.9'), url, '0.0.0.0', undefined)).toMatchObject({ ok: false, status: 403 });
  });

  it('lets it in with the token in a header or on a page URL, and never by a wrong token', () => {
    expect(guardControlPlane(fakeRequest('10.1.2.3', { 'x-admin-token': 'secret-admin' }), url, '0.0.0.0', 'secret-admin').ok).toBe(true);
    expect(guardControlPlane(fakeRequest('10.1.2.3', { authorization: 'Bearer secret-admin' }), url, '0.0.0.0', 'secret-admin').ok).toBe(
      true,
    );
    expect(
      guardControlPlane(fakeRequest('10.1.2.3'), new URL('http://h/console/playground?admin_token=secret-admin'), '0.0.0.0', 'secret-admin')
        .ok,
    ).toBe(true);
    expect(guardControlPlane(fakeRequest('10.1.2.3', { 'x-admin-token': 'secret-admiN' }), url, '0.0.0.0', 'secret-admin').ok).toBe(false);
  });

  it('lets loopback clients in without a token', () => {
    expect(guardControlPlane(fakeRequest('127.0.0.1'), url, '127.0.0.1', undefined).ok).toBe(true);
    expect(guardControlPlane(fakeRequest('::1', { host: '[::1]:4010' }), url, '::1', undefined).ok).toBe(true);
    expect(guardControlPlane(fakeRequest('::ffff:127.0.0.1', { host: 'localhost:4010' }), url, '127.0.0.1', undefined).ok).toBe(true);
  });

  // Host names that only look like loopback addresses: each resolves wherever its owner wants.
  const rebinding = [
    '127.0.0.1.nip.io',
    '127.0.0.1.evil.com',
    '127.evil.com',
    '127.0.0.1.',
    'localhost.evil.com',
    '0x7f.0.0.1',
    '::ffff:127.0.0.1.evil.com',
  ];
  const thisMachine = [
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '[::1]',
    '[::ffff:127.0.0.1]',
    'foo.localhost',
  ];

  it('takes only literal loopback addresses and localhost names in the Host header for this machine', () => {
    for (const name of rebinding) {
      const verdict = guardControlPlane(fakeRequest('127.0.0.1', { host: `${name}:4010` }), url, '127.0.0.1', undefined);
      expect(verdict, name).toMatchObject({ ok: false, status: 403 });
      expect(verdict.message, name).toMatch(/DNS rebinding/);
      // The admin token still lets such a name in.
      expect(
        guardControlPlane(fakeRequest('127.0.0.1', { host: `${name}:4010`, 'x-admin-token': 't' }), url, '127.0.0.1', 't').ok,
        name,
      ).toBe(true);
    }
    for (const name of thisMachine) {
      expect(guardControlPlane(fakeRequest('127.0.0.1', { host: `${name}:4010` }), url, '127.0.0.1', undefined).ok, name).toBe(true);
      expect(guardControlPlane(fakeRequest('127.0.0.1', { host: name }), url, '127.0.0.1', undefined).ok, name).toBe(true);
    }
  });

  it('takes a client address for loopback only when it is one: 127.0.0.0/8, ::1, ::ffff:127.x.y.z', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(guardControlPlane(fakeRequest(address), url, '127.0.0.1', undefined).ok, address).toBe(true);
    }
    for (const address of ['128.0.0.1', '10.127.0.1', '::2', '::ffff:10.0.0.1', '127.0.0.1.evil.com']) {
      expect(guardControlPlane(fakeRequest(address), url, '127.0.0.1', undefined), address).toMatchObject({ ok: false, status: 403 });
    }
  });
});

describe.runIf(socketSuites)('control plane over a real socket', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  const journalLength = async () =>
    ((await (await fetch(`${cli.url}/__admin/requests`)).json()) as { requests: unknown[] }).requests.length;

  it('answers every failure of the control plane and the pages in JSON or plain text, with no stack or file path', async () => {
    const port = new URL(cli.url).port;
    const cases: [string, string, Record<string, string>, number][] = [
      // A cookie that is no percent-encoding was a 500 HTML page with the stack.
      ['GET', '/__admin/requests', { cookie: 'mgm_admin=%' }, 200],
      ['GET', '/console/playground', { cookie: 'mgm_admin=%25%' }, 200],
      ['GET', '/__admin/requests', { cookie: 'mgm_admin=%', host: `rebind.evil.example:${port}` }, 403],
      ['GET', '/console/assets/%E0%A4%A', {}, 400],
      ['DELETE', '/__admin/fixtures/%E0%A4%A', {}, 400],
      ['POST', '/__admin/fixtures', { 'content-type': 'application/json' }, 400],
    ];
    for (const [method, path, headers, status] of cases) {
      const answer = await raw(cli.url, path, headers, method, method === 'POST' ? '{"not json' : undefined);
      expect({ path, status: answer.status }).toEqual({ path, status });
      if (status === 200) continue;
      expect(answer.body).not.toMatch(/<html|<pre|\bat \S+ \(|node_modules|\/src\/|\.ts:\d/i);
      if (path.startsWith('/__admin')) expect(JSON.parse(answer.body).error).toBeTypeOf('string');
      else expect(answer.body).toMatch(/^Failed to decode param/);
    }
  });

  it('refuses state changes a browser marks as cross-origin, whatever the body type, and keeps its state', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'keep me' }] });
    const before = await journalLength();
    expect(before).toBeGreaterThan(0);
    const host = new URL(cli.url).host;
    const marks: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
      // Sec-Fetch-Site decides when it is sent, even beside a matching Origin.
      { 'sec-fetch-site': 'cross-site', origin: `http://${host}` },
      // Older browsers send only Origin.
      { origin: 'https://evil.example' },
      { origin: `http://127.0.0.1:1` },
      { origin: 'null' },
    ];
    for (const mark of marks) {
      for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/json', undefined]) {
        const res = await raw(cli.url, '/__admin/reset', { host, ...mark, ...(type ? { 'content-type': type } : {}) }, 'POST', 'a=1');
        expect(res.status, JSON.stringify(mark)).toBe(403);
        expect(JSON.parse(res.body).error).toMatch(/another origin/);
      }
      // Every spelling of the path express would route to the control plane (it matched /__ADMIN case-blind).
      for (const path of ['/__admin/tokens', '/__ADMIN/tokens', '/__Admin/tokens', '//__admin/tokens']) {
        const token = await raw(cli.url, path, { host, ...mark, 'content-type': 'application/json' }, 'POST', '{"token":"sk-stolen"}');
        expect(token.status, path).not.toBeLessThan(400);
      }
      expect((await raw(cli.url, '/__admin/tokens/sk-test', { host, ...mark }, 'DELETE')).status).toBe(403);
    }
    expect(await journalLength()).toBe(before);
    const tokens = (await (await fetch(`${cli.url}/__admin/tokens`)).json()) as { tokens: { token: string }[] };
    expect(tokens.tokens.map((t) => t.token)).toEqual(['sk-test']);
    // Reading stays open to any origin's marks (nothing changes).
    expect((await raw(cli.url, '/__admin/requests', { host, 'sec-fetch-site': 'cross-site' })).status).toBe(200);
    // The emulator's own pages: same-origin, or typed in the address bar.
    expect(
      (
        await raw(
          cli.url,
          '/__admin/reset',
          { host, 'sec-fetch-site': 'same-origin', origin: `http://${host}`, 'content-type': 'application/json' },
          'POST',
        )
      ).status,
    ).toBe(200);
    expect((await raw(cli.url, '/__admin/reset', { host, 'sec-fetch-site': 'none' }, 'POST')).status).toBe(200);
    expect((await raw(cli.url, '/__admin/reset', { host, origin: `http://${host}` }, 'POST')).status).toBe(200);
  });

  it('takes state changes from clients that are not browsers, as curl sends them: no body type, no body', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'forget me' }] });
    expect(await journalLength()).toBeGreaterThan(0);
    // curl -X POST http://127.0.0.1:4010/__admin/reset
    const reset = await fetch(`${cli.url}/__admin/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(await journalLength()).toBe(0);
    // curl -d '{"token":"sk-curl"}' …/__admin/tokens sends a form type; the body is still JSON.
    const issued = await fetch(`${cli.url}/__admin/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"token":"sk-curl-token"}',
    });
    expect(issued.status).toBe(201);
    // curl -X DELETE …/__admin/tokens/sk-curl-token
    const deleted = await fetch(`${cli.url}/__admin/tokens/sk-curl-token`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    const tokens = (await (await fetch(`${cli.url}/__admin/tokens`)).json()) as { tokens: { token: string }[] };
    expect(tokens.tokens.map((t) => t.token)).not.toContain('sk-curl-token');
    // A body that is not JSON gets a 400 that says so (in JSON).
    const form = await fetch(`${cli.url}/__admin/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=sk-form',
    });
    expect(form.status).toBe(400);
    expect((await form.json()).error).toMatch(/^The body is not JSON/);
  });

  it('answers no cross-origin preflight for the control plane, so a page cannot send JSON to it', async () => {
    const res = await fetch(`${cli.url}/__admin/reset`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a Host that is not this machine (DNS rebinding), for the control plane and the pages', async () => {
    for (const path of ['/__admin/requests', '/console/playground', '/']) {
      const res = await raw(cli.url, path, { host: 'rebind.evil.example:4010' });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error).toMatch(/DNS rebinding/);
    }
    const port = new URL(cli.url).port;
    for (const name of ['127.0.0.1.nip.io', '127.0.0.1.evil.com', '127.evil.com']) {
      const res = await raw(cli.url, '/__admin/requests', { host: `${name}:${port}` });
      expect(res.status, name).toBe(403);
      expect(res.body, name).not.toContain('"requests"');
    }
    for (const name of ['localhost', '127.0.0.2', '[::1]', 'foo.localhost']) {
      expect((await raw(cli.url, '/__admin/requests', { host: `${name}:${port}` })).status, name).toBe(200);
    }
    // Health stays open to any probe.
    expect((await raw(cli.url, '/__admin/health', { host: 'rebind.evil.example' })).status).toBe(200);
  });

  it('never journals a credential in clear, in any of the ways a token travels', async () => {
    await fetch(`${cli.url}/__admin/reset`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const secret = 'sk-journal-secret-0123456789';
    await fetch(`${cli.url}/__admin/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: secret }),
    });
    await new OpenAI({ apiKey: secret, baseURL: `${cli.url}/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await new Anthropic({ apiKey: secret, baseURL: cli.url, maxRetries: 0 }).messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: cli.url } }).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'hi',
    });
    await fetch(`${cli.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    // A browser's realtime socket: the key travels as a subprotocol.
    await new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(`${cli.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, [
        'realtime',
        `openai-insecure-api-key.${secret}`,
      ]);
      socket.onopen = () => (socket.close(), resolve());
      socket.onerror = () => reject(new Error('the realtime socket did not open'));
    });
    await expect
      .poll(async () => ((await (await fetch(`${cli.url}/__admin/requests`)).json()) as { requests: unknown[] }).requests.length, {
        timeout: 60_000,
      })
      .toBe(5);
    const journal = await (await fetch(`${cli.url}/__admin/requests`)).text();
    const { requests } = JSON.parse(journal) as {
      requests: { headers: Record<string, string>; query: string; status: number; path: string }[];
    };
    const masked = requests[0].headers.authorization.slice('Bearer '.length);
    expect(masked).toMatch(/^sk-\*\*\*-28chars-[0-9a-f]{4}$/);
    expect(requests.find((r) => r.path === '/v1/realtime')!.headers['sec-websocket-protocol']).toBe(
      `realtime, openai-insecure-api-key.${masked}`,
    );
    requests.splice(
      requests.findIndex((r) => r.path === '/v1/realtime'),
      1,
    );
    expect(requests).toHaveLength(4);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    expect(journal).not.toContain(secret);
    expect(journal).not.toContain('0123456789');
    expect(requests.some((r) => r.headers.authorization === `Bearer ${masked}`)).toBe(true);
    expect(requests.some((r) => r.headers['x-goog-api-key'] === masked)).toBe(true);
    expect(requests.at(-1)!.query).toBe(`?key=${masked}`);
  });

  it('masks every credential name, in any case, in headers and in the query', async () => {
    await fetch(`${cli.url}/__admin/reset`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const secret = 'sk-journal-secret-0123456789';
    await fetch(`${cli.url}/__admin/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: secret }),
    });
    const res = await fetch(`${cli.url}/v1beta/models/gemini-2.5-flash:generateContent?${CREDENTIAL_QUERY(secret)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...CREDENTIAL_HEADERS(secret) },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(200);
    const journal = await (await fetch(`${cli.url}/__admin/requests`)).text();
    const [entry] = (JSON.parse(journal) as { requests: JournalEntry[] }).requests;
    expectMasked(journal, entry, secret);
  });
});

describe.runIf(socketSuites)('binding beyond loopback', () => {
  it('generates an admin token and says so at start', async () => {
    const cli = await spawnCli(['--host', '0.0.0.0']);
    try {
      expect(cli.output()).toMatch(/admin token \(needed for \/__admin and the console from other machines\): mgm-admin-\S{20,}/);
    } finally {
      await cli.stop();
    }
  });

  it('keeps the token it is given, and the API needs none of it', async () => {
    const server = await startServer({ port: 0, host: '0.0.0.0', adminToken: 'given-admin-token' });
    try {
      expect(server.adminToken).toBe('given-admin-token');
      const port = new URL(server.url).port;
      // Loopback clients still get in without it.
      expect((await fetch(`http://127.0.0.1:${port}/__admin/requests`)).status).toBe(200);
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
      expect((await client.models.list()).data.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe.runIf(socketSuites && chromiumAvailable)('a hostile web page in Chromium', () => {
  it('cannot reset the emulator or issue tokens with a cross-origin form post or fetch', async () => {
    const cli = await spawnCli();
    // The attacker's page, on another origin (another port of this machine).
    const attack = `<!doctype html><body>
      <form id="f" method="POST" action="${cli.url}/__admin/reset" enctype="text/plain"><input name='{"a":"' value='"}'></form>
      <script>
        fetch('${cli.url}/__admin/tokens', { method: 'POST', mode: 'no-cors', body: '{"token":"sk-stolen"}' }).finally(() => {
          fetch('${cli.url}/__admin/reset', { method: 'POST', headers: { 'content-type': 'application/json' } }).catch(() => {}).finally(() => document.getElementById('f').submit());
        });
      </script></body>`;
    const evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attack));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
    });
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'remember me' }] });
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      // The form's navigation lands on the control plane's refusal.
      await page.waitForURL(`${cli.url}/__admin/reset`);
      expect(await page.textContent('body')).toContain('another origin');
      const journal = (await (await fetch(`${cli.url}/__admin/requests`)).json()) as { requests: { path: string }[] };
      expect(journal.requests.map((r) => r.path)).toContain('/v1/chat/completions');
      const tokens = (await (await fetch(`${cli.url}/__admin/tokens`)).json()) as { tokens: { token: string }[] };
      expect(tokens.tokens.map((t) => t.token)).toEqual(['sk-test']);
    } finally {
      await browser.close();
      evil.close();
      await cli.stop();
    }
  });
});
