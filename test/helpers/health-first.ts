// Run as its own process by test/cold-start.test.ts: starts the built server, notes which modules of
// express, faker and the tokenizer's table have loaded at the moment each /__admin/health answer is
// written (two probes), then makes one API request and waits until express has loaded in the background
// (the test's timeout is the hang detector). Prints what it saw as JSON. No timing: only the order of
// loads and answers.
import { ServerResponse } from 'node:http';
import { registerHooks } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const express: string[] = [];
const lazy: string[] = [];
registerHooks({
  load(url, context, next) {
    if (url.includes('/node_modules/express/')) express.push(url);
    if (url.includes('/node_modules/@faker-js/')) lazy.push(url);
    return next(url, context);
  },
});
// The tokenizer's table is a file read (through node:fs's module object, as o200k.ts reads it), not a module.
const fs = process.getBuiltinModule('node:fs');
const readFile = fs.readFileSync;
fs.readFileSync = ((path: string, ...rest: unknown[]) => {
  if (String(path).endsWith('o200k_base.bin')) lazy.push(String(path));
  return (readFile as (...a: unknown[]) => unknown)(path, ...rest);
}) as typeof fs.readFileSync;
const atHealth: { express: number; lazy: number }[] = [];
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
  if (this.req?.url === '/__admin/health') atHealth.push({ express: express.length, lazy: lazy.length });
  return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
} as typeof end;

const { startServer } = await import('../../dist/src/server.js');
const server = await startServer({ port: 0 });
const health = await fetch(`${server.url}/__admin/health`);
const body = await health.text();
await (await fetch(`${server.url}/__admin/health`)).text();
const chat = await fetch(`${server.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
});
await chat.arrayBuffer();
const lazyAfterChat = lazy.length > 0;
while (express.length === 0) await sleep(10);
// The pages then answer (express as loaded in the background).
const page = await fetch(`${server.url}/__admin/requests`);
await page.arrayBuffer();
await server.close();
process.stdout.write(
  JSON.stringify({ atHealth, status: health.status, body, chatStatus: chat.status, lazyAfterChat, pageStatus: page.status }),
);
