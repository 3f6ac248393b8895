// The standalone entry point: `npx model-gateway-mock [options]`.
import { startLoopStats } from './cli/loop-stats.ts';
import { limitHeapGrowth } from './cli/heap-size.ts';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { fixtureFolderProblem } from './cli/checks.ts';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { startServer } from './server.ts';
import { runtimeOf } from './gateway.ts';
import { parseLatency } from './core/timing.ts';
import { LATEST_CLOCK_SECONDS } from './core/clock.ts';
import { checkPrices } from './core/prices.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_READER_TIMEOUT_MS, deploymentsOf, shippedCatalogue } from './runtime.ts';
import { DEFAULT_MAX_SOCKETS } from './pipeline/socket-sessions.ts';
import { handleStopSignals } from './shutdown.ts';
import { FixtureValidationError } from './fixtures/error.ts';
import pkg from '../package.json' with { type: 'json' };

const HELP = `model-gateway-mock ${pkg.version}: a deterministic emulator of an AI model gateway

Usage: model-gateway-mock [options]
       model-gateway-mock check --fixtures <dir>   (checks every fixture file, as CI's step before the tests)
       model-gateway-mock verify --fixtures <dir> --upstream <url> [--api-key <key>]   (drift check of recordings)

  --port <n>          port to listen on; 0 picks a free port (default 4010)
  --host <addr>       interface to bind (default 127.0.0.1); beyond loopback, /__admin and the
                      console pages need the admin token from other machines
  --admin-token <t>   the control plane's admin token (generated and printed when --host is not loopback)
  --seed <n>          seed of every synthesized value (default 0)
  --token <token>     an issued token; repeat for several (default: one token, sk-test)
  --fixtures <dir>    load fixtures from the *.json, *.yaml and *.yml files in <dir>
                      (POST /__admin/fixtures/reload reads them again)
  --watch             read --fixtures again whenever a file of it changes (a bad file is reported,
                      and the fixtures in force stay)
  --latency <spec>    latency profile, e.g. "ttft=250,tps=40,jitter=0.2" (default: instant)
  --clock <c>         timestamps: fixed (default, 2026-01-01T00:00:00Z), real, or Unix seconds
  --max-body <bytes>  largest accepted request body (default ${DEFAULT_MAX_BODY_BYTES})
  --reader-timeout <ms>  drop a client that takes nothing of a waiting answer (a stream, a big body, a
                      realtime socket) for this long; 0 never drops one (default ${DEFAULT_READER_TIMEOUT_MS})
  --max-sockets <n>   socket sessions open at once, realtime, Live and Responses sockets together; one
                      more is refused as the service refuses it (default ${DEFAULT_MAX_SOCKETS})
  --tls               serve HTTPS and WSS (needed by the openai SDK's realtime client) with a
                      self-signed certificate generated at start; its path is printed
  --tls-cert <file>   serve TLS with this PEM certificate (with --tls-key)
  --tls-key <file>    the PEM private key of --tls-cert
  --model <name=base> serve your own model name (a gateway alias or deployment) as a model id or a
                      family (e.g. my-gpt=gpt-4o, team-fast=claude-haiku); repeatable
  --deployment <name=model>  answer a cloud's own model name (an Azure OpenAI deployment, a Vertex
                      AI or Bedrock model id) as a model of the catalogue (e.g.
                      prod-chat=gpt-4o-mini); a deployment named for a model needs none; repeatable
  --strict            answer only from fixtures: an unmatched request gets 404 with a near-miss report
  --strict-params     refuse request parameters the gateway does not know with the vendor's 400
                      (by default they are accepted, journaled and named in x-mock-warning)
  --strict-models     serve only the catalogue's model ids and --model aliases (no names resolved by family)
  --record <dir>      record mode: forward what no fixture matches upstream, save each answer as a fixture in <dir>
  --upstream <url>    the real service for record mode (all formats); per format: --upstream-openai,
                      --upstream-anthropic, --upstream-gemini, --upstream-bedrock <url> (Bedrock's requests
                      are signed anew with the AWS credentials in the environment)
  --redact-path <p>   a JSON path of request bodies (e.g. user, metadata.user_id) never written (repeatable)
  --record-max-bytes <n>  answers bigger than this pass through unrecorded (default 8388608)
  --rpm <n>           requests per minute every token may make, unless issued with its own (default 1000000)
  --tpm <n>           tokens (input and output) per minute every token may use (default 1000000000)
  --rate-window <s>   the rate limits' window in seconds (default 60); windows run on --clock, so under
                      the fixed clock one never passes (POST /__admin/reset restarts them)
  --prices <file>     a JSON price table (USD per million tokens, by model or family) over the shipped
                      catalog/prices.json; each journal entry's costUsd and GET /__admin/costs use it
  -h, --help          show this help
  -v, --version       show the version

Every option can be set in the environment instead: MGM_ and its name in capitals, dashes as
underscores (MGM_PORT=8080, MGM_ADMIN_TOKEN=..., MGM_UPSTREAM_OPENAI=...); a repeatable option takes
a comma-separated list (MGM_TOKEN=sk-a,sk-b), a switch 1/true or 0/false (MGM_STRICT=1). A flag wins
over its variable.

Memory: the server stops V8's young generation at about 32 MiB and lets its old generation grow by
100% between full collections; NODE_OPTIONS=--max-semi-space-size=<MiB> (half the young generation)
sizes the first your way, and a heap limit under 2 GiB (--max-old-space-size) leaves the second to V8.
`;

