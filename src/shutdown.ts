// How the CLI stops on SIGTERM/SIGINT: stop accepting and end streams, then exit; exit within the
// grace period whatever is still in flight; a second signal exits at once.

/** The grace period between the first signal and the forced exit. */
export const SHUTDOWN_GRACE_MS = 1000;

/**
 * The handler for stop signals. `close` stops the server (it may never settle while requests are
 * in flight); `exit` ends the process. Both exits are 0: the owner asked for the stop.
 */
export function stopOnSignal(
  close: () => Promise<void>,
  exit: (code: number) => void = (code) => process.exit(code),
  graceMs = SHUTDOWN_GRACE_MS,
): () => void {
  let stopping = false;
  return () => {
    if (stopping) return exit(0);
    stopping = true;
    // Unref'd: the timer forces the exit when something else keeps the process alive, and never
    // keeps it alive itself.
    setTimeout(() => exit(0), graceMs).unref();
    try {
      close().then(
        () => exit(0),
        () => exit(0),
      );
    } catch {
      exit(0);
    }
  };
}

/** The process's stop signals, handled from the moment handleStopSignals() is first called. */
interface StopSignals {
  /** What a stop closes from now on (until then a stop has nothing to close and exits at once). */
  closeWith(close: () => Promise<void>): void;
}

let handled: StopSignals | undefined;

/**
 * Handles SIGTERM and SIGINT from now on, before there is a server to close: a signal that arrives
 * while the CLI starts exits 0 at once, one that arrives later closes what closeWith() named. Without
 * a handler the signal's default action would end the process (exit code null), and a process that is
 * PID 1 (in a container) ignores it altogether, so `docker stop` would wait for its SIGKILL: the bin
 * calls this before it loads the CLI, and the CLI before it listens or prints anything. Idempotent.
 */
export function handleStopSignals(): StopSignals {
  if (handled) return handled;
  let close: () => Promise<void> = () => Promise.resolve();
  const stop = stopOnSignal(() => close());
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  handled = { closeWith: (c) => void (close = c) };
  return handled;
}
