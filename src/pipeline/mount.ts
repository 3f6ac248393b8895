// Routes as data: a dialect (a cloud's or a router's way to reach a vendor's API) mounts existing
// endpoints on its own paths, by their stable ids (endpointId below), with its own ways to present
// a key, its own errors and request ids (its FormatEdge), its touches on the request and the answer, and
// its name in the journal. The endpoint's handler runs unchanged: what the dialect changes, it changes
// around it, in its own folder (formats/<dialect>/); nothing here knows a cloud.
//
// @example Azure's v1 chat completions is OpenAI's, under `/openai`, with Azure's key header and errors:
//   mount(openaiEndpoints, azure, [{ endpoint: 'openai POST /v1/chat/completions' }]) // path: azure.prefix + '/v1/chat/completions'
// @example Vertex's generateContent is Gemini's under a project and location (the `:call` parameter carried over):
//   mount(geminiEndpoints, vertex, [
//     { endpoint: 'gemini POST /v1beta/models/:call', path: '/v1beta1/projects/:project/locations/:location/publishers/google/models/:call' },
//   ])
import type { KeyWay } from '../auth/keys.ts';
import type { Call, EndpointSpec, FormatEdge, Params } from './call.ts';
import { isForward } from './decide.ts';
import type { Outbound } from './exchange.ts';

/** An endpoint's stable id: its own, else its format, method and path (`openai POST /v1/chat/completions`). */
export const endpointId = (spec: EndpointSpec): string => spec.id ?? `${spec.format.name} ${spec.method} ${spec.path}`;

/** A touch on a request before the endpoint's handler runs: checks (thrown as GatewayErrors, rendered by the dialect) and rewrites of `call.body`. */
type Enter = (call: Call) => void | Promise<void>;
/** A touch on the handler's answer (not on an error, which the dialect's format renders itself). */
type Leave = (call: Call, out: Outbound) => Outbound | Promise<Outbound>;

/** A way of reaching the vendors' endpoints: a cloud's paths and conventions, or a router's. */
export interface Dialect {
  /** Its name: the journal's `dialect` (the requests page shows it), and its mounted endpoints' ids. */
  name: string;
  /** Its edge: request ids, the error body and headers its clients expect, the callers it recognizes (404s). */
  format: FormatEdge;
  /** How its clients present a key. */
  auth: readonly KeyWay[];
  /** Where a mount point without its own path goes: the prefix, then the endpoint's path (`/api` + `/v1/chat/completions`). */
  prefix?: string;
  /** Its touch on every request it takes (then the mount point's own). */
  enter?: Enter;
  /** Its touch on every answer (after the mount point's own). */
  leave?: Leave;
  /**
   * Its naming rule: the catalogue id its clients' name for a model stands for (Bedrock's
   * `us.anthropic.claude-sonnet-4-5-…-v1:0`, OpenRouter's `openai/gpt-4o-mini`), undefined for a name
   * it does not know. dialectModel() asks it after the `deployments` option.
   */
  modelName?(name: string): string | undefined;
}

/** One endpoint mounted on a dialect's path. */
export interface MountPoint {
  /** The endpoint's id (`openai POST /v1/chat/completions`). */
  endpoint: string;
  /** Its path here, msw syntax; the endpoint's own parameters must be among its parameters. Default: the dialect's prefix and the endpoint's path. */
  path?: string;
  /** This point's touch on the request, after the dialect's. */
  enter?: Enter;
  /** This point's touch on the answer, before the dialect's. */
  leave?: Leave;
  /**
   * The requests it takes, where its path is shared (a method named in the last segment,
   * `models/{model}:{method}`, chooses the endpoint): routes.ts asks it before the one endpoint without.
   */
  accepts?: EndpointSpec['accepts'];
  /** Its id, where two points share a path; by default the dialect's name, the method and the path. */
  id?: string;
}

/** The endpoint's own path with the request's parameters in it: what fixtures' `endpoint` and recordings see as its path. */
function canonical(pattern: string, params: Params): string {
  if (!pattern.includes(':')) return pattern;
  return pattern.replace(/:([^/]+)/g, (whole, name: string) => {
    const value = params[name];
    return typeof value === 'string' ? value : whole;
  });
}

/** `points` of `endpoints` (found by id) as the dialect's own endpoints. Throws on an id none has, or a path missing the endpoint's parameters. */
export function mount(endpoints: readonly EndpointSpec[], dialect: Dialect, points: readonly MountPoint[]): EndpointSpec[] {
  return points.map((point) => {
    const base = endpoints.find((e) => endpointId(e) === point.endpoint);
    if (!base) throw new Error(`mount(${dialect.name}): no endpoint "${point.endpoint}"`);
    const path = point.path ?? `${dialect.prefix ?? ''}${base.path}`;
    for (const [name] of base.path.matchAll(/:[^/]+/g))
      if (!path.split('/').includes(name))
        throw new Error(`mount(${dialect.name}): ${path} lacks ${name}, which "${point.endpoint}" reads`);
    const enters = [dialect.enter, point.enter].filter((f): f is Enter => f !== undefined);
    const leaves = [point.leave, dialect.leave].filter((f): f is Leave => f !== undefined);
    const handle = async (call: Call) => {
      call.canonicalPath = canonical(base.path, call.params);
      for (const enter of enters) await enter(call);
      const answered = await base.handle(call as Call<never>);
      if (isForward(answered)) return answered;
      let out = answered;
      for (const leave of leaves) out = await leave(call, out);
      return out;
    };
    return {
      ...base,
      id: point.id ?? `${dialect.name} ${base.method} ${path}`,
      path,
      dialect: dialect.name,
      format: dialect.format,
      auth: dialect.auth,
      // The dialect's path is its own: shared, if at all, between its own endpoints.
      accepts: point.accepts,
      handle,
    } as EndpointSpec;
  });
}

/**
 * The catalogue model a dialect's name for one stands for: a name the `deployments` option maps (a
 * cloud account's own names, such as Azure deployments), else what the dialect's naming rule makes of
 * it, else the name itself; undefined when that is no model of the catalogue (the dialect answers with
 * its own not-found error).
 */
export function dialectModel(call: Pick<Call, 'runtime'>, dialect: Pick<Dialect, 'modelName'>, name: string): string | undefined {
  const mapped = call.runtime.deployments.get(name);
  if (mapped !== undefined) return mapped;
  const id = dialect.modelName?.(name) ?? name;
  return call.runtime.catalogue.get(id) ? id : undefined;
}
