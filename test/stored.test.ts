// The openai SDK calls issue 24 named, in both modes: stored chat completions (retrieve, update, list
// with cursor pages, delete, messages), image variations, responses.compact and models.delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { setupServer } from 'msw/node';
import { decode as decodePng, encode as encodePng } from 'fast-png';
import { createGateway } from '../src/index.ts';
import { modes, strictListen, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-4o-mini';
const ask = (text: string) => [{ role: 'user' as const, content: text }];

describe.each(modes)('stored chat completions ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('keeps a completion created with store: true, and only then', async () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'Keep ' },
          { type: 'text' as const, text: 'me' },
        ],
      },
    ];
    const made = await ctx.client.chat.completions.create({ model: MODEL, messages, store: true, metadata: { suite: 'keep', topic: 'a' } });
    const got = await ctx.client.chat.completions.retrieve(made.id);
    expect(got).toMatchObject({
      id: made.id,
      object: 'chat.completion',
      model: MODEL,
      choices: made.choices,
      usage: made.usage,
      metadata: { suite: 'keep', topic: 'a' },
    });
    const listed = [];
    for await (const m of ctx.client.chat.completions.messages.list(made.id)) listed.push(m);
    assertSchema('CreateChatCompletionResponse', got);
    // As the API reference's example shows stored messages (the spec's schema for them wants an assistant's message).
    expect(listed).toEqual([
      { id: `${made.id}-0`, role: 'system', content: 'Be brief.', name: null, content_parts: null },
      { id: `${made.id}-1`, role: 'user', content: 'Keep me', name: null, content_parts: messages[1].content },
    ]);
    const unstored = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Do not keep me') });
    const error = await ctx.client.chat.completions.retrieve(unstored.id).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(unstored.id) });
  });

  it('stores a streamed completion as its assembled whole', async () => {
    const stream = await ctx.client.chat.completions.create({ model: MODEL, messages: ask('Stream and keep'), store: true, stream: true });
    let text = '';
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    const got = await ctx.client.chat.completions.retrieve(id);
    expect(got.choices[0].message.content).toBe(text);
    expect(text.length).toBeGreaterThan(10);
  });

  it('lists stored completions in cursor pages, filtered by model and metadata, in either order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await ctx.client.chat.completions.create({
            model: MODEL,
            messages: ask(`List item ${i}`),
            store: true,
            metadata: { suite: 'list', parity: i % 2 ? 'odd' : 'even' },
          })
        ).id,
      );
    await ctx.client.chat.completions.create({ model: 'gpt-4o', messages: ask('Another model'), store: true, metadata: { suite: 'list' } });
    const query = { model: MODEL, metadata: { suite: 'list' }, limit: 2 };
    const first = await ctx.client.chat.completions.list(query);
    expect(first.data.map((c) => c.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    const seen: string[] = [];
    for await (const c of ctx.client.chat.completions.list(query)) seen.push(c.id);
    expect(seen).toEqual(ids);
    let page = await ctx.client.chat.completions.list(query);
    const pages = [page.data.length];
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      pages.push(page.data.length);
    }
    expect(pages).toEqual([2, 2, 1]);
    const desc: string[] = [];
    for await (const c of ctx.client.chat.completions.list({ ...query, order: 'desc' })) desc.push(c.id);
    expect(desc).toEqual([...ids].reverse());
    const odd = await ctx.client.chat.completions.list({ metadata: { suite: 'list', parity: 'odd' } });
    expect(odd.data.map((c) => c.id)).toEqual([ids[1], ids[3]]);
    // The page as the wire carries it: first_id and last_id.
    const res = await fetch(`${ctx.gw.root}/v1/chat/completions?model=${MODEL}&metadata[suite]=list&limit=2&after=${ids[1]}`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    expect(res.status).toBe(200);
    const wire = await res.json();
    assertSchema('ChatCompletionList', wire);
    expect(wire).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[3], has_more: true });
  });

  it('updates metadata, deletes, and refuses bad list queries and unknown ids with the vendor errors', async () => {
    const made = await ctx.client.chat.completions.create({
      model: MODEL,
      messages: ask('Update me'),
      store: true,
      metadata: { suite: 'update' },
    });
    const updated = await ctx.client.chat.completions.update(made.id, { metadata: { suite: 'update', state: 'done' } });
    expect(updated.metadata).toEqual({ suite: 'update', state: 'done' });
    expect((await ctx.client.chat.completions.retrieve(made.id)).metadata).toEqual({ suite: 'update', state: 'done' });
    expect((await ctx.client.chat.completions.list({ metadata: { state: 'done' } })).data.map((c) => c.id)).toEqual([made.id]);
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    await expect(ctx.client.chat.completions.update(made.id, { metadata: tooMany })).rejects.toMatchObject({
      status: 400,
      param: 'metadata',
    });
    const deleted = await ctx.client.chat.completions.delete(made.id);
    assertSchema('ChatCompletionDeleted', deleted);
    expect(deleted).toEqual({ id: made.id, object: 'chat.completion.deleted', deleted: true });
    await expect(ctx.client.chat.completions.retrieve(made.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(ctx.client.chat.completions.delete(made.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(ctx.client.chat.completions.update('chatcmpl-nope', { metadata: {} })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(ctx.client.chat.completions.messages.list('chatcmpl-nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(ctx.client.chat.completions.list({ limit: 101 })).rejects.toMatchObject({ status: 400, param: 'limit' });
    await expect(ctx.client.chat.completions.list({ order: 'up' as never })).rejects.toMatchObject({ status: 400, param: 'order' });
    await expect(ctx.client.chat.completions.list({ after: 'chatcmpl-gone' })).rejects.toMatchObject({ status: 400, param: 'after' });
  });

  it('pages through a long conversation with messages.list', async () => {
    const messages = Array.from({ length: 7 }, (_, i) => ({
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: `Line ${i}`,
    }));
    const made = await ctx.client.chat.completions.create({ model: MODEL, messages, store: true });
    const seen: string[] = [];
    for await (const m of ctx.client.chat.completions.messages.list(made.id, { limit: 3 })) seen.push(m.content!);
    expect(seen).toEqual(messages.map((m) => m.content));
    const last = await ctx.client.chat.completions.messages.list(made.id, { order: 'desc', limit: 1 });
    expect(last.data.map((m) => m.id)).toEqual([`${made.id}-6`]);
  });
});

describe('stored chat completions: bounds', () => {
  const gateway = createGateway({ storeBytes: 60_000 });
  let server: ReturnType<typeof setupServer>;
  let client: OpenAI;
  beforeAll(() => {
    server = setupServer(...gateway.handlers);
    strictListen(server);
    // After listen: the client takes the fetch it finds when made.
    client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('keeps at most the store bytes (oldest out first), and reset empties it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await client.chat.completions.create({ model: MODEL, messages: ask(`Bounded ${i}`), store: true })).id);
    const listed = (await client.chat.completions.list({ limit: 100 })).data.map((c) => c.id);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(6);
    expect(listed).toEqual(ids.slice(-listed.length));
    await expect(client.chat.completions.retrieve(ids[0])).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    gateway.reset();
    expect((await client.chat.completions.list()).data).toEqual([]);
  });
});

/** A small PNG upload: a solid colour. */
function solidPng(width: number, height: number, rgb: [number, number, number]): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) data.set([...rgb, 255], p * 4);
  return encodePng({ width, height, data, channels: 4, depth: 8 });
}

const decoded = (b64: string) => {
  const bytes = new Uint8Array(Buffer.from(b64, 'base64'));
  expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  return decodePng(bytes);
};

describe.each(modes)('image variations ($name)', (mode) => {
  const ctx = withGateway(mode);
  const upload = (rgb: [number, number, number], width = 64, height = width) =>
    toFile(Buffer.from(solidPng(width, height, rgb)), 'in.png', { type: 'image/png' });

  it('answers n decodable variations of the asked size, derived from the upload, the same every time', async () => {
    const reply = await ctx.client.images.createVariation({
      image: await upload([220, 30, 30]),
      n: 2,
      size: '256x256',
      response_format: 'b64_json',
    });
    assertSchema('ImagesResponse', reply);
    expect(reply.data).toHaveLength(2);
    const [a, b] = reply.data!.map((d) => decoded(d.b64_json!));
    expect([a.width, a.height, b.width, b.height]).toEqual([256, 256, 256, 256]);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(false);
    // The upload shows through: most pixels stay reddish.
    let red = 0;
    for (let p = 0; p < a.data.length; p += 4) if (a.data[p] > a.data[p + 2]) red++;
    expect(red).toBeGreaterThan(256 * 256 * 0.5);
    const again = await ctx.client.images.createVariation({
      image: await upload([220, 30, 30]),
      n: 2,
      size: '256x256',
      response_format: 'b64_json',
    });
    expect(again.data!.map((d) => d.b64_json)).toEqual(reply.data!.map((d) => d.b64_json));
    const blue = await ctx.client.images.createVariation({
      image: await upload([30, 30, 220]),
      size: '256x256',
      response_format: 'b64_json',
    });
    expect(blue.data![0].b64_json).not.toBe(reply.data![0].b64_json);
  });

  it('answers a url by default, the file served as a PNG of the default size', async () => {
    const reply = await ctx.client.images.createVariation({ image: await upload([10, 200, 10]), size: '512x512' });
    const res = await fetch(reply.data![0].url!);
    expect(res.headers.get('content-type')).toBe('image/png');
    const picture = decodePng(new Uint8Array(await res.arrayBuffer()));
    expect([picture.width, picture.height]).toEqual([512, 512]);
  });

  it('refuses what dall-e-2 refuses, with the 400s edits give', async () => {
    const cases: [Parameters<typeof ctx.client.images.createVariation>[0], string][] = [
      [{ image: await toFile(Buffer.from('just some text'), 'notes.png', { type: 'image/png' }) }, 'image'],
      [{ image: await upload([1, 2, 3], 64, 32) }, 'image'],
      [{ image: await upload([1, 2, 3]), n: 11 }, 'n'],
      [{ image: await upload([1, 2, 3]), size: '1792x1024' as never }, 'size'],
      [{ image: await upload([1, 2, 3]), model: 'gpt-image-1' }, 'model'],
      [{ image: await upload([1, 2, 3]), response_format: 'svg' as never }, 'response_format'],
    ];
    for (const [body, param] of cases) {
      const error = await ctx.client.images.createVariation(body).catch((e) => e);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param, param).toBe(param);
    }
    const json = await fetch(`${ctx.gw.root}/v1/images/variations`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
  });
});

describe.each(modes)('responses.compact and models.delete ($name)', (mode) => {
  const ctx = withGateway(mode);

  it('compacts a stored conversation into its user messages and one compaction item, usable as input', async () => {
    const first = await ctx.client.responses.create({ model: MODEL, input: 'Turn one' });
    const body = { model: MODEL, previous_response_id: first.id, input: 'Turn two' };
    const compacted = await ctx.client.responses.compact(body);
    assertSchema('CompactResource', compacted);
    expect(compacted).toMatchObject({ object: 'response.compaction', id: expect.stringMatching(/^resp_/) });
    expect(compacted.output.map((o) => o.type)).toEqual(['message', 'message', 'compaction']);
    expect(compacted.output.slice(0, 2).map((o) => (o as { content: { text: string }[] }).content[0].text)).toEqual([
      'Turn one',
      'Turn two',
    ]);
    expect((compacted.output[2] as { encrypted_content: string }).encrypted_content.length).toBeGreaterThan(100);
    expect(compacted.usage.total_tokens).toBe(compacted.usage.input_tokens + compacted.usage.output_tokens);
    expect(compacted.usage.input_tokens).toBeGreaterThan(first.usage!.input_tokens);
    expect(await ctx.client.responses.compact(body)).toEqual(compacted);
    // Charged what it reports, priced like the model's replies.
    const entry = (await ctx.gw.requests()).findLast((e) => e.path === '/v1/responses/compact')!;
    expect(entry.usage).toMatchObject({ inputTokens: compacted.usage.input_tokens, outputTokens: compacted.usage.output_tokens });
    expect(entry.costUsd).toBeGreaterThan(0);
    const next = await ctx.client.responses.create({
      model: MODEL,
      input: [...(compacted.output as never[]), { role: 'user', content: 'Turn three' }],
    });
    expect(next.status).toBe('completed');
    await expect(ctx.client.responses.compact({ model: MODEL, previous_response_id: 'resp_nope' })).rejects.toMatchObject({
      status: 400,
      param: 'previous_response_id',
    });
    await expect(ctx.client.responses.compact({ model: MODEL })).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(ctx.client.responses.compact({ input: 'x' } as never)).rejects.toMatchObject({ status: 400, param: 'model' });
  });

  it('refuses to delete a model the caller does not own (403) and names an unknown one (404), never a 405', async () => {
    const refused = await ctx.client.models.delete('gpt-4o').catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused.error).toMatchObject({ type: 'invalid_request_error', param: 'model', message: expect.stringContaining('gpt-4o') });
    const unknown = await ctx.client.models.delete('ft:gpt-4o-mini:acme::nope').catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.code).toBe('model_not_found');
    expect((await ctx.client.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
  });
});
