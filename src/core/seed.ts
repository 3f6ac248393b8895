// Stable hashing and the seeded generators every other module draws from.
// Nothing here may touch Math.random or the wall clock: a reply is a pure function
// of (request, seed, fixtures, clock).
import type { Faker } from '@faker-js/faker';
import { lazyModule } from './lazy.ts';

// faker with its English locale only (~50 ms to load), on first use.
const fakerEn = lazyModule<typeof import('@faker-js/faker/locale/en')>('@faker-js/faker/locale/en', import.meta.url, () => import('@faker-js/faker/locale/en'));

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
 * The hash of the parts' concatenation, without building it: joining a short prefix to a long body
 * and reading it char by char makes V8 copy the whole body first.
 */
export function hashStrings(parts: readonly string[], seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (const text of parts) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
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

/** A small seeded PRNG (sfc32) for numbers, choices and ids. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: number) {
    this.a = key >>> 0;
    this.b = Math.floor(key / 4294967296) >>> 0;
    this.c = 0x9e3779b9;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    this.a >>>= 0; this.b >>>= 0; this.c >>>= 0; this.d >>>= 0;
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
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
}

/** An id in a vendor's style, e.g. makeId('chatcmpl-', 29, key). */
export function makeId(prefix: string, length: number, key: number): string {
  return prefix + new Rng(deriveKey(key, 'id')).alnum(length);
}

/**
 * Runs `fn` with faker seeded from `key`. The one shared instance is safe because `fn` runs
 * synchronously: no other request can reseed it in between.
 */
export function withFaker<T>(key: number, fn: (f: Faker) => T): T {
  const { faker } = fakerEn.get();
  faker.seed(key % 2147483647);
  return fn(faker);
}
