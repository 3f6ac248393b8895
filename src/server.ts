// Standalone mode: the gateway on a real socket. API paths go from node:http straight into the
// endpoint pipeline (see transport/node.ts); express serves the pages and the control plane.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import type { Express } from 'express';
import { buildGateway, endpoints, type Gateway, type GatewayParts } from './gateway.ts';
import type { GatewayOptions } from './runtime.ts';
import { NodeRouter } from './transport/node.ts';
import { homePage } from './console/home.ts';
import { playgroundPage } from './console/playground.ts';
import { openaiFormat } from './formats/openai/errors.ts';
import pkg from '../package.json' with { type: 'json' };

export interface ServerOptions extends Omit<GatewayOptions, 'origin'> {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
}

export interface RunningServer {
  /** `http://host:port`, the root every format's base URL hangs from. */
  readonly url: string;
  readonly port: number;
  readonly gateway: Gateway;
  close(): Promise<void>;
}

const API_PREFIXES = ['/v1/', '/v1beta/', '/v2/'];

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
};

function isApi(url: string): boolean {
  return API_PREFIXES.some((p) => url.startsWith(p));
}

function preflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(204, {
    ...CORS,
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
    'access-control-max-age': '86400',
  });
  res.end();
}

/**
 * One of our own modules, loaded when first needed, synchronously (require of an ES module, Node >=
 * 22.12; the same instance an import gets): `path` is relative to this file, in src or in dist.
 */
function sibling<T>(path: string): T {
  return createRequire(import.meta.url)(new URL(`${path}${import.meta.url.slice(-3)}`, import.meta.url).pathname) as T;
}

// The standalone server serves no msw handlers (`gateway.handlers` loads msw if ever read), and ajv
// loads with the first fixture to check.
const standaloneParts: GatewayParts = {
  handlers: (runtime, origin) => sibling<typeof import('./transport/msw.ts')>('./transport/msw').mswHandlers(runtime, origin, endpoints),
  validate: (fixtures, source) => sibling<typeof import('./fixtures/validate.ts')>('./fixtures/validate').validateFixtures(fixtures, source),
};

/**
 * The pages and the control plane: express, loaded by their first request (~100 ms of start-up
 * saved; API requests never touch it).
 */
async function pagesApp(gateway: Gateway, router: NodeRouter, url: () => string): Promise<Express> {
  const [{ default: express }, { adminRouter }] = await Promise.all([import('express'), import('./transport/admin.ts')]);
  const app = express();
  app.disable('x-powered-by');
  app.use('/__admin', adminRouter(gateway, pkg.version));
  app.get('/', (_req, res) => {
    res.type('html').send(homePage(url()));
  });
  app.get('/console/playground', (_req, res) => {
    const chat = gateway.runtime.catalogue.list().filter((m) => m.capabilities.includes('chat'));
    res.type('html').send(playgroundPage(chat.map((m) => m.id)));
  });
  // Anything else is an unknown route, answered like one under /v1.
  app.use((req, res) => {
    void router.handle(req, res, CORS);
  });
  return app;
}

/**
 * `GET /__admin/health`, answered without express so that a fresh server is healthy before express
 * has loaded: the same bytes and headers express sends (its weak ETag); conditional requests go to express.
 */
function healthAnswer(version: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const body = JSON.stringify({ status: 'healthy', version });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ETag: `W/"${Buffer.byteLength(body).toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`,
  };
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url !== '/__admin/health' || req.headers['if-none-match'] !== undefined) return false;
    res.writeHead(200, headers).end(req.method === 'GET' ? body : undefined);
    return true;
  };
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const gateway = buildGateway(options, standaloneParts);
  const router = new NodeRouter(gateway.runtime, endpoints, openaiFormat);
  let url = '';
  let app: Promise<Express> | undefined;
  const loadPages = () => (app ??= pagesApp(gateway, router, () => url));
  const pages = (req: IncomingMessage, res: ServerResponse) =>
    void loadPages().then(
      (handle) => handle(req, res),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`model-gateway-mock: ${error.message}`),
    );

  const health = healthAnswer(pkg.version);
  const server: Server = createServer((req, res) => {
    if (!isApi(req.url ?? '/')) return void (health(req, res) || pages(req, res));
    if (req.method === 'OPTIONS') return preflight(req, res);
    // A client of the API soon asks the control plane (the journal): express loads after its first request.
    if (!app) setImmediate(() => void loadPages().catch(() => {}));
    void router.handle(req, res, CORS);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host}:${address.port}`;
  return {
    url,
    port: address.port,
    gateway,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
