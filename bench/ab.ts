// A/B of the hot path: this tree's build against a base ref's, built in a temporary worktree. Both
// servers run at once and are loaded in turn (A B, then B A, ...), so the machine's drift falls on both
// alike; each round gives a pair of figures, and the ratio is taken pair by pair. The figure is the
// server's CPU time per request (user + system, from /proc), which a busy neighbour moves far less
// than the rate. It also says whether both builds send the same bytes for the benchmark request.
// Usage: npm run bench:ab -- <base-ref> [--rounds 6 --seconds 4 --connections 32]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { start, type Running } from './spawn.ts';
import { chatBody, HEADERS, load } from './load.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '32' },
  },
});
const base = positionals[0];
if (!base) {
  console.error('usage: npm run bench:ab -- <base-ref> [--rounds 6 --seconds 4 --connections 32]');
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const root = fileURLToPath(new URL('..', import.meta.url));
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

const commit = git('rev-parse', '--verify', `${base}^{commit}`);
const dir = mkdtempSync(join(tmpdir(), 'mgm-ab-'));
git('worktree', 'add', '--detach', dir, commit);
const servers: Running[] = [];
try {
  // The base runs with this tree's installed packages: a base whose lock file differs is measured
  // against today's dependencies (say so when quoting the figure).
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['scripts/build.ts'], { cwd: dir, stdio: 'inherit' });
  if (!existsSync(join(dir, 'dist/src/cli.js'))) throw new Error(`the base ${base} did not build`);
  // The default limit of a million requests a window never ends under the fixed clock: eight rounds at
  // rest pass it. A higher one keeps the limits' work on the path and every request answered.
  const flags = ['--port', '0', '--rpm', '1000000000'];
  const head = await start([join(root, 'bin/model-gateway-mock.js'), ...flags]);
  servers.push(head);
  const old = await start([join(dir, 'bin/model-gateway-mock.js'), ...flags]);
  servers.push(old);

  const reply = async (server: Running, stream: boolean) =>
    (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: HEADERS, body: chatBody(stream) })).text();
  const same = [false, true].map(async (stream) => (await reply(head, stream)) === (await reply(old, stream)));
  const [sameJson, sameSse] = await Promise.all(same);

  const figures = { json: { head: [] as number[], base: [] as number[] }, sse: { head: [] as number[], base: [] as number[] } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const stream of [false, true]) {
      const order: ['head' | 'base', Running][] = [
        ['head', head],
        ['base', old],
      ];
      if (round % 2) order.reverse();
      for (const [name, server] of order)
        figures[stream ? 'sse' : 'json'][name].push((await load(server, stream, SECONDS, CONNECTIONS)).cpuUs);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const spread = (xs: number[]) => `${median(xs).toFixed(1)} µs (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  console.log(
    `bench:ab, head ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : ''} against ${base} (${commit.slice(0, 7)}); ` +
      `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections`,
  );
  for (const kind of ['json', 'sse'] as const) {
    const f = figures[kind];
    const ratios = f.head.map((h, i) => h / f.base[i]);
    const sameBytes = kind === 'json' ? sameJson : sameSse;
    console.log(
      `chat ${kind.toUpperCase()}: CPU per request head ${spread(f.head)} | base ${spread(f.base)} | head/base ${median(ratios).toFixed(3)}x ` +
        `(pairs ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}); replies ${sameBytes ? 'byte-identical' : 'DIFFER'}`,
    );
  }
} finally {
  for (const s of servers) s.child.kill();
  git('worktree', 'remove', '--force', dir);
  rmSync(dir, { recursive: true, force: true });
}
