// Cost: each journal entry's costUsd is the price table's arithmetic on the reply's usage (shipped
// prices by model and family, an override over them), and the totals per token add the entries up;
// through the openai and Anthropic SDKs, in-process and over a socket (--prices, GET /__admin/costs).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import shipped from '../catalog/prices.json' with { type: 'json' };
import type { JournalEntry, ModelPrice } from '../src/index.ts';
import { checkPrices, costOf } from '../src/core/prices.ts';
import { runCli } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { startMetered, type Metered, type MeteredMode } from './helpers/metered.ts';

const MODES: MeteredMode[] = socketSuites ? ['in-process', 'socket'] : ['in-process'];
const ask = (content: string) => [{ role: 'user' as const, content }];

/** The override the gateways run with: gpt-4o at its own prices, reasoning on claude-sonnet priced apart. */
const OVERRIDE = {
  models: { 'gpt-4o': { input: 2, cached_input: 1, output: 8 } },
  families: { 'claude-sonnet': { input: 3, output: 15, reasoning: 7 } },
};

/** USD for tokens at a price per million. */
const usd = (tokens: number, perMillion: number) => (tokens * perMillion) / 1e6;

describe.each(MODES)('cost (%s)', (mode) => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered(mode, { tokens: ['sk-a', 'sk-b'], prices: OVERRIDE });
  });
  afterAll(() => gw.stop());
  const last = async (): Promise<JournalEntry> => (await gw.requests()).at(-1)!;

  it("an OpenAI reply's cost is its usage at the overriding price", async () => {
    const client = new OpenAI({ apiKey: 'sk-a', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('what does this cost?') });
    const { prompt_tokens, completion_tokens } = reply.usage!;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect((await last()).costUsd).toBeCloseTo(usd(prompt_tokens, 2) + usd(completion_tokens, 8), 12);
  });

  it('a dated snapshot prices like its model (shipped table), an unknown family not at all', async () => {
    const client = new OpenAI({ apiKey: 'sk-a', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'gpt-4o-mini-2024-07-18', messages: ask('snapshot') });
    const mini = shipped.models['gpt-4o-mini'] as ModelPrice;
    expect((await last()).costUsd).toBeCloseTo(
      usd(reply.usage!.prompt_tokens, mini.input) + usd(reply.usage!.completion_tokens, mini.output),
      12,
    );
    await client.chat.completions.create({ model: 'gpt-daybreak-blue-latest', messages: ask('no price for me') });
    const unpriced = await last();
    expect(unpriced.usage?.inputTokens).toBeGreaterThan(0);
    expect(unpriced.costUsd).toBeUndefined();
  });

  it('an Anthropic reply with thinking: the thinking tokens at the reasoning price, the rest of the output at the output price, by family', async () => {
    const client = new Anthropic({ apiKey: 'sk-b', baseURL: gw.root, maxRetries: 0 });
    const reply = await client.messages.create({
      // A dated name of the family: no model entry, the family's price.
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: ask('think first'),
    });
    const entry = await last();
    const reasoning = entry.usage!.reasoningTokens;
    expect(reasoning).toBeGreaterThan(0);
    const { input_tokens, output_tokens } = reply.usage;
    expect(entry.costUsd).toBeCloseTo(usd(input_tokens, 3) + usd(output_tokens - reasoning, 15) + usd(reasoning, 7), 12);
  });

  it('totals per token add up the journal, unpriced requests counted apart', async () => {
    const entries = (await gw.requests()).filter((e) => e.status === 200);
    const costs = await gw.costs();
    const byToken = Object.fromEntries(costs.tokens.map((t) => [t.token, t]));
    // sk-a made three replies through the openai SDK (one unpriced), sk-b one through Anthropic's.
    const a = entries.filter((e) => e.format === 'openai');
    const b = entries.filter((e) => e.format === 'anthropic');
    expect([a.length, b.length]).toEqual([3, 1]);
    expect(byToken['sk-a']).toMatchObject({ requests: 3, unpriced: 1, inputTokens: a.reduce((n, e) => n + e.usage!.inputTokens, 0) });
    expect(byToken['sk-b']).toMatchObject({ requests: 1, unpriced: 0, reasoningTokens: b[0].usage!.reasoningTokens });
    const cost = (list: JournalEntry[]) => list.reduce((n, e) => n + (e.costUsd ?? 0), 0);
    expect(byToken['sk-a'].costUsd).toBeCloseTo(cost(a), 12);
    expect(byToken['sk-b'].costUsd).toBeCloseTo(cost(b), 12);
    expect(costs.total.costUsd).toBeCloseTo(cost(entries), 12);
    expect(costs.total.inputTokens).toBe(entries.reduce((n, e) => n + e.usage!.inputTokens, 0));
    expect(costs.total.outputTokens).toBe(entries.reduce((n, e) => n + e.usage!.outputTokens, 0));
    await gw.reset();
    expect((await gw.costs()).tokens).toEqual([]);
  });
});

