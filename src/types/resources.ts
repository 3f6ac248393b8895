// The objects the gateway holds between requests, as `gateway.resources()` reports them (core/stores.ts holds them).

/** One object held: a file, a batch, a stored response... */
export interface HeldObject {
  id: string;
  /** The test whose request made it (`x-mock-test-id`); absent when it is shared. */
  test?: string;
  /** Its size as the store counts it toward its ceiling. */
  bytes: number;
  /** A few facts the pages show (a file's name and purpose, a batch's status...). */
  facts: Record<string, string | number | boolean | null>;
}

/** One store of objects, with its ceilings and what it holds. */
export interface HeldStoreReport {
  /** The store's name, e.g. `openai.files`. */
  name: string;
  /** What it holds, in words. */
  title: string;
  /** Objects held (in a test's report: that test's). */
  count: number;
  /** Bytes held (in a test's report: that test's). */
  bytes: number;
  /** The store's ceilings, for every test together. */
  maxCount: number;
  maxBytes: number;
  /** When full: the oldest objects make room (`drop-oldest`), or the service's error answers (`refuse`). */
  whenFull: 'drop-oldest' | 'refuse';
  /** The objects, oldest first. */
  objects: HeldObject[];
}
