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
