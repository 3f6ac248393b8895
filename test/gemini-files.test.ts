// Gemini's Files API through @google/genai, in-process and over a socket: a file uploaded by the
// resumable protocol (in one chunk and in several), got, listed in pages, used in a prompt by its URI,
// deleted; a URI the test does not hold is Gemini's 403; tests kept apart; expiry on the clock.
import { describe, expect, it } from 'vitest';
import { ApiError, createPartFromUri, GoogleGenAI } from '@google/genai';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ApiError,
  );

describe.each(heldModes)('Gemini files ($name)', (mode) => {
  const ctx = withHeld(mode, {
    fixtures: [
      { match: { userMessage: 'What does the note say?' }, reply: { text: 'It says hello.' } },
      { match: { fileText: { contains: 'hello there' } }, reply: { text: 'A greeting, read from the file.' } },
    ],
  });
  const client = (test: string) =>
    new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, headers: { 'x-mock-test-id': test } } });

  it('uploads a file by the resumable protocol, gets and lists it, answers a prompt citing it by URI, deletes it', async () => {
    const ai = client('gemini-files');
    const file = await ai.files.upload({ file: new Blob(['hello there'], { type: 'text/plain' }), config: { displayName: 'note' } });
    expect(file).toMatchObject({ displayName: 'note', mimeType: 'text/plain', sizeBytes: '11', state: 'ACTIVE', source: 'UPLOADED' });
    expect(file.name).toMatch(/^files\/[a-z0-9]{12}$/);
    expect(file.uri).toContain(`/v1beta/${file.name}`);
    expect(await ai.files.get({ name: file.name! })).toEqual(file);
    await ai.files.upload({ file: new Blob(['second'], { type: 'text/plain' }) });
    const names = [];
    for await (const f of await ai.files.list({ config: { pageSize: 1 } })) names.push(f.name);
    expect(names).toHaveLength(2);
    expect(names).toContain(file.name);

    const answer = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [createPartFromUri(file.uri!, file.mimeType!), { text: 'What does the note say?' }] }],
    });
    expect(answer.text).toBe('It says hello.');
    // The file's text is read: counted as input (countTokens reads it alike), and a fixture matches it.
    const counted = await ai.models.countTokens({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [createPartFromUri(file.uri!, file.mimeType!), { text: 'What does the note say?' }] }],
    });
    expect(answer.usageMetadata?.promptTokenCount).toBe(counted.totalTokens);
    const alone = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'What does the note say?' });
    expect(counted.totalTokens! - alone.totalTokens!).toBeGreaterThanOrEqual(2);
    const read = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [createPartFromUri(file.uri!, file.mimeType!), { text: 'Anything in there?' }] }],
    });
    expect(read.text).toBe('A greeting, read from the file.');

    await ai.files.delete({ name: file.name! });
    const gone = await failure(ai.files.get({ name: file.name! }));
    expect(gone.status).toBe(403);
    const cited = await failure(
      ai.models.generateContent({
        model: 'gemini-2.5-flash',
        contents: [{ role: 'user', parts: [createPartFromUri(file.uri!, 'text/plain'), { text: 'x' }] }],
      }),
    );
    expect(cited.status).toBe(403);
  });

  it('puts a file sent in several chunks together (8 MiB chunks)', async () => {
    const ai = client('gemini-files-chunks');
    const bytes = new Uint8Array(9 * 1024 * 1024).map((_, i) => i % 251);
    const file = await ai.files.upload({ file: new Blob([bytes], { type: 'application/octet-stream' }) });
    expect(file.sizeBytes).toBe(String(bytes.byteLength));
  });

  it("keeps two tests' files apart; a test's reset drops its own; files expire after 48 hours on the clock", async () => {
    const a = client('gemini-files-a');
    const b = client('gemini-files-b');
    const ofA = await a.files.upload({ file: new Blob(['a'], { type: 'text/plain' }) });
    expect((await failure(b.files.get({ name: ofA.name! }))).status).toBe(403);
    ctx.gw.gateway.forTest('gemini-files-a').reset();
    expect((await failure(a.files.get({ name: ofA.name! }))).status).toBe(403);
    const ofB = await b.files.upload({ file: new Blob(['b'], { type: 'text/plain' }) });
    ctx.gw.gateway.advanceClock(48 * 3600);
    expect((await failure(b.files.get({ name: ofB.name! }))).status).toBe(403);
  });
});

describe('Gemini files: the store full', () => {
  it("answers Gemini's error at the upload's start when the store is full, keeping its files, while others are served", async () => {
    const { setupServer } = await import('msw/node');
    const { createGateway } = await import('../src/index.ts');
    const { runtimeOf } = await import('../src/gateway.ts');
    const { declaredStores } = await import('../src/core/stores.ts');
    const gateway = createGateway();
    const server = setupServer(...gateway.handlers);
    server.listen();
    try {
      const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: 'http://127.0.0.1:2' } });
      const kept = await ai.files.upload({ file: new Blob(['kept'], { type: 'text/plain' }) });
      const runtime = runtimeOf(gateway);
      const store = runtime.stores.of(declaredStores().find((k) => k.name === 'gemini.files')!);
      expect(store.set('filler', {}, store.maxBytes - store.bytes - 100, runtime.stores.owner(''))).toBe(true);
      const full = await failure(ai.files.upload({ file: new Blob([new Uint8Array(1024)], { type: 'text/plain' }) }));
      expect(full.status).toBe(400);
      expect(full.message).toContain('Your file storage is full');
      expect((await ai.files.get({ name: kept.name! })).name).toBe(kept.name);
      expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text).toBeTruthy();
    } finally {
      server.close();
    }
  });
});

describe('Gemini files: a hostile upload', () => {
  it('answers a chunk past the body limit with the service status, holding nothing of it, while others are served', async () => {
    const { setupServer } = await import('msw/node');
    const { createGateway } = await import('../src/index.ts');
    const gateway = createGateway({ maxBodyBytes: 1024 * 1024 });
    const server = setupServer(...gateway.handlers);
    server.listen();
    try {
      const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: 'http://127.0.0.1:2' } });
      const big = await failure(ai.files.upload({ file: new Blob([new Uint8Array(3 * 1024 * 1024)], { type: 'text/plain' }) }));
      // Google answers a body too large as a 400 (it has no 413).
      expect(big.status).toBe(400);
      expect(big.message).toMatch(/bytes/);
      const held = gateway.resources().find((s) => s.name === 'gemini.files');
      // The upload's session was opened at its declared size; its bytes never came in.
      expect(held?.objects.every((o) => o.bytes < 4096)).toBe(true);
      expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text).toBeTruthy();
    } finally {
      server.close();
    }
  });
});