function fail(message: string): never {
  process.stderr.write(`model-gateway-mock: ${message}\n`);
  process.exit(2);
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'admin-token': { type: 'string' },
  seed: { type: 'string' },
  token: { type: 'string', multiple: true },
  fixtures: { type: 'string' },
  watch: { type: 'boolean' },
  latency: { type: 'string' },
  clock: { type: 'string' },
  'max-body': { type: 'string' },
  'reader-timeout': { type: 'string' },
  'max-sockets': { type: 'string' },
  model: { type: 'string', multiple: true },
  deployment: { type: 'string', multiple: true },
  strict: { type: 'boolean' },
  'strict-params': { type: 'boolean' },
  'strict-models': { type: 'boolean' },
  record: { type: 'string' },
  upstream: { type: 'string' },
  'upstream-openai': { type: 'string' },
  'upstream-anthropic': { type: 'string' },
  'upstream-gemini': { type: 'string' },
  'upstream-bedrock': { type: 'string' },
  'redact-path': { type: 'string', multiple: true },
  'record-max-bytes': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  'rate-window': { type: 'string' },
  prices: { type: 'string' },
  tls: { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Name = keyof typeof OPTIONS;
/** The variable that sets `--name`: MGM_ and the name in capitals, dashes as underscores. */
const envName = (name: string) => `MGM_${name.toUpperCase().replace(/-/g, '_')}`;
/** Where each value came from, so that a message names what the user actually set. */
const fromEnv = new Set<string>();
const source = (name: string) => (fromEnv.has(name) ? envName(name) : `--${name}`);

/** `values` with every option the command line left unset taken from its environment variable. */
function withEnv<V extends Record<string, unknown>>(values: V, env: NodeJS.ProcessEnv): V {
  const out: Record<string, unknown> = { ...values };
  for (const [name, spec] of Object.entries(OPTIONS) as [Name, (typeof OPTIONS)[Name]][]) {
    const raw = env[envName(name)];
    if (name === 'help' || name === 'version' || out[name] !== undefined || raw === undefined) continue;
    fromEnv.add(name);
    if (spec.type === 'boolean') {
      const flag = raw.trim().toLowerCase();
      if (!['1', 'true', '0', 'false', ''].includes(flag))
        fail(`${envName(name)} must be 1 or true (on) or 0 or false (off), got "${raw}"`);
      out[name] = flag === '1' || flag === 'true';
    } else if ('multiple' in spec) {
      out[name] = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    } else {
      out[name] = raw;
    }
  }
  return out as V;
}

/** A whole number from `min` up (to `max`, when given); `accepts` says what else the option takes. */
function integer(name: string, raw: string | undefined, min: number, max?: number, accepts = ''): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
    fail(
      `${source(name)} must be ${max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`}${accepts}, got "${raw}"`,
    );
  }
  return value;
}

/** The PEM text of `--name`'s file, checked with `parse` so that a bad file is named, not OpenSSL's words. */
function pemFile(name: string, path: string, what: string, parse: (pem: string) => unknown): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    fail(`${source(name)}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    parse(text);
  } catch (error) {
    fail(
      `${source(name)}: "${path}" is not a PEM ${what} (a file starting with "-----BEGIN ${what === 'certificate' ? 'CERTIFICATE' : 'PRIVATE KEY'}-----"): ${(error as Error).message}`,
    );
  }
  return text;
}

/**
 * What the started server prints: where it listens, its tokens, and every mode that changes its
 * answers (fixtures loaded, strict, strict params, record, TLS), so a run's log says how it was set up.
 */
