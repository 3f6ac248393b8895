// Stable hashing and the seeded generators every other module draws from.
// Nothing here may touch Math.random or the wall clock: a reply is a pure function
// of (request, seed, fixtures, clock).
import type { Faker, LocaleDefinition, Randomizer } from '@faker-js/faker';
import { lazyModule } from './lazy.ts';
import { inSlices } from './slices.ts';

// faker with its English locale only (~50 ms to load), on first use.
const fakerEn = lazyModule<typeof import('@faker-js/faker/locale/en')>(
  '@faker-js/faker/locale/en',
  import.meta.url,
  () => import('@faker-js/faker/locale/en'),
);

/** Loads faker once; undefined when it is loaded already. */
export const fakerReady = fakerEn.ready;

/** JSON with object keys sorted, so equal values always hash alike. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** cyrb53: a fast, well-distributed 53-bit string hash (public domain). */
export function hashString(text: string, seed = 0): number {
  return hashStrings([text], seed);
}

/**
 * The running state of hashStrings, fed a part (or a slice of one) at a time: a long body is hashed in
 * slices with the event loop served between them, to the same value.
 */
export class StringHasher {
  private h1: number;
  private h2: number;

  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }

  update(text: string, from = 0, to = text.length): this {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = from; i < to; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  digest(): number {
    const h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507) ^ Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    const h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }
}

/**
 * The hash of the parts' concatenation, without building it: joining a short prefix to a long body
 * and reading it char by char makes V8 copy the whole body first.
 */
export function hashStrings(parts: readonly string[], seed = 0): number {
  const hasher = new StringHasher(seed);
  for (const text of parts) hasher.update(text);
  return hasher.digest();
}

/** hashStrings with the event loop served between slices of long parts (a request body, a long input). */
export async function hashStringsInSlices(parts: readonly string[], seed = 0): Promise<number> {
  const hasher = new StringHasher(seed);
  for (const text of parts) await inSlices(text.length, (from, to) => hasher.update(text, from, to));
  return hasher.digest();
}

/** The hash of any JSON-like value under a seed. */
export function hashValue(value: unknown, seed: number): number {
  return hashString(stableStringify(value), seed);
}

/** Derives a child key, so independent draws (choice 0, choice 1, timing…) never share a stream. */
export function deriveKey(key: number, label: string | number): number {
  return hashString(String(label), key % 2147483647);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A small seeded PRNG (sfc32) for numbers, choices and ids. Its state is kept as int32s (the same bits
 * as the algorithm's uint32s): a uint32 above 2^31 is no small integer to V8, and each store boxed a
 * number, ~2 KB of garbage per request.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: number) {
    this.a = key | 0;
    this.b = Math.floor(key / 4294967296) | 0;
    this.c = 0x9e3779b9 | 0;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const t = (((a + b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** `length` characters from [A-Za-z0-9]. */
  alnum(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALNUM[Math.floor(this.next() * ALNUM.length)];
    return out;
  }

  /** `length` characters from [0-9a-f]. */
  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }
}

/** An id in a vendor's style, e.g. makeId('chatcmpl-', 29, key). */
export function makeId(prefix: string, length: number, key: number): string {
  return prefix + new Rng(deriveKey(key, 'id')).alnum(length);
}

/** An id of hex digits in a vendor's style, e.g. makeHexId('batch_', 32, key). */
export function makeHexId(prefix: string, length: number, key: number): string {
  return prefix + new Rng(deriveKey(key, 'id')).hex(length);
}

/**
 * faker's own generator (MT19937, 53-bit floats), so every synthesized text stays what it was, with its
 * state in a typed array: faker's seeding fills a plain array with boxed numbers, which took about a
 * tenth of the time of a request with a new prompt.
 */
export class Mersenne implements Randomizer {
  private readonly state = new Uint32Array(624);
  private index = 624;

  /** init_genrand; faker's seeds by array (init_by_array) are never used here. */
  seed(seed: number | number[]): void {
    if (typeof seed !== 'number') throw new TypeError('Mersenne: seed with a number');
    const mt = this.state;
    mt[0] = seed;
    for (let i = 1, last = mt[0]; i < 624; i++) last = mt[i] = (Math.imul(1812433253, last ^ (last >>> 30)) + i) | 0;
    this.index = 624;
  }

  // faker calls `next` detached from its object.
  readonly next = (): number => {
    const high = this.u32() >>> 5;
    const low = this.u32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  };

  private u32(): number {
    if (this.index >= 624) this.twist();
    let y = this.state[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    return (y ^ (y >>> 18)) >>> 0;
  }

  private twist(): void {
    const mt = this.state;
    for (let i = 0; i < 624; i++) {
      const y = (mt[i] & 0x80000000) | (mt[i < 623 ? i + 1 : 0] & 0x7fffffff);
      mt[i] = mt[i < 227 ? i + 397 : i - 227] ^ (y >>> 1) ^ (-(y & 1) & 0x9908b0df);
    }
    this.index = 0;
  }
}

// faker's English instance rebuilt around a Mersenne (faker exports its class only from the entry that loads every locale).
let seeded: { faker: Faker; randomizer: Mersenne } | undefined;

/**
 * Runs `fn` with faker seeded from `key`. The one shared instance is safe because `fn` runs
 * synchronously: no other request can reseed it in between.
 */
export function withFaker<T>(key: number, fn: (f: Faker) => T): T {
  if (!seeded) {
    const { faker } = fakerEn.get();
    const FakerClass = faker.constructor as new (options: { locale: LocaleDefinition; randomizer: Randomizer }) => Faker;
    const randomizer = new Mersenne();
    seeded = { faker: new FakerClass({ locale: faker.rawDefinitions, randomizer }), randomizer };
  }
  seeded.randomizer.seed(key % 2147483647);
  return fn(seeded.faker);
}
