// Standalone mode: the gateway on a real socket. API paths go from node:http straight into the
// endpoint pipeline (see adapters/node.ts); express serves the pages and the control plane, loaded
// when first needed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express, NextFunction, Request, Response } from 'express';
import { buildGateway, endpoints, runtimeOf, type GatewayParts } from './gateway.ts';
import type { Gateway, GatewayOptions } from './api.ts';
import { answerClientError, healthAnswer, NodeRouter, writeWhole, type NodeRequest, type NodeResponse } from './adapters/node.ts';
import { ALPN_PROTOCOLS, serveHttp2 } from './adapters/http2.ts';
import { handleUpgrade } from './adapters/websocket-node.ts';
import { FALLBACK_FORMAT } from './formats/all.ts';
import { ADMIN_COOKIE, generateAdminToken, guardControlPlane, isLoopbackHost } from './control/guard.ts';
import { failureOf } from './control/errors.ts';
import { CORS_HEADERS, preflightHeaders } from './adapters/cors.ts';
import { stopImageThreads } from './core/synthesize/image-pool.ts';
import pkg from '../package.json' with { type: 'json' };
import { loadInSteps, preloadLazy } from './core/preload.ts';
import { preloadMediaHandlers } from './formats/openai/routes-media.ts';
import { validateFixtures } from './fixture-check.ts';
import type { FixtureFolder } from './fixtures/folder.ts';
import type { Runtime } from './runtime.ts';
import { requireOwn } from './core/lazy.ts';

export interface ServerOptions extends Omit<GatewayOptions, 'origin'> {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /**
   * The token other machines must present to use `/__admin` and the console pages (loopback clients
   * need none). Generated when `host` is not a loopback address and none is given.
   */
  adminToken?: string;
  /**
   * Serve HTTPS and WSS instead of HTTP and WS (the openai SDK's realtime client only speaks wss):
   * `true` generates a self-signed certificate for localhost, 127.0.0.1, ::1 and `host`, written to
   * `certPath`; or bring your own PEM certificate and key.
   */
  tls?: boolean | { cert: string; key: string };
  /**
   * A folder of fixture files (*.json, *.yaml, *.yml; see docs/fixtures.md) in force after `fixtures`;
   * a bad file stops the start with a FixtureValidationError naming every bad file. Read again on
   * `POST /__admin/fixtures/reload`.
   */
  fixturesDir?: string;
  /**
   * Read `fixturesDir` again whenever a file of it changes: a folder with a bad file is not taken (its
   * error is printed) and the fixtures in force stay.
   */
  watch?: boolean;
}

export interface RunningServer {
  /** `http://host:port`, the root every format's base URL hangs from (bound to 0.0.0.0 or `::`, the loopback address: 127.0.0.1 or [::1]). */
  readonly url: string;
  readonly port: number;
  readonly gateway: Gateway;
  /** The control plane's admin token, if one is in force. */
  readonly adminToken?: string;
  /** With a generated TLS certificate: the PEM file a client can trust (e.g. NODE_EXTRA_CA_CERTS). */
  readonly certPath?: string;
  /** The PEM certificate served over TLS, if any. */
  readonly cert?: string;
  /**
   * Stops accepting, ends open streams, connections and WebSockets; resolves once the socket is closed.
   * @example afterAll(() => server.close());
   */
  close(): Promise<void>;
}

function preflight(req: NodeRequest, res: NodeResponse): void {
  writeWhole(res, 204, preflightHeaders(req.headers['access-control-request-headers']));
}

/** The pages and the control plane are express's, which speaks HTTP/1.1 only: an HTTP/2 client is told so. */
function http1Only(req: NodeRequest, res: NodeResponse): void {
  const body = `model-gateway-mock serves the pages and /__admin over HTTP/1.1 (except GET /__admin/health); ${req.method} ${req.url} came over HTTP/2.\n`;
  writeWhole(res, 505, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) }, body);
}

// The standalone server serves no msw handlers (`gateway.handlers` loads msw if ever read), and ajv
// loads with the first fixture to check.
const standaloneParts: GatewayParts = {
  handlers: (runtime, origin) => [
    ...requireOwn<typeof import('./adapters/msw.ts')>('adapters/msw').mswHandlers(runtime, origin, endpoints, FALLBACK_FORMAT),
    ...requireOwn<typeof import('./adapters/websocket-msw.ts')>('adapters/websocket-msw').mswWebSocketHandlers(runtime, origin, endpoints),
  ],
  validate: validateFixtures,
};

interface PagesContext {
  gateway: Gateway;
  folder?: FixtureFolder;
  router: NodeRouter;
  url: () => string;
  bindHost: string;
  adminToken?: string;
}

/**
 * The pages and the control plane: express, loaded by their first request (~100 ms of start-up
 * saved; API requests never touch it).
 */
