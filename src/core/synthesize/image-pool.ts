// Large JPEG and WebP uploads are decoded on worker threads under Node, so a decode that takes seconds
// in one synchronous step does not stop the server answering others. At most two threads, started on
// the first large upload, unref'd while idle (they never keep the process alive), given the file as a
// transferred buffer and handing the pixels back the same way. Where threads are unavailable (the
// browser, a runtime without node:worker_threads, a bundle without the worker file) this answers
// undefined and the caller decodes on its own thread: the same code either way, so the same pixels.
import { importNodeOnly, runsOnNode } from '../node-only.ts';
import { IMAGE_WORK_LIMITS } from './image-work.ts';

type Worker = import('node:worker_threads').Worker;

/** What a thread decodes: a JPEG or WebP file, scaled to `into` when given. */
export interface DecodeJob {
  format: 'jpeg' | 'webp';
  bytes: Uint8Array;
  into?: { width: number; height: number };
}

/** The decoded pixels as the thread hands them back, or the decoder's error message. */
export type DecodeAnswer = { width: number; height: number; data: ArrayBuffer } | { error: string };

/** The client left (or the gateway stopped) while its upload was being decoded: the thread was ended. */
export class DecodeAbandoned extends Error {
  constructor() {
    super('the image decode was abandoned: the client went away');
  }
}

/** Threads at most (each decodes one upload at a time): the decode gate's width. */
const MAX_THREADS = IMAGE_WORK_LIMITS.concurrent;

interface Thread {
  worker: Worker;
  busy: boolean;
  /** Whether it ever answered: a thread that fails before that means threads do not work here. */
  answered: boolean;
}

const threads: Thread[] = [];
const queue: (() => void)[] = [];
let inFlight = 0;
let workerClass: Promise<typeof import('node:worker_threads').Worker | undefined> | undefined;
let enabled = true;

/** Counts of the pool, for tests: decodes running now, the most ever at once, threads started and ended. */
export const imagePoolCounts = { running: 0, peak: 0, started: 0, ended: 0 };

/** Turns threads off (decodes then run on the caller's thread) or back on; for tests comparing the two. */
export function useImageThreads(on: boolean): void {
  enabled = on;
}

function loadWorkerClass() {
  return (workerClass ??= runsOnNode()
    ? importNodeOnly<typeof import('node:worker_threads')>('node:worker_threads').then(
        (m) => m.Worker,
        () => undefined,
      )
    : Promise.resolve(undefined));
}

/** The worker script beside this module: .ts when run from the sources (Node strips the types), .js when built. */
const scriptUrl = () => new URL(import.meta.url.endsWith('.ts') ? './image-thread.ts' : './image-thread.js', import.meta.url);

function spawn(WorkerClass: typeof import('node:worker_threads').Worker): Thread {
  const thread: Thread = { worker: new WorkerClass(scriptUrl()), busy: false, answered: false };
  thread.worker.unref();
  // A thread that ends (crash, terminate) leaves the pool; the next large upload starts another.
  thread.worker.once('exit', () => {
    imagePoolCounts.ended++;
    const at = threads.indexOf(thread);
    if (at >= 0) threads.splice(at, 1);
  });
  imagePoolCounts.started++;
  threads.push(thread);
  return thread;
}

/** Waits for one of the MAX_THREADS turns (the decode gate already holds requests to two; this holds every caller). */
async function turn(): Promise<void> {
  if (inFlight >= MAX_THREADS) await new Promise<void>((resolve) => queue.push(resolve));
  else inFlight++;
}

function release(): void {
  const next = queue.shift();
  if (next) next();
  else inFlight--;
}

/**
 * `job` decoded on a worker thread; undefined when threads are unavailable (decode on this thread then).
 * When `signal` aborts, the thread is terminated mid-decode and this throws DecodeAbandoned.
 */
export async function decodeOnThread(job: DecodeJob, signal?: AbortSignal): Promise<DecodeAnswer | undefined> {
  if (!enabled) return undefined;
  const WorkerClass = await loadWorkerClass();
  if (!WorkerClass) return undefined;
  await turn();
  try {
    if (signal?.aborted) throw new DecodeAbandoned();
    let thread = threads.find((t) => !t.busy);
    try {
      thread ??= spawn(WorkerClass);
    } catch {
      workerClass = Promise.resolve(undefined);
      return undefined;
    }
    imagePoolCounts.peak = Math.max(imagePoolCounts.peak, ++imagePoolCounts.running);
    try {
      return await run(thread, job, signal);
    } finally {
      imagePoolCounts.running--;
    }
  } finally {
    release();
  }
}

function run(thread: Thread, job: DecodeJob, signal?: AbortSignal): Promise<DecodeAnswer | undefined> {
  const { worker } = thread;
  // The file copied once into a buffer of its own, which is moved (not copied again) to the thread: an
  // upload is a view of the whole request body, which must stay whole (Buffer's slice would not copy).
  const bytes = new Uint8Array(job.bytes);
  thread.busy = true;
  // Held while it works: a script awaiting a decode must not exit under it.
  worker.ref();
  return new Promise((resolve, reject) => {
    const settle = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      thread.busy = false;
      worker.unref();
    };
    const onMessage = (answer: DecodeAnswer) => {
      settle();
      thread.answered = true;
      resolve(answer);
    };
    const failed = (error: Error) => {
      settle();
      void worker.terminate();
      if (thread.answered) return reject(error);
      // It never worked (no worker file beside this module, a runtime that refuses it): decode here.
      workerClass = Promise.resolve(undefined);
      resolve(undefined);
    };
    const onError = (error: Error) => failed(error);
    const onExit = (code: number) => failed(new Error(`the decoding thread exited (code ${code})`));
    const onAbort = () => {
      settle();
      void worker.terminate();
      reject(new DecodeAbandoned());
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ format: job.format, bytes, into: job.into }, [bytes.buffer]);
  });
}

/** Ends the idle threads now and the busy ones as their decode finishes (a gateway closing; others start afresh on demand). */
export function stopImageThreads(): void {
  for (const thread of [...threads]) {
    threads.splice(threads.indexOf(thread), 1);
    if (!thread.busy) void thread.worker.terminate();
    else thread.worker.once('message', () => void thread.worker.terminate());
  }
}
