// Embeddings (OpenAI and Gemini formats) and reranking (Jina-style v1, Cohere v2), in both modes.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';
import { advance, heldWhileAnother, inVirtualTime, watch } from './helpers/virtual-time.ts';

const MODEL = 'text-embedding-3-small';
const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i], 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));
// Longer than any test run, shorter than the openai SDK's own request timeout (10 min), which virtual time would reach.
const SLOW_MS = 300_000;

describe.each(modes)('embeddings and rerank ($name)', (mode) => {
  const ctx = withGateway(mode, {
    fixtures: [
      { name: 'pinned-vector', match: { endpoint: '/v1/embeddings', userMessage: 'pin me' }, reply: { embedding: [0.6, 0.8] } },
      { name: 'embed-fails', match: { userMessage: 'fail me' }, error: { status: 429, message: 'slow down' } },
      { name: 'embed-breaks', match: { endpoint: '/v1/embeddings', userMessage: 'break me' }, fault: { type: 'CONNECTION_RESET_BY_PEER' } },
      { name: 'embed-slow', match: { endpoint: '/v1/embeddings', userMessage: 'slow me' }, latency: `ttft=${SLOW_MS}` },
    ],
  });

  it('lets fixtures and overrides answer embeddings and rerank too', async () => {
    const pinned = await ctx.client.embeddings.create({ model: MODEL, input: ['pin me', 'not me'], encoding_format: 'float' });
    expect(pinned.data[0].embedding).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(pinned.data[1].embedding).toHaveLength(1536);
    const failed = await ctx.client.embeddings.create({ model: MODEL, input: 'fail me' }).catch((e) => e);
    expect(failed).toBeInstanceOf(OpenAI.RateLimitError);
    const forced = await ctx.client.embeddings
      .create({ model: MODEL, input: 'x' }, { headers: { 'x-mock-status': '503' } })
      .catch((e) => e);
    expect(forced.status).toBe(503);
    const reset = await ctx.client.embeddings
      .create({ model: MODEL, input: 'x' }, { headers: { 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' } })
      .catch((e) => e);
    expect(reset).toBeInstanceOf(OpenAI.APIConnectionError);
    const reseeded = await ctx.client.embeddings.create(
      { model: MODEL, input: 'x', encoding_format: 'float' },
      { headers: { 'x-mock-seed': '9' } },
    );
    const plain = await ctx.client.embeddings.create({ model: MODEL, input: 'x', encoding_format: 'float' });
    expect(reseeded.data[0].embedding).not.toEqual(plain.data[0].embedding);
    const reranked = await fetch(`${ctx.gw.root}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', 'x-mock-status': '500' },
      body: JSON.stringify({ model: 'rerank-v3.5', query: 'q', documents: ['a'] }),
    });
    expect(reranked.status).toBe(500);
    expect((await reranked.json()).error.type).toBe('server_error');
  });

  it("applies every input's fault and latency, not only the first input's", async () => {
    const broken = await ctx.client.embeddings.create({ model: MODEL, input: ['fine', 'break me'] }).catch((e) => e);
    expect(broken).toBeInstanceOf(OpenAI.APIConnectionError);
    const slowly = (signal?: AbortSignal) =>
      ctx.client.embeddings.create({ model: MODEL, input: ['fine', 'slow me'] }, { headers: { 'x-test': 'held' }, signal });
    // A request sent later is answered in full while the one with the slow input waits.
    const other = () => ctx.client.embeddings.create({ model: MODEL, input: 'fine' });
    if (mode.name === 'in-process') {
      // In virtual time: the answer comes at the slow input's time, not before.
      await inVirtualTime(async () => {
        const slow = watch(slowly());
        await other();
        expect(slow.settled).toBe(false);
        await advance(SLOW_MS - 1);
        expect(slow.settled).toBe(false);
        await advance(1);
        expect((await slow.promise).data).toHaveLength(2);
      });
    } else {
      // Over a socket, by order: once the gateway has it, it stays unanswered while another request completes.
      const { entry, answered } = await heldWhileAnother(ctx.gw.requests, slowly, other);
      expect(entry.status).toBe(0);
      expect(answered).toBe(false);
    }
  });

  it('sends retry-after with a 429 forced by x-mock-status, in every format', async () => {
    const openai = await ctx.client.embeddings
      .create({ model: MODEL, input: 'x' }, { headers: { 'x-mock-status': '429' } })
      .catch((e) => e);
    expect(openai).toBeInstanceOf(OpenAI.RateLimitError);
    expect(openai.headers.get('retry-after')).toBe('1');
    const gemini = await fetch(`${ctx.gw.root}/v1beta/models/gemini-embedding-001:embedContent?key=sk-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mock-status': '429' },
      body: JSON.stringify({ content: { parts: [{ text: 'x' }] } }),
    });
    expect(gemini.status).toBe(429);
    expect(gemini.headers.get('retry-after')).toBe('1');
    expect((await gemini.json()).error.details[0].retryDelay).toBe('1s');
  });

  it('embeds with the SDK default (base64) and with float alike, unit length, of the model size', async () => {
    const input = ['the cat sat on the mat', 'a cat on a mat', 'quarterly revenue grew'];
    const base64 = await ctx.client.embeddings.create({ model: MODEL, input });
    const float = await ctx.client.embeddings.create({ model: MODEL, input, encoding_format: 'float' });
    assertSchema('CreateEmbeddingResponse', float);
    expect(base64.data.map((d) => d.index)).toEqual([0, 1, 2]);
    for (const [i, d] of base64.data.entries()) {
      expect(d.embedding).toHaveLength(1536);
      expect(norm(d.embedding)).toBeCloseTo(1, 5);
      d.embedding.forEach((v, j) => expect(v).toBeCloseTo(float.data[i].embedding[j], 6));
    }
    const [cat, cat2, money] = float.data.map((d) => d.embedding);
    expect(cosine(cat, cat2)).toBeGreaterThan(cosine(cat, money) + 0.15);
    expect(float.usage).toEqual({
      prompt_tokens: input.reduce((n, t) => n + encode(t).length, 0),
      total_tokens: input.reduce((n, t) => n + encode(t).length, 0),
    });
  });

  it('is deterministic, shortens with dimensions, and takes token arrays', async () => {
    const one = await ctx.client.embeddings.create({ model: MODEL, input: 'hello world', encoding_format: 'float' });
    const again = await ctx.client.embeddings.create({ model: MODEL, input: 'hello world', encoding_format: 'float' });
    expect(again.data[0].embedding).toEqual(one.data[0].embedding);
    const short = await ctx.client.embeddings.create({ model: MODEL, input: 'hello world', dimensions: 256, encoding_format: 'float' });
    expect(short.data[0].embedding).toHaveLength(256);
    expect(norm(short.data[0].embedding)).toBeCloseTo(1, 5);
    expect(cosine(short.data[0].embedding, one.data[0].embedding.slice(0, 256))).toBeGreaterThan(
      0.99 * norm(one.data[0].embedding.slice(0, 256)),
    );
    const tokens = await ctx.client.embeddings.create({ model: MODEL, input: encode('hello world'), encoding_format: 'float' });
    expect(tokens.data[0].embedding).toEqual(one.data[0].embedding);
    const large = await ctx.client.embeddings.create({ model: 'text-embedding-3-large', input: 'x', encoding_format: 'float' });
    expect(large.data[0].embedding).toHaveLength(3072);
  });

  it.each([
    ['an empty string', { input: '' }, 'input'],
    ['an empty list', { input: [] }, 'input'],
    ['too many inputs', { input: Array.from({ length: 2049 }, () => 'x') }, 'input'],
    ['too many tokens', { input: 'word '.repeat(9000) }, 'input'],
    ['dimensions above the model size', { input: 'x', dimensions: 5000 }, 'dimensions'],
    ['dimensions on ada-002', { input: 'x', dimensions: 8, model: 'text-embedding-ada-002' }, 'dimensions'],
    ['a bad encoding', { input: 'x', encoding_format: 'hex' }, 'encoding_format'],
  ])('refuses %s naming the field', async (_what, body, param) => {
    const error = await ctx.client.embeddings.create({ model: MODEL, ...body } as never).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe(param);
  });

  it('refuses a chat model', async () => {
    await expect(ctx.client.embeddings.create({ model: 'gpt-4o', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('embeds through @google/genai, in the same space as the OpenAI format for the same model', async () => {
    const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, apiVersion: 'v1beta' } });
    const r = await google.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['the cat sat on the mat', 'quarterly revenue grew'],
    });
    expect(r.embeddings).toHaveLength(2);
    expect(r.embeddings![0].values).toHaveLength(3072);
    const viaOpenAI = await ctx.client.embeddings.create({
      model: 'gemini-embedding-001',
      input: 'the cat sat on the mat',
      encoding_format: 'float',
    });
    r.embeddings![0].values!.forEach((v, i) => expect(v).toBeCloseTo(viaOpenAI.data[0].embedding[i], 6));
    const short = await google.models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'hi',
      config: { outputDimensionality: 768 },
    });
    expect(short.embeddings![0].values).toHaveLength(768);
  });

  const rerank = (path: string, body: object) =>
    fetch(`${ctx.gw.root}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const documents = [
    'stock market news today',
    'the best food for your cat',
    { text: 'dogs and cats living together' },
    'weather in Paris',
  ];

  it('reranks Jina-style: documents with the query words first, scores in (0,1), top_n and return_documents', async () => {
    const { status, body } = await rerank('/v1/rerank', { model: 'jina-reranker-v2-base-multilingual', query: 'cat food', documents });
    expect(status).toBe(200);
    expect(body.results.map((r: { index: number }) => r.index).slice(0, 2)).toEqual([1, 2]);
    for (const r of body.results) expect(r.relevance_score).toBeGreaterThan(0), expect(r.relevance_score).toBeLessThan(1);
    const scores = body.results.map((r: { relevance_score: number }) => r.relevance_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(body.results[0].document).toEqual({ text: 'the best food for your cat' });
    expect(body.usage.total_tokens).toBeGreaterThan(0);
    const top = await rerank('/v1/rerank', {
      model: 'jina-reranker-v2-base-multilingual',
      query: 'cat food',
      documents,
      top_n: 1,
      return_documents: false,
    });
    expect(top.body.results).toEqual([{ index: 1, relevance_score: body.results[0].relevance_score }]);
    expect((await rerank('/v1/rerank', { model: 'jina-reranker-v2-base-multilingual', query: 'cat food', documents })).body).toEqual(body);
  });

  it('reranks in Cohere v2 shape, without documents', async () => {
    const { body } = await rerank('/v2/rerank', {
      model: 'rerank-v3.5',
      query: 'cat food',
      documents: documents.map((d) => (typeof d === 'string' ? d : d.text)),
    });
    expect(body.results[0]).toEqual({ index: 1, relevance_score: expect.any(Number) });
    expect(body.meta).toEqual({ api_version: { version: '2' }, billed_units: { search_units: 1 } });
    expect(body.id).toMatch(/^[0-9a-z]{8}-[0-9a-z]{4}-/);
    const cut = await rerank('/v2/rerank', {
      model: 'rerank-v3.5',
      query: 'cat food',
      documents: ['stock market news, and later the best food for your cat'],
      max_tokens_per_doc: 3,
    });
    const whole = await rerank('/v2/rerank', {
      model: 'rerank-v3.5',
      query: 'cat food',
      documents: ['stock market news, and later the best food for your cat'],
    });
    expect(cut.body.results[0].relevance_score).toBeLessThan(whole.body.results[0].relevance_score);
  });

  it('refuses bad rerank input naming the field', async () => {
    const missing = await rerank('/v1/rerank', { model: 'jina-reranker-v2-base-multilingual', documents });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('query');
    const empty = await rerank('/v1/rerank', { model: 'jina-reranker-v2-base-multilingual', query: 'x', documents: [] });
    expect(empty.body.error.param).toBe('documents');
    const chat = await rerank('/v1/rerank', { model: 'gpt-4o', query: 'x', documents: ['a'] });
    expect(chat.status).toBe(404);
  });
});