async function pagesApp({ gateway, folder, router, url, bindHost, adminToken }: PagesContext): Promise<Express> {
  const [{ default: express }, { adminRouter }, { consoleRouter }] = await Promise.all([
    import('express'),
    import('./control/admin.ts'),
    import('./console/routes.ts'),
  ]);
  const app = express();
  app.disable('x-powered-by');
  // Routes match as written: express would otherwise serve /__ADMIN/tokens from the /__admin mount.
  app.set('case sensitive routing', true);
  // The control plane and the pages are the owner's (health stays open, for probes from anywhere).
  // Compared in lower case and with repeated slashes folded, so no spelling of a guarded path passes unguarded.
  app.use((req, res, next) => {
    const path = req.path.toLowerCase().replace(/\/{2,}/g, '/');
    if (path === '/__admin/health' || !(path === '/' || path.startsWith('/console') || path.startsWith('/__admin'))) return next();
    const requestUrl = new URL(req.originalUrl, 'http://localhost');
    const verdict = guardControlPlane(req, requestUrl, bindHost, adminToken);
    if (!verdict.ok) return void res.status(verdict.status!).json({ error: verdict.message });
    const given = requestUrl.searchParams.get('admin_token');
    if (given && adminToken) res.setHeader('set-cookie', `${ADMIN_COOKIE}=${encodeURIComponent(given)}; HttpOnly; SameSite=Strict; Path=/`);
    next();
  });
  app.use('/__admin', adminRouter(gateway, pkg.version, { readerTimeoutMs: runtimeOf(gateway).readerTimeoutMs, folder }));
  app.use(consoleRouter(gateway, url));
  // Anything else is an unknown route, answered like one under /v1.
  app.use((req, res) => {
    void router.handle(req, res, CORS_HEADERS);
  });
  // A failure on the way (a parameter that is no percent-encoding, a bug): JSON under /__admin, plain
  // text on the pages, never express's HTML page with its stack and file paths.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, message } = failureOf(error);
    if (status >= 500) console.error(`model-gateway-mock: ${req.method} ${req.originalUrl}:`, error);
    if (res.headersSent) return void res.destroy();
    if (req.path.startsWith('/__admin')) res.status(status).json({ error: message });
    else res.status(status).type('text/plain').send(message);
  });
  return app;
}

