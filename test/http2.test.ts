// HTTP/2 on the standalone server's own port, beside HTTP/1.1: prior knowledge in clear (what the AWS
// SDK's default client speaks to an http:// endpoint), ALPN h2 under TLS; every other client (the
// openai, Anthropic and Google SDKs, curl, WebSockets) unchanged on the same port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect as http2Connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/server.ts';
import { socketSuites } from './helpers/modes.ts';

const run = promisify(execFile);
const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello over HTTP/2' }] };
const JSON_HEADERS = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on an HTTP/2 session, its answer read whole. */
function h2Request(session: ClientHttp2Session, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    let text = '';
    let got: IncomingHttpHeaders = {};
    stream.setEncoding('utf8');
    stream.on('response', (h) => (got = h));
    stream.on('data', (d: string) => (text += d));
    stream.on('end', () => resolve({ status: Number(got[':status']), headers: got, body: text }));
    stream.on('error', reject);
    stream.end(body);
  });
}

/** curl posting `body` to the chat completions route, printing the HTTP version it spoke after the body. */
const curlChat = (server: RunningServer, body: string, ...flags: string[]) =>
  run('curl', [
    '-s',
    ...flags,
    '-w',
    '\n%{http_version}',
    '-H',
    'authorization: Bearer sk-test',
    '-H',
    'content-type: application/json',
    '-d',
    body,
    `${server.url}/v1/chat/completions`,
  ]);

const post = (path: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) => ({
  headers: { ':method': 'POST', ':path': path, ...headers },
  body: JSON.stringify(body),
});

