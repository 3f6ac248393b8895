// Realtime over WebSocket: the openai SDK's OpenAIRealtimeWS over wss against a TLS server, raw `ws`
// clients (beta protocol, browser subprotocols with an ephemeral key, bad frames, determinism, a client
// that leaves mid-response), and the global WebSocket in-process through msw.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import https from 'node:https';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { OpenAIRealtimeWebSocket } from 'openai/realtime/websocket';
import WebSocket from 'ws';
import { setupServer } from 'msw/node';
import { execFile } from 'node:child_process';
import { spawnCli } from './helpers/cli.ts';
import { realtimeServer } from './helpers/realtime-server.ts';
import { transcribe } from '../src/core/transcribe.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { createGateway } from '../src/index.ts';
import { runtimeOf } from '../src/gateway.ts';
import { assertRealtimeEvents, assertSchema } from './helpers/openapi.ts';
import { socketSuites } from './helpers/modes.ts';
import { ITEM_LIMITS } from '../src/formats/openai/realtime-items.ts';

type Ev = Record<string, any>;

/** Collects a socket's events; `until(type)` resolves with all events so far once one of that type arrives. */
function collector() {
  const events: Ev[] = [];
  const waiters: { type: string; count: number; resolve: (e: Ev[]) => void }[] = [];
  const push = (e: Ev) => {
    events.push(e);
    for (const w of [...waiters]) {
      if (events.filter((x) => x.type === w.type).length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(events);
      }
    }
  };
  const until = (type: string, count = 1) =>
    new Promise<Ev[]>((resolve, reject) => {
      if (events.filter((x) => x.type === type).length >= count) return resolve(events);
      waiters.push({ type, count, resolve });
      // A hang detector only, far above any normal exchange.
      setTimeout(() => reject(new Error(`no ${type} in: ${events.map((e) => e.type).join(', ')}`)), 60_000);
    });
  return { events, push, until };
}

function rawClient(url: string, options: WebSocket.ClientOptions & { protocols?: string[] } = {}) {
  const { protocols, ...rest } = options;
  const socket = new WebSocket(url, protocols, rest);
  const c = collector();
  socket.on('message', (d) => c.push(JSON.parse(String(d))));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const send = (e: Ev) => socket.send(JSON.stringify(e));
  return { socket, ...c, opened, send };
}

/** One second of a voiced tone at 24 kHz, then `silenceMs` of silence, as base64 PCM16. */
function toneBase64(seconds = 1, silenceMs = 0): string {
  const n = Math.round(seconds * 24000);
  const total = n + Math.round((silenceMs / 1000) * 24000);
  const bytes = Buffer.alloc(total * 2);
  for (let i = 0; i < n; i++) bytes.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 180 * i) / 24000) * 8000), i * 2);
  return bytes.toString('base64');
}

const userText = (text: string) => ({
  type: 'conversation.item.create',
  item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
});

/**
 * A response.create's own settings are checked as a session.update's are (the error event names the
 * field) and, when good, answer that response: its own tools, with no session tools. Also: a session
 * may name a remote MCP server (accepted, never called).
 */
