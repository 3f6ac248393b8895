// The layers as loaded: the standalone server never loads msw (the docs promise its lean node:http
// path), and in-process use never loads express or creates a node:http server. Each runs in a child
// process (test/helpers/module-graph.ts) that lists every module resolved while it is used.
// msw 2: not run again (it compares the route table's matcher with msw 3's; msw 2's throws on malformed escapes).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { matchRequestUrl } from 'msw';
import { matchPath } from '../src/pipeline/paths.ts';
import { endpoints } from '../src/gateway.ts';

const CHILD = fileURLToPath(new URL('./helpers/module-graph.ts', import.meta.url));

async function graphOf(mode: 'standalone' | 'inprocess'): Promise<{ modules: string[]; servers: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, mode], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as { modules: string[]; servers: number };
}

const packageOf = (modules: string[], name: string) => modules.filter((url) => url.includes(`/node_modules/${name}/`));

describe('module graph', () => {
  it('standalone: routes, a WebSocket, the pages and the control plane load no msw', async () => {
    const { modules, servers } = await graphOf('standalone');
    // The hook sees what the server loads: express (the pages) and ws (the upgrade) are there.
    expect(packageOf(modules, 'express').length).toBeGreaterThan(0);
    expect(packageOf(modules, 'ws').length).toBeGreaterThan(0);
    expect(servers).toBe(1);
    // msw, and the packages it brings (@mswjs/interceptors...): none.
    for (const name of ['msw', '@mswjs']) expect(packageOf(modules, name), name).toEqual([]);
  });

  it('in-process: createGateway under msw loads neither express nor ws, and creates no server', async () => {
    const { modules, servers } = await graphOf('inprocess');
    // The hook sees msw's own packages too (what the standalone case refuses).
    for (const name of ['msw', '@mswjs']) expect(packageOf(modules, name).length, name).toBeGreaterThan(0);
    expect(packageOf(modules, 'express')).toEqual([]);
    expect(packageOf(modules, 'ws')).toEqual([]);
    expect(modules.filter((url) => /\/dist\/src\/(server|cli)(\.bundle)?\.js$/.test(url))).toEqual([]);
    expect(servers).toBe(0);
  });
});

describe('path matching', () => {
  const paths = [
    '/v1/models/x',
    '/v1/models/x/',
    '/v1/models/',
    '/v1/models',
    '/a/v1/models/x',
    '/v1/models/x/y',
    '/v1/models/a%2Fb',
    '/v1/models/%E0%A4%A',
    '/v1/responses/r1/cancel',
    '/v1/responses//cancel',
    '/v1/responses/r1/input_items/',
    '/v1beta/models/gemini-2.5-flash:generateContent',
    '/v1/models/x//',
    '//v1/models/x',
    '/xv1/models/q',
    '/v1/images/files/img_1.png',
    '/v1/images/files/%20',
    '/v1/chat/completions',
    '/v1/chat/completions/',
    '/openai/v1/chat/completions',
    '/v1/chat/%63ompletions',
  ];
  const patterns = [...new Set(endpoints.map((e) => e.path))];

  // The table matches from the root, as msw matches a pattern under a fixed origin (routes.ts).
  it('matches what msw matches under a fixed origin, with the same parameters', () => {
    expect(patterns.filter((p) => p.includes(':')).length).toBeGreaterThan(3);
    for (const pattern of patterns) {
      for (const path of paths) {
        const url = new URL(`http://localhost${path}`);
        const msw = matchRequestUrl(url, `http://localhost${pattern}`);
        const ours = matchPath(pattern, url.pathname);
        expect({ pattern, path, params: ours }).toEqual({ pattern, path, params: msw.matches ? { ...msw.params } : undefined });
      }
    }
  });
});