describe.runIf(socketSuites)('HTTP/2 and HTTP/1.1 on one port (clear text)', () => {
  let server: RunningServer;
  let session: ClientHttp2Session;
  beforeAll(async () => {
    server = await startServer({ port: 0 });
    session = http2Connect(server.url);
  });
  afterAll(async () => {
    session.close();
    await server.close();
  });

  it('answers HTTP/2 with prior knowledge with the same bytes as HTTP/1.1, JSON and streamed', async () => {
    for (const stream of [false, true]) {
      const { headers, body } = post('/v1/chat/completions', { ...CHAT, stream });
      const h2 = await h2Request(session, headers, body);
      const h1 = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
      expect(h2.status).toBe(200);
      expect(h2.headers['content-type']).toBe(h1.headers.get('content-type'));
      expect(h2.headers['x-request-id']).toBe(h1.headers.get('x-request-id'));
      expect(h2.body).toBe(await h1.text());
    }
  });

  it('answers many streams of one session at once, and errors in the vendor shape', async () => {
    const answers = await Promise.all(
      ['one', 'two', 'three'].map((word) => {
        const { headers, body } = post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: word }] });
        return h2Request(session, headers, body);
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(3);
    const bad = await h2Request(session, post('/v1/chat/completions', CHAT, { authorization: 'Bearer sk-nope' }).headers, '{}');
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body).error.code).toBe('invalid_api_key');
  });

  it('keeps the journal free of HTTP/2 pseudo-headers, with the :authority as the host', async () => {
    const { headers, body } = post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: 'journal me' }] });
    await h2Request(session, headers, body);
    const entry = server.gateway.requests({ path: '/v1/chat/completions' }).at(-1)!;
    expect(Object.keys(entry.headers).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(entry.headers.host).toBe(new URL(server.url).host);
  });

  it('breaks the stream, not the session, for a connection fault; the session serves the next request', async () => {
    const { headers, body } = post('/v1/chat/completions', CHAT, { ...JSON_HEADERS, 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' });
    const failed = await h2Request(session, headers, body).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(failed).toBe('ERR_HTTP2_STREAM_ERROR');
    const next = post('/v1/chat/completions', CHAT);
    expect((await h2Request(session, next.headers, next.body)).status).toBe(200);
  });

  it('cuts a stream with STREAM_CUT after the events it sends', async () => {
    const { headers, body } = post(
      '/v1/chat/completions',
      { ...CHAT, stream: true },
      { ...JSON_HEADERS, 'x-mock-fault': 'STREAM_CUT,after=2' },
    );
    const stream = session.request(headers);
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (text += d));
    const closed = new Promise((resolve) => stream.on('close', () => resolve(stream.rstCode)));
    stream.on('error', () => {});
    stream.end(body);
    const code = await closed;
    expect(code).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(2);
  });

  it('serves /__admin/health over HTTP/2 and says the pages are HTTP/1.1 only', async () => {
    expect((await h2Request(session, { ':path': '/__admin/health' })).status).toBe(200);
    const page = await h2Request(session, { ':path': '/console/playground' });
    expect(page.status).toBe(505);
    expect(page.body).toMatch(/over HTTP\/1\.1/);
    expect((await fetch(`${server.url}/console/playground`)).status).toBe(200);
  });

  it('survives a client that sends garbage after the preface', async () => {
    const { Socket } = await import('node:net');
    const port = Number(new URL(server.url).port);
    await new Promise<void>((resolve) => {
      const socket = new Socket();
      socket.connect(port, '127.0.0.1', () =>
        socket.end(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.alloc(64, 0xff)])),
      );
      socket.on('error', () => {});
      socket.on('close', () => resolve());
      socket.resume();
    });
    const { headers, body } = post('/v1/chat/completions', CHAT);
    expect((await h2Request(session, headers, body)).status).toBe(200);
  });

  it('leaves the openai, Anthropic and Google SDKs, curl and WebSockets on HTTP/1.1, unchanged', async () => {
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect((await openai.chat.completions.create(CHAT as never)).object).toBe('chat.completion');
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.type).toBe('message');
    const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: server.url, apiVersion: 'v1beta' } });
    expect((await google.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' })).text).toBeTruthy();

    const { body } = post('/v1/chat/completions', CHAT);
    const curl = (...flags: string[]) => curlChat(server, body, ...flags);
    const plain = (await curl()).stdout;
    const h2 = (await curl('--http2-prior-knowledge')).stdout;
    expect(plain.endsWith('\n1.1')).toBe(true);
    expect(h2.endsWith('\n2')).toBe(true);
    expect(h2.slice(0, -2)).toBe(plain.slice(0, -4));

    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    const first = await new Promise<{ type: string }>((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data))));
      ws.once('error', reject);
    });
    ws.close();
    expect(first.type).toBe('session.created');
  });
});

describe.runIf(socketSuites)('HTTP/2 under TLS (ALPN)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, tls: true });
  });
  afterAll(() => server.close());

  const alpn = (offered: string[]) =>
    new Promise<string | false>((resolve, reject) => {
      const port = Number(new URL(server.url).port);
      const socket = tlsConnect({ host: '127.0.0.1', port, ca: server.cert, ALPNProtocols: offered, servername: 'localhost' }, () => {
        resolve(socket.alpnProtocol ?? false);
        socket.end();
      });
      socket.on('error', reject);
    });

  it('gives h2 to a client that speaks only h2, and HTTP/1.1 to one that offers both (browsers, curl)', async () => {
    expect(await alpn(['h2'])).toBe('h2');
    expect(await alpn(['h2', 'http/1.1'])).toBe('http/1.1');
    expect(await alpn(['http/1.1'])).toBe('http/1.1');
  });

  it('answers an h2 client over TLS, and HTTP/1.1 clients on the same port', async () => {
    const session = http2Connect(server.url, { ca: server.cert });
    const { headers, body } = post('/v1/chat/completions', CHAT);
    const answer = await h2Request(session, headers, body);
    session.close();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).object).toBe('chat.completion');
    // curl offers h2 and http/1.1, and trusts the generated certificate.
    const { stdout } = await curlChat(server, body, '--cacert', server.certPath!);
    expect(stdout.endsWith('\n1.1')).toBe(true);
  });
});