function banner(
  server: Awaited<ReturnType<typeof startServer>>,
  on: {
    host?: string;
    fixtures?: string;
    watch?: boolean;
    strict?: boolean;
    strictParams?: boolean;
    strictModels?: boolean;
    record?: { dir: string; upstreams: Record<string, string | undefined> };
    tls: boolean;
    limited?: boolean;
    prices?: string;
  },
): string {
  const runtime = runtimeOf(server.gateway);
  const count = runtime.fixtures.list().length;
  const scenarios = runtime.fixtures.scenarios().length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const upstreams = on.record ? Object.entries(on.record.upstreams).filter((e): e is [string, string] => e[1] !== undefined) : [];
  return (
    `model-gateway-mock listening on ${server.url}\n` +
    (on.host === '0.0.0.0' || on.host === '::'
      ? `  on all interfaces (--host ${on.host}): other machines reach it at this machine's address, port ${server.port}\n`
      : '') +
    `  OpenAI-compatible base URL: ${server.url}/v1\n` +
    `  token: ${server.gateway.tokens
      .list()
      .map((t) => t.token)
      .join(', ')}\n` +
    `  health: ${server.url}/__admin/health\n` +
    `  fixtures: ${on.fixtures === undefined ? 'none loaded' : `${plural(count, 'fixture')} and ${plural(scenarios, 'scenario')} loaded from ${on.fixtures}${on.watch ? ', watched for changes' : ''}`}\n` +
    (on.strict ? '  strict: on (only fixtures answer; any other request gets 404 with the near-miss report)\n' : '') +
    (on.strictParams ? "  strict params: on (unknown request parameters get the vendor's 400)\n" : '') +
    (on.strictModels ? "  strict models: on (only the catalogue's ids and aliases; others get the vendor's 404)\n" : '') +
    (on.record
      ? `  record: on (what no fixture answers goes to ${upstreams.map(([format, url]) => (format === 'default' ? url : `${url} for ${format}`)).join(', ')}; answers written to ${on.record.dir})\n`
      : '') +
    (on.limited
      ? `  rate limits: ${runtime.rateLimits.rpm} requests and ${runtime.rateLimits.tpm} tokens per ${runtime.rateLimits.windowSeconds} s per token (on the ${typeof runtime.clock === 'number' ? 'fixed' : runtime.clock} clock)\n`
      : '') +
    (on.prices ? `  prices: ${on.prices} over the shipped table\n` : '') +
    (runtime.deployments.size
      ? `  deployments: ${[...runtime.deployments].map(([name, model]) => `${name} → ${model}`).join(', ')}\n`
      : '') +
    (on.tls ? `  TLS: on (https and wss, ${server.certPath ? 'a generated certificate' : 'your certificate'})\n` : '') +
    (server.certPath ? `  TLS certificate: ${server.certPath} (trust it, e.g. NODE_EXTRA_CA_CERTS=${server.certPath})\n` : '') +
    (server.adminToken ? `  admin token (needed for /__admin and the console from other machines): ${server.adminToken}\n` : '')
  );
}

