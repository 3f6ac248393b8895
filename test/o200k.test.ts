// The Node tokenizer (typed-array tables read from gpt-tokenizer's rank file) must give exactly what the
// package's own o200k_base module gives: the same tables rank by rank, and the same ids, pieces and
// decoded text on varied input.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import bpeRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { decode, decodeGenerator, encode, vocabularySize } from 'gpt-tokenizer/encoding/o200k_base';
import { readFileSync } from 'node:fs';
import { O200k, parsePackageData, tablesOf } from '../src/core/o200k.ts';

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
      if (isText[r] !== (typeof value === 'string' ? 1 : 0) || mine.length !== theirs.length || mine.some((b, i) => b !== theirs[i])) differ.push(r);
    });
    expect(differ).toEqual([]);
    expect(ours.vocabularySize).toBe(vocabularySize);
    // Parsed from the package's rank file at run time (no build), the tables are the same.
    const parsed = parsePackageData();
    for (const [a, b] of [[parsed.bytes, bytes], [parsed.offsets, offsets], [parsed.isText, isText], [parsed.slots, slots]] as const) expect(Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(0);
  });
});

// Text that exercises the odd corners: byte-order marks, lone surrogates, emoji, CJK, combining marks,
// contractions, digits, long runs, and the special tokens' text.
const odd = ['\uFEFF', '\uFEFFusing', '\uD800', '\uDC00x', '😀', '👩‍👩‍👧', '東京', 'é', 'e\u0301', "'ll", "I'VE", '123456', '<|endoftext|>', '\r\n', '  \n\t', 'Ѐ', 'ﬁ', '\u0000', '\u200B', 'ǅ'];
const chunk = fc.oneof(fc.constantFrom(...odd), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ maxLength: 20 }));
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

  it('decodes any ids as the package does, one call after another', () => {
    // The package's decoder keeps an unfinished character from one call into the next; so does ours.
    const ids = fc.array(fc.oneof(fc.integer({ min: 0, max: 200005 }), fc.integer({ min: 100, max: 1200 }), fc.constantFrom(5574, 9251, 199999, 200004)), { maxLength: 12 });
    fc.assert(
      fc.property(ids, (list) => {
        let theirs: string | Error;
        try {
          theirs = decode(list);
        } catch (error) {
          theirs = error as Error;
        }
        if (theirs instanceof Error) expect(() => ours.decode(list)).toThrow(theirs.message);
        else expect(ours.decode(list)).toBe(theirs);
      }),
      { numRuns: 2000, seed: 26 },
    );
  });
});
