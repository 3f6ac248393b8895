// A gateway with rate limits and prices set, in-process or over a socket, and the control-plane
// operations the limits and cost tests use, the same in both modes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import {
  createGateway,
  type CostReport,
  type Fixture,
  type IssuedToken,
  type JournalEntry,
  type PriceTable,
  type TokenScope,
} from '../../src/index.ts';
import { spawnCli } from './cli.ts';
import { strictListen } from './modes.ts';

export interface MeteredOptions {
  tokens?: string[];
  rpm?: number;
  tpm?: number;
  windowSeconds?: number;
  prices?: PriceTable;
  /** Fixtures in force from the start (JSON-able: the socket mode writes them to a --fixtures dir). */
  fixtures?: Fixture[];
}

export interface Metered {
  root: string;
  requests(): Promise<JournalEntry[]>;
  costs(): Promise<CostReport>;
  issue(scope: TokenScope & { token?: string }): Promise<IssuedToken>;
  advanceClock(seconds: number): Promise<number>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export type MeteredMode = 'in-process' | 'socket';

async function inProcess(o: MeteredOptions): Promise<Metered> {
  const gateway = createGateway({
    tokens: o.tokens,
    rateLimits: { rpm: o.rpm, tpm: o.tpm, windowSeconds: o.windowSeconds },
    prices: o.prices,
    fixtures: o.fixtures,
  });
  const server = setupServer(...gateway.handlers);
  strictListen(server);
  return {
    root: 'http://127.0.0.1:2',
    requests: async () => gateway.requests(),
    costs: async () => gateway.costs(),
    issue: async (scope) => gateway.tokens.issue(scope),
    advanceClock: async (seconds) => gateway.advanceClock(seconds),
    reset: async () => gateway.reset(),
    stop: async () => server.close(),
  };
}

async function overSocket(o: MeteredOptions): Promise<Metered> {
  const args: string[] = [];
  for (const t of o.tokens ?? []) args.push('--token', t);
  if (o.rpm !== undefined) args.push('--rpm', String(o.rpm));
  if (o.tpm !== undefined) args.push('--tpm', String(o.tpm));
  if (o.windowSeconds !== undefined) args.push('--rate-window', String(o.windowSeconds));
  if (o.prices) {
    const file = join(mkdtempSync(join(tmpdir(), 'mgm-prices-')), 'prices.json');
    writeFileSync(file, JSON.stringify(o.prices));
    args.push('--prices', file);
  }
  if (o.fixtures) {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-fixtures-'));
    writeFileSync(join(dir, 'fixtures.json'), JSON.stringify(o.fixtures));
    args.push('--fixtures', dir);
  }
  const cli = await spawnCli(args);
  const admin = async (path: string, init?: { method: string; body?: unknown }) => {
    const res = await fetch(
      `${cli.url}/__admin${path}`,
      init && { method: init.method, body: JSON.stringify(init.body ?? {}), headers: { 'content-type': 'application/json' } },
    );
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    root: cli.url,
    requests: async () => (await admin('/requests')).requests as JournalEntry[],
    costs: async () => (await admin('/costs')) as unknown as CostReport,
    issue: async (scope) => (await admin('/tokens', { method: 'POST', body: scope })) as unknown as IssuedToken,
    advanceClock: async (seconds) => (await admin('/clock', { method: 'POST', body: { advance: seconds } })).now as number,
    reset: async () => void (await admin('/reset', { method: 'POST' })),
    stop: cli.stop,
  };
}

export const startMetered = (mode: MeteredMode, options: MeteredOptions = {}): Promise<Metered> =>
  mode === 'socket' ? overSocket(options) : inProcess(options);
