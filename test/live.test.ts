// Gemini Live through @google/genai's ai.live.connect: over a socket (the Node client on `ws`) and
// in-process (the web client on the global WebSocket, through msw). A text turn, an audio turn (the
// speech decoded and its duration checked), a tool call the client answers, an interruption, a
// resumed session, ephemeral tokens (honoured, used up, expired), the same fixture as generate-content,
// and bad setups closed with the service's codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleGenAI, Modality, type LiveServerMessage, type Session } from '@google/genai';
import { GoogleGenAI as WebGenAI } from '@google/genai/web';
import WebSocket from 'ws';
import { setupServer } from 'msw/node';
import { startServer, type RunningServer } from '../src/server.ts';
import { createGateway } from '../src/index.ts';
import { transcribe } from '../src/core/transcribe.ts';
import { hashString } from '../src/core/seed.ts';

type Client = GoogleGenAI | WebGenAI;
const MODEL = 'gemini-2.5-flash-native-audio-preview-12-2025';
const LIVE_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';

/** `seconds` of a voiced tone at 16 kHz, then `silenceMs` of silence, as base64 PCM16. */
function tone16k(seconds = 1, silenceMs = 0): string {
  const n = Math.round(seconds * 16000);
  const total = n + Math.round((silenceMs / 1000) * 16000);
  const bytes = Buffer.alloc(total * 2);
  for (let i = 0; i < n; i++) bytes.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 180 * i) / 16000) * 8000), i * 2);
  return bytes.toString('base64');
}

/** A live session whose messages are collected; `until(pred)` resolves once one matches. */
async function connect(ai: Client, config: Record<string, unknown> = {}, model = MODEL) {
  const messages: LiveServerMessage[] = [];
  const waiters: { pred: (m: LiveServerMessage) => boolean; count: number; resolve: () => void }[] = [];
  let closed: { code: number; reason: string } | undefined;
  const check = () => {
    for (const w of [...waiters])
      if (messages.filter(w.pred).length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  const session: Pick<Session, 'sendClientContent' | 'sendRealtimeInput' | 'sendToolResponse' | 'close'> = await (
    ai as GoogleGenAI
  ).live.connect({
    model,
    config,
    callbacks: {
      onmessage: (m) => {
        messages.push(m);
        check();
      },
      onclose: (e) => {
        closed = { code: e.code, reason: e.reason };
      },
    },
  });
  const until = (pred: (m: LiveServerMessage) => boolean, count = 1) =>
    new Promise<LiveServerMessage[]>((resolve, reject) => {
      waiters.push({ pred, count, resolve: () => resolve(messages) });
      check();
      // A hang detector only, far above any normal exchange.
      setTimeout(() => reject(new Error(`no message in: ${messages.map((m) => Object.keys(m).join('+')).join(', ')}`)), 60_000);
    });
  return { session, messages, until, closed: () => closed };
}

const turnComplete = (m: LiveServerMessage) => m.serverContent?.turnComplete === true;
const textOf = (ms: LiveServerMessage[]) =>
  ms.map((m) => m.serverContent?.modelTurn?.parts?.map((p) => p.text ?? '').join('') ?? '').join('');
function audioOf(ms: LiveServerMessage[]): Int16Array {
  const chunks = ms.flatMap((m) => m.serverContent?.modelTurn?.parts?.filter((p) => p.inlineData) ?? []);
  for (const c of chunks) expect(c.inlineData!.mimeType).toBe('audio/pcm;rate=24000');
  const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.inlineData!.data!, 'base64')));
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