describe.runIf(socketSuites)('--prices', () => {
  it('refuses a price table it cannot use, naming the entry and field', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'mgm-prices-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ models: { 'gpt-4o': { input: 'cheap', output: 1 } } }));
    const { code, output } = await runCli(['--prices', file]);
    expect(code).toBe(2);
    expect(output).toContain('models.gpt-4o.input must be a non-negative number');
  });
});

/** Bodies as the real services send them (what record mode writes as a fixture's `raw`), their usage far from what the gateway would count. */
const RAW_CHAT = {
  id: 'chatcmpl-recorded',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'recorded', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: {
    prompt_tokens: 5000,
    completion_tokens: 9000,
    total_tokens: 14000,
    prompt_tokens_details: { cached_tokens: 1000 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
};
const RAW_MESSAGE = {
  id: 'msg_recorded',
  type: 'message',
  role: 'assistant',
  model: 'claude-3-5-haiku-20241022',
  content: [{ type: 'text', text: 'recorded' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  // Anthropic's input_tokens leaves out the cache: the prompt is 3000 + 2000 read = 5000.
  usage: { input_tokens: 3000, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 9000 },
};
const chunk = (extra: object) =>
  JSON.stringify({ id: 'chatcmpl-recorded', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'gpt-4o-mini', ...extra });
/** A recorded stream: the usage in its last chunk before [DONE], as include_usage asks. */
const RAW_STREAM = {
  events: [
    { data: chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'recorded' }, finish_reason: null }], usage: null }) },
    { data: chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }) },
    { data: chunk({ choices: [], usage: { prompt_tokens: 5000, completion_tokens: 9000, total_tokens: 14000 } }) },
    { data: '[DONE]' },
  ],
};
const event = (data: object) => ({ event: (data as { type: string }).type, data: JSON.stringify(data) });
/** A recorded Anthropic stream: the input in message_start, the output in message_delta. */
const RAW_MESSAGE_STREAM = {
  events: [
    event({
      type: 'message_start',
      message: { ...RAW_MESSAGE, content: [], stop_reason: null, usage: { ...RAW_MESSAGE.usage, output_tokens: 1 } },
    }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'recorded' } }),
    event({ type: 'content_block_stop', index: 0 }),
    event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9000 } }),
    event({ type: 'message_stop' }),
  ],
};
const RAW_GEMINI = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'recorded' }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 5000, candidatesTokenCount: 8000, thoughtsTokenCount: 1000, totalTokenCount: 14000 },
  modelVersion: 'gemini-2.5-pro',
};
const RAW_FIXTURES = [
  { name: 'raw-message-stream', match: { userMessage: 'raw message stream' }, raw: { anthropic: RAW_MESSAGE_STREAM } },
  { name: 'raw-gemini', match: { userMessage: 'raw gemini' }, raw: { gemini: RAW_GEMINI } },
  { name: 'raw-chat', match: { userMessage: 'raw chat' }, raw: { openai: RAW_CHAT } },
  { name: 'raw-stream', match: { userMessage: 'raw stream' }, raw: { openai: RAW_STREAM } },
  { name: 'raw-message', match: { userMessage: 'raw message' }, raw: { anthropic: RAW_MESSAGE } },
  { name: 'raw-no-usage', match: { userMessage: 'raw without usage' }, raw: { openai: { ...RAW_CHAT, usage: undefined } } },
];
const TPM = 100_000;

