// A model of the catalogue, and what the `models` option takes (core/models.ts holds the catalogue).

/** What a model can be asked to do. */
export type Capability = 'chat' | 'completion' | 'embedding' | 'image' | 'speech' | 'transcription' | 'rerank' | 'realtime' | 'moderation';

export interface ModelInfo {
  id: string;
  /** The vendor that makes it, shown as OpenAI's `owned_by`. */
  owned_by: string;
  /** Unix seconds. */
  created: number;
  display_name?: string;
  capabilities: Capability[];
  context_window?: number;
  max_output_tokens?: number;
  /** Vector size, for embedding models. */
  dimensions?: number;
  /** An embedding model whose size cannot be changed (it refuses `dimensions`). */
  fixed_dimensions?: boolean;
  /** A reasoning model (thinks before it answers; see core/reasoning.ts). */
  reasoning?: boolean;
  /** The smallest prompt prefix it caches, in tokens (default 1024; see core/cache.ts). */
  cache_min_tokens?: number;
  /** What it takes in, beyond text: `image`, `audio`. */
  input_modalities?: string[];
  /** How the id was found when it is not in the catalogue: by `alias` (the user's) or by `family` (vendor naming). */
  resolved_by?: 'alias' | 'family';
  /** The catalogue model or family the id was resolved to. */
  resolved_to?: string;
}

/** A user's name for a model: an alias or a deployment, served as `base` (a model id or a family). */
export interface ModelAlias {
  id: string;
  base: string;
}

/** `createGateway({ models })` entries: whole models, aliases, or `name=base` strings (the CLI's `--model`). */
export type ModelEntry = ModelInfo | ModelAlias | string;
