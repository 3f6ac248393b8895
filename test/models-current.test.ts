// Current with the vendors: every model id the installed official SDKs name in their types is served
// on the endpoints of its kind. The ids are read from the SDKs' .d.ts files at test time, so bumping
// an SDK fails here until the catalogue follows. Also: ids by the vendors' naming, and users' aliases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI, { NotFoundError, toFile } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { inProcess, strictListen, type Running } from './helpers/modes.ts';
import { spawnCli, runCli, type Spawned } from './helpers/cli.ts';
import { createGateway } from '../src/index.ts';

const packageDir = (name: string) => fileURLToPath(new URL(`../node_modules/${name}/`, import.meta.url));

/** The string literals of `export type <name> = …;` (or of the first `<field>?: …;` union naming `marker`) in a .d.ts. */
function literals(pkg: string, file: string, pick: RegExp): string[] {
  const text = readFileSync(join(packageDir(pkg), file), 'utf8');
  const decl = pick.exec(text);
  if (!decl) throw new Error(`${pkg}/${file}: no declaration matching ${pick} (did the SDK move it?)`);
  return [...decl[0].matchAll(/'([^']+)'/g)].map((m) => m[1]);
}
const typeAlias = (name: string) => new RegExp(`export type ${name} = [^;]*;`);

const OPENAI = {
  chat: literals('openai', 'resources/shared.d.ts', typeAlias('ChatModel')),
  // ResponsesModel is ChatModel plus its own ids (its literals here are only the extra ones).
  responses: literals('openai', 'resources/shared.d.ts', typeAlias('ResponsesModel')),
  images: literals('openai', 'resources/images.d.ts', typeAlias('ImageModel')),
  speech: literals('openai', 'resources/audio/speech.d.ts', typeAlias('SpeechModel')),
  transcription: literals('openai', 'resources/audio/audio.d.ts', typeAlias('AudioModel')),
  embeddings: literals('openai', 'resources/embeddings.d.ts', typeAlias('EmbeddingModel')),
  moderations: literals('openai', 'resources/moderations.d.ts', typeAlias('ModerationModel')),
  realtime: literals('openai', 'resources/realtime/client-secrets.d.ts', /model\?: \(string & \{\}\) \| 'gpt-realtime'[^;]*;/),
};
const ANTHROPIC = literals('@anthropic-ai/sdk', 'resources/messages/messages.d.ts', typeAlias('Model'));
// @google/genai types model names as plain strings: the current ids from Google's models page.
const GEMINI = {
  chat: [
    'gemini-3.1-pro-preview',
    'gemini-3-pro-preview',
    'gemini-3-flash-preview',
    'gemini-3.1-flash-lite-preview',
    'gemini-2.5-pro',
    'gemini-2.5-flash',
    'gemini-2.5-flash-lite',
    'gemini-2.5-flash-preview-09-2025',
    'gemini-2.5-flash-lite-preview-09-2025',
    'gemini-flash-latest',
    'gemini-flash-lite-latest',
    'gemini-pro-latest',
    'gemini-2.0-flash',
    'gemini-2.0-flash-001',
    'gemini-2.0-flash-lite',
    'gemini-2.5-flash-image',
    'gemini-3-pro-image-preview',
  ],
  speech: ['gemini-2.5-flash-preview-tts', 'gemini-2.5-pro-preview-tts'],
  embeddings: ['gemini-embedding-001'],
};

describe('the installed SDKs name models (read at test time)', () => {
  it('finds each type, with the ids the issue names', () => {
    expect(OPENAI.chat.length).toBeGreaterThanOrEqual(90);
    expect(OPENAI.chat).toEqual(expect.arrayContaining(['gpt-5.4', 'gpt-4o-2024-08-06', 'o3', 'gpt-3.5-turbo', 'chatgpt-4o-latest']));
    expect(OPENAI.responses).toContain('o3-pro');
    expect(OPENAI.images).toContain('gpt-image-2');
    expect(OPENAI.realtime).toContain('gpt-realtime-mini');
    expect(ANTHROPIC).toEqual(expect.arrayContaining(['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-opus-5']));
    for (const list of [...Object.values(OPENAI), ANTHROPIC]) expect(list.length).toBeGreaterThan(0);
  });
});

