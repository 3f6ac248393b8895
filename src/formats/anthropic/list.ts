// Anthropic's list pages (models, message batches): `limit`, `after_id` / `before_id` cursors, and
// `{data, has_more, first_id, last_id}`, which the SDK's Page follows with `for await`.
import { GatewayError } from '../../core/errors.ts';
import type { Call } from '../../pipeline/call.ts';
import { checkField } from './validate.ts';

/** One page of `all` (already in list order) as the query asks, its items rendered by `render`. */
export function listPage<T>(call: Call, all: readonly T[], idOf: (item: T) => string, what: string, render: (item: T) => unknown) {
  const params = call.inbound.url.searchParams;
  const limit = params.has('limit') ? Number(params.get('limit')) : 20;
  checkField('limit', Number.isInteger(limit) ? limit : params.get('limit'), { types: ['integer'], min: 1, max: 1000 });
  // `page`: the cursor of the SDK's PageCursor (a page's `next_page`, its last id).
  const after = params.get('after_id') ?? params.get('page');
  const before = params.get('before_id');
  const find = (id: string) => {
    const at = all.findIndex((item) => idOf(item) === id);
    if (at < 0) throw new GatewayError('invalid_request', `${after === id ? 'after_id' : 'before_id'}: no ${what} with id '${id}'`);
    return at;
  };
  let page: readonly T[];
  let hasMore: boolean;
  if (before) {
    const end = find(before);
    page = all.slice(Math.max(0, end - limit), end);
    hasMore = end - limit > 0;
  } else {
    const start = after ? find(after) + 1 : 0;
    page = all.slice(start, start + limit);
    hasMore = start + limit < all.length;
  }
  const first = page[0];
  const last = page.at(-1);
  return {
    data: page.map(render),
    has_more: hasMore,
    first_id: first === undefined ? null : idOf(first),
    last_id: last === undefined ? null : idOf(last),
  };
}