describe.each(MODES)('a raw body is charged for the usage it tells its client (%s)', (mode) => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered(mode, {
      tokens: ['sk-chat', 'sk-stream', 'sk-message', 'sk-message-stream', 'sk-gemini', 'sk-none'],
      tpm: TPM,
      fixtures: RAW_FIXTURES,
    });
  });
  afterAll(() => gw.stop());
  const last = async (): Promise<JournalEntry> => (await gw.requests()).at(-1)!;
  const mini = shipped.models['gpt-4o-mini'] as ModelPrice;

  it("an OpenAI body: its prompt_tokens and completion_tokens (cached ones at the cached price), not the synthesized reply's", async () => {
    const client = new OpenAI({ apiKey: 'sk-chat', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask('raw chat') }).withResponse();
    expect(data.usage?.prompt_tokens).toBe(5000);
    const entry = await last();
    expect(entry.usage).toEqual({ inputTokens: 5000, outputTokens: 9000, cachedInputTokens: 1000, reasoningTokens: 0 });
    expect(entry.costUsd).toBeCloseTo(usd(4000, mini.input) + usd(1000, mini.cached_input!) + usd(9000, mini.output), 12);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM - 14_000));
  });

  it('a recorded stream: the usage its events tell', async () => {
    const client = new OpenAI({ apiKey: 'sk-stream', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: ask('raw stream'), stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let told: number | undefined;
    for await (const c of data) told = c.usage?.completion_tokens ?? told;
    expect(told).toBe(9000);
    const entry = await last();
    expect(entry.usage).toEqual({ inputTokens: 5000, outputTokens: 9000, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(entry.costUsd).toBeCloseTo(usd(5000, mini.input) + usd(9000, mini.output), 12);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM - 14_000));
  });

  it('an Anthropic body: its input_tokens with the cache read added, its output_tokens', async () => {
    const client = new Anthropic({ apiKey: 'sk-message', baseURL: gw.root, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: 'claude-3-5-haiku', max_tokens: 100, messages: ask('raw message') })
      .withResponse();
    expect(data.usage.output_tokens).toBe(9000);
    const entry = await last();
    expect(entry.usage).toEqual({ inputTokens: 5000, outputTokens: 9000, cachedInputTokens: 2000, reasoningTokens: 0 });
    const haiku = shipped.models['claude-3-5-haiku'] as ModelPrice;
    expect(entry.costUsd).toBeCloseTo(usd(3000, haiku.input) + usd(2000, haiku.cached_input!) + usd(9000, haiku.output), 12);
    expect(response.headers.get('anthropic-ratelimit-input-tokens-remaining')).toBe(String(TPM - 5000));
    expect(response.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe(String(TPM - 9000));
  });

  it("a recorded Anthropic stream: message_start's input and message_delta's output together", async () => {
    const client = new Anthropic({ apiKey: 'sk-message-stream', baseURL: gw.root, maxRetries: 0 });
    const final = await client.messages
      .stream({ model: 'claude-3-5-haiku', max_tokens: 100, messages: ask('raw message stream') })
      .finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 3000, output_tokens: 9000 });
    const entry = await last();
    expect(entry.usage).toEqual({ inputTokens: 5000, outputTokens: 9000, cachedInputTokens: 2000, reasoningTokens: 0 });
    const haiku = shipped.models['claude-3-5-haiku'] as ModelPrice;
    expect(entry.costUsd).toBeCloseTo(usd(3000, haiku.input) + usd(2000, haiku.cached_input!) + usd(9000, haiku.output), 12);
  });

  it('a Gemini body: its usageMetadata, thoughts as reasoning output', async () => {
    const google = new GoogleGenAI({ apiKey: 'sk-gemini', httpOptions: { baseUrl: gw.root } });
    const reply = await google.models.generateContent({ model: 'gemini-2.5-pro', contents: 'raw gemini' });
    expect(reply.usageMetadata?.promptTokenCount).toBe(5000);
    const entry = await last();
    expect(entry.usage).toEqual({ inputTokens: 5000, outputTokens: 9000, cachedInputTokens: 0, reasoningTokens: 1000 });
    const pro = shipped.models['gemini-2.5-pro'] as ModelPrice;
    expect(entry.costUsd).toBeCloseTo(usd(5000, pro.input) + usd(9000, pro.output), 12);
  });

  it('a body that tells no usage is charged none', async () => {
    const client = new OpenAI({ apiKey: 'sk-none', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: ask('raw without usage') })
      .withResponse();
    expect(data.usage).toBeUndefined();
    const entry = await last();
    expect(entry.fixture).toBe('raw-no-usage');
    expect(entry.usage).toBeUndefined();
    expect(entry.costUsd).toBeUndefined();
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM));
  });
});