function liveSuite(name: string, make: (apiKey?: string) => Client, fixtures: () => { use(f: object): void }) {
  describe(name, () => {
    it('refuses a bad key as the service does: the socket accepted, then closed 1008 with the reason', async () => {
      await expect(connect(make('sk-wrong'))).rejects.toThrow(
        /Live connection closed before setup completed \(code 1008\): Incorrect API key provided/,
      );
      // Still serving.
      const live = await connect(make(), { responseModalities: [Modality.TEXT] });
      live.session.close();
    });

    it('answers a text turn, with usage', async () => {
      const live = await connect(make(), { responseModalities: [Modality.TEXT], systemInstruction: 'Be brief.' });
      live.session.sendClientContent({ turns: 'Hello there' });
      const ms = await live.until(turnComplete);
      live.session.close();
      expect(Object.keys(ms[0])).toEqual(['setupComplete']);
      expect(textOf(ms).length).toBeGreaterThan(0);
      expect(ms.some((m) => m.serverContent?.generationComplete)).toBe(true);
      const done = ms.find(turnComplete)!;
      expect(done.usageMetadata!.totalTokenCount).toBe(done.usageMetadata!.promptTokenCount! + done.usageMetadata!.responseTokenCount!);
    });

    it('hears an audio turn (automatic activity detection) and answers in speech, transcribed both ways', async () => {
      const live = await connect(make(), {
        responseModalities: [Modality.AUDIO],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
        inputAudioTranscription: {},
        outputAudioTranscription: {},
      });
      const audio = tone16k(1, 700);
      live.session.sendRealtimeInput({ audio: { data: audio, mimeType: 'audio/pcm;rate=16000' } });
      const ms = await live.until(turnComplete);
      live.session.close();
      const heard = ms.find((m) => m.serverContent?.inputTranscription)!.serverContent!.inputTranscription!.text;
      const pcm = Buffer.from(audio, 'base64');
      // What the transcription rule hears in the turn's audio (keyed by the audio sent).
      expect(heard).toBe(transcribe(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2), 16000, hashString(audio, 0)));
      const samples = audioOf(ms);
      const said = ms.map((m) => m.serverContent?.outputTranscription?.text ?? '').join('');
      expect(said.length).toBeGreaterThan(0);
      // The speech is the transcription's text, decodable: it carries the words (the watermark) and lasts as long as they take.
      expect(transcribe(samples, 24000, 0)).toBe(said);
      const seconds = samples.length / 24000;
      expect(seconds).toBeGreaterThan(0.2);
      const usage = ms.find(turnComplete)!.usageMetadata!;
      expect(usage.responseTokensDetails![0]).toEqual({ modality: 'AUDIO', tokenCount: Math.ceil(seconds * 25) });
    });

    it('makes a tool call the client answers, then speaks of its result', async () => {
      const live = await connect(make(), {
        responseModalities: [Modality.TEXT],
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', parameters: { type: 'OBJECT' as never, properties: { city: { type: 'STRING' as never } } } },
            ],
          },
        ],
      });
      live.session.sendClientContent({ turns: 'Weather in Paris?' });
      const ms = await live.until((m) => m.toolCall !== undefined);
      const call = ms.find((m) => m.toolCall)!.toolCall!.functionCalls![0];
      expect(call.name).toBe('get_weather');
      expect(call.id).toBeTruthy();
      live.session.sendToolResponse({ functionResponses: [{ id: call.id, name: call.name, response: { temp: 21 } }] });
      const after = await live.until(turnComplete);
      live.session.close();
      expect(textOf(after)).toContain('get_weather');
    });

    it('is interrupted when the user speaks over a response', async () => {
      fixtures().use({
        match: { userMessage: { contains: 'long story' } },
        reply: { text: 'word '.repeat(400).trim() },
        latency: { tokensPerSecond: 50 },
      });
      const live = await connect(make(), { responseModalities: [Modality.TEXT] });
      live.session.sendClientContent({ turns: 'Tell me a long story' });
      await live.until((m) => m.serverContent?.modelTurn !== undefined);
      live.session.sendRealtimeInput({ audio: { data: tone16k(0.3), mimeType: 'audio/pcm;rate=16000' } });
      const ms = await live.until((m) => m.serverContent?.interrupted === true);
      live.session.close();
      expect(ms.some(turnComplete)).toBe(false);
    });

    it('resumes a session by its handle, with the conversation so far', async () => {
      const ai = make();
      const first = await connect(ai, { responseModalities: [Modality.TEXT], sessionResumption: {} });
      first.session.sendClientContent({ turns: 'My name is Ada' });
      const ms = await first.until((m) => m.sessionResumptionUpdate?.newHandle !== undefined);
      first.session.close();
      const handle = ms.find((m) => m.sessionResumptionUpdate)!.sessionResumptionUpdate!;
      expect(handle.resumable).toBe(true);
      const second = await connect(ai, { responseModalities: [Modality.TEXT], sessionResumption: { handle: handle.newHandle } });
      // Matched only as the conversation's second user turn: the resumed session's first turn is there.
      fixtures().use({ match: { userMessage: { contains: 'What is my name?' }, turn: 2 }, reply: { text: 'You are Ada.' } });
      second.session.sendClientContent({ turns: 'What is my name?' });
      const after = await second.until(turnComplete);
      second.session.close();
      expect(textOf(after)).toBe('You are Ada.');
    });
  });
}

