// Preloaded into a CLI process (node --import) by test/cli.test.ts: the process sends itself SIGTERM at
// the point MGM_TEST_SIGNAL_AT names, so a signal arrives exactly there, whatever the machine's load:
//   load    the moment the CLI's own module (dist/src/cli.bundle.js) is loaded, before any of it runs;
//   listen  the moment the server asks to listen (before it could answer anything);
//   banner  the moment the first output is written (when a supervisor can first learn the server is up).
// A signal sent to the process itself is delivered before kill() returns: with no handler installed by
// then the process ends by the signal (exit code null), as it would for `docker stop` at that moment.
import { registerHooks } from 'node:module';
import { Server } from 'node:net';

const at = process.env.MGM_TEST_SIGNAL_AT;
const signal = () => process.kill(process.pid, 'SIGTERM');

if (at === 'load') {
  registerHooks({
    load(url, context, next) {
      if (url.endsWith('/dist/src/cli.bundle.js')) signal();
      return next(url, context);
    },
  });
} else if (at === 'listen') {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const out = (listen as (...a: unknown[]) => Server).apply(this, args);
    signal();
    return out;
  } as typeof listen;
} else if (at === 'banner') {
  const write = process.stdout.write.bind(process.stdout) as (...a: unknown[]) => boolean;
  let sent = false;
  process.stdout.write = ((...args: unknown[]) => {
    const out = write(...args);
    if (!sent) {
      sent = true;
      signal();
    }
    return out;
  }) as typeof process.stdout.write;
}
