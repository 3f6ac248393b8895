// The two ways to run the gateway, so one contract suite can drive both.
import { afterAll, beforeAll } from 'vitest';
import OpenAI from 'openai';
import { setupServer } from 'msw/node';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, type Fixture, type JournalEntry } from '../../src/index.ts';
import { spawnCli } from './cli.ts';

/** Fails any request no handler takes: msw 2 calls the option onUnhandledRequest, msw 3 onUnhandledFrame. */
export function strictListen(server: { listen(options?: never): void }): void {
  server.listen({ onUnhandledRequest: 'error', onUnhandledFrame: 'error' } as never);
}

export interface Running {
  /** Root URL: `…/v1` for OpenAI clients hangs from it. */
  root: string;
  requests(): Promise<JournalEntry[]>;
  stop(): Promise<void>;
}

export interface StartOptions {
  seed?: number;
  tokens?: string[];
  latency?: string;
  /** Fixtures in force from the start (JSON-able: the socket mode writes them to a --fixtures dir). */
  fixtures?: Fixture[];
  /** Deployment names → models (the socket mode passes each as --deployment name=model). */
  deployments?: Record<string, string>;
}

export interface Mode {
  name: string;
  start(options?: StartOptions): Promise<Running>;
}

export const inProcess: Mode = {
  name: 'in-process',
  async start(options = {}) {
    const gateway = createGateway(options);
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    return {
      // A closed loopback port: should interception ever fail, nothing leaves the machine.
      root: 'http://127.0.0.1:2',
      requests: async () => gateway.requests(),
      stop: async () => server.close(),
    };
  },
};

export const socket: Mode = {
  name: 'socket',
  async start(options = {}) {
    const args: string[] = [];
    if (options.seed !== undefined) args.push('--seed', String(options.seed));
    for (const t of options.tokens ?? []) args.push('--token', t);
    if (options.latency) args.push('--latency', options.latency);
    for (const [name, model] of Object.entries(options.deployments ?? {})) args.push('--deployment', `${name}=${model}`);
    if (options.fixtures) {
      const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
      writeFileSync(join(dir, 'fixtures.json'), JSON.stringify(options.fixtures));
      args.push('--fixtures', dir);
    }
    const cli = await spawnCli(args);
    return {
      root: cli.url,
      requests: async () => ((await (await fetch(`${cli.url}/__admin/requests`)).json()) as { requests: JournalEntry[] }).requests,
      stop: cli.stop,
    };
  },
};

/**
 * Whether SDK retries of error responses work: msw 2.x never settles `cancel()` on a mocked body
 * (mswjs/interceptors#799), and the openai and Anthropic SDKs cancel the error body before retrying.
 */
export const retriesWork = process.env.GATEWAY_TEST_MSW_MAJOR !== '2';

/** Socket-only suites run once, in the msw 3 project (the msw 2 project sets GATEWAY_TEST_INPROCESS_ONLY): the one test of it. */
export const socketSuites = !process.env.GATEWAY_TEST_INPROCESS_ONLY;

/** Both modes, or only in-process where the project runs the suite again under msw 2. */
export const modes: Mode[] = socketSuites ? [inProcess, socket] : [inProcess];

/**
 * Starts the gateway in `mode` for the enclosing describe block, with an openai client on it
 * (no retries); read `ctx.gw` and `ctx.client` inside tests.
 */
export function withGateway(mode: Mode, options?: StartOptions): { gw: Running; client: OpenAI } {
  const ctx = {} as { gw: Running; client: OpenAI };
  beforeAll(async () => {
    ctx.gw = await mode.start(options);
    ctx.client = new OpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1`, maxRetries: 0 });
  });
  afterAll(() => ctx.gw.stop());
  return ctx;
}
