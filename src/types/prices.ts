// The price table's public types (core/prices.ts merges it and prices a reply).

/**
 * USD per million tokens of each kind; a kind left out costs what `input` (for prompt kinds) or
 * `output` (for generated kinds) costs, except 1-hour cache writes: twice `input`, as Anthropic bills them.
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the cache. */
  cached_input?: number;
  /** Prompt tokens written to the cache to be kept 5 minutes (the default). */
  cache_write?: number;
  /** Prompt tokens written to the cache to be kept an hour (`ttl: "1h"`); default twice `input`. */
  cache_write_1h?: number;
  /** Thinking tokens (part of the output). */
  reasoning?: number;
  audio_input?: number;
  image_input?: number;
}

/** A price table: per model id, and per naming family (catalog/models.json's `families`). */
export interface PriceTable {
  models?: Record<string, ModelPrice>;
  families?: Record<string, ModelPrice>;
}
