// What a reply costs: a price table per model (USD per million tokens of each kind), looked up by the
// model's id, then what the catalogue resolves it to (an alias's base, a snapshot's model), then its
// naming family, so aliases and dated snapshots price like the model they stand for.
import type { Catalogue } from './models.ts';
import type { Usage } from './reply.ts';
import type { ModelPrice, PriceTable } from '../types/prices.ts';
export type { PriceTable } from '../types/prices.ts';

/** `over`'s prices replacing `base`'s, entry by entry. */
export function mergePrices(base: PriceTable, over: PriceTable | undefined): PriceTable {
  if (!over) return base;
  return { models: { ...base.models, ...over.models }, families: { ...base.families, ...over.families } };
}

// No audio_output: no reply's usage counts generated audio apart yet (Usage has no such figure), so a price for it would never apply.
const KINDS = ['input', 'output', 'cached_input', 'cache_write', 'cache_write_1h', 'reasoning', 'audio_input', 'image_input'] as const;

/** Fails, naming the entry and field, unless `table` is a price table. */
export function checkPrices(table: unknown): PriceTable {
  if (!table || typeof table !== 'object' || Array.isArray(table))
    throw new Error('a price table is an object with "models" and/or "families"');
  for (const part of ['models', 'families'] as const) {
    const entries = (table as Record<string, unknown>)[part];
    if (entries === undefined) continue;
    if (!entries || typeof entries !== 'object' || Array.isArray(entries)) throw new Error(`"${part}" must be an object of prices by name`);
    for (const [name, price] of Object.entries(entries)) {
      if (!price || typeof price !== 'object') throw new Error(`${part}.${name} must be an object like {"input": 2.5, "output": 10}`);
      for (const kind of ['input', 'output'] as const) {
        if ((price as Record<string, unknown>)[kind] === undefined)
          throw new Error(`${part}.${name} needs "${kind}" (USD per million tokens)`);
      }
      for (const [kind, value] of Object.entries(price)) {
        if (!(KINDS as readonly string[]).includes(kind))
          throw new Error(`${part}.${name}: unknown price "${kind}" (known: ${KINDS.join(', ')})`);
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
          throw new Error(`${part}.${name}.${kind} must be a non-negative number (USD per million tokens), got ${JSON.stringify(value)}`);
      }
    }
  }
  return table as PriceTable;
}

/** The price of `model`: its own, else that of what the catalogue resolves it to (an alias's base, a snapshot's model; hops bounded), else its family's. */
export function priceOf(table: PriceTable, catalogue: Catalogue, model: string, hops = 0): ModelPrice | undefined {
  const own = table.models?.[model] ?? table.families?.[model];
  if (own) return own;
  const to = catalogue.get(model)?.resolved_to;
  const resolved = to !== undefined && to !== model && hops < 4 ? priceOf(table, catalogue, to, hops + 1) : undefined;
  if (resolved) return resolved;
  const family = catalogue.familyOf(model);
  return family === undefined ? undefined : table.families?.[family];
}

/** USD rounded to a billionth of a cent: float noise off, every real price kept. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e11) / 1e11;

/**
 * What a request answered in a batch (Anthropic's Message Batches) costs, as a share of its standard
 * price: batches are billed at 50% of the standard prices, every kind of token alike.
 */
export const BATCH_DISCOUNT = 0.5;

/**
 * What `usage` costs at `price`, in USD. Input tokens count every prompt token: of them, the cached,
 * cache-written (5-minute and 1-hour apart), image and audio ones at their own prices, the rest at
 * `input`. Output tokens count every generated token: of them, the reasoning ones at `reasoning`, the
 * rest at `output`. `share` scales the whole (BATCH_DISCOUNT for a batch's requests).
 */
export function costOf(usage: Usage, price: ModelPrice, share = 1): number {
  const cached = usage.cachedInputTokens;
  const written = usage.cacheCreationInputTokens ?? 0;
  const writtenHour = Math.min(usage.cacheCreation1hInputTokens ?? 0, written);
  const image = usage.imageInputTokens ?? 0;
  const audio = usage.audioInputTokens ?? 0;
  const text = Math.max(0, usage.inputTokens - cached - written - image - audio);
  const reasoning = Math.min(usage.reasoningTokens, usage.outputTokens);
  const perMillion =
    text * price.input +
    cached * (price.cached_input ?? price.input) +
    (written - writtenHour) * (price.cache_write ?? price.input) +
    writtenHour * (price.cache_write_1h ?? 2 * price.input) +
    image * (price.image_input ?? price.input) +
    audio * (price.audio_input ?? price.input) +
    (usage.outputTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return roundUsd((perMillion * share) / 1e6);
}