describe.each(MODES)('prompt cache writes and reads at their own prices (%s)', (mode) => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered(mode, { tokens: ['sk-5m', 'sk-1h'] });
  });
  afterAll(() => gw.stop());
  const last = async (): Promise<JournalEntry> => (await gw.requests()).at(-1)!;
  /** A system prompt well over Sonnet's 1,024-token caching minimum. */
  const system = Array.from({ length: 120 }, (_, i) => `Clause ${i + 1}: quote the price list and round every total to the cent.`).join(
    '\n',
  );
  const sonnet = shipped.families['claude-sonnet'] as ModelPrice;
  const cachedAsk = (apiKey: string, question: string, ttl?: '1h') =>
    new Anthropic({ apiKey, baseURL: gw.root, maxRetries: 0 }).messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 200,
      system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } }],
      messages: ask(question),
    });

  it('a 5-minute write at cache_write, then the read at cached_input, the rest at input and output', async () => {
    const write = await cachedAsk('sk-5m', 'What does the first order cost?');
    const written = write.usage.cache_creation_input_tokens!;
    expect(written).toBeGreaterThan(1024);
    expect((await last()).costUsd).toBeCloseTo(
      usd(write.usage.input_tokens, sonnet.input) + usd(written, sonnet.cache_write!) + usd(write.usage.output_tokens, sonnet.output),
      12,
    );
    const read = await cachedAsk('sk-5m', 'And the second?');
    expect(read.usage).toMatchObject({ cache_read_input_tokens: written, cache_creation_input_tokens: 0 });
    expect((await last()).costUsd).toBeCloseTo(
      usd(read.usage.input_tokens, sonnet.input) + usd(written, sonnet.cached_input!) + usd(read.usage.output_tokens, sonnet.output),
      12,
    );
  });

  it('a 1-hour write at cache_write_1h, twice input as Anthropic bills it, not at the 5-minute rate', async () => {
    expect(sonnet.cache_write_1h).toBe(2 * sonnet.input);
    const write = await cachedAsk('sk-1h', 'What does the first order cost?', '1h');
    const written = write.usage.cache_creation!.ephemeral_1h_input_tokens;
    expect(written).toBeGreaterThan(1024);
    expect(write.usage.cache_creation_input_tokens).toBe(written);
    expect((await last()).costUsd).toBeCloseTo(
      usd(write.usage.input_tokens, sonnet.input) + usd(written, sonnet.cache_write_1h!) + usd(write.usage.output_tokens, sonnet.output),
      12,
    );
  });
});

describe('the price arithmetic', () => {
  it('prices a 1-hour cache write at twice input when the entry gives no cache_write_1h, and refuses an audio_output price it could never apply', () => {
    const usage = {
      inputTokens: 3000,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      cacheCreationInputTokens: 2000,
      cacheCreation1hInputTokens: 1500,
    };
    // 1000 plain, 500 written for 5 minutes at cache_write, 1500 for an hour at twice input.
    expect(costOf(usage, { input: 4, output: 1, cache_write: 5 })).toBeCloseTo(usd(1000, 4) + usd(500, 5) + usd(1500, 8), 12);
    expect(() => checkPrices({ models: { m: { input: 1, output: 1, audio_output: 2 } } })).toThrow(
      'models.m: unknown price "audio_output"',
    );
  });
});

const RAW_EMBEDDING = {
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.6, 0.8] }],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 7000, total_tokens: 7000 },
};

