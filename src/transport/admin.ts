// The control plane under /__admin (WireMock's vocabulary), served by express. Each route is one
// operation of the Gateway object, so in-process tests and standalone clients can do the same things.
import express, { type Request, type Response, type Router } from 'express';
import type { Gateway, RequestFilter } from '../gateway.ts';
import { FixtureError, fixturesOf } from '../fixtures/error.ts';

function filterOf(req: Request): RequestFilter {
  const q = req.query as Record<string, string | undefined>;
  return {
    method: q.method,
    path: q.path,
    model: q.model,
    format: q.format,
    status: q.status === undefined ? undefined : Number(q.status),
    fixture: q.fixture,
    unmatched: q.unmatched === undefined ? undefined : q.unmatched !== 'false',
  };
}

const fail = (res: Response, status: number, message: string) => void res.status(status).json({ error: message });

export function adminRouter(gateway: Gateway, version: string): Router {
  const router = express.Router();
  router.use(express.json({ limit: '10mb' }));

  router.get('/health', (_req, res) => void res.json({ status: 'healthy', version }));

  router.get('/requests', (req, res) => {
    const requests = gateway.requests(filterOf(req));
    const limit = Number(req.query.limit ?? requests.length);
    res.json({ requests: requests.slice(-limit), meta: { total: requests.length, activeStreams: gateway.activeStreams } });
  });
  router.get('/requests/count', (req, res) => void res.json({ count: gateway.requests(filterOf(req)).length }));
  router.get('/requests/unmatched', (_req, res) => void res.json({ requests: gateway.requests({ unmatched: true }) }));
  router.delete('/requests', (_req, res) => {
    gateway.runtime.journal.clear();
    res.json({ cleared: true });
  });

  router.get('/fixtures', (_req, res) => void res.json({ fixtures: gateway.fixtures.list() }));
  router.post('/fixtures', (req, res) => {
    try {
      const ids = gateway.fixtures.add(...(fixturesOf(req.body) as never[]));
      res.status(201).json({ ids });
    } catch (error) {
      if (error instanceof FixtureError) return fail(res, 400, error.message);
      throw error;
    }
  });
  router.delete('/fixtures/:id', (req, res) => {
    if (!gateway.fixtures.remove(req.params.id)) return fail(res, 404, `No fixture with id "${req.params.id}"; GET /__admin/fixtures lists them.`);
    res.json({ removed: req.params.id });
  });

  router.get('/scenarios', (_req, res) => void res.json({ scenarios: gateway.scenarios.list() }));
  router.put('/scenarios/:name/state', (req, res) => {
    const state = (req.body as { state?: unknown } | undefined)?.state;
    if (typeof state !== 'string' || !state) return fail(res, 400, 'Send {"state": "<state name>"}.');
    gateway.scenarios.set(req.params.name, state);
    res.json({ name: req.params.name, state });
  });
  router.post('/scenarios/reset', (_req, res) => {
    gateway.scenarios.reset();
    res.json({ reset: true });
  });

  router.get('/tokens', (_req, res) => void res.json({ tokens: gateway.tokens.list() }));
  router.post('/tokens', (req, res) => {
    const body = (req.body ?? {}) as { token?: unknown; models?: unknown; quota?: unknown };
    if (body.token !== undefined && (typeof body.token !== 'string' || !body.token)) return fail(res, 400, '"token" must be a non-empty string.');
    if (body.models !== undefined && (!Array.isArray(body.models) || !body.models.every((m) => typeof m === 'string'))) return fail(res, 400, '"models" must be an array of model ids.');
    if (body.quota !== undefined && (!Number.isInteger(body.quota) || (body.quota as number) < 0)) return fail(res, 400, '"quota" must be a non-negative integer (requests).');
    res.status(201).json(gateway.tokens.issue(body as never));
  });
  router.delete('/tokens/:token', (req, res) => {
    if (!gateway.tokens.revoke(req.params.token)) return fail(res, 404, `No token "${req.params.token}" is issued.`);
    res.json({ revoked: req.params.token });
  });

  router.post('/reset', (_req, res) => {
    gateway.reset();
    res.json({ reset: true });
  });

  // Malformed JSON and the like: the control plane answers in its own JSON, never with an HTML page.
  router.use((error: Error & { status?: number }, _req: Request, res: Response, _next: () => void) => fail(res, error.status ?? 500, error.message));
  return router;
}
