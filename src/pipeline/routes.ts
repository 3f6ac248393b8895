// Which endpoint answers a request: one table that both transports route by (adapters/node.ts
// standalone, adapters/msw.ts in-process), so a path means the same thing in both modes.
//
// The rules, none of which depends on the order of the endpoint list:
// - a path is matched from the host root, whole (one trailing slash tolerated); a parameter takes one
//   non-empty segment, percent-decoded (paths.ts's matchPath);
// - where several patterns match, the more specific wins: segment by segment, a literal before a parameter;
// - where several endpoints share a method and a pattern, those with `accepts` are asked first (by
//   id), and the one without (at most one: the table refuses two) takes what they leave;
// - a path some endpoint serves, asked with another method, is a 405; any other path a 404, each in
//   the format that recognizes the caller (dialects first), else the fallback's.
import type { EndpointSpec, FormatEdge, Params } from './call.ts';
import type { Inbound, Outbound } from './exchange.ts';
import { methodNotAllowed, unknownRoute } from './endpoint.ts';
import { matchSegments, tablePath } from './paths.ts';
import { endpointId } from './mount.ts';

/** The methods endpoints take, in the order a 405 lists them. */
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

/** What the table makes of a request: the endpoint that takes it, or the endpoints of its path (a 405), or nothing (a 404). */
type Routed = { spec: EndpointSpec; params: Params } | { allowed: readonly EndpointSpec[] } | undefined;

/** A pattern with its parameters written `:` (`/v1/models/:`): two endpoints with the same shape claim the same paths. */
const shapeOf = (path: string) => path.replace(/:[^/]+/g, ':');

/** Negative when `a` is the more specific pattern: segment by segment, a literal before a parameter. */
function bySpecificity(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i].startsWith(':');
    const q = y[i].startsWith(':');
    if (p !== q) return p ? 1 : -1;
  }
  // A total order (sort needs one): without it, patterns of other lengths compared equal to both of two
  // that differ, and the sort could leave a parameter ahead of a literal.
  return x.length - y.length;
}

/** Within one shape: those that look at more than the path first (by id), the catch-all last. */
const byClaim = (a: EndpointSpec, b: EndpointSpec) =>
  Number(!a.accepts) - Number(!b.accepts) || (endpointId(a) < endpointId(b) ? -1 : endpointId(a) > endpointId(b) ? 1 : 0);

/** Formats in the order they are asked to recognize a caller: dialects (a cloud's paths) first, then by name. */
function formatsOf(specs: readonly EndpointSpec[]): FormatEdge[] {
  const seen = new Map<FormatEdge, string>();
  for (const s of [...specs].sort(byClaim))
    if (!seen.has(s.format)) seen.set(s.format, `${s.dialect ? 0 : 1} ${s.dialect ?? s.format.name}`);
  return [...seen].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)).map(([f]) => f);
}

/** The first format that recognizes the request as its clients', else `fallback`. */
function errorFormat(formats: readonly FormatEdge[], request: Pick<Inbound, 'url' | 'header'>, fallback: FormatEdge): FormatEdge {
  for (const format of formats) if (format.recognizes?.(request)) return format;
  return fallback;
}

/** A path percent-decoded (a literal matches as sent or decoded, as msw's matcher), or as sent when it is malformed. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Throws when two endpoints would claim the same requests with nothing to tell them apart. */
function checkClaims(endpoints: readonly EndpointSpec[]): void {
  const plain = new Map<string, EndpointSpec>();
  const ids = new Map<string, EndpointSpec>();
  for (const spec of endpoints) {
    const id = endpointId(spec);
    if (ids.has(id)) throw new Error(`routes: two endpoints have the id "${id}"`);
    ids.set(id, spec);
    if (spec.accepts) continue;
    const key = `${spec.method} ${shapeOf(spec.path)}`;
    const other = plain.get(key);
    if (other)
      throw new Error(
        `routes: ${spec.method} ${spec.path} is claimed by both "${endpointId(other)}" and "${id}"; give one of them \`accepts\` (the requests it takes)`,
      );
    plain.set(key, spec);
  }
}

interface Patterned {
  pattern: string;
  segments: readonly string[];
  /** Every endpoint of this pattern, any method, in claim order. */
  specs: EndpointSpec[];
}

