// What the standalone server does with what reaches its HTTP parser: an upgrade offer that is no
// WebSocket (curl --http2), a body the parser refuses, a client that leaves while sending, a stream
// that fails while it is being written. Each journaled as what the client actually got.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/server.ts';
import { createGateway } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';
import { NodeRouter } from '../src/adapters/node.ts';
import { FALLBACK_FORMAT } from '../src/formats/all.ts';
import { openaiFormat } from '../src/formats/openai/format.ts';
import { decidedStream } from '../src/pipeline/delivery.ts';
import { INSTANT } from '../src/core/timing.ts';
import type { EndpointSpec } from '../src/pipeline/call.ts';
import { socketSuites } from './helpers/modes.ts';
import { spawnCli } from './helpers/cli.ts';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** Writes `text` on a raw connection and collects what comes back until the server closes it. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let got = '';
    socket.on('data', (d) => (got += d));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe.runIf(socketSuites)('the standalone server and its HTTP parser', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0 });
  });
  afterAll(() => server.close());

  it('answers an `Upgrade: h2c` offer as HTTP/1.1 (curl --http2), while WebSocket upgrades work as before', async () => {
    const offered = await new Promise<{ status: number; version: string; body: string }>((resolve, reject) => {
      const req = request(
        `${server.url}/v1/chat/completions`,
        {
          method: 'POST',
          headers: {
            authorization: 'Bearer sk-test',
            'content-type': 'application/json',
            connection: 'Upgrade, HTTP2-Settings',
            upgrade: 'h2c',
            'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA',
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, version: res.httpVersion, body }));
        },
      );
      req.on('upgrade', () => reject(new Error('the server switched protocols')));
      req.on('error', reject);
      req.end(CHAT);
    });
    expect(offered).toMatchObject({ status: 200, version: '1.1' });
    expect(JSON.parse(offered.body).object).toBe('chat.completion');
    // curl itself, where the machine has it.
    const curl = await promisify(execFile)('curl', [
      '-s',
      '--http2',
      '-w',
      ' %{http_code} %{http_version}',
      `${server.url}/v1/models`,
      '-H',
      'authorization: Bearer sk-test',
    ]).catch(() => undefined);
    if (curl) expect(curl.stdout).toMatch(/ 200 1\.1$/);
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    const first = await new Promise<{ type: string }>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data))));
      socket.once('error', reject);
    });
    socket.close();
    expect(first.type).toBe('session.created');
  });

  it('answers a body its parser refuses with the format’s 400 naming the problem, and journals that, not a 500', async () => {
    for (const [path, headers, error] of [
      ['/v1/chat/completions', 'Authorization: Bearer sk-test', /"type":"invalid_request_error"/],
      ['/v1/messages', 'x-api-key: sk-test\r\nanthropic-version: 2023-06-01', /"type":"error","error":\{"type":"invalid_request_error"/],
    ] as const) {
      const got = await rawExchange(
        server.port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"mod\r\nzz\r\n`,
      );
      expect(got).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(got).toMatch(/\r\nConnection: close\r\n/i);
      expect(got).toMatch(error);
      expect(got).toContain('Invalid character in chunk size (HPE_INVALID_CHUNK_SIZE)');
      const entry = server.gateway.requests({ path }).at(-1)!;
      expect(entry.status).toBe(400);
      expect(got).toContain(entry.response!.body!);
    }
  });

  it('journals a client that leaves while sending its body as aborted with nothing answered (status 0), not a 500', async () => {
    const before = server.gateway.countRequests();
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":',
    );
    // The gateway has the request (its headers) and waits for the rest of its body.
    await vi.waitFor(() => expect(server.gateway.countRequests()).toBe(before + 1), { timeout: 60_000, interval: 20 });
    const seq = server.gateway.requests().at(-1)!.seq;
    socket.destroy();
    await vi.waitFor(() => expect(server.gateway.request(seq)?.durationMs).toBeDefined(), { timeout: 60_000, interval: 20 });
    expect(server.gateway.request(seq)).toMatchObject({ status: 0, outcome: 'aborted' });
  });
});

describe.runIf(socketSuites)('a stream that fails while it is being written', () => {
  it('is counted as ended: activeStreams goes back to 0, the entry aborted', async () => {
    const gateway = createGateway();
    const runtime = runtimeOf(gateway);
    // A handler whose stream carries a header Node refuses to send.
    const spec: EndpointSpec = {
      method: 'GET',
      path: '/v1/broken-stream',
      format: openaiFormat,
      auth: [],
      handle(call) {
        const out = decidedStream(call, { seed: 0, latency: INSTANT }, 1, () => [{ due: 0, data: '{}' }]);
        out.headers['x-broken'] = 'line\r\nbreak';
        return out;
      },
    };
    const router = new NodeRouter(runtime, [spec], FALLBACK_FORMAT);
    const http = createServer((req, res) => void router.handle(req, res, {}));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const answered = await fetch(`http://127.0.0.1:${port}/v1/broken-stream`).then(
        () => 'answered',
        () => 'dropped',
      );
      expect(answered).toBe('dropped');
      await vi.waitFor(() => expect(gateway.requests().at(-1)?.outcome).toBe('aborted'));
      expect(gateway.activeStreams).toBe(0);
    } finally {
      http.close();
    }
  });
});

describe.runIf(socketSuites)('a generated TLS certificate', () => {
  it('is removed with its folder when the server closes, and when the CLI stops', async () => {
    const server = await startServer({ port: 0, tls: true });
    const folder = dirname(server.certPath!);
    expect(existsSync(server.certPath!)).toBe(true);
    await server.close();
    expect(existsSync(folder)).toBe(false);
    const cli = await spawnCli(['--tls']);
    const path = /TLS certificate: (\S+)/.exec(cli.output())![1];
    expect(existsSync(path)).toBe(true);
    await cli.stop();
    expect(existsSync(dirname(path))).toBe(false);
  });
});
