// Cost: each journal entry's costUsd is the price table's arithmetic on the reply's usage (shipped
// prices by model and family, an override over them), and the totals per token add the entries up;
// through the openai and Anthropic SDKs, in-process and over a socket (--prices, GET /__admin/costs).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import shipped from '../catalog/prices.json' with { type: 'json' };
import type { JournalEntry, ModelPrice } from '../src/index.ts';
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
    expect((await last()).costUsd).toBeCloseTo(usd(reply.usage!.prompt_tokens, mini.input) + usd(reply.usage!.completion_tokens, mini.output), 12);
    await client.chat.completions.create({ model: 'gpt-daybreak-blue-latest', messages: ask('no price for me') });
    const unpriced = await last();
    expect(unpriced.usage?.inputTokens).toBeGreaterThan(0);
    expect(unpriced.costUsd).toBeUndefined();
  });

  it("an Anthropic reply with thinking: the thinking tokens at the reasoning price, the rest of the output at the output price, by family", async () => {
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
