// The Responses API's WebSocket mode (issue 35): the Agents SDK's OpenAIResponsesWSModel and raw
// sockets, in-process (msw's WebSocket interception) and over a socket on 127.0.0.1. A response made on
// the socket is the POST /v1/responses it stands for: retrievable over HTTP, chained by
// previous_response_id across both, journaled, under fixtures, test ids and faults.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { setupServer } from 'msw/node';
import { Agent, OpenAIResponsesWSModel, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { createGateway, type Gateway } from '../src/index.ts';
import { startServer } from '../src/server.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { endpoints, runtimeOf } from '../src/gateway.ts';
import { runEndpoint } from '../src/pipeline/endpoint.ts';
import { inboundOf, socketRequests } from '../src/adapters/upgrade.ts';
import { openaiFormat } from '../src/formats/openai/format.ts';
import { HIGH_WATER_BYTES } from '../src/pipeline/playback.ts';
import type { SocketSink } from '../src/pipeline/exchange.ts';

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

  const weather = () =>
    tool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny, 21 C in ${city}`,
    });
  const agent = (model: OpenAIResponsesWSModel) =>
    new Agent({ name: 'Guide', instructions: 'You answer weather questions.', model, tools: [weather()] });

  it('runs an Agents SDK agent with a tool on OpenAIResponsesWSModel, and its responses are retrievable over HTTP', async () => {
    const model = new OpenAIResponsesWSModel(client, 'gpt-4.1');
    try {
      const result = await new Runner({ tracingDisabled: true }).run(agent(model), 'What is the weather in Oslo? Use get_weather.');
      const types = result.newItems.map((i) => i.type);
      expect(types).toEqual(['tool_call_item', 'tool_call_output_item', 'message_output_item']);
      expect(String(result.finalOutput)).toContain('sunny, 21 C in');
      // Two turns, each a response made on the socket and kept as POST /v1/responses keeps it.
      const ids = result.rawResponses.map((r) => r.responseId!);
      expect(ids).toHaveLength(2);
      const first = await client.responses.retrieve(ids[0]);
      expect(first.status).toBe('completed');
      expect(first.output.map((o) => o.type)).toEqual(['function_call']);
      const last = await client.responses.retrieve(ids[1]);
      expect(last.output_text).toBe(String(result.finalOutput));
      // The journal has the upgrade and each response.create as the request it stands for.
      const entries = s.gateway.requests().filter((e) => e.path === '/v1/responses');
      expect(entries.map((e) => `${e.method} ${e.status}`)).toEqual(expect.arrayContaining(['GET 101', 'POST 200', 'POST 200']));
    } finally {
      await model.close();
    }
  });

  it('streams the events an SDK reads over HTTP, in the same order, and runs a streamed agent on the socket', async () => {
    const request = { model: 'gpt-4.1', input: 'Tell me about the fjords', tools: [] };
    const overHttp: string[] = [];
    for await (const e of await client.responses.create({ ...request, stream: true })) overHttp.push(e.type);
    const c = connect(s.root);
    await c.opened;
    c.send({ type: 'response.create', ...request });
    const events = await c.until('response.completed');
    expect(events.map((e) => e.type)).toEqual(overHttp);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    c.socket.close();
    // The same request on another connection: the same frames, byte for byte.
    const again = connect(s.root);
    await again.opened;
    again.send({ type: 'response.create', ...request });
    expect(JSON.stringify(await again.until('response.completed'))).toBe(JSON.stringify(events));
    again.socket.close();

    const model = new OpenAIResponsesWSModel(client, 'gpt-4.1');
    try {
      const streamed = await new Runner({ tracingDisabled: true }).run(agent(model), 'What is the weather in Bergen? Use get_weather.', {
        stream: true,
      });
      const seen: string[] = [];
      for await (const e of streamed) if (e.type === 'run_item_stream_event') seen.push(e.name);
      await streamed.completed;
      expect(seen).toEqual(['tool_called', 'tool_output', 'message_output_created']);
      expect(String(streamed.finalOutput)).toContain('sunny, 21 C in');
    } finally {
      await model.close();
    }
  });

  it('chains previous_response_id across HTTP and the socket, both ways', async () => {
    const overHttp = await client.responses.create({ model: 'gpt-4.1', input: 'My name is Ada.' });
    const c = connect(s.root);
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', previous_response_id: overHttp.id, input: 'What is my name?' });
    const [completed] = (await c.until('response.completed')).filter((e) => e.type === 'response.completed');
    expect(completed.response.previous_response_id).toBe(overHttp.id);
    const items = await client.responses.inputItems.list(completed.response.id);
    expect(JSON.stringify(items.data)).toContain('What is my name?');
    // And back: an HTTP request continues the socket's response.
    const back = await client.responses.create({ model: 'gpt-4.1', previous_response_id: completed.response.id, input: 'Thanks' });
    expect(back.previous_response_id).toBe(completed.response.id);
    // An unknown id gets the HTTP route's error, as an error event, and the socket stays open.
    c.send({ type: 'response.create', model: 'gpt-4.1', previous_response_id: 'resp_nope', input: 'Hi' });
    const [error] = (await c.until('error')).filter((e) => e.type === 'error');
    const http = await client.responses.create({ model: 'gpt-4.1', previous_response_id: 'resp_nope', input: 'Hi' }).catch((e) => e);
    expect(error).toMatchObject({ status: http.status, error: { message: http.error.message, param: 'previous_response_id' } });
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Still there?' });
    await c.until('response.completed', 2);
    c.socket.close();
  });

  it('continues a store: false response on its own connection only, from the connection-local cache as the service does', async () => {
    const c = connect(s.root);
    await c.opened;
    // Its own words: ids are made from the request, and another test stores 'My name is Ada.'.
    c.send({ type: 'response.create', model: 'gpt-4.1', store: false, input: 'My name is Grace, off the record.' });
    const [unstored] = (await c.until('response.completed')).filter((e) => e.type === 'response.completed');
    const id = unstored.response.id as string;
    // On the same socket it is continued.
    c.send({ type: 'response.create', model: 'gpt-4.1', store: false, previous_response_id: id, input: 'What is my name?' });
    const done = (await c.until('response.completed', 2)).filter((e) => e.type === 'response.completed');
    expect(done[1].response.previous_response_id).toBe(id);
    expect(c.events.filter((e) => e.type === 'error')).toEqual([]);
    // Off it, it is kept nowhere: not retrievable, not continued over HTTP nor on another socket.
    await expect(client.responses.retrieve(id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: 'gpt-4.1', previous_response_id: id, input: 'Hi' })).rejects.toMatchObject({
      status: 400,
      code: 'previous_response_not_found',
    });
    const other = connect(s.root);
    await other.opened;
    other.send({ type: 'response.create', model: 'gpt-4.1', previous_response_id: id, input: 'Hi' });
    const [error] = (await other.until('error')).filter((e) => e.type === 'error');
    expect(error).toMatchObject({ status: 400, error: { code: 'previous_response_not_found' } });
    other.socket.close();
    // The connection keeps its last response only: the first is gone once the second is made.
    c.send({ type: 'response.create', model: 'gpt-4.1', previous_response_id: id, input: 'Again?' });
    const [gone] = (await c.until('error')).filter((e) => e.type === 'error');
    expect(gone).toMatchObject({ status: 400, error: { code: 'previous_response_not_found' } });
    c.socket.close();
  });

  it("counts a store: false response against the stored responses' bytes while its socket is open, and drops it on close", async () => {
    const test = 'socket-unstored-bytes';
    const held = () =>
      s.gateway
        .forTest(test)
        .resources()
        .find((r) => r.name === 'openai.stored')!;
    const c = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-test-id': test });
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', store: false, input: 'Keep this between us.' });
    const [first] = (await c.until('response.completed')).filter((e) => e.type === 'response.completed');
    expect(held()).toMatchObject({ count: 1 });
    expect(held().bytes).toBeGreaterThan(0);
    // The connection keeps its last one only: the next replaces it, in the count too.
    c.send({ type: 'response.create', model: 'gpt-4.1', store: false, previous_response_id: first.response.id, input: 'And this.' });
    await c.until('response.completed', 2);
    expect(held()).toMatchObject({ count: 1 });
    // Still not reachable by any path.
    await expect(client.responses.retrieve(first.response.id)).rejects.toMatchObject({ status: 404 });
    c.socket.close();
    await vi.waitFor(() => expect(held()).toMatchObject({ count: 0, bytes: 0 }));
  });

  it("keeps two sockets' same store: false response apart: one closing leaves the other's to continue", async () => {
    const test = { authorization: 'Bearer sk-test', 'x-mock-test-id': 'socket-unstored-twins' };
    const a = connect(s.root, test);
    const b = connect(s.root, test);
    await Promise.all([a.opened, b.opened]);
    const same = { type: 'response.create', model: 'gpt-4.1', store: false, input: 'The same words on two sockets.' };
    a.send(same);
    b.send(same);
    const [fromA] = (await a.until('response.completed')).filter((e) => e.type === 'response.completed');
    const [fromB] = (await b.until('response.completed')).filter((e) => e.type === 'response.completed');
    expect(fromA.response.id).toBe(fromB.response.id);
    a.socket.close();
    await vi.waitFor(() =>
      expect(
        s.gateway
          .forTest('socket-unstored-twins')
          .resources()
          .find((r) => r.name === 'openai.stored')!.count,
      ).toBe(1),
    );
    b.send({ type: 'response.create', model: 'gpt-4.1', store: false, previous_response_id: fromB.response.id, input: 'Still mine?' });
    const done = (await b.until('response.completed', 2)).filter((e) => e.type === 'response.completed');
    expect(done[1].response.previous_response_id).toBe(fromB.response.id);
    expect(b.events.filter((e) => e.type === 'error')).toEqual([]);
    b.socket.close();
  });

  it('answers a generate: false warm-up with a response and no output, which the next turn continues', async () => {
    const c = connect(s.root);
    await c.opened;
    c.send({
      type: 'response.create',
      model: 'gpt-4.1',
      generate: false,
      instructions: 'Be brief.',
      input: 'Warm-up: you are a tour guide.',
    });
    const [warm] = (await c.until('response.completed')).filter((e) => e.type === 'response.completed');
    expect(warm.response).toMatchObject({ status: 'completed', output: [], usage: { output_tokens: 0 } });
    expect(warm.response.usage.input_tokens).toBeGreaterThan(0);
    expect(c.events.map((e) => e.type)).not.toContain('response.output_item.added');
    c.send({ type: 'response.create', model: 'gpt-4.1', previous_response_id: warm.response.id, input: 'Where to first?' });
    const done = (await c.until('response.completed', 2)).filter((e) => e.type === 'response.completed');
    expect(done[1].response.previous_response_id).toBe(warm.response.id);
    expect(done[1].response.output.length).toBeGreaterThan(0);
    // A generate that is no boolean is the error event naming it.
    c.send({ type: 'response.create', model: 'gpt-4.1', generate: 'no', input: 'Hi' });
    const [error] = (await c.until('error')).filter((e) => e.type === 'error');
    expect(error).toMatchObject({ status: 400, error: { param: 'generate', code: 'invalid_type' } });
    c.socket.close();
  });

  it('answers bad client events with the error event the HTTP route would give, and goes on', async () => {
    const c = connect(s.root);
    await c.opened;
    const bad: unknown[] = [
      '{not json',
      '[1,2]',
      { type: 42 },
      { type: 'session.update', session: {} },
      { type: 'response.create', model: 'gpt-4.1', input: 'Hi', temperature: 7 },
      { type: 'response.create', input: 'Hi' },
      { type: 'response.create', model: 'no-such-model', input: 'Hi' },
      { type: 'response.create', model: 'gpt-4.1', input: 'Hi', background: true },
    ];
    for (const b of bad) c.send(b);
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'And now a good one' });
    const events = await c.until('response.completed');
    const errors = events.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(bad.length);
    for (const e of errors) {
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.error.type).toMatch(/invalid_request_error/);
      expect(e.error.message.length).toBeGreaterThan(20);
    }
    expect(errors[0].error.code).toBe('invalid_json');
    expect(errors[3].error).toMatchObject({ param: 'type', code: 'invalid_value' });
    expect(errors[3].error.message).toContain("'response.create'");
    // A body the route refuses: the HTTP route's own status and error, word for word.
    for (const [i, body] of [
      [4, { model: 'gpt-4.1', input: 'Hi', temperature: 7 }],
      [5, { input: 'Hi' }],
      [6, { model: 'no-such-model', input: 'Hi' }],
    ] as const) {
      const http = await client.responses.create(body as never).catch((e) => e);
      expect(errors[i]).toMatchObject({ status: http.status, error: { message: http.error.message } });
    }
    expect(errors[7].error.param).toBe('background');
    c.socket.close();
  });

  it('refuses an upgrade without a key as the HTTP route does, and answers a plain GET with what to do', async () => {
    const plain = await fetch(`${s.root}/v1/responses`, { headers: { authorization: 'Bearer sk-test' } });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as Ev).error.message).toContain('WebSocket');
    const c = connect(s.root, {});
    const outcome = await Promise.race([c.opened.then(() => c.until('error')).then((e) => e[0]), c.closed]).catch(() => 'refused');
    // Over a socket the handshake fails with the 401; in-process msw opens it, sends the error and closes (1008).
    if (typeof outcome === 'object' && 'type' in outcome) expect(outcome.error.code).toBe('invalid_api_key');
    else expect(outcome === 'refused' || (outcome as { code: number }).code !== 1000).toBe(true);
  });

  it("keeps a response made on a socket with x-mock-test-id as that test's", async () => {
    const c = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-test-id': 'ws-alpha' });
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Remember me' });
    const done = (await c.until('response.completed')).find((e) => e.type === 'response.completed')!;
    c.socket.close();
    const id = done.response.id as string;
    const mine = await client.responses.retrieve(id, {}, { headers: { 'x-mock-test-id': 'ws-alpha' } });
    expect(mine.id).toBe(id);
    const other = await client.responses.retrieve(id, {}, { headers: { 'x-mock-test-id': 'ws-beta' } }).catch((e) => e);
    expect(other.status).toBe(404);
  });

  it('applies the faults sent on the upgrade to each response: an in-stream error, and a broken connection', async () => {
    const c = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-fault': 'STREAM_ERROR,after=3' });
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Hello there' });
    const events = await c.until('error');
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'error']);
    expect(events.at(-1)).toMatchObject({ code: null, param: null, sequence_number: 3 });
    expect(events.at(-1)!.message).toContain('injected');
    c.socket.close();
    const reset = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' });
    await reset.opened;
    reset.send({ type: 'response.create', model: 'gpt-4.1', input: 'Hello there' });
    const closed = await reset.closed;
    expect(closed.code).not.toBe(1000);
    expect(reset.events).toEqual([]);
  });

  it('stops making a response the moment its socket closes', async () => {
    const before = s.gateway.requests().length;
    // 5 tokens a second: the whole reply would take a minute.
    const c = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-latency': 'ttft=0,tps=5' });
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Tell me a long story about the sea' });
    await c.until('response.output_text.delta', 2);
    c.socket.close();
    await c.closed;
    await expect.poll(() => s.gateway.activeStreams).toBe(0);
    const post = s.gateway
      .requests()
      .slice(before)
      .find((e) => e.method === 'POST');
    expect(post?.outcome).toBe('aborted');
    const sent = post!.eventsSent;
    await new Promise((r) => setTimeout(r, 600));
    // Nothing more was made after the close.
    expect(s.gateway.requests().find((e) => e.requestId === post!.requestId)!.eventsSent).toBe(sent);
  });

  it('holds at most a bounded queue of client events while a response is under way, then closes 1008', async () => {
    const c = connect(s.root, { authorization: 'Bearer sk-test', 'x-mock-latency': 'ttft=0,tps=5' });
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'A slow one' });
    for (let i = 0; i < 70; i++) c.send({ type: 'response.create', model: 'gpt-4.1', input: `queued ${i}` });
    const closed = await c.closed;
    expect(closed).toMatchObject({ code: 1008, reason: 'event_queue_full' });
    expect(c.events.at(-1)).toMatchObject({ type: 'error', error: { code: 'event_queue_full' } });
    await expect.poll(() => s.gateway.activeStreams).toBe(0);
  });
});

describe.runIf(socketSuites)("the openai SDK's ResponsesWS (socket)", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 5 });
  });
  afterAll(() => server.close());

  it('creates responses on one connection, reports a refused body as its error, and the response is retrievable', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const rws = new ResponsesWS(client);
    const errors: { message: string; status?: number }[] = [];
    const texts: string[] = [];
    rws.on('error', (e) => errors.push({ message: e.message, status: (e.error as { status?: number } | undefined)?.status }));
    rws.on('response.output_text.done', (e) => texts.push(e.text));
    const completed = new Promise<string>((resolve) => rws.on('response.completed', (e) => resolve(e.response.id)));
    rws.send({ type: 'response.create', model: 'gpt-4.1', input: 'Hi', temperature: 9 } as never);
    rws.send({ type: 'response.create', model: 'gpt-4.1', input: 'Hello over the socket' });
    const id = await completed;
    rws.close();
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/temperature/);
    const kept = await client.responses.retrieve(id);
    expect(kept.output_text).toBe(texts[0]);
  });
});

describe('Responses over WebSocket: rate limits (in-process)', () => {
  const gateway = createGateway({ rateLimits: { rpm: 1 } });
  const server = setupServer(...gateway.handlers);
  beforeAll(() => strictListen(server));
  afterAll(() => server.close());

  it("counts each response.create as a request of the token: past its limit, the 429 as an error event with the limit's headers", async () => {
    const c = connect('http://127.0.0.1:2');
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'One' });
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'Two' });
    const events = await c.until('error');
    expect(events.filter((e) => e.type === 'response.completed')).toHaveLength(1);
    const error = events.at(-1)!;
    expect(error).toMatchObject({ status: 429, error: { type: 'requests', code: 'rate_limit_exceeded' } });
    expect(error.error.headers['x-ratelimit-limit-requests']).toBe('1');
    expect(Number(error.error.headers['retry-after'])).toBeGreaterThan(0);
    c.socket.close();
  });
});

describe('Responses over WebSocket: frames past the body limit (in-process)', () => {
  const gateway = createGateway({ maxBodyBytes: 4096 });
  const server = setupServer(...gateway.handlers);
  beforeAll(() => strictListen(server));
  afterAll(() => server.close());

  it('closes 1009 for a frame larger than the body limit', async () => {
    const c = connect('http://127.0.0.1:2');
    await c.opened;
    c.send({ type: 'response.create', model: 'gpt-4.1', input: 'x'.repeat(5000) });
    expect((await c.closed).code).toBe(1009);
  });
});

describe('Responses over WebSocket: a reader that takes nothing', () => {
  /** A sink whose reader takes nothing until drained: it counts what was sent and holds the resume. */
  function stalledSink() {
    const held = {
      sent: 0,
      buffered: 0,
      largest: 0,
      frames: [] as string[],
      paused: [] as boolean[],
      resume: undefined as (() => void) | undefined,
      closes: [] as (number | 'terminated')[],
    };
    const sink: SocketSink = {
      send(text) {
        held.sent += text.length;
        held.buffered += text.length;
        held.largest = Math.max(held.largest, text.length);
        held.frames.push(text);
      },
      buffered: () => held.buffered,
      whenDrained: (r) => void (held.resume = r),
      pauseReading: (p) => void held.paused.push(p),
      close: (code) => void held.closes.push(code),
      terminate: () => void held.closes.push('terminated'),
    };
    const drain = () => {
      held.buffered = 0;
      const r = held.resume;
      held.resume = undefined;
      r?.();
    };
    return { held, sink, drain };
  }

  const long = 'word '.repeat(40_000);
  async function open(gateway: Gateway) {
    const runtime = runtimeOf(gateway);
    const spec = endpoints.find((e) => e.upgrade && e.path === '/v1/responses')!;
    const headers: Record<string, string> = { authorization: 'Bearer sk-test', upgrade: 'websocket' };
    const inbound = inboundOf(
      'GET',
      new URL('ws://127.0.0.1/v1/responses'),
      (n) => headers[n],
      () => headers,
      new AbortController().signal,
    );
    const out = await runEndpoint(runtime, spec, inbound, {});
    const stalled = stalledSink();
    return { ...stalled, peer: out.socket!.open(stalled.sink, socketRequests(runtime, endpoints, openaiFormat)) };
  }

  it('drops a reader that takes nothing for the reader timeout: close 1008, the response and the connection aborted', async () => {
    const gateway = createGateway({ readerTimeoutMs: 200, fixtures: [{ match: { userMessage: 'long' }, reply: { text: long } }] });
    const { held, peer } = await open(gateway);
    peer.receive(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'long' }));
    await expect.poll(() => held.closes).toEqual([1008, 'terminated']);
    const entries = gateway.requests().filter((e) => e.path === '/v1/responses');
    expect(entries.map((e) => `${e.method} ${e.outcome}`)).toEqual(['GET aborted', 'POST aborted']);
    expect(gateway.activeStreams).toBe(0);
  });

  it('sends at most the high-water mark and one event while its reader takes nothing, then every event in order', async () => {
    const { held, drain, peer } = await open(createGateway({ fixtures: [{ match: { userMessage: 'long' }, reply: { text: long } }] }));
    peer.receive(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'long' }));
    peer.receive(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'Hi' }));
    await expect.poll(() => held.resume !== undefined).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    // The reader took nothing: what was made is the high-water mark and the event that passed it.
    expect(held.sent).toBeLessThanOrEqual(HIGH_WATER_BYTES + held.largest);
    expect(held.sent).toBeLessThan(long.length);
    const completed = () => held.frames.filter((f) => f.startsWith('{"type":"response.completed"')).length;
    for (let rounds = 0; completed() < 2 && rounds < 10_000; rounds++) {
      const before = held.sent;
      drain();
      await new Promise((r) => setTimeout(r, 0));
      await expect.poll(() => held.resume !== undefined || completed() === 2).toBe(true);
      expect(held.sent - before).toBeLessThanOrEqual(HIGH_WATER_BYTES + held.largest);
    }
    const events = held.frames.map((f) => JSON.parse(f) as { type: string; sequence_number: number; response?: { output_text?: string } });
    const second = events.findIndex((e, i) => i > 0 && e.type === 'response.created');
    // The first response whole, in order, then the second.
    expect(events.slice(0, second).map((e) => e.sequence_number)).toEqual(Array.from({ length: second }, (_, i) => i));
    expect(events[second - 1].type).toBe('response.completed');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(held.paused.at(-1) ?? false).toBe(false);
    peer.closed();
  });
});
