// How a vector store search is narrowed, as the /search endpoint and the Responses `file_search` tool
// both take it: attribute filters (comparisons and compounds over a file's attributes) and ranking
// options (a score threshold). One reading of each, for both.
import { fieldsOf, type JsonObject } from '../fields.ts';
import { checkField, checkFields } from './validate.ts';

/** A file's attributes: up to 16 keys of strings, numbers and booleans. */
export type Attributes = Record<string, string | number | boolean>;

export type Filter = JsonObject;

const COMPARISONS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'];

export function checkFilter(value: unknown, param: string): Filter {
  checkField(param, value, { types: ['object'], required: true });
  const f = fieldsOf(value);
  checkField(`${param}.type`, f.type, { types: ['string'], required: true, values: [...COMPARISONS, 'and', 'or'] });
  if (f.type === 'and' || f.type === 'or') {
    checkFields(f, { type: { types: ['string'] }, filters: { types: ['array'], required: true, max: 10 } }, `${param}.`);
    (f.filters as unknown[]).forEach((g, i) => checkFilter(g, `${param}.filters[${i}]`));
  } else {
    checkFields(
      f,
      {
        type: { types: ['string'] },
        key: { types: ['string'], required: true },
        value: { types: ['string', 'number', 'boolean', 'array'], required: true },
      },
      `${param}.`,
    );
  }
  return f;
}

/** Whether a file's attributes pass an attribute filter (comparison or compound). */
export function passes(filter: Filter, attributes: Attributes | null): boolean {
  if (filter.type === 'and') return (filter.filters as Filter[]).every((g) => passes(g, attributes));
  if (filter.type === 'or') return (filter.filters as Filter[]).some((g) => passes(g, attributes));
  const have = attributes?.[String(filter.key)];
  const want = filter.value;
  switch (filter.type) {
    case 'eq':
      return have === want;
    case 'ne':
      return have !== want;
    case 'in':
      return Array.isArray(want) && want.includes(have);
    case 'nin':
      return Array.isArray(want) && !want.includes(have);
    default: {
      if (typeof have !== 'number' || typeof want !== 'number') return false;
      return filter.type === 'gt' ? have > want : filter.type === 'gte' ? have >= want : filter.type === 'lt' ? have < want : have <= want;
    }
  }
}

/** `ranking_options` checked (`ranker`, `score_threshold` from 0 to 1); its score threshold (0: none). */
export function checkRanking(value: unknown, param: string): number {
  if (value === undefined) return 0;
  checkField(param, value, { types: ['object'] });
  const ranking = fieldsOf(value);
  checkFields(
    ranking,
    {
      ranker: { types: ['string'], values: ['none', 'auto', 'default-2024-11-15'] },
      score_threshold: { types: ['number'], min: 0, max: 1 },
    },
    `${param}.`,
  );
  return Number(ranking.score_threshold ?? 0);
}
