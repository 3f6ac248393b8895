// What OpenAI's stateful resources share (stored chat completions, a response's input items, files,
// uploads, batches): their GET and DELETE routes, and cursor pages: `limit`, `after` (the last id of
// the page before), `order`, and `first_id`, `last_id`, `has_more`.
import type { Call, EndpointSpec, Handler } from '../../pipeline/call.ts';
import type { JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { checkField, invalid, invalidValue } from './validate.ts';

/** A GET or DELETE route of a resource (its POSTs take a body, and are written out). */
export const readRoute = (method: 'GET' | 'DELETE', path: string, handle: Handler<JsonObject | undefined>): EndpointSpec => ({
  method,
  path,
  format: openaiFormat,
  auth: ['bearer'],
  handle,
});

interface PageRules {
  /** The order when the query gives none (by creation). */
  order: 'asc' | 'desc';
  /** The page size when the query gives none, and the largest it takes. */
  limit: number;
  maxLimit: number;
}

const DEFAULT_RULES: PageRules = { order: 'asc', limit: 20, maxLimit: 100 };

/**
 * One page of `items` (oldest first) as OpenAI's cursor lists answer it, by the query's `order`,
 * `limit` (1..maxLimit) and `after` (the last id of the previous page).
 */
export function cursorPage(call: Call, items: readonly JsonObject[], rules: Partial<PageRules> = {}): JsonObject {
  const { order: defaultOrder, limit: defaultLimit, maxLimit } = { ...DEFAULT_RULES, ...rules };
  const query = call.inbound.url.searchParams;
  const order = query.get('order') ?? defaultOrder;
  if (order !== 'asc' && order !== 'desc') throw invalidValue('order', order, ['asc', 'desc']);
  const limitText = query.get('limit') ?? String(defaultLimit);
  const limit = Number(limitText);
  checkField('limit', /^-?\d+$/.test(limitText) ? limit : limitText, { types: ['integer'], min: 1, max: maxLimit });
  const listed = order === 'asc' ? items : [...items].reverse();
  const after = query.get('after');
  let start = 0;
  if (after !== null) {
    start = listed.findIndex((item) => item.id === after) + 1;
    if (!start)
      throw invalid(
        'after',
        `Invalid 'after': no item with id '${after}' in this list. Pass the last id of the page before (its 'last_id').`,
      );
  }
  const data = listed.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < listed.length };
}
