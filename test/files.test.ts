// OpenAI Files and Uploads through the openai SDK, in-process and over a socket: a file uploaded, listed
// (paged by the SDK's auto-pagination), read back byte for byte and deleted; an upload in parts; the
// service's errors; expiry on the gateway's clock; the ceilings answered with OpenAI's error.
import { beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import { runtimeOf } from '../src/gateway.ts';
import { FILES } from '../src/formats/openai/files.ts';
import { heldModes, withHeld, withoutNulls } from './helpers/gateways.ts';
import { assertSchema, compileSchemas } from './helpers/openapi.ts';

/** Bytes no text decoding would keep: every byte value, twice. */
const BINARY = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

beforeAll(() => compileSchemas('OpenAIFile', 'Upload', 'UploadPart'));

describe.each(heldModes)('Files ($name)', (mode) => {
  const ctx = withHeld(mode, {
    fixtures: [
      { name: 'ticket', match: { fileText: { contains: 'ticket 4411' } }, reply: { text: 'Ticket 4411 is about a late parcel.' } },
    ],
  });

  it('uploads a file, lists it in pages, reads it back byte for byte and deletes it', async () => {
    const openai = ctx.gw.openai('files-roundtrip');
    const created = await openai.files.create({ file: await toFile(BINARY, 'blob.bin'), purpose: 'user_data' });
    expect(created).toMatchObject({
      object: 'file',
      bytes: 512,
      filename: 'blob.bin',
      purpose: 'user_data',
      status: 'processed',
      expires_at: null,
    });
    expect(created.id).toMatch(/^file-[A-Za-z0-9]{22}$/);
    assertSchema('OpenAIFile', withoutNulls(created));
    const more = [];
    for (let i = 0; i < 4; i++)
      more.push(await openai.files.create({ file: await toFile(Buffer.from(`file ${i}\n`), `f${i}.txt`), purpose: 'assistants' }));

    // Newest first, two to a page: the SDK follows `after` until `has_more` is false.
    const page = await openai.files.list({ limit: 2 });
    expect(page.data.map((f) => f.id)).toEqual([more[3].id, more[2].id]);
    expect(page.has_more).toBe(true);
    const seen: string[] = [];
    for await (const f of openai.files.list({ limit: 2 })) seen.push(f.id);
    expect(seen).toEqual(
      [...more]
        .reverse()
        .map((f) => f.id)
        .concat(created.id),
    );
    const oldestFirst = [];
    for await (const f of openai.files.list({ limit: 2, order: 'asc', purpose: 'assistants' })) oldestFirst.push(f.id);
    expect(oldestFirst).toEqual(more.map((f) => f.id));

    expect(await openai.files.retrieve(created.id)).toEqual(created);
    expect(await bytesOf(await openai.files.content(created.id))).toEqual(BINARY);
    expect(await openai.files.delete(created.id)).toEqual({ id: created.id, object: 'file', deleted: true });
    expect(await failure(openai.files.retrieve(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await failure(openai.files.content(created.id))).error).toMatchObject({ message: `No such File object: ${created.id}` });
  });

  it("answers the service's errors: wrong purpose, a batch file that is not JSONL, an unknown id, an assistants file's content", async () => {
    const openai = ctx.gw.openai('files-errors');
    const wrong = await failure(openai.files.create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'homework' as never }));
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrong.error).toMatchObject({ type: 'invalid_request_error', param: 'purpose' });
    const notJsonl = await failure(openai.files.create({ file: await toFile(Buffer.from('{}'), 'lines.txt'), purpose: 'batch' }));
    expect(notJsonl.status).toBe(400);
    expect(notJsonl.message).toContain('Invalid file format for Batch API. Must be .jsonl');
    const missingFile = await failure(
      openai.post('/files', { body: { purpose: 'batch' }, headers: { 'content-type': 'multipart/form-data; boundary=x' } }),
    );
    expect(missingFile.status).toBe(400);
    expect(await failure(openai.files.delete('file-nope'))).toBeInstanceOf(OpenAI.NotFoundError);
    const secret = await openai.files.create({ file: await toFile(Buffer.from('kept'), 'k.txt'), purpose: 'assistants' });
    expect((await failure(openai.files.content(secret.id))).message).toContain('Not allowed to download files of purpose: assistants');
    const expiresAfter = await failure(
      openai.files.create({
        file: await toFile(Buffer.from('x'), 'x.jsonl'),
        purpose: 'batch',
        expires_after: { anchor: 'created_at', seconds: 60 },
      }),
    );
    expect(expiresAfter.error).toMatchObject({ param: 'expires_after.seconds', code: 'integer_below_min_value' });
  });

  it('expires a file on the gateway clock: a batch file after 30 days, another when its expires_after has passed', async () => {
    const openai = ctx.gw.openai('files-expiry');
    const batch = await openai.files.create({ file: await toFile(Buffer.from('{}\n'), 'in.jsonl'), purpose: 'batch' });
    expect(batch.expires_at).toBe(batch.created_at + 30 * 24 * 3600);
    const hour = await openai.files.create({
      file: await toFile(Buffer.from('x'), 'x.txt'),
      purpose: 'user_data',
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    expect(hour.expires_at).toBe(hour.created_at + 3600);
    ctx.gw.gateway.advanceClock(3599);
    expect((await openai.files.retrieve(hour.id)).id).toBe(hour.id);
    ctx.gw.gateway.advanceClock(1);
    expect(await failure(openai.files.retrieve(hour.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await openai.files.list()).data.map((f) => f.id)).toEqual([batch.id]);
    ctx.gw.gateway.reset();
  });

  it('sends the parts of an Upload in the order part_ids gives, checks md5, and makes them one File', async () => {
    const openai = ctx.gw.openai('uploads');
    const parts = ['first,', 'second,', 'third'].map((t) => Buffer.from(t));
    const whole = Buffer.concat([parts[0], parts[1], parts[2]]);
    const upload = await openai.uploads.create({
      filename: 'joined.txt',
      purpose: 'user_data',
      bytes: whole.length,
      mime_type: 'text/plain',
    });
    expect(upload).toMatchObject({
      object: 'upload',
      status: 'pending',
      bytes: whole.length,
      file: null,
      expires_at: upload.created_at + 3600,
    });
    expect(upload.id).toMatch(/^upload_[0-9a-f]{32}$/);
    assertSchema('Upload', withoutNulls(upload));
    // Sent out of order; the completion puts them back.
    const sent = [];
    for (const i of [2, 0, 1]) sent[i] = await openai.uploads.parts.create(upload.id, { data: await toFile(parts[i], 'part') });
    expect(sent[0]).toMatchObject({ object: 'upload.part', upload_id: upload.id });
    expect(sent[0].id).toMatch(/^part_[0-9a-f]{32}$/);
    assertSchema('UploadPart', sent[0]);
    const ids = sent.map((p) => p.id);
    const badMd5 = await failure(openai.uploads.complete(upload.id, { part_ids: ids, md5: '0'.repeat(32) }));
    expect(badMd5.error).toMatchObject({ param: 'md5' });
    const tooFew = await failure(openai.uploads.complete(upload.id, { part_ids: ids.slice(1) }));
    expect(tooFew.message).toContain('must match');
    const md5 = createHash('md5').update(whole).digest('hex');
    const done = await openai.uploads.complete(upload.id, { part_ids: ids, md5 });
    expect(done).toMatchObject({
      status: 'completed',
      file: { object: 'file', bytes: whole.length, filename: 'joined.txt', purpose: 'user_data' },
    });
    expect(Buffer.from(await bytesOf(await openai.files.content(done.file!.id))).toString()).toBe('first,second,third');
    const late = await failure(openai.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('x'), 'part') }));
    expect(late.message).toContain('is completed');

    const other = await openai.uploads.create({ filename: 'x.jsonl', purpose: 'batch', bytes: 10, mime_type: 'application/jsonl' });
    const over = await failure(openai.uploads.parts.create(other.id, { data: await toFile(Buffer.alloc(11), 'part') }));
    expect(over.message).toContain('past the 10 bytes');
    expect(await openai.uploads.cancel(other.id)).toMatchObject({ status: 'cancelled', file: null });
    expect(await failure(openai.uploads.complete(other.id, { part_ids: [] }))).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await failure(openai.uploads.cancel('upload_nope'))).toBeInstanceOf(OpenAI.NotFoundError);
    const tooBig = await failure(
      openai.uploads.create({
        filename: 'big.bin',
        purpose: 'user_data',
        bytes: 64 * 1024 * 1024 + 1,
        mime_type: 'application/octet-stream',
      }),
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.message).toContain('File is too large');
  });

  it('answers a full file store with the service error, keeping every file it holds, and takes files again once one is deleted', async () => {
    const openai = ctx.gw.openai('files-full');
    const kept = await openai.files.create({ file: await toFile(Buffer.from('kept'), 'kept.txt'), purpose: 'user_data' });
    // The store's bytes filled by one object counted at nearly the whole ceiling (nothing that big is allocated).
    const store = runtimeOf(ctx.gw.gateway).stores.of(FILES);
    const filler = { id: 'file-filler', filename: 'filler', purpose: 'user_data', bytes: new Uint8Array(0), createdAt: 0 };
    expect(store.set('file-filler', filler, store.maxBytes - store.bytes - 100, runtimeOf(ctx.gw.gateway).stores.owner(''))).toBe(true);
    const full = await failure(openai.files.create({ file: await toFile(Buffer.alloc(1024), 'one-more.bin'), purpose: 'user_data' }));
    expect(full).toBeInstanceOf(OpenAI.BadRequestError);
    expect(full.message).toContain('Your file storage is full');
    expect((await openai.files.retrieve(kept.id)).id).toBe(kept.id);
    await ctx.gw.openai().files.delete('file-filler');
    expect((await openai.files.create({ file: await toFile(Buffer.alloc(1024), 'one-more.bin'), purpose: 'user_data' })).bytes).toBe(1024);
    ctx.gw.gateway.reset();
  });

  it('reads a text file given by id as the model would: a fixture matches its text, its tokens count, an unknown id is the 404', async () => {
    const openai = ctx.gw.openai('files-as-inputs');
    const note = await openai.files.create({
      file: await toFile(Buffer.from('Customer note: ticket 4411, the parcel is three days late.'), 'note.txt'),
      purpose: 'user_data',
    });
    const ask = (file_id: string) =>
      openai.responses.create({
        model: 'gpt-4.1',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', file_id },
              { type: 'input_text', text: 'What is this about?' },
            ],
          },
        ],
      });
    const answer = await ask(note.id);
    expect(answer.output_text).toBe('Ticket 4411 is about a late parcel.');
    // Chat's file part by id is read the same way.
    const chat = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_id: note.id } },
            { type: 'text', text: 'What is this about?' },
          ],
        },
      ],
    });
    expect(chat.choices[0].message.content).toBe('Ticket 4411 is about a late parcel.');
    // Its tokens count as the same text sent inline does (give or take the token where the two texts meet).
    const inline = await openai.responses.create({
      model: 'gpt-4.1',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Customer note: ticket 4411, the parcel is three days late.' },
            { type: 'input_text', text: 'What is this about?' },
          ],
        },
      ],
    });
    expect(Math.abs(answer.usage!.input_tokens - inline.usage!.input_tokens)).toBeLessThanOrEqual(1);
    expect(answer.usage!.input_tokens).toBeGreaterThan(20);
    const unknown = await failure(ask('file-nope'));
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.message).toContain('file-nope');
    // Another test's file is not this test's.
    expect(
      await failure(
        ctx.gw
          .openai('files-as-inputs-other')
          .responses.create({ model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_file', file_id: note.id }] }] }),
      ),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('reads each file once however often a request names it, and refuses more than 16 MiB of files in one request', async () => {
    const openai = ctx.gw.openai('files-as-inputs-bounds');
    const big = (c: string) => toFile(Buffer.alloc(9 * 1024 * 1024, c), `${c}.txt`);
    const [a, b] = [
      await openai.files.create({ file: await big('a'), purpose: 'user_data' }),
      await openai.files.create({ file: await big('b'), purpose: 'user_data' }),
    ];
    const ask = (ids: string[]) =>
      openai.responses.create({
        model: 'gpt-4.1',
        input: [
          {
            role: 'user',
            content: [...ids.map((file_id) => ({ type: 'input_file' as const, file_id })), { type: 'input_text', text: 'Sum up.' }],
          },
        ],
      });
    // One 9 MiB file named three times is read once: within the bound (the model's context then says no).
    const thrice = await failure(ask([a.id, a.id, a.id]));
    expect(thrice.message).not.toContain('16 MiB');
    const both = await failure(ask([a.id, b.id]));
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    expect(both.message).toContain('16 MiB');
  });

  it("keeps a stored response's files by id: continued, a file read again (gone since: the 404)", async () => {
    const openai = ctx.gw.openai('files-as-inputs-stored');
    const note = await openai.files.create({
      file: await toFile(Buffer.from('Customer note: ticket 4411.'), 'note.txt'),
      purpose: 'user_data',
    });
    const first = await openai.responses.create({
      model: 'gpt-4.1',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_file', file_id: note.id },
            { type: 'input_text', text: 'Read it.' },
          ],
        },
      ],
    });
    await openai.files.delete(note.id);
    const next = await failure(openai.responses.create({ model: 'gpt-4.1', previous_response_id: first.id, input: 'And then?' }));
    expect(next).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("keeps two tests' files apart on one server; a test's reset drops its own", async () => {
    const a = ctx.gw.openai('files-a');
    const b = ctx.gw.openai('files-b');
    const ofA = await a.files.create({ file: await toFile(Buffer.from('a'), 'a.txt'), purpose: 'user_data' });
    const ofB = await b.files.create({ file: await toFile(Buffer.from('b'), 'b.txt'), purpose: 'user_data' });
    expect((await a.files.list()).data.map((f) => f.id)).toEqual([ofA.id]);
    expect((await b.files.list()).data.map((f) => f.id)).toEqual([ofB.id]);
    expect(await failure(b.files.retrieve(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failure(b.files.content(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    ctx.gw.gateway.forTest('files-a').reset();
    expect((await a.files.list()).data).toEqual([]);
    expect((await b.files.list()).data.map((f) => f.id)).toEqual([ofB.id]);
    ctx.gw.gateway.reset();
  });

  it("leaves Anthropic's clients on /v1/files to Anthropic's Files API", async () => {
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0 });
    const error = await anthropic.beta.files.retrieveMetadata('file-unknown').then(
      () => undefined as never,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: 'File not found: file-unknown' } });
  });
});
