// `model-gateway-mock verify`: re-sends each recorded request to the real service and reports, per
// fixture, where the live answer's shape has drifted from the recording (a CI check for stale fixtures).
import { parseArgs } from 'node:util';
import { loadFixtureDir } from '../fixtures/load.ts';
import type { Fixture } from '../types/fixtures.ts';
import { parseSse, type RecordedEvent } from '../pipeline/framing.ts';
import { upstreamUrl } from './recorder.ts';
import { rewrittenSearch } from '../auth/keys.ts';
import { FALLBACK_FORMAT, FORMATS } from '../formats/all.ts';
import { fixtureFolderProblem } from '../cli/checks.ts';

/** Each JSON path of `value` with its type (`[]` stands for any array element). */
function shapeOf(value: unknown, path = '$', out = new Map<string, string>()): Map<string, string> {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  out.set(path, type);
  if (Array.isArray(value)) for (const item of value) shapeOf(item, `${path}[]`, out);
  else if (type === 'object') for (const [k, v] of Object.entries(value as object)) shapeOf(v, `${path}.${k}`, out);
  return out;
}

/** How `live` differs in shape from `recorded`: fields added, removed, or of another type. */
function shapeDiff(recorded: Map<string, string>, live: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [path, type] of recorded) {
    const now = live.get(path);
    if (now === undefined) out.push(`removed ${path} (${type})`);
    else if (now !== type) out.push(`changed ${path}: ${type} → ${now}`);
  }
  for (const [path, type] of live) if (!recorded.has(path)) out.push(`added ${path} (${type})`);
  return out;
}

/** An event's type: its SSE name, else its payload's `type` or `object` field. */
function eventType(e: RecordedEvent): string {
  if (e.event) return e.event;
  try {
    const data = JSON.parse(e.data) as { type?: string; object?: string };
    return data.type ?? data.object ?? 'data';
  } catch {
    return e.data;
  }
}

function eventsShape(events: RecordedEvent[]): { types: Set<string>; shape: Map<string, string> } {
  const shape = new Map<string, string>();
  for (const e of events) {
    try {
      shapeOf(JSON.parse(e.data), `${eventType(e)}`, shape);
    } catch {
      // `[DONE]` and other non-JSON markers count by type only.
    }
  }
  return { types: new Set(events.map(eventType)), shape };
}

/** The upstream answered 401 or 403 where the recording has another status: the key, not the fixture, is at fault. */
class UpstreamRefused extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

/** How much of a refusal's body is quoted: enough for the vendor's message, never a whole page. */
const REFUSAL_QUOTE = 300;

/** The drift of one recorded fixture against the live service; [] when its shape still holds. Throws UpstreamRefused. */
export async function verifyFixture(fixture: Fixture, upstream: string, key: string | undefined): Promise<string[]> {
  const rec = fixture.recorded as
    | { method?: string; path?: string; query?: string; status?: number; request?: unknown; headers?: Record<string, string> }
    | undefined;
  const format = fixture.match?.format ?? FALLBACK_FORMAT.name;
  if (!rec?.path) return [];
  // Checked as record mode checks a path: a hand-edited `//host/…` never leaves the upstream.
  const url = upstreamUrl(upstream, new URL(`http://recorded${rec.path.startsWith('/') ? '' : '/'}${rec.path}`));
  // A recorded credential parameter (redacted, or in clear in a hand-written file) is never sent on:
  // the key goes in the format's header.
  if (rec.query) url.search = rewrittenSearch(new URL(`http://q/?${rec.query}`), () => undefined);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'accept-encoding': 'identity',
    ...rec.headers,
    ...(key ? FORMATS[format].credentialHeaders(key) : {}),
  };
  const response = await fetch(url, {
    method: rec.method ?? 'POST',
    headers,
    body: rec.request === undefined ? undefined : JSON.stringify(rec.request),
  });
  const text = await response.text();
  const expected = fixture.error?.status ?? rec.status ?? 200;
  if ((response.status === 401 || response.status === 403) && response.status !== expected) {
    throw new UpstreamRefused(
      response.status,
      `${rec.method ?? 'POST'} ${rec.path} answered ${response.status}: ${text.slice(0, REFUSAL_QUOTE).trim()}`,
    );
  }
  if (fixture.error) return response.status === fixture.error.status ? [] : [`status ${fixture.error.status} → ${response.status}`];
  if (response.status !== (rec.status ?? 200)) return [`status ${rec.status ?? 200} → ${response.status}`];
  const raw = fixture.raw?.[format];
  const events = (raw as { events?: RecordedEvent[] } | undefined)?.events;
  if (Array.isArray(events)) {
    const before = eventsShape(events);
    const now = eventsShape(parseSse(text));
    const out: string[] = [];
    for (const t of before.types) if (!now.types.has(t)) out.push(`stream event type missing: ${t}`);
    for (const t of now.types) if (!before.types.has(t)) out.push(`stream event type added: ${t}`);
    return [...out, ...shapeDiff(before.shape, now.shape)];
  }
  let live: unknown;
  try {
    live = JSON.parse(text);
  } catch {
    return ['the live answer is not JSON'];
  }
  return shapeDiff(shapeOf(raw), shapeOf(live));
}

