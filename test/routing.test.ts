// One routing truth for both modes: a table of routing cases (every door's paths, shared paths,
// prefixes, unknown paths, wrong methods, trailing slashes) run through both transports' routing, msw
// in-process and node:http over a socket, as Hono holds its routers to one case file. Each endpoint's
// handler is replaced by a probe that answers its id and parameters, so a case names the endpoint
// that took the request (or the 404/405 and the format that said it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResponse } from 'msw';
import { endpoints } from '../src/gateway.ts';
import { Runtime } from '../src/runtime.ts';
import { FALLBACK_FORMAT } from '../src/formats/all.ts';
import { mswHandlers } from '../src/adapters/msw.ts';
import { NodeRouter } from '../src/adapters/node.ts';
import { RouteTable } from '../src/pipeline/routes.ts';
import { endpointId } from '../src/pipeline/mount.ts';
import type { EndpointSpec } from '../src/pipeline/call.ts';
import { json, type Inbound } from '../src/pipeline/exchange.ts';
import { socketSuites } from './helpers/modes.ts';

/** Every endpoint, answering its id and parameters: no key needed, no body read. */
const probes = (list: readonly EndpointSpec[]): EndpointSpec[] =>
  list.map(
    (spec) =>
      ({
        ...spec,
        id: endpointId(spec),
        auth: [],
        upgrade: undefined,
        ...((spec.method === 'POST' || spec.method === 'PATCH') && { bodiless: true }),
        handle: ({ params }: { params: unknown }) => json({ id: endpointId(spec), params }),
      }) as EndpointSpec,
  );

/** What a case expects: the endpoint (by id) and its parameters, or a refusal in a vendor's words. */
type Expected = { id: string; params?: Record<string, string> } | { status: 404 | 405; format: ErrorShape; allow?: string };

interface Case {
  method: string;
  path: string;
  headers?: Record<string, string>;
  expect: Expected;
}

type ErrorShape = 'openai' | 'anthropic' | 'gemini' | 'azure' | 'openrouter' | 'bedrock';

/** Which vendor's (or dialect's) error body this is. */
function shapeOf(body: Record<string, any>): ErrorShape | 'unknown' {
  if (body.type === 'error' && body.error?.type) return 'anthropic';
  if (typeof body.error?.status === 'string' && typeof body.error?.code === 'number') return 'gemini';
  if (body.error && 'param' in body.error && 'type' in body.error) return 'openai';
  if (typeof body.error?.code === 'string' && typeof body.error?.message === 'string') return 'azure';
  if (typeof body.error?.code === 'number' && typeof body.error?.message === 'string') return 'openrouter';
  if (body.error === undefined && typeof body.message === 'string') return 'bedrock';
  return 'unknown';
}

