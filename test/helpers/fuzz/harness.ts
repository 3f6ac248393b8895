// Sending fuzzed requests in-process (msw's getResponse over the gateway's handlers) or over a socket,
// each under a hang detector, and a probe that keeps asking /__admin/health (bench/ prints its latency;
// the suite only counts its answers: no test bounds time).
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { getResponse, RequestHandler } from 'msw';
import type { Answer } from './verdict.ts';
import type { FuzzRequest } from './requests.ts';

/**
 * Longest any one fuzzed request may take before it counts as a hang: far above anything normal, so a
 * busy machine never trips it. FUZZ_REQUEST_MS sets a tighter limit (bench:fuzz), and then the time a
 * synchronous request took is judged too.
 */
export const REQUEST_MS = Number(process.env.FUZZ_REQUEST_MS ?? 60_000);
const JUDGE_TOOK = process.env.FUZZ_REQUEST_MS !== undefined;

export class Hang extends Error {}

/**
 * A fuzz suite's settings from the environment: FUZZ_RUNS cases in-process (`defaultRuns` unset; a
 * quarter under msw 2, the second in-process project: enough to show it still holds), FUZZ_SOCKET_RUNS
 * over the socket (half), FUZZ_SEED, and FUZZ_PROPERTY_MS: set, a property that runs longer (cases and
 * shrinking) fails; unset, every case runs however busy the machine (each wait has its own hang
 * detector) and the test's `timeout` is only there to end a run that hangs.
 */
export function fuzzSettings(defaultRuns: number) {
  const runs = Number(process.env.FUZZ_RUNS ?? defaultRuns) / (process.env.GATEWAY_TEST_MSW_MAJOR === '2' ? 4 : 1);
  const propertyMs = process.env.FUZZ_PROPERTY_MS === undefined ? undefined : Number(process.env.FUZZ_PROPERTY_MS);
  return {
    runs,
    socketRuns: Number(process.env.FUZZ_SOCKET_RUNS ?? Math.ceil(runs / 2)),
    seed: process.env.FUZZ_SEED === undefined ? 20261123 : Number(process.env.FUZZ_SEED),
    plugins: propertyMs === undefined ? [] : [fc.interruptAfterTimeLimit(propertyMs, { failOnInterrupt: true })],
    timeout: (propertyMs ?? 1_800_000) + 60_000,
  };
}

function bodyOf(r: FuzzRequest): BodyInit | undefined {
  if (r.body === undefined || r.method === 'GET' || r.method === 'HEAD') return undefined;
  return typeof r.body === 'string' ? r.body : new Uint8Array(r.body);
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  try {
    const result = await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Hang(`${what}: no answer within ${ms} ms`)), ms))),
    ]);
    // Synchronous work blocks the timer itself: judge the time taken too (by hand, in bench:fuzz).
    const took = performance.now() - started;
    if (JUDGE_TOOK && took > ms) throw new Hang(`${what}: took ${took.toFixed(0)} ms (limit ${ms} ms)`);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the fetch Request; undefined when fetch itself refuses the method or headers (nothing to test). */
function requestOf(r: FuzzRequest, root: string, signal?: AbortSignal): Request | undefined {
  try {
    return new Request(new URL(r.path, root), {
      method: r.method,
      headers: r.headers,
      body: bodyOf(r),
      signal,
      duplex: 'half',
    } as RequestInit);
  } catch {
    return undefined;
  }
}

async function answerOf(res: Response): Promise<Answer> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: new TextDecoder().decode(bytes), bytes };
}

/** In-process: undefined when no handler takes the request (msw's unhandled-request policy decides then). */
/** Answers `r` with the HTTP handlers among `handlers` (the WebSocket link has no part in it). */
export async function sendInProcess(handlers: readonly unknown[], r: FuzzRequest, ms = REQUEST_MS): Promise<Answer | undefined> {
  const http = handlers.filter((h): h is RequestHandler => h instanceof RequestHandler);
  const req = requestOf(r, 'https://gateway.test');
  if (!req) return undefined;
  return withTimeout(
    (async () => {
      let res: Response | undefined;
      try {
        res = await getResponse(http, req);
      } catch (error) {
        // msw 2's own path matcher throws on malformed percent-encoding (`/v1beta/models/%E0%A4%A:…`)
        // before any handler of ours runs; msw 3 and the socket answer it. Not ours to judge.
        if (error instanceof URIError && process.env.GATEWAY_TEST_MSW_MAJOR === '2') return undefined;
        throw error;
      }
      return res && answerOf(res);
    })(),
    ms,
    'in-process request',
  );
}

/** Over the socket; undefined when fetch refuses to send the request as generated. */
export async function sendSocket(root: string, r: FuzzRequest, ms = REQUEST_MS): Promise<Answer | undefined> {
  const signal = AbortSignal.timeout(ms);
  const req = requestOf(r, root, signal);
  if (!req) return undefined;
  try {
    return await withTimeout(fetch(req).then(answerOf), ms + 500, 'socket request');
  } catch (error) {
    if (signal.aborted) throw new Hang(`socket request: no complete answer within ${ms} ms`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`socket request failed: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
  }
}

export interface ProbeStats {
  count: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

export function percentile(sorted: readonly number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
}

// The probe runs in a worker thread, so that the fuzzing client's own work (generating cases,
// parsing replies) does not count as the server's latency.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies = [];
let failures = 0;
let running = true;
parentPort.on('message', () => { running = false; });
const once = () => new Promise((resolve) => {
  const started = performance.now();
  const done = (ok) => { if (!ok) failures++; latencies.push(performance.now() - started); resolve(); };
  const { url, method, headers, body } = workerData.target;
  const req = http.request(url, { agent, method, headers, timeout: 60000 }, (res) => {
    res.resume();
    res.once('end', () => done(res.statusCode === 200));
  });
  req.once('timeout', () => req.destroy(new Error('timeout')));
  req.once('error', () => done(false));
  req.end(body);
});
(async () => {
  while (running) {
    await once();
    await new Promise((r) => setTimeout(r, workerData.everyMs));
  }
  agent.destroy();
  parentPort.postMessage({ latencies, failures });
})();
`;

export interface ProbeTarget {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends `target` again and again on its own connection, from its own thread, `everyMs` apart, until stopped; a 200 counts as success. */
export function latencyProbe(target: ProbeTarget, everyMs = 10): { stop(): Promise<ProbeStats> } {
  const worker = new Worker(PROBE, { eval: true, workerData: { target, everyMs } });
  const result = new Promise<{ latencies: number[]; failures: number }>((resolve) => worker.once('message', resolve));
  let stats: Promise<ProbeStats> | undefined;
  return {
    stop() {
      stats ??= (async () => {
        worker.postMessage('stop');
        const { latencies, failures } = await result;
        await worker.terminate();
        const sorted = [...latencies].sort((a, b) => a - b);
        return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0, failures };
      })();
      return stats;
    },
  };
}

/** Polls GET /__admin/health. */
export const healthProbe = (root: string, everyMs = 10) => latencyProbe({ url: `${root}/__admin/health` }, everyMs);

export const formatStats = (s: ProbeStats) =>
  `${s.count} probes, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${s.failures} failed`;
