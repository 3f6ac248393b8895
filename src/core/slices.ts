// Long, input-driven work in slices: between slices the event loop serves everyone else, so one big
// request never stalls other clients. Slices are COUNTED work (characters, vector components), never
// elapsed time: how many turns a big request gives the others depends on its size, not on how busy
// the machine is. Output never depends on the slicing.

/** Characters hashed, decoded, scanned or measured in one synchronous step. */
export const SLICE_CHARS = 64 * 1024;

/** Lets the event loop serve everyone else (I/O included) before going on. */
export const yieldToLoop: () => Promise<void> =
  typeof setImmediate === 'function'
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * `items.map(fn)`, letting the event loop run whenever the items done since the last pause weigh
 * `budget` or more by `weight` (a count of the work an item costs, e.g. its characters plus its
 * vector's components).
 */
export async function mapInSlices<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => R,
  weight: (item: T) => number,
  budget = SLICE_CHARS,
): Promise<R[]> {
  const out: R[] = [];
  let done = 0;
  for (let i = 0; i < items.length; i++) {
    out.push(fn(items[i], i));
    done += weight(items[i]);
    if (done >= budget && i + 1 < items.length) {
      await yieldToLoop();
      done = 0;
    }
  }
  return out;
}

/**
 * Work written as a generator that yields how much it has just done (in SLICE_CHARS' units), so one
 * definition runs both at once (`runAtOnce`) and in slices (`runInSlices`) to the same result.
 */
export type Steps<T> = Generator<number, T, void>;

export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

export async function runInSlices<T>(steps: Steps<T>, budget = SLICE_CHARS): Promise<T> {
  let done = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    done += next.value;
    if (done >= budget) {
      await yieldToLoop();
      done = 0;
    }
  }
}

/** `each(from, to)` over [0, length) a slice of `budget` at a time, with the event loop served between slices. */
export async function inSlices(length: number, each: (from: number, to: number) => void, budget = SLICE_CHARS): Promise<void> {
  for (let at = 0; at < length; at += budget) {
    if (at) await yieldToLoop();
    each(at, Math.min(length, at + budget));
  }
}
