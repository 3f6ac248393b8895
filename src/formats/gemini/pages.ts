// Google's list pages: `pageSize` (from 1 to `max`, `size` when absent) and `pageToken` (here the offset
// of the page's first item), answered as `{[key]: items, nextPageToken}`, each left out when empty.
import type { Call } from '../../pipeline/call.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import type { JsonObject } from '../fields.ts';

export function listPage<T>(
  call: Call,
  all: readonly T[],
  key: string,
  show: (item: T) => JsonObject,
  size: number,
  max: number,
): Outbound {
  const q = call.inbound.url.searchParams;
  const take = Math.min(Math.max(1, Number(q.get('pageSize') ?? size) || size), max);
  const from = Number(q.get('pageToken') ?? 0) || 0;
  const page = all.slice(from, from + take);
  return json({
    ...(page.length ? { [key]: page.map(show) } : {}),
    ...(from + take < all.length ? { nextPageToken: String(from + take) } : {}),
  });
}
