// The control plane under /__admin (WireMock's vocabulary), served by express. Each route is one
// operation of the Gateway object, so in-process tests and standalone clients can do the same things.
import express, { type Request, type Response, type Router } from 'express';
import type { Gateway, GatewayTest, RequestFilter, RequestSummary } from '../api.ts';
import { FixtureLimitError, FixtureValidationError, fixturesOf } from '../fixtures/error.ts';
import { failureOf } from './errors.ts';
import type { FolderReload } from '../fixtures/folder.ts';

function filterOf(req: Request): RequestFilter {
  const q = req.query as Record<string, string | undefined>;
  return {
    method: q.method,
    path: q.path,
    model: q.model,
    format: q.format,
    dialect: q.dialect,
    status: q.status === undefined ? undefined : Number(q.status),
    fixture: q.fixture,
    unmatched: q.unmatched === undefined ? undefined : q.unmatched !== 'false',
    test: testOf(req),
  };
}

/** The `test` query parameter: one test's id (see scope.ts); a malformed one is a 400 (GatewayError). */
function testOf(req: Request): string | undefined {
  const test = req.query.test;
  if (test === undefined) return undefined;
  if (typeof test !== 'string') throw Object.assign(new Error('Give "test" once, as a test id.'), { status: 400 });
  return test;
}

/** What a route acts on: the gateway's shared state, or with `?test=<id>` that test's own. */
function viewOf(gateway: Gateway, req: Request): Gateway | GatewayTest {
  const test = testOf(req);
  return test === undefined ? gateway : gateway.forTest(test);
}

/** What changes while a request is in flight; an entry is sent again when this changes. */
const stateOf = (e: RequestSummary) => `${e.status} ${e.outcome} ${e.eventsSent} ${e.fault} ${e.durationMs}`;
const finished = (e: RequestSummary) => e.durationMs !== undefined;

/** How often the live feed looks at the journal: nothing is added to the API path to notify it. */
const FEED_TICK_MS = 250;
/** Followers of one gateway's live feed at once; past it a new one gets a 503 (a console tab is one). */
export const MAX_FEED_FOLLOWERS = 64;
/** Bytes a follower may leave unread before the feed skips it (what changed meanwhile goes once it reads). */
const FEED_HIGH_WATER_BYTES = 64 * 1024;

/** One follower of the live feed: where it is in the journal, and its response. */
interface Follower {
  res: Response;
  /** With ?test=<id>, the entries sent with that test id only. */
  test?: string;
  generation: number;
  /** The newest entry looked at (sent, or not its test's). */
  lastSeq: number;
  /** Entries sent while in flight, by seq: the state they were sent in. */
  open: Map<number, string>;
  quiet: number;
  /** Armed while its reader takes nothing: it drops the follower at the reader timeout. */
  idle?: ReturnType<typeof setTimeout>;
}

/** The journal as one tick sees it: each summary once, for every follower. */
interface Snapshot {
  summaries: RequestSummary[];
  states: string[];
  at: Map<number, number>;
}

/**
 * `GET /__admin/requests/stream` for every follower of one gateway: one timer, and each tick the
 * journal's summaries made once, from which each follower is sent what changed since it last read
 * (new entries, entries whose state moved). A follower whose reader takes nothing is skipped until it
 * drains (what changed meanwhile then goes in one event), and dropped at the reader timeout.
 */
class LiveFeed {
  private readonly followers = new Set<Follower>();
  private timer?: ReturnType<typeof setInterval>;
  private readonly gateway: Gateway;
  private readonly readerTimeoutMs: number;

  constructor(gateway: Gateway, readerTimeoutMs: number) {
    this.gateway = gateway;
    this.readerTimeoutMs = readerTimeoutMs;
  }

  /** `entries` carries summaries of new entries and of entries whose state moved; `reset` says the journal was cleared. */
  follow(req: Request, res: Response): void {
    const test = testOf(req);
    if (this.followers.size >= MAX_FEED_FOLLOWERS)
      return fail(
        res,
        503,
        `The live feed has ${MAX_FEED_FOLLOWERS} followers, its limit: close one (a console tab) or read GET /__admin/requests instead.`,
      );
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const follower: Follower = { res, test, generation: this.gateway.journalGeneration, lastSeq: 0, open: new Map(), quiet: 0 };
    this.followers.add(follower);
    // Its response closes when the follower leaves or is dropped.
    res.once('close', () => {
      clearTimeout(follower.idle);
      this.followers.delete(follower);
      if (!this.followers.size) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    });
    this.update(follower, this.snapshot());
    this.timer ??= setInterval(() => this.tick(), FEED_TICK_MS);
  }

  private snapshot(): Snapshot {
    // Summaries only: the captured answers are left undecoded.
    const summaries = this.gateway.requestSummaries();
    return { summaries, states: summaries.map(stateOf), at: new Map(summaries.map((s, i) => [s.seq, i])) };
  }

  private tick(): void {
    const snapshot = this.snapshot();
    for (const follower of this.followers) this.update(follower, snapshot);
  }