describe('Gemini Live over a socket', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 3 });
  });
  afterAll(() => server.close());
  const make = (apiKey = 'sk-test') => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url } });
  liveSuite('the Node client', make, () => ({ use: (f) => void server.gateway.use(f as never) }));

  it('answers the same prompt with the same fixture on Live and on generate-content', async () => {
    server.gateway.use({ match: { userMessage: { contains: 'Same on both?' } }, reply: { text: 'Yes, one fixture.' } });
    const ai = make();
    const rest = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Same on both?' });
    const live = await connect(ai, { responseModalities: [Modality.TEXT] });
    live.session.sendClientContent({ turns: 'Same on both?' });
    const ms = await live.until(turnComplete);
    live.session.close();
    expect(rest.text).toBe('Yes, one fixture.');
    expect(textOf(ms)).toBe('Yes, one fixture.');
  });

  it('opens a session with an ephemeral token (its locked setup applied), and refuses it used up or expired', async () => {
    const ai = make();
    const token = await ai.authTokens.create({
      config: {
        uses: 1,
        liveConnectConstraints: { model: MODEL, config: { responseModalities: [Modality.TEXT] } },
        httpOptions: { apiVersion: 'v1alpha' },
      },
    });
    expect(token.name).toMatch(/^auth_tokens\//);
    const client = new GoogleGenAI({ apiKey: token.name!, httpOptions: { baseUrl: server.url, apiVersion: 'v1alpha' } });
    // The token locks TEXT: the client's AUDIO is overridden.
    const live = await connect(client, { responseModalities: [Modality.AUDIO] });
    live.session.sendClientContent({ turns: 'Hello' });
    const ms = await live.until(turnComplete);
    live.session.close();
    expect(textOf(ms).length).toBeGreaterThan(0);
    // One use only: refused as the service refuses it, the socket accepted and closed 1008 with the reason.
    await expect(connect(client)).rejects.toThrow(/closed before setup completed \(code 1008\): The auth token has been used/);
    const expired = await ai.authTokens.create({ config: { uses: 5, httpOptions: { apiVersion: 'v1alpha' } } });
    server.gateway.advanceClock(120);
    const late = new GoogleGenAI({ apiKey: expired.name!, httpOptions: { baseUrl: server.url, apiVersion: 'v1alpha' } });
    await expect(connect(late)).rejects.toThrow(/closed before setup completed \(code 1008\): The auth token has expired/);
  });

  it('closes bad setups and bad messages with the service codes, and stays up', async () => {
    const url = `${server.url.replace('http', 'ws')}${LIVE_PATH}?key=sk-test`;
    const attempt = (frames: unknown[]) =>
      new Promise<{ code: number; reason: string; got: string[] }>((resolve) => {
        const ws = new WebSocket(url);
        const got: string[] = [];
        ws.on('open', () => frames.forEach((f) => ws.send(typeof f === 'string' ? f : JSON.stringify(f))));
        ws.on('message', (d) => got.push(String(d)));
        ws.on('close', (code, reason) => resolve({ code, reason: String(reason), got }));
      });
    const unknownModel = await attempt([{ setup: { model: 'models/nope-1' } }]);
    expect(unknownModel.code).toBe(1008);
    expect(unknownModel.reason).toMatch(/models\/nope-1 is not found for API version v1beta/);
    const unknownField = await attempt([{ setup: { model: `models/${MODEL}`, bogus: 1 } }]);
    expect(unknownField).toMatchObject({
      code: 1007,
      reason: `Invalid JSON payload received. Unknown name "bogus" at 'setup': Cannot find field.`,
    });
    const notJson = await attempt(['{nope']);
    expect(notJson.code).toBe(1007);
    const beforeSetup = await attempt([{ clientContent: { turns: [], turnComplete: true } }]);
    expect(beforeSetup.code).toBe(1007);
    expect(beforeSetup.reason).toMatch(/first message must be setup/);
    const twoModalities = await attempt([
      { setup: { model: `models/${MODEL}`, generationConfig: { responseModalities: ['TEXT', 'AUDIO'] } } },
    ]);
    expect(twoModalities.code).toBe(1007);
    const badVoice = await attempt([
      {
        setup: {
          model: `models/${MODEL}`,
          generationConfig: { speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Nobody' } } } },
        },
      },
    ]);
    expect(badVoice.reason).toMatch(/Voice name Nobody is not supported/);
    const manual = await attempt([{ setup: { model: `models/${MODEL}` } }, { realtimeInput: { activityStart: {} } }]);
    expect(manual.code).toBe(1007);
    expect(manual.reason).toMatch(/Explicit activity control is not supported when automatic activity detection is enabled/);
    // Still serving.
    const live = await connect(make(), { responseModalities: [Modality.TEXT] });
    live.session.close();
  });

  it('closes a frame over the body limit with 1009, as the realtime socket does', async () => {
    const small = await startServer({ port: 0, maxBodyBytes: 2048 });
    const ws = new WebSocket(`${small.url.replace('http', 'ws')}${LIVE_PATH}?key=sk-test`);
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ setup: { model: `models/${MODEL}`, systemInstruction: { parts: [{ text: 'x'.repeat(4096) }] } } }));
    const code = await new Promise<number>((r) => ws.once('close', (c) => r(c)));
    await small.close();
    expect(code).toBe(1009);
  });

  it('journals the session', async () => {
    const live = await connect(make(), { responseModalities: [Modality.TEXT] });
    live.session.sendClientContent({ turns: 'Hi' });
    await live.until(turnComplete);
    live.session.close();
    // The SDK on a custom base URL asks for API version v1.
    const entries = server.gateway.requests().filter((e) => e.path.endsWith('v1.GenerativeService.BidiGenerateContent'));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.some((e) => e.events?.some((ev) => ev.type === 'setup'))).toBe(true);
  });
});

describe('Gemini Live in-process with msw', () => {
  const gateway = createGateway({ seed: 3 });
  const mock = setupServer(...gateway.handlers);
  beforeAll(() => mock.listen({ onUnhandledRequest: 'bypass' } as never));
  afterAll(() => mock.close());
  liveSuite(
    'the web client on the global WebSocket',
    (apiKey = 'sk-test') => new WebGenAI({ apiKey }),
    () => ({ use: (f) => void gateway.use(f as never) }),
  );
});
