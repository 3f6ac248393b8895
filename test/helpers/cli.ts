// Spawns the built CLI (what `npx model-gateway-mock` runs) on a dynamic port of 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/model-gateway-mock.js', import.meta.url));

export interface Spawned {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `env` adds to (or, with undefined, removes from) the test's own environment. */
const envOf = (env: Record<string, string | undefined> = {}) =>
  Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;

/** `where`: another copy of the CLI (an installed package's bin) and the folder it runs in. */
export function spawnCli(
  args: string[] = [],
  env?: Record<string, string | undefined>,
  where: { bin?: string; cwd?: string } = {},
): Promise<Spawned> {
  const child = spawn(process.execPath, [where.bin ?? BIN, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: envOf(env),
    cwd: where.cwd,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    // A hang detector only: start-up on a busy machine takes seconds, never a minute.
    const timer = setTimeout(() => reject(new Error(`CLI did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child, output: () => out, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited with ${code}:\n${out}`));
    });
  });
}

/** Runs the CLI to completion (for --help and bad flags). */
export function runCli(args: string[], env?: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: envOf(env) });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** A port on 127.0.0.1 that was free a moment ago, for a process that must be told its port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