const USAGE = `Usage: model-gateway-mock verify --fixtures <dir> --upstream <url> [--api-key <key>]
  Re-sends each recorded request and reports where the live answer's shape differs.
  The key may also come from MGM_UPSTREAM_API_KEY.
  Exit: 0 clean, 1 drift, 2 usage error, 3 the upstream refused the credentials (401/403).
`;

/** Exit code when the upstream answers 401/403 where the recording has another status: a key problem, not drift. */
const REFUSED_EXIT = 3;

/** The verify command; resolves to the process exit code. */
export async function verifyMain(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { fixtures: { type: 'string' }, upstream: { type: 'string' }, 'api-key': { type: 'string' } },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const missing = [
    !values.fixtures && '--fixtures <dir> (the folder of recorded fixtures)',
    !values.upstream && '--upstream <url> (the real service to compare with)',
  ].filter(Boolean);
  const problem = missing.length
    ? `verify needs ${missing.join(' and ')}`
    : !URL.canParse(values.upstream!)
      ? `--upstream: not a URL: "${values.upstream}" (e.g. https://api.openai.com)`
      : fixtureFolderProblem('--fixtures', values.fixtures!);
  if (problem) {
    process.stderr.write(`model-gateway-mock: ${problem}\n${USAGE}`);
    return 2;
  }
  let fixtures: Fixture[];
  try {
    fixtures = loadFixtureDir(values.fixtures!);
  } catch (error) {
    process.stderr.write(`--fixtures: ${(error as Error).message}\n`);
    return 2;
  }
  const key = values['api-key'] ?? process.env.MGM_UPSTREAM_API_KEY;
  let drifted = 0;
  let checked = 0;
  for (const fixture of fixtures.filter((f) => f.recorded)) {
    checked++;
    let drift: string[];
    try {
      drift = await verifyFixture(fixture, values.upstream!, key);
    } catch (error) {
      if (!(error instanceof UpstreamRefused)) drift = [`request failed: ${(error as Error).message}`];
      else {
        // Every other fixture would be refused the same way: stop at the first, say what to set.
        const given =
          values['api-key'] !== undefined
            ? 'the key given with --api-key'
            : key
              ? 'the key in MGM_UPSTREAM_API_KEY'
              : 'no key (neither --api-key nor MGM_UPSTREAM_API_KEY is set)';
        process.stderr.write(
          `model-gateway-mock verify: the upstream refused the credentials (${error.status}) for "${fixture.name}"; verification stopped, no drift reported.\n` +
            `  Sent ${given}. Set MGM_UPSTREAM_API_KEY (or pass --api-key <key>) to a key ${values.upstream} accepts.\n` +
            `  ${error.message}\n`,
        );
        return REFUSED_EXIT;
      }
    }
    if (!drift.length) continue;
    drifted++;
    process.stdout.write(`${fixture.name}: drifted\n${drift.map((d) => `  ${d}\n`).join('')}`);
  }
  process.stdout.write(`${checked} recorded fixture(s) checked, ${drifted} drifted\n`);
  return drifted ? 1 : 0;
}
