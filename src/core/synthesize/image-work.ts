// What decoding uploaded pictures may cost: each request counts its work where it happens, against
// ceilings, and a gate lets only a few uploads be decoded at once across all requests, so several
// large uploads together queue for their turn instead of adding up in memory.

/** Ceilings of one request's image decoding. */
export const IMAGE_WORK_LIMITS = {
  /** Pixels decoded from all of a request's uploads: sixteen pictures of 4096×4096. */
  pixels: 16 * 4096 * 4096,
  /** Bytes inflated from all of a request's PNG uploads: sixteen 4096×4096 16-bit RGBA pictures (the most PNG can declare within the pixel limit). */
  bytes: 16 * 4096 * (1 + 4096 * 8),
  /** Uploads decoded at once across all requests; the rest wait their turn. */
  concurrent: 2,
  /** Requests that may wait for that turn; past it a request is refused (429), not queued. */
  waiting: 64,
};

type WorkKind = 'pixels' | 'bytes';

/** A request's image work passed a ceiling. */
export class ImageWorkExceeded extends RangeError {
  readonly kind: WorkKind;
  readonly limit: number;
  constructor(kind: WorkKind, limit: number, detail = '') {
    super(
      (kind === 'pixels'
        ? `the uploads decode to more than ${limit} pixels in all, the limit of one request`
        : `the uploads inflate to more than ${limit} bytes in all, the limit of one request`) + detail,
    );
    this.kind = kind;
    this.limit = limit;
  }
}

/** One request's counted image work. */
export class ImageWork {
  readonly done: Record<WorkKind, number> = { pixels: 0, bytes: 0 };
  readonly limits: Record<WorkKind, number>;
  constructor(limits: Record<WorkKind, number> = IMAGE_WORK_LIMITS) {
    this.limits = limits;
  }

  /** Counts `amount` of work; throws ImageWorkExceeded, before it is done, when that passes the ceiling. */
  spend(kind: WorkKind, amount: number, detail?: string): void {
    if (this.done[kind] + amount > this.limits[kind]) throw new ImageWorkExceeded(kind, this.limits[kind], detail);
    this.done[kind] += amount;
  }
}

/** The gate is full and so is its queue. */
export class ImageQueueFull extends Error {}

/** At most `concurrent` holders at once; the others wait in order, at most `waiting` of them. */
export class Gate {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  private readonly concurrent: number;
  private readonly waiting: number;
  constructor(concurrent: number, waiting: number) {
    this.concurrent = concurrent;
    this.waiting = waiting;
  }

  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  /** Runs `fn` when its turn comes; throws ImageQueueFull at once when too many are already waiting. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrent) {
      if (this.queue.length >= this.waiting) throw new ImageQueueFull();
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.running++;
    try {
      return await fn();
    } finally {
      // The turn passes straight to the next in line (running stays the same), or is given back.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The one gate for decoding uploads, shared by every gateway in the process (they share its cores). */
export const imageDecodeGate = new Gate(IMAGE_WORK_LIMITS.concurrent, IMAGE_WORK_LIMITS.waiting);
