// The Node tokenizer (typed-array tables read from gpt-tokenizer's rank file) must give exactly what the
// package's own o200k_base module gives: the same tables rank by rank, and the same ids, pieces and
// decoded text on varied input.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import bpeRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { decodeGenerator, encode, vocabularySize } from 'gpt-tokenizer/encoding/o200k_base';
import { readFileSync } from 'node:fs';
import { asciiPattern, O200k, packTables, parsePackageData, tablesOf, tablesOfPacked } from '../src/core/o200k.ts';
import { O200KBase } from 'gpt-tokenizer/encodingParams/o200k_base';

const PLAIN = { disallowedSpecial: new Set<string>() };
const ours = new O200k();

describe('o200k tables', () => {
  it('as built hold every rank of the package, each as the same text or the same bytes', () => {
    // The table the build wrote (the test run's global setup builds it), as the gateway reads it.
    const built = tablesOf(readFileSync(new URL('../dist/src/core/o200k_base.bin', import.meta.url)));
    expect(built).toBeDefined();
    const { bytes, offsets, isText, slots } = built!;
    const ranks = bpeRanks as (string | number[])[];
    expect(isText.length).toBe(ranks.length);
    const enc = new TextEncoder();
    const differ: number[] = [];
    ranks.forEach((value, r) => {
      const mine = bytes.subarray(offsets[r], offsets[r + 1]);
      const theirs = typeof value === 'string' ? enc.encode(value) : Uint8Array.from(value);
      if (isText[r] !== (typeof value === 'string' ? 1 : 0) || mine.length !== theirs.length || mine.some((b, i) => b !== theirs[i]))
        differ.push(r);
    });
    expect(differ).toEqual([]);
    expect(ours.vocabularySize).toBe(vocabularySize);
    // Parsed from the package's rank file at run time (no build), the tables are the same.
    const parsed = parsePackageData();
    for (const [a, b] of [
      [parsed.bytes, bytes],
      [parsed.offsets, offsets],
      [parsed.isText, isText],
      [parsed.slots, slots],
    ] as const)
      expect(Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(0);
  });

  it('packed for the browser, as built, are the same tables with the same parameters', async () => {
    const built = tablesOf(readFileSync(new URL('../dist/src/core/o200k_base.bin', import.meta.url)))!;
    // The module the browser entry imports, from dist/ and from src/ (where the browser tests run the sources).
    for (const dir of ['../dist/src/core/', '../src/core/']) {
      const { default: packed } = await import(/* @vite-ignore */ new URL(`${dir}o200k_base.packed.js`, import.meta.url).href);
      const unpacked = tablesOfPacked(packed);
      for (const key of ['bytes', 'offsets', 'isText', 'slots'] as const) {
        const [a, b] = [unpacked[key], built[key]];
        expect(
          Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
          `${dir} ${key}`,
        ).toBe(0);
      }
      expect(unpacked.params).toEqual(built.params);
    }
  });

  it('refuses a packed table of another form, saying to rebuild', () => {
    expect(() => tablesOfPacked(Buffer.from(packTables(parsePackageData())).subarray(4).toString('base64'))).toThrow(/rebuild the package/);
  });
});

// Text that exercises the odd corners: byte-order marks, lone surrogates, emoji, CJK, combining marks,
// contractions, digits, long runs, and the special tokens' text.
const odd = [
  '\uFEFF',
  '\uFEFFusing',
  '\uD800',
  '\uDC00x',
  '😀',
  '👩‍👩‍👧',
  '東京',
  'é',
  'e\u0301',
  "'ll",
  "I'VE",
  '123456',
  '<|endoftext|>',
  '\r\n',
  '  \n\t',
  'Ѐ',
  'ﬁ',
  '\u0000',
  '\u200B',
  'ǅ',
];
const chunk = fc.oneof(
  fc.constantFrom(...odd),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ maxLength: 20 }),
);
const texts = fc.array(chunk, { maxLength: 24 }).map((parts) => parts.join(''));

