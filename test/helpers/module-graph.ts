// Run by test/layering.test.ts in a child process: loads one way of using the package, uses it, and
// prints (as JSON) every module URL resolved on the way, by import or require, and how many servers
// node:http / node:https created. `standalone` starts the server and exercises routes, a WebSocket
// and the pages; `inprocess` runs createGateway's handlers under msw/node; `media` does the same, then
// asks an image, audio and realtime route in-process and lists apart what had resolved before those.
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { registerHooks, syncBuiltinESMExports } from 'node:module';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
let servers = 0;
for (const mod of [http, https] as { createServer: (...args: unknown[]) => unknown }[]) {
  const original = mod.createServer;
  mod.createServer = (...args: unknown[]) => {
    servers++;
    return original(...args);
  };
}
syncBuiltinESMExports();

const auth = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const chat = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

async function standalone(): Promise<void> {
  const { startServer } = await import('model-gateway-mock/server');
  const server = await startServer({ port: 0 });
  const paths = [
    '/v1/models',
    '/v1/models/gpt-4o',
    '/v1/responses/resp_x/input_items',
    '/v1/nowhere',
    '/__admin/health',
    '/__admin/requests',
    '/',
  ];
  for (const path of paths) await (await fetch(server.url + path, { headers: auth })).arrayBuffer();
  await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: chat })).arrayBuffer();
  await new Promise<void>((resolve) => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, [
      'realtime',
      'openai-insecure-api-key.sk-test',
    ]);
    socket.onmessage = () => socket.close();
    socket.onclose = () => resolve();
  });
  await server.close();
}

async function inprocess(): Promise<void> {
  const { createGateway } = await import('model-gateway-mock');
  const { setupServer } = await import('msw/node');
  const gateway = createGateway();
  const msw = setupServer(...gateway.handlers);
  msw.listen();
  for (const path of ['/v1/models', '/v1/models/gpt-4o'])
    await (await fetch(`https://api.openai.com${path}`, { headers: auth })).arrayBuffer();
  await (await fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers: auth, body: chat })).arrayBuffer();
  gateway.requests();
  msw.close();
}

/** The in-process chat, then one request to each route whose handler loads on first use; their answers. */
async function media(): Promise<{ beforeMedia: string[]; answers: unknown[] }> {
  await inprocess();
  const beforeMedia = modulesOf(resolved);
  const { createGateway } = await import('model-gateway-mock');
  const { setupServer } = await import('msw/node');
  const msw = setupServer(...createGateway().handlers);
  msw.listen();
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`https://api.openai.com${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    return `${response.status} ${response.headers.get('content-type')} ${(await response.text()).slice(0, 80)}`;
  };
  const answers: unknown[] = [
    await post('/v1/images/generations', { model: 'dall-e-2', prompt: 'a red kite', size: '256x256', response_format: 'b64_json' }),
    // JSON where a form is due: each handler's own refusal shows it loaded.
    await post('/v1/images/edits', { model: 'gpt-image-1', prompt: 'x' }),
    await post('/v1/images/variations', { model: 'dall-e-2' }),
    await post('/v1/audio/speech', { model: 'tts-1', input: 'Hello there.', voice: 'alloy', response_format: 'wav' }),
    await new Promise<string>((resolve) => {
      const socket = new WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', ['realtime', 'openai-insecure-api-key.sk-test']);
      socket.onmessage = (event) => {
        resolve(String((JSON.parse(String(event.data)) as { type: string }).type));
        socket.close();
      };
    }),
  ];
  msw.close();
  return { beforeMedia, answers };
}

/**
 * The URLs with each file of the package's bundle (scripts/bundle.ts) followed by the modules it holds,
 * from esbuild's `// dist/src/….js` line before each one: a module in a loaded chunk counts as loaded.
 */
function modulesOf(urls: Iterable<string>): string[] {
  const out: string[] = [];
  for (const url of urls) {
    out.push(url);
    const bundle = /^(.*\/)dist\/src\/(?:bundle-[^/]+|[^/]+\.bundle)\.js$/.exec(url);
    if (bundle)
      for (const [, path] of readFileSync(new URL(url), 'utf8').matchAll(/^\/\/ (dist\/src\/\S+\.js)$/gm)) out.push(bundle[1] + path);
  }
  return out;
}

const mode = process.argv[2];
const extra = mode === 'media' ? await media() : await (mode === 'standalone' ? standalone() : inprocess());
process.stdout.write(JSON.stringify({ modules: modulesOf(resolved), files: [...resolved], servers, ...extra }));
