// The model catalogue: which models exist and what each can do.

/** What a model can be asked to do. */
export type Capability =
  | 'chat'
  | 'completion'
  | 'embedding'
  | 'image'
  | 'speech'
  | 'transcription'
  | 'rerank'
  | 'realtime';

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
}

export class Catalogue {
  private readonly byId = new Map<string, ModelInfo>();

  constructor(models: readonly ModelInfo[]) {
    for (const m of models) this.byId.set(m.id, m);
  }

  get(id: string): ModelInfo | undefined {
    return this.byId.get(id);
  }

  list(): ModelInfo[] {
    return [...this.byId.values()];
  }
}