/**
 * The gateway on a real socket: the API under `/v1`, `/v1beta` and `/v2`, the pages, and `/__admin`.
 * @example
 * const server = await startServer({ port: 0 });
 * const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-test' });
 * await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 * server.gateway.requests(); // the same operations as in-process
 * await server.close();
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const gateway = buildGateway(options, standaloneParts);
  const runtime = runtimeOf(gateway);
  if (options.watch && options.fixturesDir === undefined)
    throw new TypeError('startServer: `watch` needs `fixturesDir`, the folder to follow.');
  const folder = options.fixturesDir === undefined ? undefined : await fixtureFolder(options.fixturesDir, runtime, options.watch);
  const router = new NodeRouter(runtime, endpoints, FALLBACK_FORMAT);
  const apiPrefixes = router.table.prefixes;
  const bindHost = options.host ?? '127.0.0.1';
  const adminToken = options.adminToken ?? (isLoopbackHost(bindHost) ? undefined : generateAdminToken());
  let url = '';
  let app: Promise<Express> | undefined;
  const loadPages = () => (app ??= pagesApp({ gateway, folder, router, url: () => url, bindHost, adminToken }));
  const pages = (req: IncomingMessage, res: ServerResponse) =>
    void loadPages().then(
      (handle) => handle(req, res),
      (error: Error) => {
        console.error('model-gateway-mock: the pages could not load:', error);
        res.writeHead(500, { 'content-type': 'text/plain' }).end(failureOf(error).message);
      },
    );

  const health = healthAnswer(pkg.version);
  let closed = false;
  // Requests in flight, and what waits for there to be none.
  let inFlight = 0;
  let whenIdle: (() => void)[] = [];
  const busy = () => (inFlight === 0 ? undefined : new Promise<void>((resolve) => whenIdle.push(resolve)));
  const settled = () => {
    if (--inFlight > 0) return;
    const waiting = whenIdle;
    whenIdle = [];
    for (const resume of waiting) resume();
  };
  // Nothing loads for a health probe: a server that was only probed stays as small as it started. The
  // first API request loads what answering needs (the tokenizer and faker, which it waits for); express
  // (~130 ms of CPU, most of it one require of its tree) then loads one package of its tree per
  // event-loop turn while no request is in flight, so a request waits for one package at most, not for
  // all of them, and the media handlers after it; the pages and the control plane then find express
  // loaded (a page asked for earlier loads it at once).
  let warming = false;
  const warmUp = () => {
    if (warming) return;
    warming = true;
    preloadLazy();
    setImmediate(
      () =>
        void loadInSteps('express', import.meta.url, { busy, stopped: () => closed })
          .then(() => (closed ? undefined : (preloadMediaHandlers(), loadPages())))
          .catch(() => {}),
    );
  };
  const listener = (req: NodeRequest, res: NodeResponse) => {
    inFlight++;
    res.once('close', settled);
    const target = req.url ?? '/';
    // The API's paths go straight to the router; the rest to the pages (which pass on what they do not serve).
    if (!apiPrefixes.some((p) => target.startsWith(p))) {
      if (health(req, res)) return;
      return 'stream' in req ? http1Only(req, res) : pages(req, res as ServerResponse);
    }
    warmUp();
    if (req.method === 'OPTIONS') return preflight(req, res);
    void router.handle(req, res, CORS_HEADERS);
  };
  const tls = options.tls === true ? await selfSigned(bindHost) : options.tls || undefined;
  // Only a WebSocket handshake switches protocols: any other Upgrade offer (curl --http2's `Upgrade: h2c`)
  // is answered as the HTTP/1.1 request it also is (Node 22.21 and 24.9 on; before, 'upgrade' takes every offer).
  const http = { shouldUpgradeCallback: (req: IncomingMessage) => /\bwebsocket\b/i.test(req.headers.upgrade ?? '') };
  const server: Server = tls
    ? (createTlsServer({ cert: tls.cert, key: tls.key, ALPNProtocols: ALPN_PROTOCOLS, ...http }, listener) as unknown as Server)
    : createServer(http, listener);
  // What the parser refuses in a body being read is answered by the pipeline, in the format's words.
  server.on('clientError', answerClientError);
  // HTTP/2 on the same port: prior knowledge in clear, ALPN h2 under TLS (adapters/http2.ts).
  const http2 = serveHttp2(server, listener);
  // Upgraded sockets leave node:http's bookkeeping, so close() ends them itself.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req, socket, head) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    void handleUpgrade(runtime, endpoints, FALLBACK_FORMAT, req, socket, head);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 4010, bindHost, () => resolve());
    });
  } catch (error) {
    // A start that fails (a port in use) leaves nothing behind: no watcher reloading into a gateway no
    // server answers for, no certificate folder until the process exits.
    folder?.close();
    http2.close();
    if (tls && 'folder' in tls) removeCertificate(tls.folder as string);
    throw error;
  }
  const address = server.address() as AddressInfo;
  // Bound to every interface (0.0.0.0, ::), the server is reached here through loopback: no client can connect to 0.0.0.0 everywhere.
  const reachable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const host = reachable.includes(':') ? `[${reachable}]` : reachable;
  url = `${tls ? 'https' : 'http'}://${host}:${address.port}`;
  return {
    url,
    port: address.port,
    gateway,
    adminToken,
    cert: tls?.cert,
    certPath: tls && 'path' in tls ? (tls.path as string) : undefined,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        if (tls && 'folder' in tls) removeCertificate(tls.folder as string);
        folder?.close();
        server.close(() => resolve());
        // Open streams, keep-alive sockets and WebSockets end now, not when their clients let go.
        server.closeAllConnections();
        http2.close();
        for (const socket of upgraded) socket.destroy();
        stopImageThreads();
      }),
  };
}

/** The folder's fixtures put in force after the configured ones (a bad file throws), and followed when watched. */
async function fixtureFolder(dir: string, runtime: Runtime, watched: boolean | undefined): Promise<FixtureFolder> {
  // The loader (yaml) only when there is a folder to read.
  const { FixtureFolder } = await import('./fixtures/folder.ts');
  const folder = new FixtureFolder(
    dir,
    runtime.fixtures,
    runtime.fixtures.list().map((e) => e.fixture),
  );
  const first = folder.reload();
  if (!first.ok) throw first.error;
  if (watched)
    folder.watch((result) =>
      console.warn(
        result.ok
          ? `model-gateway-mock: fixtures reloaded from ${dir}: ${result.fixtures} fixture${result.fixtures === 1 ? '' : 's'} in ${result.files} file${result.files === 1 ? '' : 's'}`
          : `model-gateway-mock: fixtures not reloaded (the previous ones stay in force): ${result.error.message}`,
      ),
    );
  return folder;
}

/** Folders of generated certificates still on disk: each goes when its server closes, the rest when the process exits. */
const certificateFolders = new Set<string>();
let exitHooked = false;

function removeCertificate(folder: string): void {
  certificateFolders.delete(folder);
  rmSync(folder, { recursive: true, force: true });
}

/**
 * A self-signed certificate for local names, generated at start and written where a client can read it,
 * in a temporary folder removed when the server closes (or the process exits): each start left one behind.
 */
async function selfSigned(host: string): Promise<{ cert: string; key: string; path: string; folder: string }> {
  // Loaded only with --tls: certificate generation is the heaviest code the server has.
  const { generate } = await import('selfsigned');
  const names = [...new Set(['localhost', host])].filter((h) => !/^[\d.]+$|:/.test(h));
  const ips = [...new Set(['127.0.0.1', '::1', host])].filter((h) => /^[\d.]+$|:/.test(h));
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...names.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  const folder = mkdtempSync(join(tmpdir(), 'model-gateway-mock-'));
  if (!exitHooked) process.once('exit', () => certificateFolders.forEach(removeCertificate));
  exitHooked = true;
  certificateFolders.add(folder);
  const path = join(folder, 'cert.pem');
  writeFileSync(path, pems.cert);
  return { cert: pems.cert, key: pems.private, path, folder };
}
