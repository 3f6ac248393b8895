// Fixtures, faults, overrides and the control plane, through the official SDKs, in both modes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, ApiError } from '@google/genai';
import { createGateway, type Fixture } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';
import { modes, retriesWork, socketSuites, strictListen, type Running } from './helpers/modes.ts';
import { setupServer } from 'msw/node';
import { runCli, spawnCli, type Spawned } from './helpers/cli.ts';
import { answer } from '../src/pipeline/decide.ts';
import { advance, heldWhileAnother, inVirtualTime, watch } from './helpers/virtual-time.ts';
import { canonicalRequest, userMessage } from './helpers/canonical.ts';
import { HANG_MS } from './helpers/ordering.ts';

const pinned: Fixture[] = [
  {
    name: 'weather',
    match: { userMessage: { contains: 'weather in Oslo' } },
    reply: { text: 'Checking the weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  },
  {
    name: 'flaky',
    match: { userMessage: 'flaky' },
    sequence: [{ error: { status: 503, message: 'warming up' } }, { reply: { text: 'ready now' } }],
  },
  {
    name: 'order-start',
    scenario: 'order',
    requiredScenarioState: 'Started',
    newScenarioState: 'paid',
    match: { userMessage: 'status?' },
    reply: { text: 'awaiting payment' },
  },
  {
    name: 'order-paid',
    scenario: 'order',
    requiredScenarioState: 'paid',
    match: { userMessage: 'status?' },
    reply: { text: 'paid, shipping soon' },
  },
  { name: 'system', match: { system: { regex: '^You are a pirate' }, turn: 1 }, reply: { text: 'Arr.' } },
  { name: 'header', match: { headers: { 'x-tenant': 'acme' } }, reply: { text: 'hello acme' } },
  {
    name: 'raw',
    match: { userMessage: 'raw please' },
    raw: {
      openai: {
        id: 'chatcmpl-raw',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'verbatim', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      },
    },
  },
  {
    name: 'slow-429',
    match: { userMessage: 'limit me' },
    error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '150' } },
  },
];
const weatherTool = { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

describe.each(modes)('fixtures ($name)', (mode) => {
  let gw: Running;
  let openai: OpenAI;
  beforeAll(async () => {
    gw = await mode.start({ fixtures: pinned });
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 });
  });
  afterAll(() => gw.stop());

  it('answers one fixture identically in OpenAI, Anthropic and Gemini formats', async () => {
    const content = 'What is the weather in Oslo?';
    const chat = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.input_schema } }],
    });
    const call = chat.choices[0].message.tool_calls![0] as { function: { name: string; arguments: string } };
    expect(chat.choices[0].message.content).toBe('Checking the weather.');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      messages: [{ role: 'user', content }],
      tools: [weatherTool],
    });
    expect(message.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_use' ? [b.name, b.input] : b.type))).toEqual([
      'Checking the weather.',
      ['get_weather', { city: 'Oslo' }],
    ]);
    expect(message.stop_reason).toBe('tool_use');
    const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
    const generated = await google.models.generateContent({ model: 'gemini-2.5-flash', contents: content });
    expect(generated.text).toBe('Checking the weather.');
    expect(generated.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
  });

  it('sends a tool call to a tool the request did not offer, with a warning in x-mock-warning and the journal', async () => {
    const content = 'And the weather in Oslo tomorrow?';
    const offered = await openai.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.input_schema } }],
      })
      .withResponse();
    expect(offered.response.headers.get('x-mock-warning')).toBeNull();
    const other = await openai.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
        tools: [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }],
        stream: true,
      })
      .withResponse();
    const warning = 'fixture "weather" calls a tool the request did not offer: "get_weather" (it offered "get_time")';
    expect(other.response.headers.get('x-mock-warning')).toBe(warning);
    // Sent all the same, as the fixture says.
    const names: string[] = [];
    for await (const chunk of other.data)
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.function?.name) names.push(call.function.name);
    expect(names).toEqual(['get_weather']);
    const none = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] }).withResponse();
    expect(none.response.headers.get('x-mock-warning')).toContain('(it offered no tools)');
    const journal = (await gw.requests()).filter((e) => e.fixture === 'weather').slice(-3);
    expect(journal.map((e) => e.warnings)).toEqual([undefined, [warning], [expect.stringContaining('(it offered no tools)')]]);
  });

  it('runs a sequence: first a 503, then the reply', async () => {
    const ask = () => openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'flaky' }] });
    await expect(ask()).rejects.toMatchObject({ status: 503, message: expect.stringContaining('warming up') });
    expect((await ask()).choices[0].message.content).toBe('ready now');
    expect((await ask()).choices[0].message.content).toBe('ready now');
  });

  it('moves a scenario from state to state', async () => {
    const ask = async () =>
      (await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'status?' }] })).choices[0].message
        .content;
    expect(await ask()).toBe('awaiting payment');
    expect(await ask()).toBe('paid, shipping soon');
    expect(await ask()).toBe('paid, shipping soon');
  });

  it('matches on the system prompt, the turn and a header', async () => {
    const pirate = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a pirate.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(pirate.choices[0].message.content).toBe('Arr.');
    const secondTurn = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a pirate.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Arr.' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(secondTurn.choices[0].message.content).not.toBe('Arr.');
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-tenant': 'acme' } })
      .withResponse();
    expect(data.choices[0].message.content).toBe('hello acme');
    expect(response.headers.get('x-mock-fixture')).toBe('header');
  });

  it('sends a raw per-format body verbatim', async () => {
    const r = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'raw please' }] });
    expect(r.id).toBe('chatcmpl-raw');
    expect(r.choices[0].message.content).toBe('verbatim');
  });

  it.runIf(retriesWork)('honours retry-after-ms on a 429, as the openai SDK does', async () => {
    const before = (await gw.requests()).length;
    const retrying = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 2 });
    // The waits the SDK asks of the timer before each retry: counted, not timed. Without the header its
    // own backoff would wait 375 ms or more, drawn at random.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const error = await retrying.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'limit me' }] })
      .catch((e) => e);
    const waits = timers.mock.calls.map(([, ms]) => ms);
    timers.mockRestore();
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(waits.filter((ms) => ms === 150)).toHaveLength(2);
    expect((await gw.requests()).slice(before).map((r) => r.status)).toEqual([429, 429, 429]);
  });

  describe('faults, forced by header', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'fault me' }] };
    const withFault = (fault: string) => ({ headers: { 'x-mock-fault': fault } });
    // The tokenizer loads on a timer at the first request: that happens in real time, before time is faked.
    const warmedUp = () => openai.chat.completions.create(body);

    it.each(['CONNECTION_RESET_BY_PEER', 'EMPTY_RESPONSE', 'RANDOM_DATA_THEN_CLOSE'])(
      '%s is a connection error to the SDK',
      async (fault) => {
        const error = await openai.chat.completions.create(body, withFault(fault)).catch((e) => e);
        expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
      },
    );

    it('MALFORMED_RESPONSE_CHUNK breaks the body', async () => {
      const error = await openai.chat.completions.create(body, withFault('MALFORMED_RESPONSE_CHUNK')).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toHaveProperty('choices');
    });

    it('STREAM_CUT ends a stream after N events (over a socket, with a broken connection)', async () => {
      const stream = await openai.chat.completions.create({ ...body, stream: true }, withFault('STREAM_CUT,after=3'));
      const seen: unknown[] = [];
      const error = await (async () => {
        for await (const chunk of stream) seen.push(chunk);
      })().catch((e) => e);
      expect(seen).toHaveLength(3);
      // In-process, msw ends an errored mock body quietly: the stream just stops early.
      if (mode.name === 'socket') expect(error).toBeInstanceOf(Error);
    });

    it('STREAM_ERROR puts the vendor error into the stream after N events', async () => {
      const stream = await openai.chat.completions.create({ ...body, stream: true }, withFault('STREAM_ERROR,after=2,status=500'));
      const seen: unknown[] = [];
      const error = await (async () => {
        for await (const chunk of stream) seen.push(chunk);
      })().catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.message).toContain('part-way through the stream');
      expect(seen).toHaveLength(2);
      const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
      const aStream = anthropic.messages.stream(
        { model: 'claude-sonnet-5-5', max_tokens: 50, messages: [{ role: 'user', content: 'fault me' }] },
        { headers: { 'x-mock-fault': 'STREAM_ERROR,after=3,status=529' } },
      );
      const aError = await aStream.finalMessage().catch((e) => e);
      expect(aError.message).toContain('overloaded_error');
      const google = new GoogleGenAI({
        apiKey: 'sk-test',
        httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta', headers: { 'x-mock-fault': 'STREAM_ERROR,after=2,status=503' } },
      });
      const gError = await (async () => {
        for await (const _ of await google.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'fault me' }));
      })().catch((e) => e);
      expect(gError).toBeInstanceOf(ApiError);
      expect(gError.status).toBe(503);
    });

    it.runIf(mode.name === 'in-process')('STALL holds the stream for the given time after N events (virtual time)', async () => {
      await warmedUp();
      await inVirtualTime(async () => {
        const stream = await openai.chat.completions.create({ ...body, stream: true }, withFault('STALL,after=1,ms=300'));
        const chunks = stream[Symbol.asyncIterator]();
        expect((await chunks.next()).done).toBe(false);
        const second = watch(chunks.next());
        await advance(299);
        // A request sent later is answered in full while the stalled stream still holds its second event.
        await openai.chat.completions.create(body);
        expect(second.settled).toBe(false);
        await advance(1);
        expect((await second.promise).done).toBe(false);
        while (!(await chunks.next()).done);
      });
    });

    it.runIf(mode.name === 'socket')('STALL holds the stream after N events while another request is answered (socket)', async () => {
      // A stall no test run outlasts: the node adapter writes the first event, then nothing more.
      const controller = new AbortController();
      const stream = await openai.chat.completions.create(
        { ...body, stream: true },
        { ...withFault('STALL,after=1,ms=3600000'), signal: controller.signal },
      );
      expect((await stream[Symbol.asyncIterator]().next()).done).toBe(false);
      await openai.chat.completions.create(body);
      const [stalled, other] = (await gw.requests()).slice(-2);
      expect(other.status).toBe(200);
      expect(stalled).toMatchObject({ fault: 'STALL', outcome: 'streaming', eventsSent: 1 });
      controller.abort();
    });

    it('x-mock-status forces a status in the route vendor body; x-mock-seed reseeds; bad overrides are 400s', async () => {
      const forced = await openai.chat.completions.create(body, { headers: { 'x-mock-status': '418' } }).catch((e) => e);
      expect(forced.status).toBe(418);
      const a = await openai.chat.completions.create(body, { headers: { 'x-mock-seed': '5' } });
      const b = await openai.chat.completions.create(body, { headers: { 'x-mock-seed': '6' } });
      expect(a.choices[0].message.content).not.toBe(b.choices[0].message.content);
      const bad = await openai.chat.completions.create(body, withFault('EXPLODE')).catch((e) => e);
      expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
      expect(bad.message).toContain('x-mock-fault');
    });

    it.runIf(mode.name === 'in-process')('x-mock-latency delays the reply (virtual time)', async () => {
      await warmedUp();
      await inVirtualTime(async () => {
        const reply = watch(openai.chat.completions.create(body, { headers: { 'x-mock-latency': 'ttft=200' } }));
        // A request sent later is answered in full while the delayed one waits for its time, which is still to come.
        await openai.chat.completions.create(body);
        expect(reply.settled).toBe(false);
        await advance(199);
        expect(reply.settled).toBe(false);
        await advance(1);
        expect((await reply.promise).choices[0].message.content).toBeTruthy();
      });
    });

    it('a latency number past its range is the 400 naming the field and its range, in each vendor body (no timer armed)', async () => {
      const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
      for (const [latency, said] of [
        ['tps=0.0000001', 'tps is 0 (every token at once) or from 0.001 to 1000000 (tokens per second)'],
        ['ttft=99999999999', 'ttft is from 0 to 86400000 (ms)'],
        ['realistic,jitter=7', 'jitter is from 0 to 1'],
      ]) {
        const headers = { 'x-mock-latency': latency };
        const refused = await openai.chat.completions.create({ ...body, stream: true }, { headers }).catch((e) => e);
        expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
        expect(refused.param).toBe('x-mock-latency');
        expect(refused.message).toContain(`Invalid x-mock-latency header: invalid latency "${latency.split(',').at(-1)}": ${said}`);
        const claude = await anthropic.messages
          .create({ model: 'claude-sonnet-5-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers })
          .catch((e) => e);
        expect(claude).toBeInstanceOf(Anthropic.BadRequestError);
        expect(claude.message).toContain(said);
      }
      // A stall's time is a wait too: the same ceiling.
      const stalled = await openai.chat.completions.create(body, withFault('STALL,ms=86400001')).catch((e) => e);
      expect(stalled).toBeInstanceOf(OpenAI.BadRequestError);
      expect(stalled.message).toContain('ms=<0..86400000>');
    });

    it.runIf(mode.name === 'socket')('x-mock-latency holds the reply while another request is answered (socket)', async () => {
      // Once the gateway has it, another request goes in and out while the first one is still unanswered.
      const { entry, answered } = await heldWhileAnother(
        gw.requests,
        (signal) => openai.chat.completions.create(body, { headers: { 'x-mock-latency': 'ttft=3600000', 'x-test': 'held' }, signal }),
        () => openai.chat.completions.create(body),
      );
      expect(entry.status).toBe(0);
      expect(answered).toBe(false);
    });
  });
});