describe('every SDK model id is served on its endpoint (in-process)', () => {
  let gw: Running;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  let wav: Uint8Array;
  beforeAll(async () => {
    gw = await inProcess.start();
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root } });
    wav = new Uint8Array(
      await (
        await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'wav' })
      ).arrayBuffer(),
    );
  });
  afterAll(() => gw.stop());

  it.each(OPENAI.chat)('chat completions: %s', async (model) => {
    const r = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 5 });
    expect(r.model).toBe(model);
  });
  it.each([...OPENAI.responses, 'gpt-5.4', 'o4-mini'])('responses: %s', async (model) => {
    const r = await openai.responses.create({ model, input: 'Hi', max_output_tokens: 16 });
    expect(r.model).toBe(model);
  });
  it.each(ANTHROPIC)('messages: %s', async (model) => {
    const r = await anthropic.messages.create({ model, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.model).toBe(model);
  });
  it.each(OPENAI.images)('images: %s', async (model) => {
    const r = await openai.images.generate({
      model,
      prompt: 'a red square',
      n: 1,
      ...(model === 'dall-e-2' ? { size: '256x256' as const } : {}),
    });
    expect(r.data).toHaveLength(1);
  });
  it.each(OPENAI.speech)('speech: %s', async (model) => {
    const r = await openai.audio.speech.create({ model, voice: 'alloy', input: 'Hi' });
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
  it.each(OPENAI.transcription)('transcriptions: %s', async (model) => {
    const r = await openai.audio.transcriptions.create({ model, file: await toFile(wav, 'hello.wav', { type: 'audio/wav' }) });
    expect(typeof r.text).toBe('string');
  });
  it.each(OPENAI.moderations)('moderations: %s', async (model) => {
    expect((await openai.moderations.create({ model, input: 'Hi' })).results).toHaveLength(1);
  });

  it.each(OPENAI.embeddings)('embeddings: %s', async (model) => {
    const r = await openai.embeddings.create({ model, input: 'Hi' });
    expect(r.data[0].embedding.length).toBeGreaterThan(0);
  });
  it.each(OPENAI.realtime)('realtime client secrets: %s', async (model) => {
    const r = await openai.realtime.clientSecrets.create({ session: { type: 'realtime', model } });
    expect(r.value).toMatch(/^ek_/);
  });
  it.each(GEMINI.chat)('Gemini generateContent: %s', async (model) => {
    const r = await genai.models.generateContent({ model, contents: 'Hi' });
    expect(r.text?.length).toBeGreaterThan(0);
  });
  it.each(GEMINI.speech)('Gemini speech: %s', async (model) => {
    const r = await genai.models.generateContent({ model, contents: 'Say hi', config: { responseModalities: ['AUDIO'] } });
    expect(r.candidates?.[0].content?.parts?.[0].inlineData?.data).toBeTruthy();
  });
  it.each(GEMINI.embeddings)('Gemini embedContent: %s', async (model) => {
    const r = await genai.models.embedContent({ model, contents: 'Hi' });
    expect(r.embeddings?.[0].values?.length).toBeGreaterThan(0);
  });

  it('serves a new name by its family, with the family’s capabilities, and says so in /v1/models', async () => {
    for (const [model, family] of [
      ['gpt-5.7', 'gpt-5'],
      ['o5-mini', 'o-series'],
      ['gemini-3.5-flash', 'gemini'],
    ] as const) {
      await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
      expect(await openai.models.retrieve(model)).toMatchObject({ id: model, resolved_by: 'family', resolved_to: family });
    }
    await anthropic.messages.create({ model: 'claude-opus-6', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] });
    await openai.images.generate({ model: 'gpt-image-3', prompt: 'a dot' });
    await openai.audio.speech.create({ model: 'gpt-5-mini-tts', voice: 'alloy', input: 'Hi' });
    // A dated snapshot of a catalogue model is that model.
    expect(await openai.models.retrieve('gpt-4o-2024-08-06')).toMatchObject({ resolved_by: 'family', resolved_to: 'gpt-4o' });
    // The family decides what it can do: a speech name is no chat model, and vice versa.
    await expect(
      openai.chat.completions.create({ model: 'gpt-5-mini-tts', messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_supported' });
    await expect(openai.embeddings.create({ model: 'gpt-5.7', input: 'Hi' })).rejects.toMatchObject({ status: 404 });
  });

  it('keeps the context window of the family: a prompt past it gets context_length_exceeded', async () => {
    const long = 'word '.repeat(9000);
    await expect(
      openai.chat.completions.create({ model: 'gpt-4-0613', messages: [{ role: 'user', content: long }] }),
    ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    await openai.chat.completions.create({ model: 'gpt-4-turbo-2024-04-09', messages: [{ role: 'user', content: long }], max_tokens: 1 });
  });

  it('answers a name in no family with the vendor’s 404', async () => {
    for (const model of ['gpt-nonsense', 'claude-poem', 'llama-3', 'gpt-5.7x', 'x'.repeat(300)]) {
      const e = await openai.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'Hi' }] })
        .catch((error: unknown) => error);
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e).toMatchObject({ code: 'model_not_found' });
    }
    await expect(
      anthropic.messages.create({ model: 'claude-poem', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(openai.models.retrieve('gpt-nonsense')).rejects.toMatchObject({ status: 404 });
  });
});

describe('your own model names (aliases and deployments)', () => {
  it('createGateway({ models }) takes name=base strings and { id, base }, listed with what they stand for', async () => {
    const gateway = createGateway({ models: ['my-gpt=gpt-4o', { id: 'team-fast', base: 'claude-haiku' }] });
    const { setupServer } = await import('msw/node');
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
      expect((await openai.chat.completions.create({ model: 'my-gpt', messages: [{ role: 'user', content: 'Hi' }] })).model).toBe('my-gpt');
      const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
      expect(
        (await anthropic.messages.create({ model: 'team-fast', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] })).model,
      ).toBe('team-fast');
      const listed = (await openai.models.list()).data;
      expect(listed.find((m) => m.id === 'team-fast')).toMatchObject({
        resolved_by: 'alias',
        resolved_to: 'claude-haiku',
        owned_by: 'anthropic',
      });
    } finally {
      server.close();
    }
    expect(() => createGateway({ models: ['mine=no-such-thing'] })).toThrow(/"no-such-thing" is neither a model nor a family/);
    expect(() => createGateway({ models: ['mine'] })).toThrow(/name=model-or-family/);
  });

  describe('over a socket: --model and MGM_MODEL', () => {
    let cli: Spawned;
    beforeAll(async () => {
      cli = await spawnCli(['--model', 'prod-chat=gpt-5', '--model', 'azure-embed=text-embedding-3-small'], {
        MGM_MODEL: 'ignored=gpt-4o',
      });
    });
    afterAll(() => cli.stop());

    it('serves each --model name as its base (a flag wins over the variable)', async () => {
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
      expect((await openai.chat.completions.create({ model: 'prod-chat', messages: [{ role: 'user', content: 'Hi' }] })).model).toBe(
        'prod-chat',
      );
      expect((await openai.embeddings.create({ model: 'azure-embed', input: 'Hi' })).data[0].embedding).toHaveLength(1536);
      await expect(openai.models.retrieve('ignored')).rejects.toMatchObject({ status: 404 });
      // And the SDK ids over the socket too.
      expect(
        (await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] })).model,
      ).toBe('claude-sonnet-4-5');
    });

    it('takes MGM_MODEL as a comma-separated list, and names a bad one with its source', async () => {
      const env = await spawnCli([], { MGM_MODEL: 'a=gpt-4o, b=gemini' });
      try {
        const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${env.url}/v1`, maxRetries: 0 });
        expect(await openai.models.retrieve('b')).toMatchObject({ resolved_by: 'alias', resolved_to: 'gemini', owned_by: 'google' });
      } finally {
        await env.stop();
      }
      const bad = await runCli(['--model', 'x=nothing-like-it']);
      expect(bad.code).toBe(2);
      expect(bad.output).toMatch(/--model: model "x": "nothing-like-it" is neither a model nor a family/);
      const badEnv = await runCli([], { MGM_MODEL: 'no-equals' });
      expect(badEnv.output).toMatch(/MGM_MODEL: "no-equals" is not name=model-or-family/);
    });
  });
});