const ANTHROPIC = { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-test' };
const GOOGLE = { 'x-goog-api-key': 'sk-test' };
const id = (format: string, method: string, path: string, params?: Record<string, string>) => ({
  id: `${format} ${method} ${path}`,
  ...(params && { params }),
});

const REGIONAL = '/projects/p1/locations/us-east5';
const REGION = { project: 'p1', location: 'us-east5' };

/** Vertex AI's paths under API version `v`: each method to the endpoint that takes it. */
function vertexCases(v: string): Case[] {
  const regional = `${v}/projects/:project/locations/:location/publishers`;
  const gemini = `${regional}/google/models/:call`;
  const express = `${v}/publishers/google/models/:call`;
  const claude = `${regional}/anthropic/models/:call`;
  const to = (pattern: string, call: string, endpoint: string): Case => {
    const regionalPath = pattern.startsWith(regional);
    return {
      method: 'POST',
      path: pattern.replace('/projects/:project/locations/:location', REGIONAL).replace(':call', call),
      expect: { id: endpoint, params: { ...(regionalPath && REGION), call } },
    };
  };
  return [
    to(gemini, 'gemini-2.5-flash:generateContent', `vertex POST ${gemini}`),
    to(gemini, 'gemini-2.5-flash:computeTokens', `vertex POST ${gemini} (own)`),
    to(express, 'gemini-2.5-flash:countTokens', `vertex POST ${express}`),
    to(express, 'text-embedding-004:predict', `vertex POST ${express} (own)`),
    to(claude, 'claude-sonnet-4-5@20250929:streamRawPredict', `vertex POST ${claude}`),
    to(claude, 'count-tokens:rawPredict', `vertex POST ${regional}/anthropic/models/count-tokens:rawPredict`),
    to(claude, 'claude-sonnet-4-5:predict', `vertex POST ${claude} (own)`),
  ];
}

const CASES: Case[] = [
  // Shared paths: the caller's headers choose; none chooses OpenAI's, whatever the list's order.
  { method: 'GET', path: '/v1/models', expect: id('openai', 'GET', '/v1/models') },
  { method: 'GET', path: '/v1/models', headers: ANTHROPIC, expect: id('anthropic', 'GET', '/v1/models') },
  { method: 'GET', path: '/v1/models', headers: GOOGLE, expect: id('gemini', 'GET', '/v1/models') },
  { method: 'GET', path: '/v1/models?key=sk-test', headers: {}, expect: id('gemini', 'GET', '/v1/models') },
  { method: 'GET', path: '/v1/models', headers: { 'x-goog-api-client': 'genai-js/3' }, expect: id('gemini', 'GET', '/v1/models') },
  { method: 'GET', path: '/v1/models/gpt-4o', expect: id('openai', 'GET', '/v1/models/:model', { model: 'gpt-4o' }) },
  {
    method: 'GET',
    path: '/v1/models/claude-haiku-4-5',
    headers: ANTHROPIC,
    expect: id('anthropic', 'GET', '/v1/models/:model', { model: 'claude-haiku-4-5' }),
  },
  {
    method: 'GET',
    path: '/v1/models/gemini-2.5-flash',
    headers: GOOGLE,
    expect: id('gemini', 'GET', '/v1/models/:model', { model: 'gemini-2.5-flash' }),
  },
  { method: 'DELETE', path: '/v1/models/gpt-4o', expect: id('openai', 'DELETE', '/v1/models/:model', { model: 'gpt-4o' }) },
  // A method only OpenAI serves on the path, from another vendor's client: that vendor's 405.
  { method: 'DELETE', path: '/v1/models/x', headers: ANTHROPIC, expect: { status: 405, format: 'anthropic', allow: 'GET, POST' } },
  { method: 'DELETE', path: '/v1/models/x', headers: GOOGLE, expect: { status: 405, format: 'gemini', allow: 'GET, POST' } },
  {
    method: 'POST',
    path: '/v1/models/gemini-2.5-flash:generateContent',
    headers: GOOGLE,
    expect: id('gemini', 'POST', '/v1/models/:call', { call: 'gemini-2.5-flash:generateContent' }),
  },
  {
    method: 'POST',
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    expect: id('gemini', 'POST', '/v1beta/models/:call', { call: 'gemini-2.5-flash:streamGenerateContent' }),
  },
  // Gemini's decisions: under /v1beta, and under /v1 for Google clients.
  { method: 'POST', path: '/v1beta/decisions', expect: id('gemini', 'POST', '/v1beta/decisions') },
  { method: 'POST', path: '/v1/decisions', headers: GOOGLE, expect: id('gemini', 'POST', '/v1/decisions') },
  // Literal paths before parameters, however listed.
  { method: 'POST', path: '/v1/responses/compact', expect: id('openai', 'POST', '/v1/responses/compact') },
  { method: 'GET', path: '/v1/responses/compact', expect: id('openai', 'GET', '/v1/responses/:id', { id: 'compact' }) },
  { method: 'POST', path: '/v1/responses/r1/cancel', expect: id('openai', 'POST', '/v1/responses/:id/cancel', { id: 'r1' }) },
  { method: 'GET', path: '/v1/chat/completions', expect: id('openai', 'GET', '/v1/chat/completions') },
  { method: 'POST', path: '/v1/chat/completions/c1', expect: id('openai', 'POST', '/v1/chat/completions/:id', { id: 'c1' }) },
  // Parameters are percent-decoded; literals match decoded too (as msw's matcher).
  { method: 'GET', path: '/v1/models/a%2Fb', expect: id('openai', 'GET', '/v1/models/:model', { model: 'a/b' }) },
  { method: 'POST', path: '/v1/chat/%63ompletions', expect: id('openai', 'POST', '/v1/chat/completions') },
  // One trailing slash is the path without it; two are another path.
  { method: 'POST', path: '/v1/chat/completions/', expect: id('openai', 'POST', '/v1/chat/completions') },
  { method: 'GET', path: '/v1/models/gpt-4o/', expect: id('openai', 'GET', '/v1/models/:model', { model: 'gpt-4o' }) },
  { method: 'GET', path: '/v1/models/gpt-4o//', expect: { status: 404, format: 'openai' } },
  // Paths match from the root: a prefix makes another path (in-process as standalone).
  { method: 'POST', path: '/a/v1/chat/completions', expect: { status: 404, format: 'openai' } },
  { method: 'GET', path: '/a/v1/models/x', expect: { status: 404, format: 'openai' } },
  { method: 'GET', path: '//v1/models/x', expect: { status: 404, format: 'openai' } },
  { method: 'GET', path: '/xv1/models/x', expect: { status: 404, format: 'openai' } },
  { method: 'POST', path: '/v1/messages/x', headers: ANTHROPIC, expect: { status: 404, format: 'anthropic' } },
  // /v1/files is three vendors' path: each client's own files endpoints take its requests.
  { method: 'POST', path: '/v1/files', expect: id('openai', 'POST', '/v1/files') },
  { method: 'GET', path: '/v1/files', expect: id('openai', 'GET', '/v1/files') },
  { method: 'GET', path: '/v1/files/f', expect: id('openai', 'GET', '/v1/files/:id', { id: 'f' }) },
  { method: 'GET', path: '/v1/files/f/content', expect: id('openai', 'GET', '/v1/files/:id/content', { id: 'f' }) },
  { method: 'DELETE', path: '/v1/files/f', expect: id('openai', 'DELETE', '/v1/files/:id', { id: 'f' }) },
  { method: 'POST', path: '/v1/files', headers: ANTHROPIC, expect: id('anthropic', 'POST', '/v1/files') },
  { method: 'GET', path: '/v1/files', headers: ANTHROPIC, expect: id('anthropic', 'GET', '/v1/files') },
  { method: 'GET', path: '/v1/files/f', headers: ANTHROPIC, expect: id('anthropic', 'GET', '/v1/files/:id', { id: 'f' }) },
  {
    method: 'GET',
    path: '/v1/files/f/content',
    headers: ANTHROPIC,
    expect: id('anthropic', 'GET', '/v1/files/:id/content', { id: 'f' }),
  },
  { method: 'DELETE', path: '/v1/files/f', headers: ANTHROPIC, expect: id('anthropic', 'DELETE', '/v1/files/:id', { id: 'f' }) },
  { method: 'GET', path: '/v1/files', headers: GOOGLE, expect: id('gemini', 'GET', '/v1/files') },
  { method: 'GET', path: '/v1/files/f', headers: GOOGLE, expect: id('gemini', 'GET', '/v1/files/:id', { id: 'f' }) },
  { method: 'DELETE', path: '/v1/files/f', headers: GOOGLE, expect: id('gemini', 'DELETE', '/v1/files/:id', { id: 'f' }) },
  { method: 'PUT', path: '/v1/files', expect: { status: 405, format: 'openai', allow: 'GET, POST' } },
  // /v1/batches is OpenAI's and Gemini's: each client's own batches endpoints take its requests.
  { method: 'GET', path: '/v1/batches', expect: id('openai', 'GET', '/v1/batches') },
  { method: 'GET', path: '/v1/batches/b', expect: id('openai', 'GET', '/v1/batches/:id', { id: 'b' }) },
  { method: 'GET', path: '/v1/batches', headers: GOOGLE, expect: id('gemini', 'GET', '/v1/batches') },
  { method: 'GET', path: '/v1/batches/b', headers: GOOGLE, expect: id('gemini', 'GET', '/v1/batches/:id', { id: 'b' }) },
  { method: 'POST', path: '/v1/batches/b:cancel', headers: GOOGLE, expect: id('gemini', 'POST', '/v1/batches/:id', { id: 'b:cancel' }) },
  { method: 'DELETE', path: '/v1/batches/b', headers: GOOGLE, expect: id('gemini', 'DELETE', '/v1/batches/:id', { id: 'b' }) },
  // Unknown paths, in the format that recognizes the caller.
  { method: 'POST', path: '/v1/nope', expect: { status: 404, format: 'openai' } },
  { method: 'POST', path: '/v1/nope', headers: ANTHROPIC, expect: { status: 404, format: 'anthropic' } },
  { method: 'POST', path: '/v1beta/nope', expect: { status: 404, format: 'gemini' } },
  { method: 'GET', path: '/v1/models/x/y', expect: { status: 404, format: 'openai' } },
  { method: 'POST', path: '/v1/responses//cancel', expect: { status: 404, format: 'openai' } },
  // Wrong methods: the path's own vendor, and what it allows.
  { method: 'PUT', path: '/v1/chat/completions', expect: { status: 405, format: 'openai', allow: 'GET, POST' } },
  { method: 'PATCH', path: '/v1/models', expect: { status: 405, format: 'openai', allow: 'GET' } },
  { method: 'GET', path: '/v1/messages', expect: { status: 405, format: 'anthropic', allow: 'POST' } },
  { method: 'GET', path: '/v1/embeddings', expect: { status: 405, format: 'openai', allow: 'POST' } },
  { method: 'PUT', path: '/v1beta/models/x', expect: { status: 405, format: 'gemini', allow: 'GET, POST' } },
  { method: 'PUT', path: '/v1/models/x', expect: { status: 405, format: 'openai', allow: 'GET, POST, DELETE' } },
  // Dialects: the vendor's endpoint on a cloud's or a router's paths, its own refusals under them.
  { method: 'POST', path: '/openai/v1/chat/completions', expect: id('azure', 'POST', '/openai/v1/chat/completions') },
  { method: 'POST', path: '/openai/v1/chat/completions/', expect: id('azure', 'POST', '/openai/v1/chat/completions') },
  {
    method: 'POST',
    path: '/openai/deployments/prod-chat/chat/completions?api-version=2024-10-21',
    expect: id('azure', 'POST', '/openai/deployments/:deployment/chat/completions', { deployment: 'prod-chat' }),
  },
  { method: 'GET', path: '/openai/v1/models', expect: id('azure', 'GET', '/openai/v1/models') },
  { method: 'GET', path: '/openai/models', headers: { 'api-key': 'sk-test' }, expect: id('azure', 'GET', '/openai/models') },
  { method: 'POST', path: '/api/v1/chat/completions', expect: id('openrouter', 'POST', '/api/v1/chat/completions') },
  { method: 'GET', path: '/api/v1/models', expect: id('openrouter', 'GET', '/api/v1/models') },
  { method: 'POST', path: '/openai/deployments/d/nope', headers: { 'api-key': 'sk-test' }, expect: { status: 404, format: 'azure' } },
  { method: 'POST', path: '/openai/chat/completions', expect: { status: 404, format: 'azure' } },
  { method: 'GET', path: '/openai/deployments/d/chat/completions', expect: { status: 405, format: 'azure', allow: 'POST' } },
  { method: 'POST', path: '/api/v1/nope', expect: { status: 404, format: 'openrouter' } },
  { method: 'GET', path: '/api/v1/chat/completions', expect: { status: 405, format: 'openrouter', allow: 'POST' } },
  // Vertex AI: the method in the last segment chooses between a mounted endpoint and Vertex's own.
  ...['/v1', '/v1beta1'].flatMap(vertexCases),
  { method: 'POST', path: `/v1${REGIONAL}/publishers/google/nope`, expect: { status: 404, format: 'gemini' } },
  {
    method: 'GET',
    path: `/v1${REGIONAL}/publishers/google/models/gemini-2.5-flash:generateContent`,
    expect: { status: 405, format: 'gemini', allow: 'POST' },
  },
  // Amazon Bedrock: its own endpoints and Anthropic's mounted, the model id one percent-decoded segment.
  {
    method: 'POST',
    path: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
    expect: id('bedrock', 'POST', '/model/:modelId/converse-stream', { modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
  },
  {
    method: 'POST',
    path: '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.x/invoke',
    expect: id('bedrock', 'POST', '/model/:modelId/invoke', { modelId: 'arn:aws:bedrock:us-east-1:1:inference-profile/us.x' }),
  },
  { method: 'POST', path: '/anthropic/v1/messages', headers: ANTHROPIC, expect: id('bedrock', 'POST', '/anthropic/v1/messages') },
  { method: 'POST', path: '/model/m/nope', expect: { status: 404, format: 'bedrock' } },
  { method: 'POST', path: '/model/a/b/converse', expect: { status: 404, format: 'bedrock' } },
  { method: 'GET', path: '/model/m/converse', expect: { status: 405, format: 'bedrock', allow: 'POST' } },
  { method: 'GET', path: '/model/m/invoke', expect: { status: 405, format: 'bedrock', allow: 'POST' } },
];

/** A concrete path for a pattern: each parameter given a plain value. */
const concrete = (pattern: string) =>
  pattern.replace(/:([^/]+)/g, (_, name: string) => (name === 'call' ? 'gpt-4o:generateContent' : 'p1'));

/** Every endpoint without `accepts` at a path of its own: the table must route it to itself. */
function ownCases(list: readonly EndpointSpec[]): Case[] {
  return list
    .filter((s) => !s.accepts && !list.some((o) => o !== s && o.method === s.method && o.path === s.path))
    .map((s) => ({
      method: s.method,
      path: concrete(s.path),
      expect: {
        id: endpointId(s),
        params: Object.fromEntries(
          [...s.path.matchAll(/:([^/]+)/g)].map(([, name]) => [name, name === 'call' ? 'gpt-4o:generateContent' : 'p1']),
        ),
      },
    }));
}

const ALL_CASES = [...CASES, ...ownCases(endpoints)];

interface Answer {
  status: number;
  body: Record<string, any>;
  allow: string | null;
}

/** What a case got, as it should read whatever the transport. */
function verdict(answer: Answer | undefined): Expected | { unhandled: true } {
  if (!answer) return { unhandled: true };
  if (answer.status === 200) return { id: answer.body.id, ...(Object.keys(answer.body.params).length && { params: answer.body.params }) };
  const shape = shapeOf(answer.body) as ErrorShape;
  return { status: answer.status as 404 | 405, format: shape, ...(answer.allow !== null && { allow: answer.allow }) };
}

const wanted = (c: Case) => ('id' in c.expect && !Object.keys(c.expect.params ?? {}).length ? { id: c.expect.id } : c.expect);

function requestOf(c: Case, root: string): Request {
  // A key the gateway issued, as every client sends one: in-process, a 404 is ours only for a request that presents one.
  const headers = c.headers ?? { authorization: 'Bearer sk-test' };
  return new Request(root + c.path, { method: c.method, headers });
}

async function answerOf(res: Response | undefined): Promise<Answer | undefined> {
  if (!res) return undefined;
  return { status: res.status, body: (await res.json()) as Record<string, any>, allow: res.headers.get('allow') };
}

describe('routing cases', () => {
  const list = probes(endpoints);
  const runtime = new Runtime();

  it('cover every endpoint', () => {
    const answered = new Set(ALL_CASES.flatMap((c) => ('id' in c.expect ? [c.expect.id] : [])));
    expect(list.filter((s) => !answered.has(endpointId(s))).map(endpointId)).toEqual([]);
  });

  it('in-process (msw)', async () => {
    const handlers = mswHandlers(runtime, '*', list, FALLBACK_FORMAT);
    for (const c of ALL_CASES) {
      const got = verdict(await answerOf(await getResponse(handlers, requestOf(c, 'https://gateway.test'))));
      expect({ case: `${c.method} ${c.path}`, got }).toEqual({ case: `${c.method} ${c.path}`, got: wanted(c) });
    }
  });

  describe.runIf(socketSuites)('standalone (node:http)', () => {
    let server: Server;
    let root = '';
    beforeAll(async () => {
      const router = new NodeRouter(runtime, list, FALLBACK_FORMAT);
      server = createServer((req, res) => void router.handle(req, res, {}));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('over a socket', async () => {
      for (const c of ALL_CASES) {
        const got = verdict(await answerOf(await fetch(requestOf(c, root))));
        expect({ case: `${c.method} ${c.path}`, got }).toEqual({ case: `${c.method} ${c.path}`, got: wanted(c) });
      }
    });
  });
});

describe('which endpoint answers does not rest on the list', () => {
  const inbound = (c: Case): Inbound => {
    const url = new URL(`http://localhost${c.path}`);
    const headers: Record<string, string> = c.headers ?? {};
    return {
      method: c.method,
      url,
      header: (name) => headers[name],
      headers: () => headers,
      text: async () => '',
      bytes: async () => new Uint8Array(),
      signal: new AbortController().signal,
    };
  };
  const routeAll = (list: readonly EndpointSpec[]) => {
    const table = new RouteTable(list, FALLBACK_FORMAT);
    return ALL_CASES.map((c) => {
      const routed = table.route(inbound(c));
      return routed && 'spec' in routed
        ? endpointId(routed.spec)
        : routed
          ? `405 ${routed.allowed.map(endpointId).sort().join(' | ')}`
          : '404';
    });
  };

  it('routes every case alike however the endpoints are ordered', () => {
    const asListed = routeAll(endpoints);
    expect(routeAll([...endpoints].reverse())).toEqual(asListed);
    // Each format's and each dialect's endpoints moved to the front in turn.
    const door = (e: EndpointSpec) => e.dialect ?? e.format.name;
    for (const name of ['openai', 'anthropic', 'gemini', 'azure', 'openrouter', 'vertex']) {
      const first = [...endpoints.filter((e) => door(e) === name), ...endpoints.filter((e) => door(e) !== name)];
      expect(routeAll(first)).toEqual(asListed);
    }
  });

  it('refuses two endpoints that claim the same method and path with nothing to tell them apart', () => {
    const models = endpoints.find((e) => endpointId(e) === 'openai GET /v1/models')!;
    // A new dialect's models list, mounted without `accepts`, would take over /v1/models: refused.
    const takeover = { ...models, id: 'newcomer GET /v1/models' };
    expect(() => new RouteTable([...endpoints, takeover], FALLBACK_FORMAT)).toThrow(
      /GET \/v1\/models is claimed by both "openai GET \/v1\/models" and "newcomer GET \/v1\/models"; give one of them `accepts`/,
    );
    // The same shape under other parameter names claims the same paths.
    const renamed = { ...endpoints.find((e) => endpointId(e) === 'openai GET /v1/models/:model')!, path: '/v1/models/:id', id: 'x' };
    expect(() => new RouteTable([...endpoints, renamed], FALLBACK_FORMAT)).toThrow(/claimed by both/);
    // With `accepts`, it takes only what it accepts.
    expect(() => new RouteTable([...endpoints, { ...takeover, accepts: () => false }], FALLBACK_FORMAT)).not.toThrow();
  });

  it("the gateway's own list passes the check", () => {
    expect(() => new RouteTable(endpoints, FALLBACK_FORMAT)).not.toThrow();
  });
});
