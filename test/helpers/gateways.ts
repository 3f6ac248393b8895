// A gateway in each mode with its Gateway object at hand (the resource suites advance its clock and read
// what it holds): in-process under msw, and standalone on 127.0.0.1 through startServer on a dynamic port.
import { afterAll, beforeAll } from 'vitest';
import OpenAI from 'openai';
import { setupServer } from 'msw/node';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/index.ts';
import { startServer } from '../../src/server.ts';
import { socketSuites, strictListen } from './modes.ts';

export interface Held {
  gateway: Gateway;
  /** Root URL: `…/v1` hangs from it. */
  root: string;
  /** An openai client (no retries), with `x-mock-test-id` when `test` is given. */
  openai(test?: string): OpenAI;
  stop(): Promise<void>;
}

export interface HeldMode {
  name: string;
  start(options?: GatewayOptions): Promise<Held>;
}

const client = (root: string, test?: string) =>
  new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${root}/v1`,
    maxRetries: 0,
    defaultHeaders: test === undefined ? undefined : { 'x-mock-test-id': test },
  });

const inProcess: HeldMode = {
  name: 'in-process',
  async start(options) {
    const gateway = createGateway(options);
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    const root = 'http://127.0.0.1:2';
    return { gateway, root, openai: (test) => client(root, test), stop: async () => server.close() };
  },
};

const socket: HeldMode = {
  name: 'socket',
  async start(options) {
    const server = await startServer({ ...options, port: 0 });
    return { gateway: server.gateway, root: server.url, openai: (test) => client(server.url, test), stop: () => server.close() };
  },
};

export const heldModes: HeldMode[] = socketSuites ? [inProcess, socket] : [inProcess];

/** Starts the gateway in `mode` for the enclosing describe block; read `ctx.gw` inside tests. */
export function withHeld(mode: HeldMode, options?: GatewayOptions): { gw: Held } {
  const ctx = {} as { gw: Held };
  beforeAll(async () => {
    ctx.gw = await mode.start(options);
  });
  afterAll(() => ctx.gw.stop());
  return ctx;
}

/** A copy of an object without its null fields (OpenAI's spec types some fields its service sends as null as non-nullable). */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  ) as T;
}
