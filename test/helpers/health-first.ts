// Run as its own process by test/cold-start.test.ts: starts the built server, notes whether any module of
// express has loaded at the moment the first /__admin/health answer is written, then asks nothing more
// and waits until express has loaded in the background (the test's timeout is the hang detector). Prints
// what it saw as JSON. No timing: only the order of loads and answers.
import { ServerResponse } from 'node:http';
import { registerHooks } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const express: string[] = [];
registerHooks({
  load(url, context, next) {
    if (url.includes('/node_modules/express/')) express.push(url);
    return next(url, context);
  },
});
let expressAtHealth: number | undefined;
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
  if (this.req?.url === '/__admin/health') expressAtHealth ??= express.length;
  return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
} as typeof end;

const { startServer } = await import('../../dist/src/server.js');
const server = await startServer({ port: 0 });
const health = await fetch(`${server.url}/__admin/health`);
const body = await health.text();
while (express.length === 0) await sleep(10);
// The pages then answer (express as loaded in the background).
const page = await fetch(`${server.url}/__admin/requests`);
await page.arrayBuffer();
await server.close();
process.stdout.write(JSON.stringify({ expressAtHealth, status: health.status, body, pageStatus: page.status }));
