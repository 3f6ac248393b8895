// Large JPEG and WebP uploads are decoded, and large pictures drawn for edits and encoded to files,
// on worker threads under Node, so work that takes a good part of a second in one synchronous step
// does not stop the server answering others. At most two threads, started on first use, unref'd while
// idle (they never keep the process alive), given their input as a transferred (or copied) buffer and
// handing the result back the same way. Where threads are unavailable (the browser, a runtime without
// node:worker_threads, a bundle without the worker file) this answers undefined and the caller does
// the work on its own thread: the same code either way, so the same pixels and the same bytes.
import { importNodeOnly, runsOnNode } from '../node-only.ts';
import { IMAGE_WORK_LIMITS } from './image-work.ts';
import { OWN_ROOT, ownModule } from '../../own.ts';
import type { ImageFormat, PictureOptions, RgbaImage } from './image-types.ts';

type Worker = import('node:worker_threads').Worker;

/** What a thread decodes: a JPEG or WebP file, scaled to `into` when given. */
interface DecodeJob {
  kind: 'decode';
  format: 'jpeg' | 'webp';
  bytes: Uint8Array;
  into?: { width: number; height: number };
}

/** What a thread encodes: pixels (their own buffer) as a file of `format`. */
interface EncodeJob {
  kind: 'encode';
  image: RgbaImage;
  format: ImageFormat;
  quality: number;
}

/** What a thread draws: editPicture's arguments. */
interface EditJob {
  kind: 'edit';
  sources: RgbaImage[];
  prompt: string;
  width: number;
  height: number;
  key: number;
  mask?: RgbaImage;
  options: PictureOptions;
}

export type ThreadJob = DecodeJob | EncodeJob | EditJob;

/** Pixels as the thread hands them back (decode, edit), or the file's bytes (encode), or the error message. */
export type ThreadAnswer = { width: number; height: number; data: ArrayBuffer } | { bytes: ArrayBuffer } | { error: string };
type DecodeAnswer = Extract<ThreadAnswer, { data: ArrayBuffer } | { error: string }>;

/** The client left (or the gateway stopped) while its upload was being decoded: the thread was ended. */
export class DecodeAbandoned extends Error {
  constructor() {
    super('the image decode was abandoned: the client went away');
  }
}

/** Threads at most (each does one job at a time): the decode gate's width. */
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

/** Counts of the pool, for tests: jobs running now, the most ever at once, threads started and ended, jobs done by kind. */
export const imagePoolCounts = { running: 0, peak: 0, started: 0, ended: 0, decode: 0, encode: 0, edit: 0 };

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

/** The worker script: .ts when run from the sources (Node strips the types), .js when built (see own.ts). */
const scriptUrl = () => new URL(ownModule('core/synthesize/image-thread'), OWN_ROOT);

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

/** Waits for one of the MAX_THREADS turns (the decode gate already holds decodes to two; this holds every caller). */
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
export async function decodeOnThread(job: Omit<DecodeJob, 'kind'>, signal?: AbortSignal): Promise<DecodeAnswer | undefined> {
  // The file copied once into a buffer of its own, which is moved (not copied again) to the thread: an
  // upload is a view of the whole request body, which must stay whole (Buffer's slice would not copy).
  const bytes = new Uint8Array(job.bytes);
  return (await onThread({ kind: 'decode', format: job.format, bytes, into: job.into }, [bytes.buffer], signal)) as
    | DecodeAnswer
    | undefined;
}

/** Pixels given to a thread: their own buffer moved when `handOver` (the caller is done with it), else a copy of them moved. */
function pixelsFor(image: RgbaImage, handOver: boolean): RgbaImage {
  const { data } = image;
  const own = handOver && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
  return { width: image.width, height: image.height, data: own ? data : data.slice() };
}

/** `image` encoded as a file on a worker thread; undefined when threads are unavailable (encode on this thread then). */
export async function encodeOnThread(
  image: RgbaImage,
  format: ImageFormat,
  quality: number,
  handOver = false,
): Promise<Uint8Array | undefined> {
  const moved = pixelsFor(image, handOver);
  const answer = await onThread({ kind: 'encode', image: moved, format, quality }, [moved.data.buffer as ArrayBuffer]);
  if (!answer) return undefined;
  if ('error' in answer) throw new Error(answer.error);
  return new Uint8Array((answer as { bytes: ArrayBuffer }).bytes);
}

/** An edit drawn on a worker thread (the sources and mask copied to it); undefined when threads are unavailable. */
export async function editOnThread(job: Omit<EditJob, 'kind'>): Promise<RgbaImage | undefined> {
  const sources = job.sources.map((s) => pixelsFor(s, false));
  const mask = job.mask && pixelsFor(job.mask, false);
  const transfer = [...sources, ...(mask ? [mask] : [])].map((s) => s.data.buffer as ArrayBuffer);
  const answer = await onThread({ ...job, kind: 'edit', sources, mask }, transfer);
  if (!answer) return undefined;
  if ('error' in answer) throw new Error(answer.error);
  const { width, height, data } = answer as { width: number; height: number; data: ArrayBuffer };
  return { width, height, data: new Uint8ClampedArray(data) };
}

/** `job` run on a worker thread, its `transfer` buffers moved there; undefined when threads are unavailable. */
async function onThread(job: ThreadJob, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<ThreadAnswer | undefined> {
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
      const answer = await run(thread, job, transfer, signal);
      if (answer) imagePoolCounts[job.kind]++;
      return answer;
    } finally {
      imagePoolCounts.running--;
    }
  } finally {
    release();
  }
}

function run(thread: Thread, job: ThreadJob, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<ThreadAnswer | undefined> {
  const { worker } = thread;
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
    const onMessage = (answer: ThreadAnswer) => {
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
    worker.postMessage(job, transfer);
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
