// Standalone mode: the gateway on a real socket. The API paths go straight from node:http to the
// msw handlers (no router on the hot path); express serves the pages and the control plane.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createGateway, type Gateway } from './gateway.ts';
import type { GatewayOptions } from './runtime.ts';
import { bridge } from './transport/bridge.ts';
import { adminRouter } from './transport/admin.ts';
import { homePage } from './console/home.ts';
import { openaiErrorBody } from './formats/openai/errors.ts';
import { GatewayError } from './core/errors.ts';
import { hashString, makeId } from './core/seed.ts';
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
  return API_PREFIXES.some((p) => url.startsWith(p)) || url === '/v1' || url === '/v1beta';
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  const target = `${req.method} ${req.url?.split('?')[0]}`;
  const error = new GatewayError('not_found', `Invalid URL (${target})`);
  res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': makeId('req_', 32, hashString(target)), ...CORS });
  res.end(JSON.stringify(openaiErrorBody(error)));
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

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const gateway = createGateway(options);
  const app = express();
  app.disable('x-powered-by');
  app.use('/__admin', adminRouter(gateway, pkg.version));
  let url = '';
  app.get('/', (_req, res) => {
    res.type('html').send(homePage(url));
  });
  app.use((req, res) => notFound(req, res));

  const handlers = gateway.handlers;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!isApi(path)) return void app(req, res);
    if (req.method === 'OPTIONS') return preflight(req, res);
    bridge(handlers, req, res, CORS, () => notFound(req, res)).catch((error: unknown) => {
      // Never crash the server: answer what can still be answered, and close the rest.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', ...CORS });
        res.end(JSON.stringify(openaiErrorBody(new GatewayError('server', `model-gateway-mock bridge error: ${String(error)}`))));
      } else res.destroy();
    });
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
