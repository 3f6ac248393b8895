// The platform pages, served by express beside /__admin (never on the API path). Every page is
// rendered per request from the live state; its script then talks to the public API or /__admin.
import express, { type Router } from 'express';
import type { Gateway, GatewayTest } from '../api.ts';
import { PAGE_CSP, type TestFilter } from './html.ts';
import { clientScript, STYLE } from './assets.ts';
import { homePage } from './home.ts';
import { playgroundPage } from './playground.ts';
import { tokensPage } from './tokens.ts';
import { requestsPage } from './requests.ts';
import { fixturesPage } from './fixtures.ts';
import { resourcesPage } from './resources.ts';

/**
 * The root URL the visitor reached this server by (so a server bound to 0.0.0.0 shows an address
 * that works from the visitor's machine), else the bound one.
 */
function baseFor(req: express.Request, bound: string): string {
  const host = req.get('host');
  return host && /^[\w.-]+(:\d+)?$|^\[[\da-f:.]+\](:\d+)?$/i.test(host) ? `${req.protocol}://${host}` : bound;
}

/** `base()` is the server's root URL, known once it listens. */
export function consoleRouter(gateway: Gateway, base: () => string): Router {
  const router = express.Router({ caseSensitive: true });
  const models = () => gateway.models();
  const send = (res: express.Response, markup: string) =>
    void res
      .type('html')
      .set({ 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .send(markup);

  router.get('/', (req, res) => send(res, homePage(baseFor(req, base()), gateway.tokens.list(), models())));
  router.get('/console/playground', (_req, res) => send(res, playgroundPage(gateway.tokens.list(), models())));
  router.get('/console/tokens', (_req, res) => send(res, tokensPage(models())));
  router.get('/console/requests', (_req, res) => send(res, requestsPage()));
  /** Renders a page of one test's view (`?test=<id>`) or the gateway's, or answers a malformed test id with its 400. */
  const testPage =
    (render: (view: Gateway | GatewayTest, filter: TestFilter) => string) => (req: express.Request, res: express.Response) => {
      const test = typeof req.query.test === 'string' && req.query.test ? req.query.test : undefined;
      let view: Gateway | GatewayTest = gateway;
      try {
        if (test !== undefined) view = gateway.forTest(test);
      } catch (error) {
        return void res
          .status(400)
          .type('text')
          .send((error as Error).message);
      }
      send(res, render(view, { tests: gateway.tests(), selected: test }));
    };
  // ?test=<id>: that test's view (its fixtures first, then the shared ones with its counts and states).
  router.get(
    '/console/fixtures',
    testPage((view, filter) => fixturesPage(view.fixtures.list(), view.scenarios.list(), filter)),
  );
  // ?test=<id>: the objects that test's requests made.
  router.get(
    '/console/resources',
    testPage((view, filter) => resourcesPage(view.resources(), filter)),
  );
  router.get('/console/assets/style.css', (_req, res) => void res.type('css').set('cache-control', 'no-cache').send(STYLE));
  router.get('/console/assets/:file', async (req, res, next) => {
    const script = await clientScript(req.params.file);
    if (script === undefined) return next();
    res.type('text/javascript').set({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }).send(script);
  });
  return router;
}
