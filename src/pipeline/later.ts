// Handlers whose module loads on the first request to one of their routes: the route table holds
// what routing needs (method, path, format, auth), so a request gets the same 404, 405 or 401 as
// before, and start-up does not pay for heavy handlers most users never call.
import type { Lazy } from '../core/lazy.ts';
import type { Handler } from './call.ts';
import type { JsonObject } from './exchange.ts';

/**
 * The handler `handler` picks from `module` (`m.realtimeHandlers.upgrade`, ...): the first call loads the
 * module, then calls through; once it is loaded, calls go straight through, adding no turn.
 */
export function later<M, Body extends JsonObject | undefined>(module: Lazy<M>, handler: (loaded: M) => Handler<Body>): Handler<Body> {
  return (call) => {
    const loading = module.ready();
    return loading ? loading.then(() => handler(module.get())(call)) : handler(module.get())(call);
  };
}
