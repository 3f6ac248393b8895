// Realtime transcription sessions (`?intent=transcription`): the openai SDK's realtime client (GA
// events), a beta client (`transcription_session.update`), and a client secret minted for one. Audio is
// committed by server VAD and transcribed (delta, completed, the transcription model's usage); no
// response is ever made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/server.ts';
import { transcribe } from '../src/core/transcribe.ts';
import { hashString } from '../src/core/seed.ts';

type Ev = Record<string, any>;

/** A voiced tone at 24 kHz, then silence, as base64 PCM16. */
function toneBase64(seconds: number, silenceMs: number): string {
  const n = Math.round(seconds * 24000);
  const bytes = Buffer.alloc((n + Math.round((silenceMs / 1000) * 24000)) * 2);
  for (let i = 0; i < n; i++) bytes.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 180 * i) / 24000) * 8000), i * 2);
  return bytes.toString('base64');
}

function collect() {
  const events: Ev[] = [];
  const waiters: { type: string; resolve: () => void }[] = [];
  const push = (e: Ev) => {
    events.push(e);
    for (const w of [...waiters]) if (events.some((x) => x.type === w.type)) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  const until = (type: string) =>
    new Promise<Ev[]>((resolve, reject) => {
      waiters.push({ type, resolve: () => resolve(events) });
      push({ type: '(check)' });
      events.pop();
      setTimeout(() => reject(new Error(`no ${type} in: ${events.map((e) => e.type).join(', ')}`)), 60_000);
    });
  return { events, push, until };
}

describe('realtime transcription sessions', () => {
  let server: RunningServer;
  // The SDK opens a transcription session over wss only: a TLS server for it.
  let tls: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 3 });
    tls = await startServer({ port: 0, tls: true, seed: 3 });
  });
  afterAll(() => Promise.all([server.close(), tls.close()]));

  it("transcribes what server VAD commits, through the openai SDK's realtime client (GA), and makes no response", async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${tls.url}/v1` });
    const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { ca: tls.cert } } as never, client);
    const c = collect();
    rt.on('event', (e) => c.push(e as Ev));
    rt.on('error', (e) => c.push({ type: 'error', error: (e as { error?: unknown }).error ?? e.message }));
    const [created] = await c.until('session.created');
    expect(created.session).toMatchObject({ type: 'transcription', object: 'realtime.transcription_session' });
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            transcription: { model: 'gpt-4o-transcribe', prompt: 'names' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 300 },
          },
        },
      },
    } as never);
    const audio = toneBase64(1, 600);
    rt.send({ type: 'input_audio_buffer.append', audio });
    const events = await c.until('conversation.item.input_audio_transcription.completed');
    rt.send({ type: 'response.create' });
    await c.until('error');
    rt.close();
    const types = events.map((e) => e.type);
    expect(types).toContain('session.updated');
    expect(types.indexOf('input_audio_buffer.speech_started')).toBeLessThan(types.indexOf('input_audio_buffer.speech_stopped'));
    expect(types.indexOf('input_audio_buffer.committed')).toBeLessThan(types.indexOf('conversation.item.input_audio_transcription.delta'));
    const done = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    const pcm = Buffer.from(audio, 'base64');
    expect(done.transcript).toBe(transcribe(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2), 24000, hashString(audio, 0)));
    expect(events.find((e) => e.type === 'conversation.item.input_audio_transcription.delta')!.delta).toBe(done.transcript);
    expect(done.usage).toMatchObject({ type: 'tokens', input_token_details: { audio_tokens: expect.any(Number) } });
    expect(done.usage.total_tokens).toBe(done.usage.input_tokens + done.usage.output_tokens);
    expect(c.events.some((e) => e.type === 'response.created')).toBe(false);
    expect(c.events.at(-1)!.error.message).toMatch(/Transcription sessions do not create responses/);
  });

  it('speaks beta to a beta client: transcription_session.update, whisper billed by the second', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime?intent=transcription`, {
      headers: { authorization: 'Bearer sk-test', 'openai-beta': 'realtime=v1' },
    });
    const c = collect();
    ws.on('message', (d) => c.push(JSON.parse(String(d))));
    await c.until('transcription_session.created');
    ws.send(JSON.stringify({ type: 'transcription_session.update', session: { input_audio_transcription: { model: 'whisper-1' } } }));
    await c.until('transcription_session.updated');
    ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: toneBase64(1.2, 700) }));
    const events = await c.until('conversation.item.input_audio_transcription.completed');
    ws.close();
    expect(events.find((e) => e.type === 'transcription_session.updated')!.session.input_audio_transcription.model).toBe('whisper-1');
    expect(events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!.usage).toEqual({
      type: 'duration',
      seconds: 2,
    });
    expect(events.some((e) => e.type === 'conversation.created')).toBe(false);
  });

  it('opens a transcription session with a client secret minted for one', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` });
    const secret = await client.realtime.clientSecrets.create({
      session: { type: 'transcription', audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } } } },
    });
    expect(secret.session).toMatchObject({ type: 'transcription' });
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime`, { headers: { authorization: `Bearer ${secret.value}` } });
    const c = collect();
    ws.on('message', (d) => c.push(JSON.parse(String(d))));
    const [created] = await c.until('session.created');
    ws.close();
    expect(created.session.audio.input.transcription.model).toBe('gpt-4o-mini-transcribe');
  });
});
