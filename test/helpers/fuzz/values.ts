// fast-check arbitraries for the values a request carries: texts (odd unicode, long unbroken runs),
// wrong-typed values, deep nesting, JSON schemas, and the mutations applied to well-formed bodies.
import fc from 'fast-check';

/** Longest generated string (unbroken runs included); FUZZ_MAX_STRING overrides. */
export const MAX_STRING = Number(process.env.FUZZ_MAX_STRING ?? 65_536);

/** Characters that break naive text handling: bidi controls, zero-width, lone surrogates, NUL, BOM, combining marks. */
const ODD = [
  '\u202e',
  '\u202d',
  '\u200f',
  '\u200e',
  '\u2067',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u0000',
  '\u0301',
  '\u0301\u0301\u0301',
  '\ud800',
  '\udfff',
  '\udbff\udfff',
  '\ud83d',
  '\ude00',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'ﷺ',
  '𒐫',
  'é',
  'Ω',
  '\r\n',
  '\t',
  '\\',
  '"',
  '</script>',
  '<|endoftext|>',
  '<|im_start|>',
  'مرحبا',
  'שלום',
  '你好世界',
  'こんにちは',
  '한국어',
  '\u0085',
  '\u2028',
  '\u2029',
  '%00',
  '${x}',
  '{{x}}',
  'constructor',
  '__proto__',
  'toString',
];

/** Pieces repeated into long strings: unbroken runs (the tokenizer's worst case) and ordinary prose. */
const RUNS = ['x', 'ab', 'Zm9vYmFy', 'a1/+', '中', '日本語', '😀', '\u200b', 'https://example.com/a?b=c&', '0', '=', ' '];

const oddText = fc.array(fc.constantFrom(...ODD), { minLength: 1, maxLength: 8 }).map((a) => a.join(''));

/** A long string: one piece repeated (unbroken), or words. Sizes spread up to MAX_STRING. */
export const longText = fc
  .tuple(fc.constantFrom(...RUNS), fc.integer({ min: 1_000, max: Math.max(1_000, MAX_STRING) }), fc.boolean())
  .map(([piece, length, words]) => {
    const unit = words ? `${piece.repeat(5)} ` : piece;
    return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  });

/** Any text a field might hold; mostly short, sometimes odd or long. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom('Hello', 'What is the weather in Oslo?', 'json please', 'Say cheerfully: hi', ''), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: oddText, weight: 2 },
  { arbitrary: longText, weight: 1 },
);

/** A value nested `depth` levels deep in arrays or objects. */
export const deep = fc.tuple(fc.integer({ min: 2, max: 300 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 })).map(([depth, arrays, leaf]) => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** Raw JSON number tokens that JSON.stringify cannot write (placed by `serialize`). */
export class RawToken {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
export const rawNumber = fc
  .constantFrom('1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890', '9007199254740993', '1E2', '0.1e1', '-9.999e307')
  .map((t) => new RawToken(t));

/** A value of any type, to put where another type belongs. */
export const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 1, -1e308, 1e308, Number.MAX_SAFE_INTEGER, 2 ** 31, -(2 ** 31), 0.1, 1e-300),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '0x10', '', ' ', 'null', 'true', '[]', '{}', 'undefined', '-0'),
  rawNumber,
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom([], [null], [[]], {}, { '': '' }, [1, 'a', null], { type: null }),
  fc.jsonValue({ maxDepth: 3 }),
  deep,
  fc.array(fc.constantFrom('x', 1, null, {}), { minLength: 100, maxLength: 3000 }),
);

/** A key that is odd for a JS object. */
export const oddKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'model ', 'MODEL', 'messages\u0000'),
  fc.string({ maxLength: 12 }),
);

/**
 * Schemas whose work multiplies (issue 28): definitions that each refer to the next twice (through
 * $defs or definitions, under allOf, anyOf/oneOf or if/then), the same inline, and patterns whose
 * quantifiers nest. Synthesis must stop them at its ceiling with a 400, never stall.
 */
export const costlySchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({
      levels: fc.integer({ min: 1, max: 24 }),
      via: fc.constantFrom('$defs', 'definitions'),
      how: fc.constantFrom('allOf', 'anyOf', 'if', 'properties'),
    })
    .map(({ levels, via, how }) => {
      const defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
      for (let i = 0; i < levels; i++) {
        const ref = { $ref: `#/${via}/d${i + 1}` };
        defs[`d${i}`] =
          how === 'if'
            ? { if: ref, then: ref }
            : how === 'properties'
              ? { type: 'object', properties: { a: ref, b: ref }, required: ['a', 'b'] }
              : how === 'allOf'
                ? { allOf: [ref, ref] }
                : { allOf: [{ [how]: [ref, ref] }, ref] };
      }
      return { [via]: defs, $ref: `#/${via}/d0` };
    }),
  fc.integer({ min: 1, max: 14 }).map(function inline(levels): Record<string, unknown> {
    return levels === 0 ? { type: 'integer' } : { allOf: [inline(levels - 1), inline(levels - 1)] };
  }),
  fc.array(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 4 }).map((counts) => ({
    type: 'string',
    pattern: `^${counts.reduce((inner, n) => `(${inner}){${n}}`, '[ab]')}$`,
  })),
  fc.record({
    type: fc.constant('array'),
    minItems: fc.integer({ min: 0, max: 200_000 }),
    items: fc.constantFrom({ type: 'string', format: 'email' }, { const: 'x'.repeat(5000) }, { type: 'integer' }),
  }),
);

