// Delays proved without a clock: in-process, in virtual time (vitest's fake timers, moved only by the
// test); over a socket, by order (a held answer is still unanswered after another one completed).
import { vi } from 'vitest';

// Taken before any test fakes the timers: polling waits in real time.
const realSetTimeout = globalThis.setTimeout;

/**
 * Runs `body` with setTimeout, clearTimeout and performance.now() faked (what the gateway's waits and
 * its event playback read), so that time passes only through `advance`.
 */
export async function inVirtualTime<T>(body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  try {
    return await body();
  } finally {
    vi.useRealTimers();
  }
}

/** Moves virtual time on by `ms`, running what falls due (and the promises that follows) on the way. */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

/** `promise`, with a flag saying whether it has settled yet. */
export function watch<T>(promise: Promise<T>): { promise: Promise<T>; readonly settled: boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/** Asks `check` again and again (real time, a little apart) until it gives a value; the test's timeout is the hang detector. */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => realSetTimeout(resolve, 10));
  }
}

/** The journal fields `heldWhileAnother` reads. */
interface Held {
  headers: Record<string, string>;
  status: number;
}

/**
 * Over a socket, by order: sends `held` (which must carry the header `x-test: held`), waits until the
 * gateway's journal (`requests`) has it, sends `other` and waits for its answer, then reads the held
 * request's entry and whether its answer has come, and aborts it (`held` gets the signal).
 */
export async function heldWhileAnother<E extends Held>(
  requests: () => Promise<E[]>,
  held: (signal: AbortSignal) => Promise<unknown>,
  other: () => Promise<unknown>,
): Promise<{ entry: E; answered: boolean }> {
  const controller = new AbortController();
  const reply = watch(held(controller.signal).catch(() => undefined));
  const isHeld = (r: E) => r.headers['x-test'] === 'held';
  await until(async () => (await requests()).find(isHeld));
  await other();
  const entry = (await requests()).find(isHeld)!;
  const answered = reply.settled;
  controller.abort();
  await reply.promise;
  return { entry, answered };
}
