// OpenAI vector stores through the openai SDK, in-process and over a socket: a store filled with files
// (one by one and in a batch, polled to completion on the gateway's clock) and searched, the passage
// found being the one the embeddings /v1/embeddings answers put nearest the query; the Responses
// `file_search` tool answering from the same passages; chunking, filters, errors; tests kept apart;
// the ceilings answered with OpenAI's error.
import { describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { runtimeOf } from '../src/gateway.ts';
import { VECTOR_STORES } from '../src/formats/openai/vector-stores.ts';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

const NOTES = {
  'tides.txt': 'The tides rise and fall twice a day because the moon pulls on the oceans.',
  'bread.txt': 'Sourdough bread needs a starter of flour and water, fed every day before baking.',
  'comets.txt': 'A comet is a ball of ice and dust; its tail points away from the sun.',
};

/** The note whose embedding (as /v1/embeddings answers it) is nearest the query's: what a search should find first. */
async function nearestNote(openai: OpenAI, query: string): Promise<string> {
  const names = Object.keys(NOTES);
  const { data } = await openai.embeddings.create({
    model: 'text-embedding-3-small',
    dimensions: 256,
    input: [query, ...Object.values(NOTES)],
  });
  const dot = (a: number[], b: number[]) => a.reduce((n, x, i) => n + x * b[i], 0);
  const scores = data.slice(1).map((d) => dot(data[0].embedding, d.embedding));
  return names[scores.indexOf(Math.max(...scores))];
}

describe.each(heldModes)('Vector stores ($name)', (mode) => {
  const ctx = withHeld(mode);

  async function filledStore(openai: OpenAI) {
    const files = [];
    for (const [name, text] of Object.entries(NOTES))
      files.push(await openai.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' }));
    const store = await openai.vectorStores.create({ name: 'notes', metadata: { team: 'qa' } });
    expect(store).toMatchObject({ object: 'vector_store', name: 'notes', status: 'completed', metadata: { team: 'qa' } });
    expect(store.id).toMatch(/^vs_[A-Za-z0-9]{24}$/);
    const one = await openai.vectorStores.files.createAndPoll(store.id, { file_id: files[0].id, attributes: { kind: 'sea' } });
    expect(one).toMatchObject({ id: files[0].id, object: 'vector_store.file', status: 'completed', vector_store_id: store.id });
    const batch = await openai.vectorStores.fileBatches.createAndPoll(store.id, { file_ids: [files[1].id, files[2].id] });
    expect(batch).toMatchObject({ object: 'vector_store.files_batch', status: 'completed', file_counts: { completed: 2, total: 2 } });
    return { store, files };
  }

  it('fills a store with files, one by one and in a batch, and searches it: the nearest passage by the embeddings first', async () => {
    const openai = ctx.gw.openai('vs-search');
    const { store, files } = await filledStore(openai);
    const retrieved = await openai.vectorStores.retrieve(store.id);
    expect(retrieved.file_counts).toEqual({ in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 });
    expect(retrieved.usage_bytes).toBe(Object.values(NOTES).reduce((n, t) => n + t.length, 0));

    for (const query of ['Why does the moon move the sea?', 'How do I bake a loaf?', 'What is in the tail of a comet?']) {
      const expected = await nearestNote(openai, query);
      const page = await openai.vectorStores.search(store.id, { query });
      expect(page.data[0].filename, query).toBe(expected);
      expect(page.data[0].content).toEqual([{ type: 'text', text: NOTES[expected as keyof typeof NOTES] }]);
      expect(page.data.map((r) => r.score)).toEqual([...page.data.map((r) => r.score)].sort((a, b) => b - a));
    }
    // Filters on the files' attributes, and a result count.
    const sea = await openai.vectorStores.search(store.id, { query: 'baking', filters: { type: 'eq', key: 'kind', value: 'sea' } });
    expect(sea.data.map((r) => r.file_id)).toEqual([files[0].id]);
    expect((await openai.vectorStores.search(store.id, { query: 'anything', max_num_results: 2 })).data).toHaveLength(2);

    const listed = [];
    for await (const f of openai.vectorStores.files.list(store.id, { limit: 2 })) listed.push(f.id);
    expect(listed.sort()).toEqual(files.map((f) => f.id).sort());
    const content = await openai.vectorStores.files.content(files[1].id, { vector_store_id: store.id });
    expect(content.data).toEqual([{ type: 'text', text: NOTES['bread.txt'] }]);
    expect(await openai.vectorStores.files.delete(files[1].id, { vector_store_id: store.id })).toEqual({
      id: files[1].id,
      object: 'vector_store.file.deleted',
      deleted: true,
    });
    expect((await openai.vectorStores.search(store.id, { query: 'sourdough bread' })).data.map((r) => r.filename)).not.toContain(
      'bread.txt',
    );
    expect(await openai.vectorStores.delete(store.id)).toEqual({ id: store.id, object: 'vector_store.deleted', deleted: true });
    expect(await failure(openai.vectorStores.retrieve(store.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers a Responses file_search from the store it names, with the passage the embeddings put first', async () => {
    const openai = ctx.gw.openai('vs-file-search');
    const { store } = await filledStore(openai);
    const question = 'Search my files: how does the moon pull the tides of the oceans?';
    const response = await openai.responses.create({
      model: 'gpt-4.1-mini',
      input: question,
      tools: [{ type: 'file_search', vector_store_ids: [store.id] }],
      tool_choice: 'required',
      include: ['file_search_call.results'],
    });
    const call = response.output.find((o) => o.type === 'file_search_call');
    expect(call?.type).toBe('file_search_call');
    if (call?.type !== 'file_search_call') return;
    // The query the model searched with, ranked as /search ranks it.
    const expected = await nearestNote(openai, call.queries[0]);
    expect(expected).toBe('tides.txt');
    expect(call.results?.[0]).toMatchObject({ filename: expected, text: NOTES[expected as keyof typeof NOTES] });
    expect(call.results?.map((r) => r.filename).sort()).toEqual(Object.keys(NOTES).sort());
    // The tool's own filters and ranking options narrow it as /search's narrow a search.
    const narrowed = await openai.responses.create({
      model: 'gpt-4.1-mini',
      input: question,
      tools: [{ type: 'file_search', vector_store_ids: [store.id], filters: { type: 'ne', key: 'kind', value: 'sea' } }],
      tool_choice: 'required',
      include: ['file_search_call.results'],
    });
    const filtered = narrowed.output.find((o) => o.type === 'file_search_call');
    if (filtered?.type !== 'file_search_call') throw new Error('no file_search_call');
    const searched = await openai.vectorStores.search(store.id, {
      query: filtered.queries[0],
      filters: { type: 'ne', key: 'kind', value: 'sea' },
    });
    expect(filtered.results?.map((r) => r.filename)).toEqual(searched.data.map((r) => r.filename));
    expect(filtered.results?.map((r) => r.filename)).not.toContain('tides.txt');
    const best = call.results![0].score!;
    const above = await openai.responses.create({
      model: 'gpt-4.1-mini',
      input: question,
      tools: [{ type: 'file_search', vector_store_ids: [store.id], ranking_options: { score_threshold: best } }],
      tool_choice: 'required',
      include: ['file_search_call.results'],
    });
    const thresholded = above.output.find((o) => o.type === 'file_search_call');
    if (thresholded?.type !== 'file_search_call') throw new Error('no file_search_call');
    expect(thresholded.results?.map((r) => r.filename)).toEqual(['tides.txt']);
    // A filter the API refuses is refused on the tool too, naming where.
    const bad = await failure(
      openai.responses.create({
        model: 'gpt-4.1-mini',
        input: question,
        tools: [{ type: 'file_search', vector_store_ids: [store.id], filters: { type: 'near', key: 'kind', value: 'sea' } as never }],
      }),
    );
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.message).toContain('tools[0].filters.type');
  });

  it('cuts a file into passages by its static chunking strategy, and refuses one OpenAI refuses', async () => {
    const openai = ctx.gw.openai('vs-chunks');
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
    const file = await openai.files.create({ file: await toFile(Buffer.from(words), 'long.txt'), purpose: 'assistants' });
    const store = await openai.vectorStores.create({
      file_ids: [file.id],
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
    });
    const vsFile = await openai.vectorStores.files.retrieve(file.id, { vector_store_id: store.id });
    expect(vsFile.chunking_strategy).toEqual({ type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } });
    const page = await openai.vectorStores.search(store.id, { query: 'word5', max_num_results: 50 });
    // Passages of 100 tokens, none overlapping: together, the text once.
    expect(page.data.length).toBeGreaterThan(5);
    expect(
      page.data
        .map((r) => r.content[0].text)
        .sort()
        .join('').length,
    ).toBe(words.length);
    const bad = await failure(
      openai.vectorStores.create({
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 60 } },
      }),
    );
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.message).toContain('chunk_overlap_tokens must be less than or equal to half of max_chunk_size_tokens');
    expect(await failure(openai.vectorStores.create({ file_ids: ['file-nope'] }))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('fails a file that is no text (an archive is never opened), and keeps the store searchable', async () => {
    const openai = ctx.gw.openai('vs-binary');
    // A zip's local header and deflated bytes: whatever it would inflate to, nothing is inflated.
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), Buffer.alloc(4096, 0)]);
    const file = await openai.files.create({ file: await toFile(zip, 'bomb.zip'), purpose: 'assistants' });
    const store = await openai.vectorStores.create({ name: 'binary' });
    const added = await openai.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
    expect(added.status).toBe('failed');
    expect(added.last_error?.code).toBe('unsupported_file');
    expect((await openai.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ failed: 1, total: 1 });
    expect((await openai.vectorStores.search(store.id, { query: 'anything' })).data).toEqual([]);
  });

  it('moves files on the gateway clock: in progress until a second passes or it is retrieved; a store expires after its days', async () => {
    const openai = ctx.gw.openai('vs-clock');
    const file = await openai.files.create({ file: await toFile(Buffer.from('clockwork'), 'clock.txt'), purpose: 'assistants' });
    const store = await openai.vectorStores.create({ expires_after: { anchor: 'last_active_at', days: 1 } });
    expect(store.expires_at).toBe(store.last_active_at! + 86_400);
    const added = await openai.vectorStores.files.create(store.id, { file_id: file.id });
    expect(added.status).toBe('in_progress');
    const listed = await openai.vectorStores.list();
    expect(listed.data[0]).toMatchObject({ id: store.id, status: 'in_progress', file_counts: { in_progress: 1 } });
    expect((await openai.vectorStores.search(store.id, { query: 'clockwork' })).data).toEqual([]);
    ctx.gw.gateway.advanceClock(1);
    expect((await openai.vectorStores.search(store.id, { query: 'clockwork' })).data).toHaveLength(1);
    ctx.gw.gateway.advanceClock(86_400);
    expect((await openai.vectorStores.retrieve(store.id)).status).toBe('expired');
    expect(await failure(openai.vectorStores.search(store.id, { query: 'clockwork' }))).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("keeps two tests' stores apart on one server; a test's reset drops its own; a full store answers OpenAI's error", async () => {
    const a = ctx.gw.openai('vs-a');
    const b = ctx.gw.openai('vs-b');
    const ofA = await a.vectorStores.create({ name: 'a' });
    const ofB = await b.vectorStores.create({ name: 'b' });
    expect((await a.vectorStores.list()).data.map((s) => s.id)).toEqual([ofA.id]);
    expect(await failure(b.vectorStores.retrieve(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    ctx.gw.gateway.forTest('vs-a').reset();
    expect((await a.vectorStores.list()).data).toEqual([]);
    expect((await b.vectorStores.list()).data.map((s) => s.id)).toEqual([ofB.id]);

    const runtime = runtimeOf(ctx.gw.gateway);
    const store = runtime.stores.of(VECTOR_STORES);
    const filler = { ...store.get(ofB.id, runtime.stores.owner(''))!, id: 'vs_filler', files: new Map(), batches: new Map() };
    expect(store.set('vs_filler', filler, store.maxBytes - store.bytes - 100, runtime.stores.owner(''))).toBe(true);
    const full = await failure(a.vectorStores.create({ name: 'one more' }));
    expect(full).toBeInstanceOf(OpenAI.BadRequestError);
    expect(full.message).toContain('Your vector store storage is full');
    // Everyone else is still served.
    expect((await b.vectorStores.retrieve(ofB.id)).id).toBe(ofB.id);
    ctx.gw.gateway.reset();
  });
});