  private update(f: Follower, { summaries, states, at }: Snapshot): void {
    const { res } = f;
    if (res.writableLength > FEED_HIGH_WATER_BYTES) {
      // Its reader has not taken what was sent: nothing more until it does, and not at all past the timeout.
      if (!f.idle && this.readerTimeoutMs > 0) {
        f.idle = setTimeout(() => res.destroy(), this.readerTimeoutMs);
        res.once('drain', () => {
          clearTimeout(f.idle);
          f.idle = undefined;
        });
      }
      return;
    }
    let out = '';
    if (this.gateway.journalGeneration !== f.generation) {
      f.generation = this.gateway.journalGeneration;
      f.lastSeq = 0;
      f.open.clear();
      out += 'event: reset\ndata: {}\n\n';
    }
    const changed: number[] = [];
    // Entries sent in flight whose state moved (or that the ring dropped).
    for (const [seq, state] of f.open) {
      const i = at.get(seq);
      if (i === undefined) f.open.delete(seq);
      else if (states[i] !== state) changed.push(i);
    }
    // New entries, newest last.
    let first = summaries.length;
    while (first > 0 && summaries[first - 1].seq > f.lastSeq) first--;
    for (let i = first; i < summaries.length; i++) if (f.test === undefined || summaries[i].test === f.test) changed.push(i);
    if (summaries.length) f.lastSeq = Math.max(f.lastSeq, summaries[summaries.length - 1].seq);
    for (const i of changed) {
      if (finished(summaries[i])) f.open.delete(summaries[i].seq);
      else f.open.set(summaries[i].seq, states[i]);
    }
    if (changed.length) {
      changed.sort((a, b) => a - b);
      f.quiet = 0;
      out += `event: entries\ndata: ${JSON.stringify(changed.map((i) => summaries[i]))}\n\n`;
    } else if (++f.quiet * FEED_TICK_MS >= 15_000) {
      f.quiet = 0;
      out += ': keep-alive\n\n';
    }
    if (out) res.write(out);
  }
}

const fail = (res: Response, status: number, message: string) => void res.status(status).json({ error: message });

/** The server's fixture folder, if it has one (fixtures/folder.ts). */
interface Folder {
  readonly dir: string;
  reload(): FolderReload;
}

/** The control plane's settings from the server: how long a live-feed follower may read nothing, and its fixture folder. */
interface AdminOptions {
  readerTimeoutMs: number;
  folder?: Folder;
}