/** JSON schemas such as tools and response formats carry: realistic, with odd corners. */
export const jsonSchema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constantFrom('string', 'integer', 'number', 'boolean', 'null') }),
    fc.record({ type: fc.constant('string'), format: fc.constantFrom('email', 'date-time', 'uri', 'uuid', 'date') }),
    fc.record({ type: fc.constant('string'), enum: fc.array(text, { minLength: 1, maxLength: 4 }) }),
    fc.record(
      { type: fc.constant('string'), minLength: fc.nat(50), maxLength: fc.integer({ min: 50, max: 100_000_000 }) },
      { requiredKeys: ['type'] },
    ),
    fc.record({
      type: fc.constant('string'),
      pattern: fc.constantFrom('^[a-z]+$', 'a{5}', '(a|b)*c', '[', '\\d{3}-\\d{4}', '(?<x>a)\\k<x>'),
    }),
    fc.record({ type: fc.constant('integer'), minimum: fc.integer(), maximum: fc.integer() }, { requiredKeys: ['type'] }),
    fc.record(
      { type: fc.constant('array'), items: tie('schema'), minItems: fc.nat(5), maxItems: fc.integer({ min: 0, max: 1_000_000 }) },
      { requiredKeys: ['type'] },
    ),
    fc
      .dictionary(fc.constantFrom('city', 'name', 'email', 'count', 'tags', 'when', 'x', 'nested', '__proto__', ''), tie('schema'), {
        maxKeys: 5,
      })
      .chain((properties) =>
        fc.record({
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray(Object.keys(properties)),
          additionalProperties: fc.boolean(),
        }),
      ),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ if: tie('schema'), then: tie('schema'), else: tie('schema') }, { requiredKeys: ['if'] }),
    fc.record({
      type: fc.constant('object'),
      patternProperties: fc.dictionary(fc.constantFrom('^x_', '^[a-z]{2}$', '\\d+', '(a|b)*'), tie('schema'), { maxKeys: 2 }),
      minProperties: fc.nat(4),
    }),
    fc.record(
      {
        type: fc.constant('array'),
        prefixItems: fc.array(tie('schema'), { maxLength: 3 }),
        items: fc.oneof(fc.constant(false), tie('schema')),
        uniqueItems: fc.boolean(),
      },
      { requiredKeys: ['type', 'prefixItems'] },
    ),
    costlySchema,
    fc.record({ $ref: fc.constantFrom('#', '#/definitions/x', '#/$defs/nope', 'http://example.com/s.json') }),
    fc.constant({}),
  ),
})).schema;

export const toolName = fc.constantFrom('get_weather', 'lookupOrder', 'send-email', 'x', 'search_web_pages');
/** A tool's parameters: an object schema (what every vendor requires), now and then any schema. */
export const toolSchema = fc.oneof(
  {
    arbitrary: fc
      .dictionary(fc.constantFrom('city', 'name', 'email', 'count', 'when', 'q'), jsonSchema, { maxKeys: 4 })
      .chain((properties) =>
        fc.record({ type: fc.constant('object'), properties: fc.constant(properties), required: fc.subarray(Object.keys(properties)) }),
      ),
    weight: 6,
  },
  { arbitrary: jsonSchema, weight: 1 },
);

// Mutations of a well-formed body: set a value of the wrong type, drop a field, add an unknown one.
export type Mutation =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'extra'; at: number; key: string; value: unknown }
  | { kind: 'empty-array'; at: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: weird }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('extra' as const), at: fc.nat(), key: oddKey, value: weird }),
  fc.record({ kind: fc.constant('empty-array' as const), at: fc.nat() }),
);

type Container = Record<string, unknown> | unknown[];

/** Every (container, key) slot in a JSON value, depth-first, bounded. */
function slots(root: unknown): [Container, string | number][] {
  const out: [Container, string | number][] = [];
  const walk = (node: unknown, depth: number) => {
    if (out.length > 500 || depth > 12 || node === null || typeof node !== 'object' || node instanceof RawToken) return;
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      out.push([node as Container, k]);
      walk(v, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

function containers(root: unknown): Container[] {
  const all: Container[] = [root as Container];
  for (const [c, k] of slots(root)) {
    const v = (c as Record<string, unknown>)[k as string];
    if (v !== null && typeof v === 'object' && !(v instanceof RawToken)) all.push(v as Container);
  }
  return all;
}

/** A deep copy that keeps RawTokens (structuredClone would make them plain objects). */
function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof RawToken) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, { value: clone(v), enumerable: true, writable: true, configurable: true });
  return out as T;
}

/** Applies mutations to a deep copy of `body` (each inserted value a fresh copy, so no cycles). */
export function mutate(body: Record<string, unknown>, mutations: readonly Mutation[]): Record<string, unknown> {
  const copy = clone(body);
  for (const m of mutations) {
    if (m.kind === 'extra') {
      const objects = containers(copy).filter((c) => c !== null && typeof c === 'object' && !Array.isArray(c)) as Record<string, unknown>[];
      if (!objects.length) continue;
      // defineProperty: a key "__proto__" becomes an own field, as JSON.parse makes it.
      Object.defineProperty(objects[m.at % objects.length], m.key, {
        value: clone(m.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const all = slots(copy);
    if (!all.length) continue;
    const [container, key] = all[m.at % all.length];
    if (m.kind === 'delete') {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
    } else if (m.kind === 'empty-array') {
      (container as Record<string, unknown>)[key as string] = [];
    } else {
      (container as Record<string, unknown>)[key as string] = clone(m.value);
    }
  }
  return copy;
}

/** JSON text of a body, with RawTokens written verbatim. */
export function serialize(body: unknown): string {
  const raws: string[] = [];
  const json = JSON.stringify(body, (_k, v) => {
    if (v instanceof RawToken) {
      raws.push(v.text);
      return `@@RAW${raws.length - 1}@@`;
    }
    return v;
  });
  return raws.length ? json.replace(/"@@RAW(\d+)@@"/g, (_m, i) => raws[Number(i)]) : json;
}
