// The Responses API's WebSocket mode (issue 35): the Agents SDK's OpenAIResponsesWSModel and raw
// sockets, in-process (msw's WebSocket interception) and over a socket on 127.0.0.1. A response made on
// the socket is the POST /v1/responses it stands for: retrievable over HTTP, chained by
// previous_response_id across both, journaled, under fixtures, test ids and faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { setupServer } from 'msw/node';
import { Agent, OpenAIResponsesWSModel, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { createGateway, type Gateway } from '../src/index.ts';
import { startServer } from '../src/server.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';

setTracingDisabled(true);

type Ev = Record<string, any>;

interface Setup {
  name: string;
  /** http://… root; the socket is ws://…/v1/responses. */
  root: string;
  gateway: Gateway;
}

const inProcess = {
  name: 'in-process',
  async start(): Promise<Setup & { stop(): Promise<void> }> {
    const gateway = createGateway({ seed: 5 });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    return { name: 'in-process', root: 'http://127.0.0.1:2', gateway, stop: async () => server.close() };
  },
};
const overSocket = {
  name: 'socket',
  async start(): Promise<Setup & { stop(): Promise<void> }> {
    const server = await startServer({ port: 0, seed: 5 });
    return { name: 'socket', root: server.url, gateway: server.gateway, stop: () => server.close() };
  },
};

const setups = socketSuites ? [inProcess, overSocket] : [inProcess];

/** A client on the socket through the platform's WebSocket (msw intercepts it in-process), with headers as Node's takes them. */
function connect(root: string, headers: Record<string, string> = { authorization: 'Bearer sk-test' }) {
  const url = `${root.replace(/^http/, 'ws')}/v1/responses`;
  const socket = new globalThis.WebSocket(url, { headers } as never);
  const events: Ev[] = [];
  const waiters: (() => void)[] = [];
  socket.addEventListener('message', (m) => {
    events.push(JSON.parse(String(m.data)));
    for (const w of waiters.splice(0)) w();
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('socket error')));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
  );
  /** Resolves with the events once `count` of `type` have arrived. */
  const until = (type: string, count = 1) =>
    new Promise<Ev[]>((resolve, reject) => {
      const check = () => {
        if (events.filter((e) => e.type === type).length >= count) return resolve(events);
        waiters.push(check);
      };
      closed.then(() => setTimeout(() => reject(new Error(`closed before ${type}: ${events.map((e) => e.type).join(', ')}`)), 50));
      check();
    });
  const send = (e: unknown) => socket.send(typeof e === 'string' ? e : JSON.stringify(e));
  return { socket, events, opened, closed, until, send };
}

describe.each(setups)('Responses over WebSocket ($name)', (setup) => {
  let s: Setup & { stop(): Promise<void> };
  let client: OpenAI;
  beforeAll(async () => {
    s = await setup.start();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${s.root}/v1`, maxRetries: 0 });
  });
  afterAll(() => s.stop());

  it('smoke', async () => {
    const c = connect(s.root);
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Say hello' });
    const events = await c.until('response.completed');
    console.log(events.map((e) => e.type));
    c.socket.close();
  });
});