describe('probabilistic faults replay', () => {
  it('strike the same requests on every run', async () => {
    const run = async () => {
      const gateway = createGateway({ fixtures: [{ fault: { type: 'CONNECTION_RESET_BY_PEER', probability: 0.5 } }] });
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        const out = answer(
          {
            runtime: runtimeOf(gateway),
            inbound: {
              method: 'POST',
              url: new URL('http://x/v1/chat/completions'),
              header: () => undefined,
              headers: () => ({}),
              text: async () => '',
              signal: new AbortController().signal,
            },
            entry: {
              seq: 0,
              requestId: '',
              method: 'POST',
              path: '',
              headers: {},
              status: 0,
              stream: false,
              outcome: 'completed',
              eventsSent: 0,
            },
            token: 'sk-test',
          } as never,
          canonicalRequest({ model: 'gpt-4o', messages: [userMessage(`message ${i}`)] }),
        );
        outcomes.push('fault' in out && out.fault ? 'fault' : 'ok');
      }
      return outcomes;
    };
    const first = await run();
    expect(first).toEqual(await run());
    expect(first).toContain('fault');
    expect(first).toContain('ok');
  });
});

describe.runIf(socketSuites)('control plane over a real socket', () => {
  let cli: Spawned;
  const admin = (path: string, init?: RequestInit) =>
    fetch(`${cli.url}/__admin${path}`, { headers: { 'content-type': 'application/json' }, ...init });
  beforeAll(async () => {
    cli = await spawnCli(['--strict']);
  });
  afterAll(() => cli.stop());

  it('refuses an error fixture whose header holds a line break, or sets a framing header, with a 400 naming it', async () => {
    for (const headers of [{ 'retry-after': '1\r\nx-injected: 1' }, { 'transfer-encoding': 'chunked' }, { 'content-length': '5' }]) {
      const refused = await admin('/fixtures', { method: 'POST', body: JSON.stringify({ name: 'hdr', error: { status: 429, headers } }) });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toContain(`at /error/headers/${Object.keys(headers)[0]}:`);
    }
    expect((await (await admin('/fixtures')).json()).fixtures.some((f: { fixture: { name?: string } }) => f.fixture.name === 'hdr')).toBe(
      false,
    );
  });

  it('adds, lists and removes fixtures at run time, and reports near misses in strict mode', async () => {
    const added = await admin('/fixtures', {
      method: 'POST',
      body: JSON.stringify({
        name: 'hello',
        match: { model: 'gpt-4o', userMessage: { contains: 'hello' } },
        reply: { text: 'Hi from admin.' },
      }),
    });
    expect(added.status).toBe(201);
    const { ids } = await added.json();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    expect(
      (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] })).choices[0].message
        .content,
    ).toBe('Hi from admin.');
    const miss = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'goodbye' }] })
      .catch((e) => e);
    expect(miss).toBeInstanceOf(OpenAI.NotFoundError);
    expect(miss.code).toBe('no_fixture_matched');
    expect(miss.message).toContain('Nearest fixture: "hello"');
    expect(miss.message).toContain('✗ model: expected equals "gpt-4o", got "gpt-4o-mini"');
    expect(miss.message).toContain('✗ userMessage: expected contains "hello", got "goodbye"');
    const unmatched = await (await admin('/requests/unmatched')).json();
    expect(unmatched.requests.at(-1).nearMiss.name).toBe('hello');
    const count = await (await admin('/requests/count?path=/v1/chat/completions&status=200')).json();
    expect(count.count).toBe(1);
    expect((await (await admin('/fixtures')).json()).fixtures.map((f: { id: string }) => f.id)).toEqual(ids);
    expect((await admin(`/fixtures/${ids[0]}`, { method: 'DELETE' })).status).toBe(200);
    expect((await admin(`/fixtures/${ids[0]}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('sends a fixture name in any script as a header, percent-encoded', async () => {
    await admin('/fixtures', {
      method: 'POST',
      body: JSON.stringify({ name: 'weather → 天气', match: { userMessage: 'unicode fixture' }, reply: { text: 'ok' } }),
    });
    const res = await fetch(`${cli.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'unicode fixture' }] }),
    });
    expect(res.status).toBe(200);
    expect(decodeURIComponent(res.headers.get('x-mock-fixture')!)).toBe('weather → 天气');
    expect((await fetch(`${cli.url}/__admin/health`)).status).toBe(200);
  });

  it('rejects an invalid fixture with the place and the rule broken', async () => {
    const res = await admin('/fixtures', { method: 'POST', body: JSON.stringify({ match: { turn: 'first' }, reply: { txt: 'x' } }) });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    // Worded as the route, not the Gateway operation behind it.
    expect(error).toMatch(/^POST \/__admin\/fixtures: invalid fixtures:/);
    expect(error).not.toContain('gateway.fixtures.add()');
    expect(error).toContain('at /match/turn: must be integer');
    expect(error).toContain('at /reply: must NOT have additional properties (txt)');
    const badArgs = await admin('/fixtures', {
      method: 'POST',
      body: JSON.stringify({ reply: { toolCalls: [{ name: 'f', arguments: '{not json' }] } }),
    });
    expect(badArgs.status).toBe(400);
    expect((await badArgs.json()).error).toContain('/reply/toolCalls/0/arguments: a string of arguments must be a JSON object');
  });

  it('sets and resets scenarios', async () => {
    await admin('/fixtures', {
      method: 'POST',
      body: JSON.stringify([{ scenario: 'door', requiredScenarioState: 'open', reply: { text: 'come in' } }]),
    });
    expect((await (await admin('/scenarios')).json()).scenarios).toEqual([
      { name: 'door', state: 'Started', possibleStates: ['Started', 'open'] },
    ]);
    await admin('/scenarios/door/state', { method: 'PUT', body: JSON.stringify({ state: 'open' }) });
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    expect(
      (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'knock' }] })).choices[0].message
        .content,
    ).toBe('come in');
    await admin('/scenarios/reset', { method: 'POST' });
    expect((await (await admin('/scenarios')).json()).scenarios[0].state).toBe('Started');
  });

  it('issues scoped tokens: other models are forbidden (spending none of the quota), and the quota ends in the vendor quota error', async () => {
    await admin('/fixtures', { method: 'POST', body: JSON.stringify({ reply: { text: 'ok' }, priority: -1 }) });
    const issued = await (await admin('/tokens', { method: 'POST', body: JSON.stringify({ models: ['gpt-4o'], quota: 2 }) })).json();
    expect(issued.token).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const client = new OpenAI({ apiKey: issued.token, baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] });
    const forbidden = await ask('gpt-4o-mini').catch((e) => e);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    // The 403 spent nothing: the quota of 2 still answers two requests the token may make.
    await ask('gpt-4o');
    expect((await (await admin('/tokens')).json()).tokens.find((t: { token: string }) => t.token === issued.token).used).toBe(1);
    await ask('gpt-4o');
    const spent = await ask('gpt-4o').catch((e) => e);
    expect(spent).toBeInstanceOf(OpenAI.RateLimitError);
    expect(spent.code).toBe('insufficient_quota');
    expect((await admin(`/tokens/${issued.token}`, { method: 'DELETE' })).status).toBe(200);
    await expect(ask('gpt-4o')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('journals big bodies as a shortened copy with their size, and masks credentials', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'é'.repeat(1_100_000) }] })
      .catch(() => undefined);
    const last = (await (await admin('/requests?limit=1')).json()).requests[0];
    expect(last.truncated).toBe(true);
    expect(last.bodyBytes).toBeGreaterThan(2_200_000);
    expect(last.body.model).toBe('gpt-4o');
    expect(last.body.messages[0].content).toMatch(/^é{2048}… \[1097952 more characters\]$/);
    expect(last.headers.authorization).toMatch(/^Bearer \*\*\*-7chars-[0-9a-f]{4}$/);
    expect(JSON.stringify(last)).not.toContain('sk-test');
  });

  it('lists the newest `limit` entries, none for 0, and refuses a limit that is not a non-negative integer in digits', async () => {
    const list = async (query: string) => (await (await admin(`/requests${query}`)).json()).requests as { seq: number }[];
    for (let i = 0; i < 3; i++) await fetch(`${cli.url}/v1/models`, { headers: { authorization: 'Bearer sk-test' } });
    const all = await list('');
    expect(all.length).toBeGreaterThan(2);
    expect((await list('?limit=2')).map((e) => e.seq)).toEqual(all.slice(-2).map((e) => e.seq));
    expect(await list('?limit=0')).toEqual([]);
    expect(await list(`?limit=${all.length + 5}`)).toHaveLength(all.length);
    for (const bad of ['-1', 'abc', '1.5', '', '2&limit=3']) {
      const res = await admin(`/requests?limit=${bad}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/^"limit" must be a non-negative integer written in digits \(entries\), got /);
    }
  });

  it('resets journal, run-time fixtures and scenarios', async () => {
    expect((await admin('/reset', { method: 'POST' })).status).toBe(200);
    expect((await (await admin('/requests')).json()).requests).toEqual([]);
    expect((await (await admin('/fixtures')).json()).fixtures).toEqual([]);
  });
});

describe.runIf(socketSuites)('fixture files', () => {
  it('loads YAML and JSON, and stops start-up on an invalid file naming the file, place and rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgm-yaml-'));
    writeFileSync(
      join(dir, 'a.yaml'),
      'fixtures:\n  - name: yaml-one\n    match:\n      userMessage: hi yaml\n    reply:\n      text: from YAML\n',
    );
    const cli = await spawnCli(['--fixtures', dir]);
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
      expect(
        (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi yaml' }] })).choices[0].message
          .content,
      ).toBe('from YAML');
    } finally {
      await cli.stop();
    }
    writeFileSync(join(dir, 'b.yml'), '- name: bad\n  error:\n    status: 200\n');
    const { code, output } = await runCli(['--port', '0', '--fixtures', dir]);
    expect(code).toBe(2);
    expect(output).toContain('b.yml: invalid fixture');
    // The place is a JSON pointer into the file (b.yml holds an array).
    expect(output).toContain('fixture 0 ("bad"), at /0/error/status: must be >= 400');
  });
});

describe.runIf(socketSuites)('fixture patterns cannot wedge the server', () => {
  it("answers the issue's `^(\\w+\\s?)*$` on 45 letters and a `!` while another client is served, and refuses a backreference at POST", async () => {
    const cli = await spawnCli();
    const admin = (body: unknown) =>
      fetch(`${cli.url}/__admin/fixtures`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      const words = { name: 'words', match: { userMessage: { regex: '^(\\w+\\s?)*$' } }, reply: { text: 'only words' } };
      expect((await admin(words)).status).toBe(201);
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0, timeout: HANG_MS });
      const ask = (content: string) =>
        client.chat.completions
          .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
          .then((r) => r.choices[0].message.content);
      // V8's backtracking engine never returned from the first (SIGKILL needed); both are answered.
      const [wedge, other] = await Promise.all([ask(`${'a'.repeat(45)}!`), ask('plain words here')]);
      expect(other).toBe('only words');
      expect(wedge).not.toBe('only words');
      const refused = await admin({ name: 'js', match: { userMessage: { regex: '(\\w+)\\s\\1' } } });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toMatch(
        /at \/match\/userMessage\/regex: not a valid RE2 regular expression .*no backreferences or lookaround/,
      );
    } finally {
      await cli.stop();
    }
  });
});

describe('a plain reply delayed past what one timer can wait', () => {
  it('waits for its time in steps (Node fired a timer past 2^31 - 1 ms at once, with a warning)', async () => {
    // 3000 tokens at 0.001 per second: the last token is due after ~3e9 ms, past a timer's range.
    const gateway = createGateway({
      fixtures: [{ match: { userMessage: 'slow' }, reply: { text: 'tick '.repeat(3000).trim() }, latency: { tokensPerSecond: 0.001 } }],
    });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    // fetch, not an SDK: a client's own timeout cannot wait that long either.
    const ask = (content: string) =>
      fetch('http://127.0.0.1:2/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
      }).then((r) => r.json());
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      await ask('warm up');
      await inVirtualTime(async () => {
        const reply = watch(ask('slow'));
        await advance(2 ** 31);
        expect(reply.settled).toBe(false);
        await advance(3000 * 1_000_000);
        expect((await reply.promise).choices[0].message.content).toMatch(/^tick tick/);
      });
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
      server.close();
    }
  });
});

describe.runIf(socketSuites)('run-time fixtures over the control plane', () => {
  it('answer 409 past the bound, naming it and what is held, shared and a test together; a test reset frees its part', async () => {
    const cli = await spawnCli();
    const post = (query: string, body: unknown) =>
      fetch(`${cli.url}/__admin/fixtures${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, reply: { text: 'x' } }));
    try {
      expect((await post('', many(6000))).status).toBe(201);
      expect((await post('?test=t1', many(4000))).status).toBe(201);
      const refused = await post('?test=t2', many(1));
      expect(refused.status).toBe(409);
      expect((await refused.json()).error).toMatch(/^The gateway holds at most 10000 fixtures added at run time .* it holds 10000 \(/);
      await fetch(`${cli.url}/__admin/reset?test=t1`, { method: 'POST' });
      expect((await post('?test=t2', many(1))).status).toBe(201);
    } finally {
      await cli.stop();
    }
  });
});
