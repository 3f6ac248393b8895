// The model catalogue: which models exist and what each can do. One resolver answers every endpoint:
// the catalogue's own ids, then the user's aliases, then the vendors' naming families (a dated
// snapshot or `-latest` of a known model, a new version of a family), so clients can use the names
// they copy from the vendors' docs and SDKs.
import { memoize } from './memo.ts';
import type { ModelInfo, ModelAlias, ModelEntry } from '../types/models.ts';
export type { Capability, ModelInfo, ModelEntry } from '../types/models.ts';

/** A vendor's naming family: ids matching `pattern` are served with the family's capabilities. */
export interface ModelFamily extends Omit<ModelInfo, 'id' | 'created' | 'resolved_by' | 'resolved_to'> {
  family: string;
  /** A regular expression the whole id must match (anchored here). */
  pattern: string;
  /**
   * A last resort (a vendor's scheme at large: `gemini-<version>-<any words>`): tried after a snapshot
   * of a known model, so `gemini-2.5-flash-latest` stays `gemini-2.5-flash`.
   */
  fallback?: boolean;
}

/** Longest id resolved by family: vendors' ids are short, and a megabyte "model" should not be matched. */
const MAX_MODEL_ID_CHARS = 256;

/** `created` of models resolved by family (2026-01-01): fixed, so listings stay the same bytes. */
const FAMILY_CREATED = 1767225600;

// A dated snapshot or a moving alias of a model: `-2024-08-06`, `-20250929`, `-0613`, `-latest`.
const SNAPSHOT = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$/;

/** An alias written `name=base`, as the CLI and `MGM_MODEL` take it. */
function parseAlias(text: string): ModelAlias {
  const at = text.indexOf('=');
  const id = text.slice(0, at).trim();
  const base = text.slice(at + 1).trim();
  if (at < 0 || !id || !base) throw new Error(`"${text}" is not name=model-or-family (e.g. my-gpt=gpt-4o, or team-fast=claude-haiku)`);
  return { id, base };
}

export class Catalogue {
  private readonly byId = new Map<string, ModelInfo>();
  private readonly families: { family: ModelFamily; pattern: RegExp }[];
  private readonly byFamily = new Map<string, ModelFamily>();
  /** Ids resolved by family, kept (bounded) since every request resolves its model. */
  private readonly byName: (id: string) => ModelInfo | undefined;

  /** Only the catalogue's ids and the aliases resolve (the `strictModels` option): no families, no snapshots. */
  private readonly exact: boolean;

  constructor(models: readonly ModelEntry[], families: readonly ModelFamily[] = [], exact = false) {
    this.exact = exact;
    this.families = families.map((family) => ({ family, pattern: new RegExp(`^(?:${family.pattern})$`) }));
    for (const f of families) this.byFamily.set(f.family, f);
    this.byName = memoize((id: string) => this.resolve(id), { entries: 1000 });
    // Whole models first, so aliases may name any of them whatever the order given.
    const aliases: ModelAlias[] = [];
    for (const m of models) {
      if (typeof m === 'string') aliases.push(parseAlias(m));
      else if ('base' in m) aliases.push(m);
      else this.byId.set(m.id, m);
    }
    for (const a of aliases) {
      const base = this.get(a.base) ?? this.fromFamily(a.base, this.byFamily.get(a.base));
      if (!base)
        throw new Error(
          `model "${a.id}": "${a.base}" is neither a model nor a family (families: ${families.map((f) => f.family).join(', ')})`,
        );
      this.byId.set(a.id, { ...base, id: a.id, display_name: a.id, resolved_by: 'alias', resolved_to: a.base });
    }
  }

  /** The model `id` names: in the catalogue, an alias, or by the vendors' naming; undefined for none. */
  get(id: string): ModelInfo | undefined {
    return this.byId.get(id) ?? (!this.exact && id.length <= MAX_MODEL_ID_CHARS ? this.byName(id) : undefined);
  }

  /** The catalogue and the aliases (ids resolved by family are endless, so not listed). */
  list(): ModelInfo[] {
    return [...this.byId.values()];
  }

  /** The naming family whose pattern `id` matches, if any (prices are kept per family). */
  familyOf(id: string): string | undefined {
    return id.length <= MAX_MODEL_ID_CHARS ? this.families.find((f) => f.pattern.test(id))?.family.family : undefined;
  }

  private resolve(id: string): ModelInfo | undefined {
    const family = this.families.find((f) => !f.family.fallback && f.pattern.test(id))?.family;
    if (family) return this.fromFamily(id, family);
    // A snapshot of a known model is that model; of a family's name, the family.
    const base = id.replace(SNAPSHOT, '');
    const known = base === id ? undefined : (this.byId.get(base) ?? this.resolve(base));
    if (known)
      return { ...known, id, display_name: id, resolved_by: known.resolved_by ?? 'family', resolved_to: known.resolved_to ?? base };
    return this.fromFamily(id, this.families.find((f) => f.family.fallback && f.pattern.test(id))?.family);
  }

  private fromFamily(id: string, family: ModelFamily | undefined): ModelInfo | undefined {
    if (!family) return undefined;
    const { family: name, pattern: _, fallback: __, ...info } = family;
    return { ...info, id, created: FAMILY_CREATED, display_name: id, resolved_by: 'family', resolved_to: name };
  }
}