describe.each(MODES)('embeddings and rerank are charged for their input tokens (%s)', (mode) => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered(mode, {
      tokens: ['sk-embed', 'sk-gemini-embed', 'sk-rerank', 'sk-cohere', 'sk-raw-embed'],
      tpm: TPM,
      fixtures: [
        { name: 'raw-embedding', match: { userMessage: 'raw embedding' }, raw: { openai: RAW_EMBEDDING } },
        { name: 'busy-embedding', match: { userMessage: 'busy embedding' }, fault: { type: 'OVERLOADED' } },
      ],
    });
  });
  afterAll(() => gw.stop());
  const last = async (): Promise<JournalEntry> => (await gw.requests()).at(-1)!;
  const small = shipped.models['text-embedding-3-small'] as ModelPrice;
  const texts = ['the cat sat on the mat', 'quarterly revenue grew by a tenth'];
  const inputOnly = (inputTokens: number) => ({ inputTokens, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 });

  it('OpenAI embeddings: the usage the reply tells, at the model price, in the window and in the totals', async () => {
    const client = new OpenAI({ apiKey: 'sk-embed', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const { data, response } = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts }).withResponse();
    const told = data.usage.prompt_tokens;
    expect(told).toBeGreaterThan(10);
    const entry = await last();
    expect(entry.usage).toEqual(inputOnly(told));
    expect(entry.costUsd).toBeCloseTo(usd(told, small.input), 15);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM - told));
    const mine = (await gw.costs()).tokens.find((t) => t.token === 'sk-embed');
    expect(mine).toMatchObject({ requests: 1, unpriced: 0, inputTokens: told, outputTokens: 0 });
    expect(mine!.costUsd).toBeCloseTo(entry.costUsd!, 15);
  });

  it("Gemini embedContent and batchEmbedContents: the texts' tokens (the reply tells none), at the family price", async () => {
    const openai = new OpenAI({ apiKey: 'sk-embed', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const counted = (await openai.embeddings.create({ model: 'gemini-embedding-001', input: texts })).usage.prompt_tokens;
    const one = (await openai.embeddings.create({ model: 'gemini-embedding-001', input: texts[0] })).usage.prompt_tokens;
    const google = new GoogleGenAI({ apiKey: 'sk-gemini-embed', httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
    const family = shipped.families['gemini-embedding'] as ModelPrice;
    const batch = await google.models.embedContent({ model: 'gemini-embedding-001', contents: texts });
    expect(batch.embeddings).toHaveLength(2);
    const batchEntry = await last();
    expect(batchEntry.path).toContain(':batchEmbedContents');
    expect(batchEntry.usage).toEqual(inputOnly(counted));
    expect(batchEntry.costUsd).toBeCloseTo(usd(counted, family.input), 15);
    const single = await fetch(`${gw.root}/v1beta/models/gemini-embedding-001:embedContent?key=sk-gemini-embed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: texts[0] }] } }),
    });
    // The reply is as Google's: the vector alone, no usage.
    expect(Object.keys(await single.json())).toEqual(['embedding']);
    expect((await last()).usage).toEqual(inputOnly(one));
    const mine = (await gw.costs()).tokens.find((t) => t.token === 'sk-gemini-embed');
    expect(mine).toMatchObject({ requests: 2, unpriced: 0, inputTokens: counted + one });
  });

  it("rerank: Jina's the usage it tells (unpriced: no rerank price); Cohere's bills search units, no tokens, its reply unchanged", async () => {
    const jina = new OpenAI({ apiKey: 'sk-rerank', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const documents = ['the best food for your cat', 'stock market news today'];
    const { data, response } = await jina
      .post<{ usage: { total_tokens: number } }>('/rerank', {
        body: { model: 'jina-reranker-v2-base-multilingual', query: 'cat food', documents },
      })
      .withResponse();
    const told = data.usage.total_tokens;
    expect(told).toBeGreaterThan(0);
    const entry = await last();
    expect(entry.usage).toEqual(inputOnly(told));
    expect(entry.costUsd).toBeUndefined();
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM - told));
    expect((await gw.costs()).tokens.find((t) => t.token === 'sk-rerank')).toMatchObject({ requests: 1, unpriced: 1, inputTokens: told });
    const cohere = new OpenAI({ apiKey: 'sk-cohere', baseURL: gw.root, maxRetries: 0 });
    const { data: ranked, response: cohereResponse } = await cohere
      .post<Record<string, unknown>>('/v2/rerank', { body: { model: 'rerank-v3.5', query: 'cat food', documents } })
      .withResponse();
    expect(Object.keys(ranked)).toEqual(['id', 'results', 'meta']);
    expect((await last()).usage).toBeUndefined();
    expect(cohereResponse.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM));
  });

  it("a raw embeddings body: charged the usage it tells, not the input's own count", async () => {
    const client = new OpenAI({ apiKey: 'sk-raw-embed', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'raw embedding', encoding_format: 'float' })
      .withResponse();
    expect(data.usage.prompt_tokens).toBe(7000);
    const entry = await last();
    expect(entry.fixture).toBe('raw-embedding');
    expect(entry.usage).toEqual(inputOnly(7000));
    expect(entry.costUsd).toBeCloseTo(usd(7000, small.input), 15);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(TPM - 7000));
  });

  it('an embeddings request a fault fails carries no usage and costs nothing', async () => {
    const client = new OpenAI({ apiKey: 'sk-raw-embed', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    const error = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'busy embedding' }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const entry = await last();
    expect([entry.status, entry.fault, entry.usage, entry.costUsd]).toEqual([503, 'OVERLOADED', undefined, undefined]);
  });
});