describe('o200k encoding', () => {
  it('gives the package ids and pieces for generated text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const ids = ours.encode(text);
        expect(ids).toEqual(encode(text, PLAIN));
        expect([...ours.decodeGenerator(ids)]).toEqual([...decodeGenerator(ids)]);
      }),
      { numRuns: 3000, seed: 26 },
    );
  });

  it('splits text that is all ASCII with the ASCII pattern exactly as the full pattern does', () => {
    const full = O200KBase([]).tokenSplitRegex;
    const ascii = asciiPattern(full.source, full.flags);
    expect(ascii.flags).not.toContain('u');
    const pieces = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => `${m.index}:${m[0]}`);
    const every = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join('');
    for (const text of [every, `${every} x${every}Ab'LL`, "I'M 12345 a\r\n\n  b\t!?/\n"])
      expect(pieces(text, ascii)).toEqual(pieces(text, full));
    const asciiText = fc
      .array(
        fc.oneof(
          fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
          fc.constantFrom("'s", "'Ve", ' 1234', '\r\n', '   ', 'ABCdef'),
        ),
        { maxLength: 16 },
      )
      .map((p) => p.join(''));
    fc.assert(
      fc.property(asciiText, (text) => {
        expect(pieces(text, ascii)).toEqual(pieces(text, full));
        expect(ours.encode(text)).toEqual(encode(text, PLAIN));
      }),
      { numRuns: 3000, seed: 26 },
    );
  });

  it('gives the package ids for prose, code and long runs', () => {
    const samples = [
      'The quick brown fox jumps over the lazy dog. '.repeat(40),
      'function f(x) { return x.map((y) => y * 2).filter(Boolean); }\n'.repeat(20),
      `${'a'.repeat(300)} ${'9'.repeat(50)} ${'—'.repeat(70)}`,
      'Ünïcödé façade naïve coöperate 日本語のテキスト 한국어 текст عربى हिन्दी 🚀🚀🚀',
      '\uFEFF\uFEFF\uFEFFnamespace x;\n\uFEFF// c\n\uFEFF#',
    ];
    for (const text of samples) expect(ours.encode(text)).toEqual(encode(text, PLAIN));
  });

  it('decodes any ids the same whatever was decoded before, as the package does on a fresh decoder', () => {
    // The package shares one streaming decoder that is never flushed: an unfinished character from one
    // call reaches the next. Ours decodes each call on its own (ids come from clients' prompts, and the
    // same request must give the same bytes), so the reference is the tokens' bytes decoded at once.
    const ids = fc.array(
      fc.oneof(fc.integer({ min: 0, max: 200005 }), fc.integer({ min: 100, max: 1200 }), fc.constantFrom(5574, 9251, 199999, 200004)),
      { maxLength: 12 },
    );
    const reference = (list: number[]) => {
      const parts = list.map((id) => ours['token'](id) as string | Uint8Array | undefined);
      if (parts.some((p) => p === undefined)) return new Error(`Token ${list[parts.indexOf(undefined)]} is not in the byte pair encoder.`);
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      let out = '';
      for (const p of parts) out += typeof p === 'string' ? decoder.decode() + p : decoder.decode(p, { stream: true });
      return out + decoder.decode();
    };
    fc.assert(
      fc.property(ids, ids, (before, list) => {
        const theirs = reference(list);
        try {
          ours.decode(before);
        } catch {
          // an unknown id before changes nothing either
        }
        if (theirs instanceof Error) expect(() => ours.decode(list)).toThrow(theirs.message);
        else expect(ours.decode(list)).toBe(theirs);
      }),
      { numRuns: 2000, seed: 26 },
    );
    // An unfinished character (the first byte of "€") does not reach the next call.
    const byteToken = (b: number) =>
      [...Array(2000).keys()].find((id) => {
        const t = ours['token'](id) as unknown;
        return t instanceof Uint8Array && t.length === 1 && t[0] === b;
      })!;
    const [lead, mid, last] = [0xe2, 0x82, 0xac].map(byteToken);
    expect(ours.decode([lead, mid, last])).toBe('€');
    expect(ours.decode([lead])).toBe('\uFFFD');
    expect(ours.decode([mid, last])).toBe('\uFFFD\uFFFD');
  });
});