async function checksResponseSettings(send: (event: object) => void, until: (type: string, count?: number) => Promise<Ev[]>) {
  send({
    type: 'session.update',
    session: { type: 'realtime', tools: [{ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.invalid/sse' }] },
  });
  await until('session.updated');
  send({ type: 'session.update', event_id: 'evt_session', session: { type: 'realtime', audio: { output: { speed: 9 } } } });
  // FUZZ_SEED=15: an MCP server_url that is no URL was shown back against the spec.
  send({
    type: 'session.update',
    event_id: 'evt_mcp',
    session: { type: 'realtime', tools: [{ type: 'mcp', server_label: 'x', server_url: '' }] },
  });
  send({ type: 'response.create', event_id: 'evt_tools', response: { tools: [null] } });
  send({ type: 'response.create', event_id: 'evt_parameters', response: { tools: [{ type: 'function', name: 'f', parameters: 5 }] } });
  send({ type: 'response.create', event_id: 'evt_modalities', response: { output_modalities: 5 } });
  send({ type: 'response.create', event_id: 'evt_max', response: { max_output_tokens: 'lots' } });
  send({ type: 'response.create', event_id: 'evt_unknown', response: { modalities: ['text'] } });
  const errors = (await until('error', 7)).filter((e) => e.type === 'error').map((e) => [e.error.event_id, e.error.type, e.error.param]);
  expect(errors).toEqual([
    ['evt_session', 'invalid_request_error', 'session.audio.output.speed'],
    ['evt_mcp', 'invalid_request_error', 'session.tools[0].server_url'],
    ['evt_tools', 'invalid_request_error', 'response.tools[0]'],
    ['evt_parameters', 'invalid_request_error', 'response.tools[0].parameters'],
    ['evt_modalities', 'invalid_request_error', 'response.output_modalities'],
    ['evt_max', 'invalid_request_error', 'response.max_output_tokens'],
    // A beta name in a GA session.
    ['evt_unknown', 'invalid_request_error', 'response.modalities'],
  ]);
  const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  send(userText('What is the weather in Oslo?'));
  send({
    type: 'response.create',
    response: { output_modalities: ['text'], tools: [{ type: 'function', name: 'get_weather', parameters }], tool_choice: 'required' },
  });
  const events = await until('response.done');
  expect(events.find((e) => e.type === 'response.function_call_arguments.done')!.name).toBe('get_weather');
  expect(events.find((e) => e.type === 'response.done')!.response.status).toBe('completed');
}

describe.runIf(socketSuites)('realtime over wss with the openai SDK', () => {
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startServer({ port: 0, tls: true, seed: 3 });
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` });
  });
  afterAll(() => server.close());

  function connect(headers: Record<string, string> = {}) {
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.cert, headers } as never }, client);
    const c = collector();
    rt.on('event', (e) => c.push(e as Ev));
    rt.on('error', (e) => c.push({ type: 'sdk.error', message: e.message }));
    const opened = new Promise<void>((resolve) => rt.socket.once('open', () => resolve()));
    return { rt, ...c, opened };
  }

  it('prints where the generated certificate is, and serves HTTPS on the same port', async () => {
    expect(server.url).toMatch(/^https:/);
    expect(server.certPath).toMatch(/cert\.pem$/);
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`${server.url}/v1/models`, { ca: server.cert, headers: { authorization: 'Bearer sk-test' } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(JSON.parse(body).data.some((m: { id: string }) => m.id === 'gpt-realtime')).toBe(true);
  });

  it('answers a text turn whose deltas add up, with usage that adds up', async () => {
    const { rt, until, opened } = connect();
    await opened;
    rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.' } });
    rt.send(userText('Hello there') as never);
    rt.send({ type: 'response.create' });
    const events = await until('response.done');
    rt.close();
    expect(events[0].type).toBe('session.created');
    expect(events.find((e) => e.type === 'session.updated')!.session.instructions).toBe('Be brief.');
    const deltas = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    const done = events.find((e) => e.type === 'response.output_text.done')!;
    expect(deltas).toBe(done.text);
    expect(done.text.length).toBeGreaterThan(10);
    const response = events.find((e) => e.type === 'response.done')!.response;
    expect(response.status).toBe('completed');
    expect(response.output[0].content[0]).toEqual({ type: 'output_text', text: done.text });
    const u = response.usage;
    expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens);
    expect(u.output_tokens).toBe(u.output_token_details.text_tokens + u.output_token_details.audio_tokens);
    expect(events.at(-1)!.type).toBe('rate_limits.updated');
    for (const e of events) expect(e.event_id).toMatch(/^event_/);
    assertRealtimeEvents(events);
  });

  it('answers an audio turn: append, commit, transcription, audio deltas with a transcript that adds up', async () => {
    const { rt, until, opened } = connect();
    await opened;
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: null, transcription: { model: 'gpt-4o-transcribe' } } } },
    });
    rt.send({ type: 'input_audio_buffer.append', audio: toneBase64(1.2) });
    rt.send({ type: 'input_audio_buffer.commit' });
    rt.send({ type: 'response.create' });
    const events = await until('response.done');
    rt.close();
    const committed = events.find((e) => e.type === 'input_audio_buffer.committed')!;
    const transcription = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    expect(transcription.item_id).toBe(committed.item_id);
    expect(transcription.transcript).toMatch(/\w+/);
    const audio = Buffer.concat(events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')));
    expect(audio.length % 2).toBe(0);
    expect(audio.length / 2 / 24000).toBeGreaterThan(0.5); // seconds of 24 kHz PCM16
    const transcript = events
      .filter((e) => e.type === 'response.output_audio_transcript.delta')
      .map((e) => e.delta)
      .join('');
    expect(transcript).toBe(events.find((e) => e.type === 'response.output_audio_transcript.done')!.transcript);
    const response = events.find((e) => e.type === 'response.done')!.response;
    expect(response.output[0].content[0]).toEqual({ type: 'output_audio', transcript });
    expect(response.usage.output_token_details.audio_tokens).toBeGreaterThan(0);
    assertRealtimeEvents(events);
  });

  it('transcribes speech this emulator made back to its words, and its own spoken answer carries its transcript', async () => {
    const said = 'Please book a table for two at seven.';
    const pcm = await new Promise<Buffer>((resolve, reject) => {
      const req = https.request(
        `${server.url}/v1/audio/speech`,
        { method: 'POST', ca: server.cert, headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d) => chunks.push(d));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'gpt-4o-mini-tts', voice: 'coral', input: said, response_format: 'pcm' }));
    });
    const { rt, until, opened } = connect();
    await opened;
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: null, transcription: { model: 'gpt-4o-transcribe' } } } },
    });
    // Appended in two pieces, as a microphone would send it.
    const half = Math.floor(pcm.length / 4) * 2;
    rt.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(0, half).toString('base64') });
    rt.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(half).toString('base64') });
    rt.send({ type: 'input_audio_buffer.commit' });
    rt.send({ type: 'response.create' });
    const events = await until('response.done');
    rt.close();
    expect(events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!.transcript).toBe(said);
    const audio = Buffer.concat(events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')));
    const samples = new Int16Array(audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.length));
    const transcript = events.find((e) => e.type === 'response.output_audio_transcript.done')!.transcript;
    expect(transcribe(samples, 24000, 0)).toBe(transcript);
  });

  it('calls a function when the tools demand, arguments streamed', async () => {
    const { rt, until, opened } = connect();
    await opened;
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    rt.send({ type: 'session.update', session: { type: 'realtime', tools: [{ type: 'function', name: 'get_weather', parameters }] } });
    rt.send(userText('What is the weather in Oslo?') as never);
    rt.send({ type: 'response.create' });
    const events = await until('response.done');
    rt.close();
    const done = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    expect(done.name).toBe('get_weather');
    expect(typeof JSON.parse(done.arguments).city).toBe('string');
    expect(
      events
        .filter((e) => e.type === 'response.function_call_arguments.delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe(done.arguments);
    const item = events.find((e) => e.type === 'response.done')!.response.output[0];
    expect(item).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: done.call_id, status: 'completed' });
    assertRealtimeEvents(events);
  });

  it("checks a response.create's own settings as a session.update's, and answers with them", async () => {
    const { rt, until, opened } = connect();
    await opened;
    await checksResponseSettings((event) => rt.send(event as never), until);
    rt.close();
  });

  it('cancels a response mid-way (a latency profile sent on the upgrade paces it)', async () => {
    const { rt, until, opened } = connect({ 'x-mock-latency': 'ttft=100,tps=50' });
    await opened;
    rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
    rt.send(userText('Tell me a story') as never);
    rt.send({ type: 'response.create' });
    await until('response.output_text.delta');
    rt.send({ type: 'response.cancel' });
    const events = await until('response.done');
    const done = events.find((e) => e.type === 'response.done')!.response;
    expect(done.status).toBe('cancelled');
    expect(done.status_details).toMatchObject({ type: 'cancelled', reason: 'client_cancelled' });
    expect(events.some((e) => e.type === 'response.output_text.done')).toBe(false);
    assertRealtimeEvents(events);
    await expect.poll(() => server.gateway.activeStreams).toBe(0);
    rt.close();
  });
});

describe.runIf(socketSuites)('realtime with raw WebSocket clients', () => {
  const live = realtimeServer();

  it('speaks the beta protocol with OpenAI-Beta: realtime=v1', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'OpenAI-Beta': 'realtime=v1' } });
    await c.opened;
    c.send({ type: 'session.update', session: { modalities: ['text'], voice: 'verse' } });
    c.send(userText('Hi'));
    c.send({ type: 'response.create' });
    const events = await c.until('response.done');
    c.socket.close();
    expect(events[0].session).toMatchObject({ object: 'realtime.session', modalities: ['text', 'audio'], voice: 'alloy' });
    expect(events.find((e) => e.type === 'session.updated')!.session).toMatchObject({ modalities: ['text'], voice: 'verse' });
    expect(events.some((e) => e.type === 'conversation.item.created')).toBe(true);
    expect(events.some((e) => e.type === 'conversation.item.added')).toBe(false);
    const text = events
      .filter((e) => e.type === 'response.text.delta')
      .map((e) => e.delta)
      .join('');
    expect(text).toBe(events.find((e) => e.type === 'response.text.done')!.text);
    expect(events.find((e) => e.type === 'response.done')!.response.output[0].content[0].type).toBe('text');
  });

  it('takes a browser handshake (subprotocols) with an ephemeral key minted over REST', async () => {
    const minted = await fetch(`${live.server.url}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({
        expires_after: { anchor: 'created_at', seconds: 60 },
        session: { type: 'realtime', model: 'gpt-realtime', instructions: 'You are a pirate.' },
      }),
    }).then((r) => r.json());
    expect(minted.value).toMatch(/^ek_/);
    expect(minted.expires_at).toBe(1767225600 + 60); // the gateway's fixed clock
    assertSchema('RealtimeCreateClientSecretResponse', minted);
    expect(minted.session).toMatchObject({ type: 'realtime', instructions: 'You are a pirate.' });
    const c = rawClient(`${live.server.url.replace('http', 'ws')}/v1/realtime`, {
      protocols: ['realtime', `openai-insecure-api-key.${minted.value}`],
    });
    await c.opened;
    expect(c.socket.protocol).toBe('realtime');
    const [created] = await c.until('session.created');
    expect(created.session).toMatchObject({ model: 'gpt-realtime', instructions: 'You are a pirate.' });
    c.socket.close();
    // The key works on the socket only.
    const chat = await fetch(`${live.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(401);
    // The beta route mints one too.
    const beta = await fetch(`${live.server.url}/v1/realtime/sessions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-realtime-preview', voice: 'verse' }),
    }).then((r) => r.json());
    expect(beta).toMatchObject({ object: 'realtime.session', voice: 'verse', client_secret: { value: expect.stringMatching(/^ek_/) } });
  });

  it('speaks beta to a browser offering openai-beta.realtime-v1, and its handshake carries x-request-id', async () => {
    const c = rawClient(live.wsUrl, { protocols: ['realtime', 'openai-insecure-api-key.sk-test', 'openai-beta.realtime-v1'] });
    const upgrade = new Promise<string | undefined>((resolve) =>
      c.socket.once('upgrade', (res) => resolve(res.headers['x-request-id'] as string)),
    );
    await c.opened;
    expect(await upgrade).toMatch(/^req_/);
    const [created] = await c.until('session.created');
    c.socket.close();
    expect(created.session.modalities).toEqual(['text', 'audio']);
    expect(created.session.input_audio_format).toBe('pcm16');
  });

  it('keeps an ephemeral key only until it expires on the gateway clock', () => {
    const tokens = runtimeOf(createGateway()).tokens;
    const key = tokens.mint({ expiresAt: 1000, parent: 'sk-test', session: {} });
    expect(tokens.ephemeralKey(key.value, 999)).toBe(key);
    expect(tokens.ephemeralKey(key.value, 1000)).toBeUndefined();
  });

  it('refuses a bad token and a non-realtime model on the handshake with the HTTP error', async () => {
    const status = (url: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const socket = new WebSocket(url, { headers });
        socket.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        socket.on('error', () => {});
      });
    const bad = await status(live.wsUrl, { Authorization: 'Bearer sk-wrong' });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body).error.code).toBe('invalid_api_key');
    const notRealtime = await status(live.wsUrl.replace('gpt-realtime', 'gpt-4o-mini'), { Authorization: 'Bearer sk-test' });
    expect(notRealtime.status).toBe(404);
    expect(JSON.parse(notRealtime.body).error.message).toMatch(/does not support realtime/);
  });

  it('answers bad frames with error events naming them, and stays open', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    c.socket.send('{not json');
    c.send({ type: 'conversation.item.explode', event_id: 'evt_1' });
    c.send({ type: 'conversation.item.create', event_id: 'evt_2' });
    c.send({ type: 'input_audio_buffer.append', audio: 42, event_id: 'evt_3' });
    // Found by the realtime fuzz: a type whose String() throws was logged before the checks, and the
    // TypeError left the socket's handler (the CLI's process died).
    c.send({ type: { toString: 1, valueOf: 2 }, event_id: 'evt_4' });
    const errors = (await c.until('error', 5)).filter((e) => e.type === 'error');
    expect(errors[4].error).toMatchObject({ type: 'invalid_request_error', param: 'type', event_id: 'evt_4', code: 'invalid_type' });
    expect(errors[0].error.code).toBe('invalid_json');
    expect(errors[1].error).toMatchObject({ param: 'type', event_id: 'evt_1', code: 'invalid_value' });
    expect(errors[2].error).toMatchObject({ param: 'item', event_id: 'evt_2', message: "Missing required parameter: 'item'." });
    expect(errors[3].error).toMatchObject({ param: 'audio', event_id: 'evt_3', code: 'invalid_type' });
    c.send({ type: 'response.create' });
    assertRealtimeEvents(await c.until('response.done'));
    c.socket.close();
  });

  it('refuses an oversized frame with close code 1009', async () => {
    const small = await startServer({ port: 0, maxBodyBytes: 1024 });
    const c = rawClient(`${small.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
      headers: { Authorization: 'Bearer sk-test' },
    });
    await c.opened;
    const closed = new Promise<number>((resolve) => c.socket.once('close', (code) => resolve(code)));
    c.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(4096) });
    expect(await closed).toBe(1009);
    await small.close();
  });

  it('gives identical event streams for identical session scripts', async () => {
    const run = async () => {
      const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
      await c.opened;
      c.send({
        type: 'session.update',
        session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 300 } } } },
      });
      // Server VAD: speech, then silence ends the turn and starts a response by itself.
      c.send({ type: 'input_audio_buffer.append', audio: toneBase64(0.8, 400) });
      const events = await c.until('response.done');
      c.socket.close();
      return JSON.stringify(events);
    };
    const first = await run();
    expect(first).toContain('input_audio_buffer.speech_started');
    expect(first).toContain('input_audio_buffer.speech_stopped');
    assertRealtimeEvents(JSON.parse(first));
    expect(await run()).toBe(first);
  });

  it('answers a response.create input element that is no item with the error event naming it', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    c.send({ type: 'response.create', event_id: 'evt_bad_input', response: { conversation: 'none', input: [null] } });
    const events = await c.until('error');
    c.socket.close();
    expect(events.at(-1)!.error).toMatchObject({ type: 'invalid_request_error', param: 'response.input[0]', event_id: 'evt_bad_input' });
  });

  // Found by fuzzing: a system message holding an image was added, and shown back against the spec.
  it("refuses a content type the message's role does not take, naming the part", async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    const image = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' };
    c.send({ type: 'conversation.item.create', event_id: 'evt_system', item: { type: 'message', role: 'system', content: [image] } });
    const text = { type: 'output_text', text: 'hi' };
    c.send({
      type: 'conversation.item.create',
      event_id: 'evt_user',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }, text] },
    });
    const errors = (await c.until('error', 2)).filter((e) => e.type === 'error').map((e) => e.error);
    c.socket.close();
    expect(errors).toMatchObject([
      { type: 'invalid_request_error', param: 'item.content[0].type', event_id: 'evt_system', code: 'invalid_value' },
      { type: 'invalid_request_error', param: 'item.content[1].type', event_id: 'evt_user', code: 'invalid_value' },
    ]);
    expect(errors[0].message).toBe(
      "Invalid value for 'item.content[0].type': 'input_image'. Supported values are: 'input_text' and 'text'.",
    );
    expect(c.events.some((e) => e.type === 'conversation.item.added')).toBe(false);
  });

  // Found by fuzzing (FUZZ_SEED=2): an image whose image_url was no string was added, and shown back against the spec.
  it('refuses an input image whose image_url or detail is not one, naming the field', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    const item = (part: object) => ({ type: 'message', role: 'user', content: [part] });
    c.send({ type: 'conversation.item.create', event_id: 'evt_url', item: item({ type: 'input_image', image_url: [] }) });
    c.send({
      type: 'conversation.item.create',
      event_id: 'evt_detail',
      item: item({ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'max' }),
    });
    // FUZZ_SEED=16: a string that is no URI (the spec's format: uri).
    c.send({ type: 'conversation.item.create', event_id: 'evt_uri', item: item({ type: 'input_image', image_url: 'Hello' }) });
    const errors = (await c.until('error', 3))
      .filter((e) => e.type === 'error')
      .map((e) => [e.error.event_id, e.error.param, e.error.code]);
    c.send({
      type: 'conversation.item.create',
      item: item({ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' }),
    });
    const added = (await c.until('conversation.item.added')).find((e) => e.type === 'conversation.item.added')!;
    c.socket.close();
    expect(errors).toEqual([
      ['evt_url', 'item.content[0].image_url', 'invalid_type'],
      ['evt_detail', 'item.content[0].detail', 'invalid_value'],
      ['evt_uri', 'item.content[0].image_url', 'invalid_value'],
    ]);
    expect(added.item.content[0]).toMatchObject({ type: 'input_image', detail: 'low' });
  });

  // Found by fuzzing: any string or object was taken as tool_choice and shown back against the spec.
  it('refuses a tool_choice that is no mode and names no tool, naming the field', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    c.send({ type: 'session.update', event_id: 'evt_mode', session: { type: 'realtime', tool_choice: 'sometimes' } });
    c.send({ type: 'session.update', event_id: 'evt_type', session: { type: 'realtime', tool_choice: { type: [], name: 'get_weather' } } });
    c.send({ type: 'response.create', event_id: 'evt_name', response: { tool_choice: { type: 'function' } } });
    const errors = (await c.until('error', 3))
      .filter((e) => e.type === 'error')
      .map((e) => [e.error.event_id, e.error.type, e.error.param]);
    c.socket.close();
    expect(errors).toEqual([
      ['evt_mode', 'invalid_request_error', 'session.tool_choice'],
      ['evt_type', 'invalid_request_error', 'session.tool_choice.type'],
      ['evt_name', 'invalid_request_error', 'response.tool_choice.name'],
    ]);
    expect(c.events.some((e) => e.type === 'session.updated' || e.type === 'response.created')).toBe(false);
  });

  // Found by fuzzing: an error without a code failed the response with `code: null`, which the spec's string refuses.
  it('fails a response whose tool schema cannot be answered, its status_details as the spec has them', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    const parameters = { type: 'object', properties: { city: { $ref: '#/$defs/nope' } }, required: ['city'] };
    c.send({
      type: 'response.create',
      response: { output_modalities: ['text'], tools: [{ type: 'function', name: 'f', parameters }], tool_choice: 'required' },
    });
    const events = await c.until('response.done');
    c.socket.close();
    const done = events.find((e) => e.type === 'response.done')!;
    expect(done.response.status).toBe('failed');
    expect(done.response.status_details.error.type).toBe('invalid_request_error');
    assertRealtimeEvents(events);
  });

  it('retrieves, truncates and deletes conversation items', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    c.send({
      type: 'conversation.item.create',
      item: { id: 'item_mine', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
    });
    c.send({ type: 'response.create' });
    const done = (await c.until('response.done')).find((e) => e.type === 'response.done')!.response;
    const said = done.output[0];
    expect(said.content[0].type).toBe('output_audio');
    c.send({ type: 'conversation.item.retrieve', item_id: 'item_mine' });
    c.send({ type: 'conversation.item.truncate', item_id: said.id, content_index: 0, audio_end_ms: 500 });
    c.send({ type: 'conversation.item.retrieve', item_id: said.id });
    c.send({ type: 'conversation.item.delete', item_id: 'item_mine' });
    c.send({ type: 'conversation.item.retrieve', item_id: 'item_mine', event_id: 'evt_gone' });
    const events = await c.until('error');
    c.socket.close();
    const retrieved = events.filter((e) => e.type === 'conversation.item.retrieved');
    expect(retrieved[0].item).toMatchObject({ id: 'item_mine', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] });
    expect(retrieved[1].item.content[0]).toEqual({ type: 'output_audio', transcript: '' });
    expect(events.find((e) => e.type === 'conversation.item.truncated')).toMatchObject({ item_id: said.id, audio_end_ms: 500 });
    expect(events.find((e) => e.type === 'conversation.item.deleted')!.item_id).toBe('item_mine');
    expect(events.at(-1)!.error).toMatchObject({ code: 'item_not_found', event_id: 'evt_gone' });
    assertRealtimeEvents(events);
  });

  it("truncates a response's audio in a beta session too, where the part is named audio", async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'OpenAI-Beta': 'realtime=v1' } });
    await c.opened;
    c.send({
      type: 'conversation.item.create',
      item: { id: 'item_asks', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
    });
    c.send({ type: 'response.create' });
    const said = (await c.until('response.done')).find((e) => e.type === 'response.done')!.response.output[0];
    expect(said.content[0]).toMatchObject({ type: 'audio', transcript: expect.any(String) });
    c.send({ type: 'conversation.item.truncate', item_id: said.id, content_index: 0, audio_end_ms: 500 });
    c.send({ type: 'conversation.item.retrieve', item_id: said.id });
    // Anything else is refused as before: a user's text.
    c.send({ type: 'conversation.item.truncate', item_id: 'item_asks', content_index: 0, audio_end_ms: 0, event_id: 'evt_text' });
    const events = await c.until('error');
    c.socket.close();
    expect(events.find((e) => e.type === 'conversation.item.truncated')).toMatchObject({
      item_id: said.id,
      content_index: 0,
      audio_end_ms: 500,
    });
    expect(events.find((e) => e.type === 'conversation.item.retrieved')!.item.content[0]).toEqual({ type: 'audio', transcript: '' });
    expect(events.filter((e) => e.type === 'error').map((e) => e.error)).toEqual([
      expect.objectContaining({ param: 'content_index', code: 'invalid_value', event_id: 'evt_text' }),
    ]);
  });

  it('drops the connection for a connection fault sent on the upgrade', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' } });
    await c.opened;
    const closed = new Promise<number>((resolve) => c.socket.once('close', (code) => resolve(code)));
    c.send({ type: 'response.create' });
    expect(await closed).toBe(1006);
    expect(c.events.map((e) => e.type)).toEqual(['session.created']);
  });

  it('cuts the connection after the given events for STREAM_CUT', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'x-mock-fault': 'STREAM_CUT,after=3' } });
    await c.opened;
    const closed = new Promise<number>((resolve) => c.socket.once('close', (code) => resolve(code)));
    c.send({ type: 'response.create' });
    expect(await closed).toBe(1006);
    expect(c.events.map((e) => e.type)).toEqual([
      'session.created',
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
    ]);
  });

  it('cancels a response when the user starts speaking (server VAD, interrupt_response)', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'x-mock-latency': 'ttft=50,tps=5' } });
    await c.opened;
    c.send(userText('Tell me everything'));
    c.send({ type: 'response.create' });
    await c.until('response.created');
    c.send({ type: 'input_audio_buffer.append', audio: toneBase64(0.3) });
    const events = await c.until('response.done');
    c.socket.close();
    const started = events.findIndex((e) => e.type === 'input_audio_buffer.speech_started');
    const done = events.findIndex((e) => e.type === 'response.done');
    expect(started).toBeGreaterThan(0);
    expect(done).toBeGreaterThan(started);
    expect(events[done].response.status_details).toMatchObject({ type: 'cancelled', reason: 'turn_detected' });
  });

  it('stops producing when the client leaves mid-response', async () => {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test', 'x-mock-latency': 'ttft=50,tps=5' } });
    await c.opened;
    c.send(userText('A long story please'));
    c.send({ type: 'response.create' });
    await c.until('response.created');
    expect(live.server.gateway.activeStreams).toBe(1);
    c.socket.terminate();
    // The reply would take ~10 s at this pace; production stops as soon as the server sees the close.
    await vi.waitFor(() => expect(live.server.gateway.activeStreams).toBe(0), { timeout: 60_000, interval: 20 });
    const entry = live.server.gateway.requests({ path: '/v1/realtime' }).at(-1)!;
    expect(entry.outcome).toBe('aborted');
    expect(entry.events!.slice(0, 3).map((e) => e.type)).toEqual([
      'session.created',
      'conversation.item.create',
      'conversation.item.added',
    ]);
  });

  it('applies fixtures to realtime turns and injects a mid-response error', async () => {
    live.server.gateway.use({ match: { userMessage: { contains: 'weather' } }, reply: { text: 'Sunny, 21 °C.' } });
    live.server.gateway.use({ match: { userMessage: { contains: 'flaky' } }, fault: { type: 'STREAM_ERROR', after: 3, status: 503 } });
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    c.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
    c.send(userText('How is the weather?'));
    c.send({ type: 'response.create' });
    let events = await c.until('response.done');
    expect(events.find((e) => e.type === 'response.output_text.done')!.text).toBe('Sunny, 21 °C.');
    c.send(userText('flaky one'));
    c.send({ type: 'response.create' });
    events = await c.until('response.done', 2);
    const error = events.filter((e) => e.type === 'error').at(-1)!;
    expect(error.error.type).toBe('server_error');
    expect(events.filter((e) => e.type === 'response.done').at(-1)!.response.status).toBe('failed');
    c.socket.close();
    live.server.gateway.reset();
  });
});

describe.runIf(socketSuites)('realtime conversation items, bounded per session and across sessions', () => {
  const live = realtimeServer();
  const held = () => runtimeOf(live.server.gateway).realtimeItems.held;
  const item = (id: string, chars: number) => ({
    type: 'conversation.item.create',
    item: { id, type: 'message', role: 'user', content: [{ type: 'input_text', text: 'w'.repeat(chars) }] },
  });
  /** A session that has added `count` items of `chars` characters, each acknowledged. */
  async function filled(count: number, chars: number, prefix: string) {
    const c = rawClient(live.wsUrl, { headers: { Authorization: 'Bearer sk-test' } });
    await c.opened;
    for (let i = 0; i < count; i++) c.send(item(`${prefix}_${i}`, chars));
    await c.until('conversation.item.done', count);
    return c;
  }

  it(`keeps at most ${ITEM_LIMITS.sessionBytes / 1024 / 1024} MiB per session (oldest dropped), refuses an item over it, and gives it all back on close`, async () => {
    const MB2 = 2_000_000;
    const one = await filled(5, MB2, 'a');
    one.send({ type: 'conversation.item.retrieve', item_id: 'a_0', event_id: 'evt_first' });
    one.send({ type: 'conversation.item.retrieve', item_id: 'a_4', event_id: 'evt_last' });
    one.send(item('too_big', ITEM_LIMITS.sessionBytes + 1));
    await one.until('error', 2);
    const errors = one.events.filter((e) => e.type === 'error').map((e) => e.error);
    expect(errors[0]).toMatchObject({ code: 'item_not_found', event_id: 'evt_first' });
    expect(errors[1]).toMatchObject({ code: 'item_too_large', param: 'item' });
    expect(one.events.find((e) => e.type === 'conversation.item.retrieved')!.item.id).toBe('a_4');
    expect(held()).toBeGreaterThan(4 * MB2);
    expect(held()).toBeLessThanOrEqual(ITEM_LIMITS.sessionBytes);
    one.socket.close();
    await vi.waitFor(() => expect(held()).toBe(0), { timeout: 60_000, interval: 20 });
  });
});

describe.runIf(socketSuites)('the CLI with --tls', () => {
  it('prints the generated certificate, which a client trusts with NODE_EXTRA_CA_CERTS', async () => {
    const cli = await spawnCli(['--tls']);
    try {
      expect(cli.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const certPath = /TLS certificate: (\S+)/.exec(cli.output())![1];
      // A fresh process that trusts the printed file opens the realtime socket over wss.
      const script = `const WebSocket = require('ws'); const s = new WebSocket(process.argv[1], { headers: { Authorization: 'Bearer sk-test' } }); s.on('message', (d) => { console.log(JSON.parse(d).type); process.exit(0); }); s.on('error', (e) => { console.log(e.message); process.exit(1); });`;
      const out = await new Promise<string>((resolve) =>
        execFile(
          process.execPath,
          ['-e', script, `${cli.url.replace('https', 'wss')}/v1/realtime?model=gpt-realtime`],
          { env: { ...process.env, NODE_EXTRA_CA_CERTS: certPath }, cwd: process.cwd() },
          (_e, stdout) => resolve(stdout.trim()),
        ),
      );
      expect(out).toBe('session.created');
    } finally {
      await cli.stop();
    }
  });
});

describe('realtime in-process with msw and the global WebSocket', () => {
  const gateway = createGateway({ seed: 3 });
  const mock = setupServer(...gateway.handlers);
  beforeAll(() => mock.listen({ onUnhandledRequest: 'bypass' } as never));
  afterAll(() => mock.close());

  /** The global WebSocket with a browser's handshake (the key as a subprotocol), collecting what it hears. */
  function browserSocket(key: string) {
    const socket = new globalThis.WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', [
      'realtime',
      `openai-insecure-api-key.${key}`,
    ]);
    const c = collector();
    socket.addEventListener('message', (e) => c.push(JSON.parse(String(e.data))));
    return { socket, c };
  }

  it('runs a turn over a browser-style handshake', async () => {
    const { socket, c } = browserSocket('sk-test');
    await new Promise((r) => socket.addEventListener('open', r, { once: true }));
    socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }));
    socket.send(JSON.stringify(userText('Hello')));
    socket.send(JSON.stringify({ type: 'response.create' }));
    const events = await c.until('response.done');
    socket.close();
    expect(events[0].type).toBe('session.created');
    expect(events.find((e) => e.type === 'response.done')!.response.status).toBe('completed');
    expect(gateway.requests({ path: '/v1/realtime' })).toHaveLength(1);
  });

  it("serves the openai SDK's browser client (OpenAIRealtimeWebSocket), a function-call turn", async () => {
    const client = new OpenAI({ apiKey: 'sk-test', dangerouslyAllowBrowser: true });
    const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime', dangerouslyAllowBrowser: true }, client);
    const c = collector();
    rt.on('event', (e) => c.push(e as Ev));
    rt.on('error', (e) => c.push({ type: 'sdk.error', message: e.message }));
    await c.until('session.created');
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['text'], tools: [{ type: 'function', name: 'get_weather', parameters }] },
    });
    rt.send(userText('Weather in Paris?') as never);
    rt.send({ type: 'response.create' });
    const events = await c.until('response.done');
    const call = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    expect(call.name).toBe('get_weather');
    rt.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' } });
    rt.send({ type: 'response.create' });
    const after = await c.until('response.done', 2);
    rt.close();
    const text = after.filter((e) => e.type === 'response.output_text.done').at(-1)!.text;
    expect(text).toContain('get_weather');
    expect(text).toContain('{"temp":21}');
  });

  it("checks a response.create's own settings as a session.update's, and answers with them", async () => {
    const { socket, c } = browserSocket('sk-test');
    await new Promise((r) => socket.addEventListener('open', r, { once: true }));
    await checksResponseSettings((event) => socket.send(JSON.stringify(event)), c.until);
    socket.close();
  });

  it('refuses a bad key with an error event, then closes', async () => {
    const { socket, c } = browserSocket('sk-nope');
    const closed = new Promise<number>((r) => socket.addEventListener('close', (e) => r(e.code), { once: true }));
    const [error] = await c.until('error');
    expect(error.error.code).toBe('invalid_api_key');
    expect(await closed).toBe(1008);
  });
});
