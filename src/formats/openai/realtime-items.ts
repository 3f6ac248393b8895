// A realtime session's conversation items, bounded in count and bytes per session (the oldest dropped
// first, as `truncation: "auto"` does) and in bytes across all the gateway's sessions (a pool on the
// runtime): a session that finds the pool full drops its own oldest items first, and an item it still
// cannot keep is refused. Eight sessions of 8 × 30 MiB items held ~4 GiB for up to an hour.
import type { SharedBytes } from '../../core/stores.ts';
import type { RealtimeItem } from './realtime-response.ts';
import { invalid } from './validate.ts';

export interface Item {
  /** The item as the GA protocol shows it. */
  raw: RealtimeItem;
  /** What a user audio item said (its transcript, or what the transcription rule hears). */
  heard?: string;
}

export const ITEM_LIMITS = {
  /** Items one session keeps. */
  count: 1000,
  /** Bytes of items one session keeps (as their JSON); all of a gateway's sessions together keep its pool's (Runtime.realtimeItems). */
  sessionBytes: 8 * 1024 * 1024,
};

const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

/** An item's weight: its JSON and what it was heard to say. */
const sizeOf = (item: Item): number => JSON.stringify(item.raw).length + (item.heard?.length ?? 0);

export class ConversationItems {
  private list: Item[] = [];
  private readonly sizes = new WeakMap<Item, number>();
  private bytes = 0;
  private readonly pool: SharedBytes;

  constructor(pool: SharedBytes) {
    this.pool = pool;
  }

  /** The items, oldest first. */
  get all(): readonly Item[] {
    return this.list;
  }

  /**
   * Puts `item` at index `at` (clamped), making room first by dropping the oldest items; returns where it
   * went. Throws the error event's GatewayError when the item cannot be kept: alone over a session's
   * bytes, or over what the pool has left once this session holds nothing else.
   */
  insert(item: Item, at: number): number {
    const size = sizeOf(item);
    if (size > ITEM_LIMITS.sessionBytes) {
      throw invalid(
        'item',
        `Error adding item: this item is ${size} bytes; the emulator keeps at most ${mib(ITEM_LIMITS.sessionBytes)} of conversation items per session.`,
        'item_too_large',
      );
    }
    let place = at;
    const dropOldest = () => {
      this.remove(this.list[0]);
      place = Math.max(0, place - 1);
    };
    while (this.list.length && (this.list.length >= ITEM_LIMITS.count || this.bytes + size > ITEM_LIMITS.sessionBytes)) dropOldest();
    while (!this.pool.take(size)) {
      if (!this.list.length) {
        throw invalid(
          'item',
          `Error adding item: the emulator keeps at most ${mib(this.pool.max)} of conversation items across all realtime sessions, and the others hold it; close some sessions or delete items.`,
          'conversation_memory_full',
        );
      }
      dropOldest();
    }
    place = Math.min(place, this.list.length);
    this.list.splice(place, 0, item);
    this.sizes.set(item, size);
    this.bytes += size;
    return place;
  }

  remove(item: Item): void {
    const i = this.list.indexOf(item);
    if (i < 0) return;
    this.list.splice(i, 1);
    const size = this.sizes.get(item) ?? 0;
    this.bytes -= size;
    this.pool.give(size);
  }

  /** `item` was changed in place (a truncated transcript): its weight is counted again. */
  resized(item: Item): void {
    const before = this.sizes.get(item);
    if (before === undefined) return;
    const after = sizeOf(item);
    // Truncation only ever shrinks an item; should one grow, its growth is not kept from the pool.
    if (after < before) this.pool.give(before - after);
    else if (!this.pool.take(after - before)) return;
    this.sizes.set(item, after);
    this.bytes += after - before;
  }

  /** The session ended: every item goes, and its bytes back to the pool. */
  release(): void {
    this.pool.give(this.bytes);
    this.bytes = 0;
    this.list = [];
  }
}