export class RouteTable {
  /** Fixed paths: `METHOD path` → its endpoints in claim order (the fast path of most requests). */
  private readonly exact = new Map<string, EndpointSpec[]>();
  /** Fixed paths → every endpoint on them, any method (for 405s). */
  private readonly byPath = new Map<string, EndpointSpec[]>();
  /** Parameterized patterns, most specific first. */
  private readonly patterned: Patterned[] = [];
  private readonly formats: FormatEdge[];
  private readonly fallback: FormatEdge;
  /** The first segments of every endpoint's path (`/v1/`, `/openai/`): where the API lives. */
  readonly prefixes: readonly string[];

  /** `fallback` answers a request no format recognizes; the table throws on endpoints that claim alike (see checkClaims). */
  constructor(endpoints: readonly EndpointSpec[], fallback: FormatEdge) {
    checkClaims(endpoints);
    this.fallback = fallback;
    this.formats = formatsOf(endpoints);
    const sorted = [...endpoints].sort(byClaim);
    const patterns = new Map<string, EndpointSpec[]>();
    for (const spec of sorted) {
      if (spec.path.includes(':')) {
        patterns.set(spec.path, [...(patterns.get(spec.path) ?? []), spec]);
        continue;
      }
      const key = `${spec.method} ${spec.path}`;
      this.exact.set(key, [...(this.exact.get(key) ?? []), spec]);
      this.byPath.set(spec.path, [...(this.byPath.get(spec.path) ?? []), spec]);
    }
    for (const [pattern, specs] of patterns) this.patterned.push({ pattern, segments: pattern.split('/'), specs });
    // Same-shaped patterns (`/v1/models/:model`, `/v1/models/:call`) keep their claim order within.
    this.patterned.sort((a, b) => bySpecificity(a.pattern, b.pattern) || byClaim(a.specs[0], b.specs[0]));
    this.prefixes = [...new Set(endpoints.map((e) => `/${e.path.split('/')[1]}/`))];
  }

  /** The endpoint that takes `inbound` (with its path parameters), or what its path allows, or undefined. */
  route(inbound: Inbound): Routed {
    const path = tablePath(inbound.url.pathname);
    const fixed =
      this.exact.get(`${inbound.method} ${path}`) ??
      (path.includes('%') ? this.exact.get(`${inbound.method} ${decoded(path)}`) : undefined);
    if (fixed) for (const spec of fixed) if (!spec.accepts || spec.accepts(inbound)) return { spec, params: {} };
    // An endpoint whose `accepts` refuses this client (another vendor's, on a shared path) is not there
    // for it, whatever the method: with none left, the path is unknown to it (a 404, not a 405).
    const there = (spec: EndpointSpec) => !spec.accepts || spec.accepts(inbound);
    const allowed: EndpointSpec[] = [];
    for (const spec of this.byPath.get(path) ?? (path.includes('%') ? this.byPath.get(decoded(path)) : undefined) ?? [])
      if (spec.method !== inbound.method && there(spec)) allowed.push(spec);
    const segments = path.split('/');
    for (const { segments: pattern, specs } of this.patterned) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      for (const spec of specs) {
        if (!there(spec)) continue;
        if (spec.method !== inbound.method) allowed.push(spec);
        else return { spec, params };
      }
    }
    return allowed.length ? { allowed } : undefined;
  }

  /** The answer to a request no endpoint takes: a 405 on a path some endpoint serves, else a 404. */
  refuse(inbound: Inbound, routed: Exclude<Routed, { spec: EndpointSpec }>): Outbound {
    if (!routed) return unknownRoute(errorFormat(this.formats, inbound, this.fallback), inbound);
    const { allowed } = routed;
    // The fallback's own paths answer in it; a path only others serve, in the first of theirs.
    const own = allowed.some((s) => s.format === this.fallback) ? this.fallback : formatsOf(allowed)[0];
    const methods = METHODS.filter((m) => m !== inbound.method && allowed.some((s) => s.method === m));
    return methodNotAllowed(errorFormat(formatsOf(allowed), inbound, own), inbound, methods.length ? methods : [inbound.method]);
  }
}
