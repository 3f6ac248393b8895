// Anthropic's Files API through @anthropic-ai/sdk (client.beta.files), in-process and over a socket, on
// the /v1/files path OpenAI's files share: a file uploaded, listed in Anthropic's pages, its metadata
// read, download refused (uploads are not downloadable), deleted; a message citing a file by id; the
// two vendors' files kept apart; tests kept apart; the store full answered with Anthropic's error.
import { describe, expect, it } from 'vitest';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { runtimeOf } from '../src/gateway.ts';
import { declaredStores } from '../src/core/stores.ts';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
  );

describe.each(heldModes)('Anthropic files ($name)', (mode) => {
  const ctx = withHeld(mode, { fixtures: [{ match: { userMessage: 'Summarize the attached file.' }, reply: { text: 'It is a note.' } }] });
  const client = (test: string) =>
    new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': test } });

  it('uploads a file, lists it in pages, reads its metadata, refuses its download, deletes it', async () => {
    const anthropic = client('anthropic-files');
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await anthropic.beta.files.upload({ file: await toFile(Buffer.from(`note ${i}`), `note-${i}.txt`) }));
    expect(made[0]).toMatchObject({ type: 'file', filename: 'note-0.txt', mime_type: 'text/plain', size_bytes: 6, downloadable: false });
    expect(made[0].id).toMatch(/^file_011C/);
    expect(Number.isNaN(Date.parse(made[0].created_at))).toBe(false);

    const page = await anthropic.beta.files.list({ limit: 2 });
    expect(page.data.map((f) => f.id)).toEqual([made[2].id, made[1].id]);
    expect(page.next_page).toBe(made[1].id);
    const all = [];
    for await (const f of anthropic.beta.files.list({ limit: 2 })) all.push(f.id);
    expect(all).toEqual([made[2].id, made[1].id, made[0].id]);
    expect((await anthropic.beta.files.retrieveMetadata(made[1].id)).filename).toBe('note-1.txt');
    const download = await failure(anthropic.beta.files.download(made[1].id));
    expect(download).toBeInstanceOf(Anthropic.BadRequestError);
    expect(download.message).toContain('not downloadable');
    expect(await anthropic.beta.files.delete(made[1].id)).toEqual({ id: made[1].id, type: 'file_deleted' });
    const gone = await failure(anthropic.beta.files.retrieveMetadata(made[1].id));
    expect(gone).toBeInstanceOf(Anthropic.NotFoundError);
    expect(gone.error).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: `File not found: ${made[1].id}` } });
  });

  it('answers a message citing a file by id as if it were inlined; an unknown or wrong-kind file is the service error', async () => {
    const anthropic = client('anthropic-files-message');
    const note = await anthropic.beta.files.upload({ file: await toFile(Buffer.from('A short note.'), 'note.txt') });
    const ask = (source: { type: 'file'; file_id: string }, type: 'document' | 'image' = 'document') =>
      anthropic.beta.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 50,
        betas: ['files-api-2025-04-14'],
        messages: [
          {
            role: 'user',
            content: [type === 'document' ? { type, source } : { type, source }, { type: 'text', text: 'Summarize the attached file.' }],
          },
        ],
      });
    const answer = await ask({ type: 'file', file_id: note.id });
    expect(answer.content).toMatchObject([{ type: 'text', text: 'It is a note.' }]);
    // Counted as the same document inlined is.
    const inline = await anthropic.messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A short note.' } },
            { type: 'text', text: 'Summarize the attached file.' },
          ],
        },
      ],
    });
    expect(answer.usage.input_tokens).toBe(inline.input_tokens);
    expect(await failure(ask({ type: 'file', file_id: 'file_011Cnope' }))).toBeInstanceOf(Anthropic.NotFoundError);
    const wrongKind = await failure(ask({ type: 'file', file_id: note.id }, 'image'));
    expect(wrongKind).toBeInstanceOf(Anthropic.BadRequestError);
    expect(wrongKind.message).toContain('text/plain');
  });

  it('cites a document given by file id or inline, with citations enabled: a sentence of it word for word, plain and streamed', async () => {
    const anthropic = client('anthropic-files-citations');
    const text = 'The parcel left the depot on Monday. It reached Lyon on Wednesday morning. The courier signed for it at noon.';
    const file = await anthropic.beta.files.upload({ file: await toFile(Buffer.from(text), 'route.txt') });
    const ask = (source: Anthropic.Beta.BetaFileDocumentSource | Anthropic.Beta.BetaPlainTextSource, citations = true) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 200,
      betas: ['files-api-2025-04-14'] as Anthropic.Beta.AnthropicBeta[],
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'document' as const, source, title: 'Route', citations: { enabled: citations } },
            { type: 'text' as const, text: 'When did the parcel reach Lyon?' },
          ],
        },
      ],
    });
    const byId = ask({ type: 'file', file_id: file.id });
    const answer = await anthropic.beta.messages.create(byId);
    const cited = answer.content.flatMap((b) => (b.type === 'text' && b.citations?.length ? [b] : []));
    expect(cited).toHaveLength(1);
    const [c] = cited[0].citations!;
    if (c.type !== 'char_location') throw new Error(`a ${c.type} citation`);
    expect(c).toMatchObject({ document_index: 0, document_title: 'Route', file_id: file.id });
    expect(c.cited_text).toBe(text.slice(c.start_char_index, c.end_char_index));
    expect(cited[0].text).toBe(c.cited_text);
    // The same request cites the same words; streamed, the SDK assembles the same blocks from citations_delta.
    expect((await anthropic.beta.messages.create(byId)).content).toEqual(answer.content);
    expect((await anthropic.beta.messages.stream(byId).finalMessage()).content).toEqual(answer.content);
    // Inline, the same document is cited the same way, with no file.
    const inline = await anthropic.beta.messages.create(ask({ type: 'text', media_type: 'text/plain', data: text }));
    const [i] = inline.content.flatMap((b) => (b.type === 'text' ? (b.citations ?? []) : []));
    expect(i).toMatchObject({ type: 'char_location', document_index: 0, file_id: null });
    // Without citations asked for, none.
    const plain = await anthropic.beta.messages.create(ask({ type: 'file', file_id: file.id }, false));
    expect(plain.content.every((b) => b.type !== 'text' || !b.citations?.length)).toBe(true);
  });

  it("keeps Anthropic's and OpenAI's files apart on /v1/files, and two tests' files apart; a reset drops a test's own", async () => {
    const a = client('anthropic-files-a');
    const b = client('anthropic-files-b');
    const ofA = await a.beta.files.upload({ file: await toFile(Buffer.from('a'), 'a.txt') });
    await b.beta.files.upload({ file: await toFile(Buffer.from('b'), 'b.txt') });
    expect((await a.beta.files.list()).data.map((f) => f.id)).toEqual([ofA.id]);
    expect(await failure(b.beta.files.retrieveMetadata(ofA.id))).toBeInstanceOf(Anthropic.NotFoundError);
    const openai = ctx.gw.openai('anthropic-files-a');
    expect((await openai.files.list()).data).toEqual([]);
    expect(await failure(openai.files.retrieve(ofA.id) as Promise<unknown>)).toBeInstanceOf(OpenAI.NotFoundError);
    ctx.gw.gateway.forTest('anthropic-files-a').reset();
    expect((await a.beta.files.list()).data).toEqual([]);
    expect((await b.beta.files.list()).data).toHaveLength(1);
  });

  it("answers a full store with Anthropic's error, keeping what it holds, while other clients are served", async () => {
    const anthropic = client('anthropic-files-full');
    const kept = await anthropic.beta.files.upload({ file: await toFile(Buffer.from('kept'), 'kept.txt') });
    const runtime = runtimeOf(ctx.gw.gateway);
    const store = runtime.stores.of(declaredStores().find((k) => k.name === 'anthropic.files')!);
    expect(store.set('file_filler', {}, store.maxBytes - store.bytes - 100, runtime.stores.owner(''))).toBe(true);
    const full = await failure(anthropic.beta.files.upload({ file: await toFile(Buffer.alloc(1024), 'more.bin') }));
    expect(full).toBeInstanceOf(Anthropic.BadRequestError);
    expect(full.message).toContain('Your file storage is full');
    expect((await anthropic.beta.files.retrieveMetadata(kept.id)).id).toBe(kept.id);
    expect((await ctx.gw.openai().models.list()).data.length).toBeGreaterThan(0);
    ctx.gw.gateway.reset();
  });
});