export function adminRouter(gateway: Gateway, version: string, { readerTimeoutMs, folder }: AdminOptions): Router {
  const router = express.Router({ caseSensitive: true });
  const feed = new LiveFeed(gateway, readerTimeoutMs);
  // Every body is read as JSON, whatever type it declares: `curl -d '{…}'` labels it a form. (The
  // guard, not the body type, keeps web pages out.)
  router.use(express.json({ limit: '10mb', type: () => true }));

  router.get('/health', (_req, res) => void res.json({ status: 'healthy', version }));

  // Entries are picked from the journal as held and only those sent are decoded (see core/journal.ts).
  router.get('/requests', (req, res) => {
    const raw = req.query.limit;
    if (raw !== undefined && (typeof raw !== 'string' || !/^\d+$/.test(raw)))
      return fail(res, 400, `"limit" must be a non-negative integer written in digits (entries), got ${JSON.stringify(raw)}.`);
    const filter = filterOf(req);
    const requests = gateway.requests(filter, raw === undefined ? undefined : Number(raw));
    res.json({ requests, meta: { total: gateway.countRequests(filter), activeStreams: gateway.activeStreams } });
  });
  router.get('/requests/count', (req, res) => void res.json({ count: gateway.countRequests(filterOf(req)) }));
  router.get('/requests/unmatched', (req, res) => void res.json({ requests: gateway.requests({ unmatched: true, test: testOf(req) }) }));
  router.get('/requests/stream', (req, res) => feed.follow(req, res));
  router.get('/requests/:seq', (req, res, next) => {
    const seq = Number(req.params.seq);
    if (!Number.isInteger(seq)) return next();
    const entry = gateway.request(seq);
    if (!entry) return fail(res, 404, `No request #${req.params.seq} in the journal (it keeps the newest ${gateway.journalSize}).`);
    res.json(entry);
  });
  router.delete('/requests', (req, res) => {
    viewOf(gateway, req).clearRequests();
    res.json({ cleared: true });
  });

  router.get('/fixtures', (req, res) => void res.json({ fixtures: viewOf(gateway, req).fixtures.list() }));
  router.post('/fixtures', (req, res) => {
    try {
      const ids = viewOf(gateway, req).fixtures.add(...(fixturesOf(req.body) as never[]));
      res.status(201).json({ ids });
    } catch (error) {
      // Worded as the route the fixtures came by, not the Gateway operation behind it.
      if (error instanceof FixtureValidationError) {
        const test = testOf(req);
        return fail(res, 400, `POST /__admin/fixtures${test === undefined ? '' : `?test=${encodeURIComponent(test)}`}: ${error.detail}`);
      }
      if (error instanceof FixtureLimitError) return fail(res, 409, error.message);
      throw error;
    }
  });
  // The --fixtures folder read again: its fixtures in place of those in force, unless a file is bad
  // (then its error, and the fixtures in force stay).
  router.post('/fixtures/reload', (_req, res) => {
    if (!folder)
      return fail(
        res,
        409,
        'POST /__admin/fixtures/reload: this server has no fixture folder to read again (start it with --fixtures <dir>).',
      );
    const result = folder.reload();
    if (!result.ok) return fail(res, 400, `POST /__admin/fixtures/reload: ${result.error.message} (the fixtures in force stay)`);
    res.json({ reloaded: true, dir: folder.dir, files: result.files, fixtures: result.fixtures });
  });
  router.delete('/fixtures/:id', (req, res) => {
    const test = testOf(req);
    if (!viewOf(gateway, req).fixtures.remove(req.params.id))
      return fail(
        res,
        404,
        `No fixture with id "${req.params.id}"${test === undefined ? '' : ` for test ${JSON.stringify(test)}`}; GET /__admin/fixtures${test === undefined ? '' : '?test=…'} lists them.`,
      );
    res.json({ removed: req.params.id });
  });

  router.get('/scenarios', (req, res) => void res.json({ scenarios: viewOf(gateway, req).scenarios.list() }));
  router.put('/scenarios/:name/state', (req, res) => {
    const state = (req.body as { state?: unknown } | undefined)?.state;
    if (typeof state !== 'string' || !state) return fail(res, 400, 'Send {"state": "<state name>"}.');
    viewOf(gateway, req).scenarios.set(req.params.name, state);
    res.json({ name: req.params.name, state });
  });
  router.post('/scenarios/reset', (req, res) => {
    viewOf(gateway, req).scenarios.reset();
    res.json({ reset: true });
  });

  // The tests with live state on this gateway (their ids), least recently used first.
  router.get('/tests', (_req, res) => void res.json({ tests: gateway.tests() }));
  // The objects held between requests (files, batches, stored responses...), store by store; ?test=<id>: that test's.
  router.get('/resources', (req, res) => void res.json({ stores: viewOf(gateway, req).resources() }));

  router.get('/tokens', (_req, res) => void res.json({ tokens: gateway.tokens.list() }));
  router.post('/tokens', (req, res) => {
    const body = (req.body ?? {}) as { token?: unknown; models?: unknown; quota?: unknown; rpm?: unknown; tpm?: unknown };
    if (body.token !== undefined && (typeof body.token !== 'string' || !body.token))
      return fail(res, 400, '"token" must be a non-empty string.');
    if (body.models !== undefined && (!Array.isArray(body.models) || !body.models.every((m) => typeof m === 'string')))
      return fail(res, 400, '"models" must be an array of model ids.');
    if (body.quota !== undefined && (!Number.isInteger(body.quota) || (body.quota as number) < 0))
      return fail(res, 400, '"quota" must be a non-negative integer (requests).');
    for (const [field, what] of [
      ['rpm', 'requests per minute'],
      ['tpm', 'tokens per minute'],
    ] as const) {
      const value = body[field];
      if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < 1))
        return fail(res, 400, `"${field}" must be a whole number >= 1 (${what}).`);
    }
    res.status(201).json(gateway.tokens.issue(body as never));
  });
  router.delete('/tokens/:token', (req, res) => {
    if (!gateway.tokens.revoke(req.params.token)) return fail(res, 404, `No token "${req.params.token}" is issued.`);
    res.json({ revoked: req.params.token });
  });

  // What each token has spent (requests, tokens, USD) since the start or the last reset; with ?test=<id>, what that test's requests have.
  router.get('/costs', (req, res) => {
    const test = testOf(req);
    res.json(test === undefined ? gateway.costs() : gateway.forTest(test).costs());
  });

  // The gateway's clock: read it, or move it on so rate windows pass (`{"advance": 60}`).
  router.get('/clock', (_req, res) => void res.json({ now: gateway.advanceClock(0) }));
  router.post('/clock', (req, res) => {
    const advance = (req.body as { advance?: unknown } | undefined)?.advance;
    if (!Number.isSafeInteger(advance) || (advance as number) < 0)
      return fail(res, 400, 'Send {"advance": <whole seconds >= 0>}: how far to move the clock on.');
    try {
      res.json({ now: gateway.advanceClock(advance as number) });
    } catch (error) {
      // Past the last date every format can write.
      fail(res, 400, (error as Error).message);
    }
  });

  router.post('/reset', (req, res) => {
    viewOf(gateway, req).reset();
    res.json({ reset: true });
  });

  // Malformed JSON and the like: the control plane answers in its own JSON, never with an HTML page.
  router.use((error: unknown, req: Request, res: Response, _next: () => void) => {
    const { status, message } = failureOf(error);
    if (status >= 500) console.error(`model-gateway-mock: ${req.method} ${req.originalUrl}:`, error);
    fail(res, status, message);
  });
  return router;
}
