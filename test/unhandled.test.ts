// A request no handler takes never leaves the process: a listener on 127.0.0.1 stands in for the real host,
// and child vitest runs (test/cases/unhandled/, under msw 3 and msw 2) send it a real-looking key from every
// entry point: setupGateway() in-process, setupGateway({ url }), createGateway() under setupServer as the docs
// say (blockUnhandled()) and with msw's own 'error'. It counts nothing from them; the 'bypass' file, the
// control, does reach it. And the opt-in for code that reads a real key from the environment: acceptAnyKey.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { maskKey } from '../src/auth/keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockUnhandled, createGateway } from '../src/index.ts';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { runCases } from './helpers/child-vitest.ts';
import { socketSuites } from './helpers/modes.ts';

describe.runIf(socketSuites)('an unhandled request', () => {
  let cli: Spawned;
  let real: Server;
  let realHost: string;
  const reached: { path: string; credential: string }[] = [];
  const record = (req: IncomingMessage) =>
    reached.push({
      path: req.url ?? '',
      credential: String(req.headers.authorization ?? req.headers['api-key'] ?? req.headers['sec-websocket-protocol'] ?? req.url),
    });
  beforeAll(async () => {
    cli = await spawnCli();
    real = createServer((req, res) => {
      record(req);
      res.writeHead(404).end('the real host');
    });
    real.on('upgrade', (req, socket) => {
      record(req);
      socket.destroy();
    });
    await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve));
    realHost = `http://127.0.0.1:${(real.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await cli?.stop();
    await new Promise((resolve) => real?.close(resolve));
  });

  for (const msw of ['3', '2']) {
    it(`never reaches the host, from any entry point, with msw ${msw}; 'bypass' does`, async () => {
      reached.length = 0;
      const results = await runCases('test/cases/unhandled', { REAL_HOST: realHost, SHARED_GATEWAY_URL: cli.url, CASE_MSW: msw });
      // Every file but the control sent its five requests and reached nothing.
      const from = (name: string) => reached.filter((r) => r.path.startsWith(`/${name}/`));
      for (const name of ['helper', 'remote', 'plain', 'msw-error']) expect(from(name), name).toEqual([]);
      expect(from('bypass').map((r) => r.path)).toEqual(expect.arrayContaining(['/bypass/named-import']));
      expect(from('bypass').some((r) => r.credential.includes('sk-REAL-KEY'))).toBe(true);
      expect(reached.filter((r) => !/^\/(bypass)\//.test(r.path))).toEqual([]);
      const outcome = (name: string) => results[`${name}: sends a real key to hosts no handler serves`];
      // The helpers fail the test that sent them, naming each (the key in a query masked); the others' own checks pass.
      for (const name of ['helper', 'remote']) {
        expect(outcome(name)?.status, name).toBe('failed');
        const message = outcome(name).failureMessages.join('\n');
        expect(message).not.toMatch(/AssertionError/);
        expect(message).toContain(
          `POST ${realHost}/${name}/v2/chat/completions: no handler answers this request, so it was refused and never sent`,
        );
        expect(message).toContain(
          `GET ${realHost}/${name}/vertex/models/gemini-2.5-flash:generateContent?key=${maskKey('sk-REAL-KEY')}: no handler`,
        );
        expect(message).not.toContain('sk-REAL-KEY');
        expect(message).toContain(`GET ${realHost}/${name}/named-import: no handler`);
        expect(message).toContain(`WebSocket ${realHost.replace('http', 'ws')}/${name}/socket: no handler`);
      }
      for (const name of ['plain', 'msw-error', 'bypass']) expect(outcome(name)?.failureMessages.join('\n'), name).toBe('');
    });
  }
});

describe('acceptAnyKey', () => {
  const REAL = 'sk-proj-a-key-read-from-OPENAI_API_KEY';
  async function ask(options: { acceptAnyKey?: boolean }) {
    const gateway = createGateway(options);
    const server = setupServer(...gateway.handlers);
    server.listen(blockUnhandled());
    try {
      const openai = new OpenAI({ apiKey: REAL, baseURL: 'https://api.openai.com/v1', maxRetries: 0 });
      const anthropic = new Anthropic({ apiKey: REAL, maxRetries: 0 });
      const google = new GoogleGenAI({ apiKey: REAL });
      const settled = await Promise.allSettled([
        openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        google.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }),
      ]);
      return { settled, journal: gateway.requests() };
    } finally {
      server.close();
    }
  }

  it('is off by default: a key the gateway did not issue gets each vendor 401', async () => {
    const { settled } = await ask({});
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const [openai, anthropic] = settled.map((s) => (s as PromiseRejectedResult).reason);
    expect(openai).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(anthropic).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('when on, answers any key in every format, and the journal masks it', async () => {
    const { settled, journal } = await ask({ acceptAnyKey: true });
    expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : s.status))).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(journal.map((e) => e.status)).toEqual([200, 200, 200]);
    expect(JSON.stringify(journal)).not.toContain(REAL);
  });

  it('when on, still refuses a request that presents no key', async () => {
    const gateway = createGateway({ acceptAnyKey: true });
    const server = setupServer(...gateway.handlers);
    server.listen(blockUnhandled());
    try {
      const res = await fetch('https://api.openai.com/v1/models');
      expect(res.status).toBe(401);
    } finally {
      server.close();
    }
  });
});