async function main(): Promise<void> {
  if (process.argv[2] === 'verify') return process.exit(await (await import('./record/verify.ts')).verifyMain(process.argv.slice(3)));
  if (process.argv[2] === 'check') return process.exit((await import('./cli/check.ts')).checkMain(process.argv.slice(3)));
  // MGM_EVENT_LOOP_STATS=1: the event-loop delay, printed on SIGUSR2 and at exit (for the benches).
  startLoopStats();
  let values;
  try {
    ({ values } = parseArgs({ options: OPTIONS }));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`);
  }
  values = withEnv(values, process.env);
  if (values.help) return void process.stdout.write(HELP);
  if (values.version) return void process.stdout.write(`${pkg.version}\n`);
  // Before the server listens or anything is printed: a stop signal from then on finds its handler.
  const signals = handleStopSignals();
  limitHeapGrowth();

  let latency;
  try {
    latency = values.latency === undefined ? undefined : parseLatency(values.latency);
  } catch (error) {
    fail(`${source('latency')}: ${(error as Error).message}`);
  }
  const clock =
    values.clock === undefined || values.clock === 'fixed' || values.clock === 'real'
      ? values.clock
      : integer('clock', values.clock, 0, LATEST_CLOCK_SECONDS, ' (Unix seconds, up to 9999-12-31T23:59:59Z), fixed or real');
  const folder = values.fixtures === undefined ? undefined : fixtureFolderProblem(source('fixtures'), values.fixtures);
  if (folder) fail(folder);
  if (values.watch && values.fixtures === undefined) fail(`${source('watch')} needs --fixtures <dir>, the folder to follow`);

  let catalogue;
  try {
    catalogue = shippedCatalogue(values.model);
  } catch (error) {
    fail(`${source('model')}: ${(error as Error).message}`);
  }

  const deployments: Record<string, string> = {};
  for (const text of values.deployment ?? []) {
    const at = text.indexOf('=');
    const name = text.slice(0, at).trim();
    const model = text.slice(at + 1).trim();
    if (at < 0 || !name || !model) fail(`${source('deployment')}: "${text}" is not name=model (e.g. prod-chat=gpt-4o-mini)`);
    deployments[name] = model;
  }
  try {
    deploymentsOf(deployments, catalogue);
  } catch (error) {
    fail(`${source('deployment')}: ${(error as Error).message}`);
  }

  let prices;
  if (values.prices !== undefined) {
    try {
      prices = checkPrices(JSON.parse(readFileSync(values.prices, 'utf8')));
    } catch (error) {
      fail(`${source('prices')}: "${values.prices}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  const rateLimits = {
    rpm: integer('rpm', values.rpm, 1),
    tpm: integer('tpm', values.tpm, 1),
    windowSeconds: integer('rate-window', values['rate-window'], 1),
  };

  const upstreams = {
    default: values.upstream,
    openai: values['upstream-openai'],
    anthropic: values['upstream-anthropic'],
    gemini: values['upstream-gemini'],
    bedrock: values['upstream-bedrock'],
  };
  for (const [name, url] of Object.entries(upstreams)) {
    if (url !== undefined && !URL.canParse(url))
      fail(`${source(name === 'default' ? 'upstream' : `upstream-${name}`)}: not a URL: "${url}"`);
  }
  if (values.record === undefined && Object.values(upstreams).some((u) => u !== undefined)) fail('--upstream options need --record <dir>');
  if (values.record !== undefined && Object.values(upstreams).every((u) => u === undefined))
    fail('--record needs --upstream URL (or --upstream-openai, --upstream-anthropic, --upstream-gemini, --upstream-bedrock)');
  const record =
    values.record === undefined
      ? undefined
      : {
          dir: values.record,
          upstreams,
          redactPaths: values['redact-path'],
          maxBytes: integer('record-max-bytes', values['record-max-bytes'], 1),
        };

  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined))
    fail(
      `${source(values['tls-cert'] === undefined ? 'tls-key' : 'tls-cert')} needs ${source(values['tls-cert'] === undefined ? 'tls-cert' : 'tls-key')} too: a PEM certificate and its private key go together`,
    );
  let tls: boolean | { cert: string; key: string } | undefined = values.tls;
  if (values['tls-cert'] !== undefined) {
    tls = {
      cert: pemFile('tls-cert', values['tls-cert'], 'certificate', (pem) => new X509Certificate(pem)),
      key: pemFile('tls-key', values['tls-key']!, 'private key', (pem) => createPrivateKey(pem)),
    };
  }

  const server = await startServer({
    tls,
    port: integer('port', values.port, 0, 65535, ' (0 picks a free port)') ?? 4010,
    host: values.host,
    adminToken: values['admin-token'],
    seed: integer('seed', values.seed, 0),
    tokens: values.token,
    fixturesDir: values.fixtures,
    watch: values.watch,
    latency,
    clock: clock as 'fixed' | 'real' | number | undefined,
    maxBodyBytes: integer('max-body', values['max-body'], 1),
    readerTimeoutMs: integer('reader-timeout', values['reader-timeout'], 0, 2 ** 31 - 1, ' (milliseconds; 0 never drops a reader)'),
    maxSockets: integer('max-sockets', values['max-sockets'], 0),
    models: values.model,
    deployments,
    strict: values.strict,
    strictParams: values['strict-params'],
    strictModels: values['strict-models'],
    record,
    rateLimits,
    prices,
  }).catch((error: NodeJS.ErrnoException) =>
    fail(
      error instanceof FixtureValidationError
        ? `${source('fixtures')}: ${error.message}`
        : error.code === 'EADDRINUSE'
          ? `port ${values.port ?? 4010} is in use; pick another with --port (0 picks a free one)`
          : error.message,
    ),
  );

  // Stop accepting, end open streams, exit: within a second even with requests in flight; a second
  // signal exits at once.
  signals.closeWith(() => server.close());
  const limited = Object.values(rateLimits).some((v) => v !== undefined);
  process.stdout.write(
    banner(server, {
      host: values.host,
      fixtures: values.fixtures,
      watch: values.watch,
      strict: values.strict,
      strictParams: values['strict-params'],
      strictModels: values['strict-models'],
      record,
      tls: !!tls,
      limited,
      prices: values.prices,
    }),
  );
}

await main();
