// Standalone mode: the gateway on a real socket. API paths go from node:http straight into the
// endpoint pipeline (see transport/node.ts); express serves the pages and the control plane.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createGateway, endpoints, type Gateway } from './gateway.ts';
import type { GatewayOptions } from './runtime.ts';
import { NodeRouter } from './transport/node.ts';
import { adminRouter } from './transport/admin.ts';
import { consoleRouter } from './console/routes.ts';
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

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const gateway = createGateway(options);
  const router = new NodeRouter(gateway.runtime, endpoints, openaiFormat);
  let url = '';
  const app = express();
  app.disable('x-powered-by');
  app.use('/__admin', adminRouter(gateway, pkg.version));
  app.use(consoleRouter(gateway, () => url));
  // Anything else is an unknown route, answered like one under /v1.
  app.use((req, res) => {
    void router.handle(req, res, CORS);
  });

  const server: Server = createServer((req, res) => {
    if (!isApi(req.url ?? '/')) return void app(req, res);
    if (req.method === 'OPTIONS') return preflight(req, res);
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
