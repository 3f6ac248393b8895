// Long, input-driven work in slices: between slices the event loop serves everyone else, so one big
// batch (2048 embedding inputs) never stalls other clients. Output does not depend on the slicing.

/** Busy time after which a loop lets the event loop run. */
const SLICE_MS = 8;

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** `items.map(fn)`, pausing for a macrotask whenever a slice of SLICE_MS has been spent. */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    out.push(fn(items[i], i));
    if (performance.now() - sliceStart > SLICE_MS && i + 1 < items.length) {
      await macrotask();
      sliceStart = performance.now();
    }
  }
  return out;
}
