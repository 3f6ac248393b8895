// JSON values that validate against a client's JSON Schema, drawn deterministically from a key.
// Our own walker rather than a library: a client decides the schema's shape, and only a walker that
// counts its own work (every subschema visited, $ref followed, element and character produced) can
// stop any shape at a fixed ceiling (see budget.ts). Strings are hinted by faker from their property
// names, so that `email`, `city` or `name` look like what they say.
import type { Faker } from '@faker-js/faker';
import { GatewayError } from '../errors.ts';
import { Rng, stableStringify, withFaker } from '../seed.ts';
import { Budget, MAX_SCHEMA_CHARS } from './budget.ts';
import { parsePattern, stringForPattern } from './pattern.ts';
import type { PromptValues } from './prompt-values.ts';

export { Budget } from './budget.ts';

type Schema = Record<string, unknown>;

// Property name → faker method, for strings without a format or pattern. First match wins.
const HINTS: [RegExp, (f: Faker) => string][] = [
  [/first_?name/i, (f) => f.person.firstName()],
  [/last_?name|surname/i, (f) => f.person.lastName()],
  [/user_?name|handle|login/i, (f) => f.internet.username()],
  [/e_?mail/i, (f) => f.internet.email()],
  [/phone|mobile/i, (f) => f.phone.number()],
  [/^(name|full_?name|author|person|customer|owner|contact)$/i, (f) => f.person.fullName()],
  [/city|town|location|place|destination|origin/i, (f) => f.location.city()],
  [/country/i, (f) => f.location.country()],
  [/state|province|region/i, (f) => f.location.state()],
  [/street|address/i, (f) => f.location.streetAddress()],
  [/zip|postal/i, (f) => f.location.zipCode()],
  [/company|organi[sz]ation|employer|brand/i, (f) => f.company.name()],
  [/url|website|link|href/i, (f) => f.internet.url()],
  [/colou?r/i, (f) => f.color.human()],
  [/currency/i, (f) => f.finance.currencyCode()],
  [/(^|_)id$|uuid/i, (f) => f.string.uuid()],
  [
    /title|subject|headline|summary|description|text|content|message|comment|reason|answer|note|bio|query|question/i,
    (f) => f.hacker.phrase(),
  ],
];

/** Keywords resolve() applies (or, for $defs and not, leaves out) rather than copies. */
const APPLICATORS = new Set(['$ref', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', '$defs', 'definitions', 'not']);
/** Strings no hint names: a few English words. */
const WORDS: [RegExp, (f: Faker) => string] = [/(?:)/, (f) => f.word.words()];
// Keywords that imply a type when `type` is left out.
const OBJECT_KEYWORDS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'contains', 'uniqueItems', 'additionalItems'];
const STRING_KEYWORDS = ['pattern', 'format', 'minLength', 'maxLength'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'];
const SIZE_KEYWORDS = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'];
/** Beyond this nesting, optional parts are left out and combinators take their simplest branch, so recursive schemas end. */
const SHALLOW = 6;
/** How many more elements (or characters, or integers) than the minimum a value draws at most. */
const SPREAD = 3;
/** Draws tried for a value that must differ from the others (uniqueItems) or fit a length. */
const TRIES = 8;

/** The most a schema's minimum value may weigh (about characters), estimated before any work: a fast refusal for plainly huge minimums. */
const BUDGET = MAX_SCHEMA_CHARS;

/** A rough lower bound of the size of the smallest value `node` allows, as its minimums multiply out. */
function minimumSize(node: unknown, depth = 0): number {
  if (node === null || typeof node !== 'object' || depth > 32) return 1;
  const s = node as Schema;
  const at = (k: string) => (typeof s[k] === 'number' ? Math.max(0, s[k] as number) : 0);
  let size = Math.max(1, at('minLength'));
  if (s.items) size = Math.max(size, Math.max(1, at('minItems')) * minimumSize(s.items, depth + 1));
  else size = Math.max(size, at('minItems'));
  if (s.properties && typeof s.properties === 'object') {
    for (const sub of Object.values(s.properties as Schema)) size += minimumSize(sub, depth + 1);
  }
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) size = Math.max(size, minimumSize(sub, depth + 1));
  return Math.min(size + at('minProperties'), Number.MAX_SAFE_INTEGER);
}

/** A value quoted in an error message, cut short: the client sent it, and it may be megabytes. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

const isObject = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Sets a key as an own property (a `__proto__` key stays data). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

// allOf nodes made by merging: merging into one again extends it (in place: the schema it sat in is
// discarded by the merge), so many parts merged stay one flat allOf instead of nesting one level each.
const joins = new WeakSet<object>();

function both(a: unknown, b: unknown): Schema {
  if (joins.has(a as object)) {
    ((a as Schema).allOf as unknown[]).push(b);
    return a as Schema;
  }
  const node = { allOf: [a, b] };
  joins.add(node);
  return node;
}

/**
 * Both schemas' constraints in one (what allOf, $ref siblings and a chosen branch mean together). Each
 * key copied counts as a node: copying costs about as much (bench/schema-budget.ts), and a schema with
 * thousands of keywords may be merged again and again.
 */
function merge(a: Schema, b: Schema, budget: Budget): Schema {
  const out: Schema = { ...a };
  let keys = 0;
  for (const _k in out) keys++;
  for (const _k in b) keys++;
  budget.visit(keys);
  for (const k in b) {
    const v = b[k];
    const mine = Object.hasOwn(out, k) ? out[k] : undefined;
    if (mine === undefined) {
      put(out, k, v);
      continue;
    }
    switch (k) {
      case 'type': {
        const x: unknown[] = [mine].flat();
        const both = [v].flat().filter((t) => x.includes(t));
        if (both.length) out.type = both.length === 1 ? both[0] : both;
        break;
      }
      case 'properties':
      case 'patternProperties':
        if (isObject(mine) && isObject(v)) {
          budget.visit(Object.keys(mine).length + Object.keys(v).length);
          const joined: Schema = { ...mine };
          for (const [p, sub] of Object.entries(v)) put(joined, p, joined[p] === undefined ? sub : both(joined[p], sub));
          out[k] = joined;
        }
        break;
      case 'required':
        if (Array.isArray(mine) && Array.isArray(v)) {
          budget.visit(mine.length + v.length);
          out.required = [...new Set([...mine, ...v])];
        }
        break;
      case 'items':
      case 'additionalProperties':
      case 'additionalItems':
      case 'contains':
      case 'propertyNames':
        out[k] = mine === false || v === false ? false : both(mine, v);
        break;
      case 'prefixItems':
        if (Array.isArray(mine) && Array.isArray(v)) {
          budget.visit(mine.length + v.length);
          out.prefixItems = Array.from({ length: Math.max(mine.length, v.length) }, (_, i) =>
            i < mine.length && i < v.length ? both(mine[i], v[i]) : i < mine.length ? mine[i] : v[i],
          );
        }
        break;
      case 'minimum':
      case 'minLength':
      case 'minItems':
      case 'minProperties':
      case 'exclusiveMinimum':
        if (typeof mine === 'number' && typeof v === 'number') out[k] = Math.max(mine, v);
        break;
      case 'maximum':
      case 'maxLength':
      case 'maxItems':
      case 'maxProperties':
      case 'exclusiveMaximum':
        if (typeof mine === 'number' && typeof v === 'number') out[k] = Math.min(mine, v);
        break;
      case 'enum':
        if (Array.isArray(mine) && Array.isArray(v)) {
          // Values may be big objects: count each by its size.
          const text = (e: unknown) => {
            const t = stableStringify(e);
            budget.visit(1 + t.length);
            return t;
          };
          const keep = new Set(v.map(text));
          const both = mine.filter((e) => keep.has(text(e)));
          if (both.length) out.enum = both;
        }
        break;
      default:
        // A second pattern, format or const cannot be merged: the first one stands.
        break;
    }
  }
  return out;
}

class Generator {
  private readonly rng: Rng;
  private readonly root: unknown;
  private readonly faker: Faker;
  private readonly budget: Budget;
  /** $ref → its target, so a reference used many times is decoded once (each use is still counted). */
  private readonly targets = new Map<string, unknown>();
  /** Pattern → parsed. */
  private readonly patterns = new Map<string, ReturnType<typeof parsePattern>>();
  /** Property name → its faker hint. */
  private readonly hints = new Map<string, [RegExp, (f: Faker) => string]>();

  /** What the conversation gives for the properties (tool arguments), if anything. */
  private readonly prompt?: PromptValues;

  constructor(root: unknown, key: number, faker: Faker, budget: Budget, prompt?: PromptValues) {
    this.prompt = prompt && !prompt.empty ? prompt : undefined;
    this.root = root;
    this.rng = new Rng(key);
    this.faker = faker;
    this.budget = budget;
  }

  private refuse(why: string): GatewayError {
    return new GatewayError('invalid_request', `model-gateway-mock could not produce a value for ${this.budget.what}: ${why}`);
  }

  /** The subschema a local `$ref` points at (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into the schema). */
  private lookup(ref: string): unknown {
    const known = this.targets.get(ref);
    if (known !== undefined) return known;
    const target = this.pointer(ref);
    this.targets.set(ref, target);
    return target;
  }

  private pointer(ref: string): unknown {
    if (ref === '#' || ref === '') return this.root;
    if (!ref.startsWith('#/'))
      throw this.refuse(
        `the $ref ${shown(ref)} is not a local reference (#/$defs/…, #/definitions/…); only references into the schema itself are followed.`,
      );
    let at: unknown = this.root;
    for (const raw of ref.slice(2).split('/')) {
      this.budget.visit();
      let part: string;
      try {
        part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      } catch {
        part = raw;
      }
      if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part))
        throw this.refuse(`the $ref ${shown(ref)} points at nothing in the schema.`);
      at = (at as Schema)[part];
    }
    return at;
  }

  /**
   * `node` with its $ref followed and its combinators applied: one plain schema (or false when nothing
   * validates). `chain` counts the $refs and combinators followed to get here.
   */
  private resolve(node: unknown, level: number, chain: number): Schema | false {
    this.budget.visit();
    this.budget.nest(chain, '$refs and combinators');
    if (node === false) return false;
    if (!isObject(node)) return {};
    for (const k of SIZE_KEYWORDS) {
      const v = node[k];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) {
        throw this.refuse(`"${k}" must be a non-negative integer, got ${shown(v)}.`);
      }
    }
    const { $ref, allOf, anyOf, oneOf, if: test, then, else: otherwise } = node;
    // Most subschemas apply nothing: taken as they are, uncopied.
    if (
      $ref === undefined &&
      allOf === undefined &&
      anyOf === undefined &&
      oneOf === undefined &&
      then === undefined &&
      otherwise === undefined
    )
      return node;
    const own: Schema = {};
    let keys = 0;
    for (const k in node) {
      keys++;
      if (!APPLICATORS.has(k)) put(own, k, node[k]);
    }
    this.budget.visit(keys);
    let out: Schema | false = own;
    const add = (sub: unknown) => {
      if (out === false) return;
      const resolved = this.resolve(sub, level, chain + 1);
      out = resolved === false ? false : merge(out, resolved, this.budget);
    };
    if (typeof $ref === 'string') add(this.lookup($ref));
    if (Array.isArray(allOf)) for (const part of allOf) add(part);
    for (const choices of [anyOf, oneOf]) {
      if (Array.isArray(choices) && choices.length) add(this.branch(choices, level));
    }
    // Make the condition hold and apply `then`; without `then`, `else` keeps the value valid either way.
    if (then !== undefined && test !== undefined) {
      add(test);
      add(then);
    } else if (otherwise !== undefined) add(otherwise);
    return out;
  }

  /** One branch of anyOf/oneOf: any, or past the shallow depth the first that does not recurse. */
  private branch(choices: unknown[], level: number): unknown {
    if (level < SHALLOW) return this.rng.pick(choices);
    const leaf = choices.find(
      (c) =>
        isObject(c) &&
        c.$ref === undefined &&
        c.properties === undefined &&
        c.items === undefined &&
        c.allOf === undefined &&
        c.anyOf === undefined &&
        c.oneOf === undefined,
    );
    return leaf ?? choices.find((c) => isObject(c) && c.$ref === undefined) ?? choices[0];
  }

  /** A value valid against `node`; `name` is the property it is for (faker hints). */
  value(node: unknown, level: number, name: string): unknown {
    this.budget.nest(level, 'nesting');
    const s = this.resolve(node, level, 0);
    if (s === false)
      throw this.refuse(
        `no value validates against ${name ? `the schema of "${name}"` : 'the schema'} (false, or contradictory combinators).`,
      );
    if (s.const !== undefined) return this.verbatim(s.const);
    if (Array.isArray(s.enum) && s.enum.length) return this.verbatim(this.given(name, s, 'enum') ?? this.rng.pick(s.enum));
    const type = this.typeOf(s, level);
    const given = type === 'integer' || type === 'number' || type === 'string' ? this.given(name, s, type) : undefined;
    if (given !== undefined) return this.verbatim(given);
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return this.rng.next() < 0.5;
      case 'integer':
        return this.number(s, true);
      case 'number':
        return this.number(s, false);
      case 'array':
        return this.array(s, level, name);
      case 'object':
        return this.object(s, level, name);
      default:
        return this.string(s, name);
    }
  }

  /** The value the conversation gives property `name`, if any (see prompt-values.ts). */
  private given(name: string, s: Schema, type: string): unknown {
    if (!this.prompt || !name) return undefined;
    this.budget.visit();
    return this.prompt.take(name, s, type);
  }

  /** A value the schema gives (const, enum), or the conversation: counted by its size, since it may be repeated many times. */
  private verbatim(value: unknown): unknown {
    this.budget.produce(
      typeof value === 'string' ? value.length : value !== null && typeof value === 'object' ? JSON.stringify(value).length : 1,
    );
    return value;
  }

  private typeOf(s: Schema, level: number): string {
    const given = s.type;
    const known = (t: unknown): string => {
      if (typeof t !== 'string' || !TYPES.includes(t)) throw this.refuse(`"type" ${shown(t)} is not one of ${TYPES.join(', ')}.`);
      return t;
    };
    if (given !== undefined && !Array.isArray(given)) return known(given);
    const types = (given ?? []) as unknown[] as string[];
    this.budget.visit(types.length);
    types.forEach(known);
    if (types.length === 1) return types[0];
    if (types.length > 1) {
      // Nullable: mostly the value; past the shallow depth, null ends a recursion.
      const real = types.filter((t) => t !== 'null');
      if (real.length < types.length && (level >= SHALLOW || this.rng.next() < 0.2)) return 'null';
      return this.rng.pick(real);
    }
    const has = (keys: string[]) => keys.some((k) => s[k] !== undefined);
    if (has(OBJECT_KEYWORDS)) return 'object';
    if (has(ARRAY_KEYWORDS)) return 'array';
    if (has(STRING_KEYWORDS)) return 'string';
    if (has(NUMBER_KEYWORDS)) return 'number';
    return this.rng.pick(['string', 'integer', 'number', 'boolean']);
  }

  private number(s: Schema, integer: boolean): number {
    // Draft 4 wrote exclusive bounds as booleans beside minimum/maximum.
    let lo = num(s.minimum);
    let hi = num(s.maximum);
    let loOpen = s.exclusiveMinimum === true;
    let hiOpen = s.exclusiveMaximum === true;
    const exMin = num(s.exclusiveMinimum);
    const exMax = num(s.exclusiveMaximum);
    if (exMin !== undefined && (lo === undefined || exMin >= lo)) [lo, loOpen] = [exMin, true];
    if (exMax !== undefined && (hi === undefined || exMax <= hi)) [hi, hiOpen] = [exMax, true];
    if (integer && s.format === 'int32') [lo, hi] = [Math.max(lo ?? -(2 ** 31), -(2 ** 31)), Math.min(hi ?? 2 ** 31 - 1, 2 ** 31 - 1)];
    if (lo === undefined && hi === undefined) [lo, hi] = [0, 100];
    lo ??= hi! - 100;
    hi ??= lo + 100;
    const step = num(s.multipleOf);
    if (step !== undefined && step > 0) {
      const unit = integer && !Number.isInteger(step) ? step * 10 ** decimals(step) : step;
      let k = Math.ceil(lo / unit);
      if (loOpen && k * unit <= lo) k++;
      let top = Math.floor(hi / unit);
      if (hiOpen && top * unit >= hi) top--;
      const places = decimals(unit);
      const start = k + this.rng.int(0, Math.max(0, Math.min(top - k, 100)));
      // Try multiples until one divides exactly in floating point (0.3 / 0.1 does not).
      for (let i = 0; i < TRIES; i++) {
        this.budget.visit();
        const v = Number(((start + i) * unit).toFixed(Math.min(places, 100)));
        if (Number.isInteger(v / step) || Number.isInteger(v / unit)) return v;
      }
      return Number((start * unit).toFixed(Math.min(places, 100)));
    }
    if (integer) {
      let a = Math.ceil(lo);
      let b = Math.floor(hi);
      if (loOpen && a <= lo) a++;
      if (hiOpen && b >= hi) b--;
      if (a > b) return a;
      return a + Math.floor(this.rng.next() * Math.min(b - a + 1, Number.MAX_SAFE_INTEGER));
    }
    // Two decimals where the range allows it.
    let a = Math.ceil(lo * 100);
    let b = Math.floor(hi * 100);
    if (loOpen && a / 100 <= lo) a++;
    if (hiOpen && b / 100 >= hi) b--;
    if (a <= b && Number.isSafeInteger(a) && Number.isSafeInteger(b)) return (a + Math.floor(this.rng.next() * (b - a + 1))) / 100;
    const mid = lo + (hi - lo) * (0.25 + this.rng.next() / 2);
    return Number.isFinite(mid) ? mid : lo;
  }

  private string(s: Schema, name: string): string {
    const min = num(s.minLength) ?? 0;
    const max = num(s.maxLength) ?? Infinity;
    const fits = (text: string) => text.length >= min && [...text].length <= max;
    let text: string | undefined;
    if (typeof s.format === 'string') text = this.formatted(s.format);
    if (text === undefined && typeof s.pattern === 'string') {
      const parsed = this.pattern(s.pattern);
      for (let i = 0; i < TRIES && (text === undefined || !fits(text)); i++) text = stringForPattern(parsed, this.rng, this.budget);
      return text!;
    }
    if (text === undefined) {
      let hint = this.hints.get(name);
      if (!hint) this.hints.set(name, (hint = HINTS.find(([pattern]) => pattern.test(name)) ?? WORDS));
      const [kind, make] = hint;
      text = this.budget.draw(
        kind.source,
        () => make(this.faker),
        (items) => this.rng.pick(items),
      );
    }
    this.budget.produce(text.length);
    if (text.length < min) {
      this.budget.produce(min - text.length);
      const filler = text.length ? `${text} ` : 'x';
      text = filler.repeat(Math.ceil(min / filler.length) + 1);
      text = text.slice(0, min + this.rng.int(0, Math.min(SPREAD, Math.max(0, Math.min(max, text.length) - min))));
    }
    if (max !== Infinity && [...text].length > max) text = [...text].slice(0, max).join('');
    // A cut may leave a trailing space; harmless, but keep replies tidy when the bound allows.
    if (text.endsWith(' ') && text.length > min) text = text.trimEnd().padEnd(min, 'x');
    return text;
  }

  /** `source` parsed, once per value (compiling and parsing cost its length, counted). */
  private pattern(source: string): ReturnType<typeof parsePattern> {
    const known = this.patterns.get(source);
    if (known) return known;
    this.budget.visit(source.length);
    let parsed;
    try {
      // A pattern JavaScript itself rejects (with or without the u flag) cannot validate anything.
      try {
        new RegExp(source, 'u');
      } catch {
        new RegExp(source);
      }
      parsed = parsePattern(source, this.budget);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw this.refuse(`the pattern ${shown(source)} is not a valid regular expression (${(error as Error).message.slice(0, 200)}).`);
    }
    this.patterns.set(source, parsed);
    return parsed;
  }

  /** A string in `format`, or undefined for formats we do not know (then a plain string). */
  private formatted(format: string): string | undefined {
    const r = this.rng;
    const drawn = (make: (f: Faker) => string) =>
      this.budget.draw(
        format,
        () => make(this.faker),
        (items) => r.pick(items),
      );
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    // A fixed window of time, drawn from the key: never the clock.
    const instant = () =>
      new Date(Date.UTC(2020, 0, 1) + Math.floor(r.next() * 10 * 365.25 * 86_400) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    switch (format) {
      case 'date-time':
        return instant();
      case 'date':
        return instant().slice(0, 10);
      case 'time':
        return `${instant().slice(11, 19)}Z`;
      case 'duration':
        return `P${r.int(1, 30)}DT${r.int(1, 23)}H`;
      case 'email':
      case 'idn-email':
        return drawn((f) => f.internet.email().replace(/[^A-Za-z0-9@._-]/g, ''));
      case 'uri':
      case 'url':
      case 'iri':
      case 'uri-reference':
      case 'iri-reference':
        return drawn(
          (f) =>
            `https://${f.internet.domainName()}/${
              f.word
                .noun()
                .toLowerCase()
                .replace(/[^a-z]/g, '') || 'page'
            }`,
        );
      case 'uri-template':
        return drawn((f) => `https://${f.internet.domainName()}/{id}`);
      case 'uuid':
        return drawn((f) => f.string.uuid());
      case 'ipv4':
        return Array.from({ length: 4 }, () => r.int(1, 254)).join('.');
      case 'ipv6':
        return Array.from({ length: 8 }, () => r.int(0, 0xffff).toString(16)).join(':');
      case 'hostname':
      case 'idn-hostname':
        return drawn((f) => f.internet.domainName());
      case 'json-pointer':
        return `/${this.faker.word.noun().replace(/[~/]/g, '')}`;
      case 'relative-json-pointer':
        return `${r.int(0, 3)}/${this.faker.word.noun().replace(/[~/]/g, '')}`;
      case 'regex':
        return '^[a-z]+$';
      case 'byte':
        return btoa(r.alnum(r.int(3, 12)));
      case 'date-fullyear':
        return pad(r.int(1990, 2030), 4);
      default:
        return undefined;
    }
  }

  private array(s: Schema, level: number, name: string): unknown[] {
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
    const rest = Array.isArray(s.items) ? s.additionalItems : s.prefixItems !== undefined && s.items === undefined ? undefined : s.items;
    const min = num(s.minItems) ?? 0;
    let max = num(s.maxItems) ?? Infinity;
    if (rest === false) max = Math.min(max, prefix.length);
    // At least one element where allowed (an empty list says little), up to SPREAD more than that.
    let count = level >= SHALLOW ? min : Math.max(min, 1) + this.rng.int(0, SPREAD - 1);
    if (level < SHALLOW) count = Math.max(count, prefix.length);
    if (s.contains !== undefined) count = Math.max(count, 1);
    count = Math.max(min, Math.min(count, max));
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      let item = i < prefix.length ? prefix[i] : rest;
      if (i === 0 && s.contains !== undefined) item = { allOf: [item ?? {}, s.contains] };
      let value = this.value(item, level + 1, name);
      if (s.uniqueItems === true) {
        // Draw again (counted) until the element differs; a schema with too few values keeps the last draw.
        for (let t = 0; t < TRIES && seen.has(stableStringify(value)); t++) value = this.value(item, level + 1, name);
        seen.add(stableStringify(value));
      }
      out.push(value);
    }
    return out;
  }

  private object(s: Schema, level: number, name: string): Record<string, unknown> {
    const properties = isObject(s.properties) ? s.properties : {};
    const listed = Array.isArray(s.required) ? s.required : [];
    this.budget.visit(listed.length);
    const required = new Set(listed.filter((k): k is string => typeof k === 'string'));
    const min = num(s.minProperties) ?? 0;
    const max = num(s.maxProperties) ?? Infinity;
    const shallow = level >= SHALLOW;
    const chosen = new Set<string>(required);
    for (const k of Object.keys(properties)) {
      this.budget.visit();
      if (!chosen.has(k) && chosen.size < max && properties[k] !== false && (chosen.size < min || (!shallow && this.rng.next() < 0.8)))
        chosen.add(k);
    }
    // A chosen property may require others (dependentRequired; draft 7's dependencies with a list).
    const dependent = isObject(s.dependentRequired) ? s.dependentRequired : isObject(s.dependencies) ? s.dependencies : {};
    for (const k of [...chosen]) {
      const needs = dependent[k];
      if (Array.isArray(needs)) {
        this.budget.visit(needs.length);
        for (const d of needs) if (typeof d === 'string') chosen.add(d);
      }
    }
    const out: Record<string, unknown> = {};
    const extra = s.additionalProperties;
    const patterns = isObject(s.patternProperties) ? Object.entries(s.patternProperties) : [];
    const schemaFor = (k: string) =>
      Object.hasOwn(properties, k) ? properties[k] : extra === undefined || extra === true || extra === false ? {} : extra;
    // Properties in the schema's order, then required ones it does not describe.
    for (const k of [...Object.keys(properties), ...chosen]) {
      if (!chosen.has(k) || Object.hasOwn(out, k)) continue;
      this.budget.produce(k.length);
      put(out, k, this.value(schemaFor(k), level + 1, k));
    }
    // More keys where minProperties asks (or, now and then, one a patternProperties names).
    let size = Object.keys(out).length;
    const wanted = Math.max(min, patterns.length && !shallow && this.rng.next() < 0.5 ? size + 1 : 0);
    for (let i = 0; size < Math.min(wanted, max) && i < wanted + TRIES; i++) {
      this.budget.visit();
      let key: string;
      let sub: unknown;
      if (patterns.length) {
        const [pattern, schema] = this.rng.pick(patterns);
        key = this.string({ pattern }, '');
        sub = schema;
      } else if (extra !== false) {
        key = `${this.faker.word.noun().replace(/\W/g, '') || 'key'}_${i}`;
        sub = extra === undefined || extra === true ? {} : extra;
      } else break;
      if (Object.hasOwn(out, key) || Object.hasOwn(properties, key)) continue;
      this.budget.produce(key.length);
      put(out, key, this.value(sub, level + 1, key));
      size++;
    }
    return out;
  }
}

/** The number of decimals `x` is written with (0.25 → 2). */
function decimals(x: number): number {
  const m = /(?:\.(\d+))?(?:e-(\d+))?$/.exec(String(x));
  return (m?.[1]?.length ?? 0) + Number(m?.[2] ?? 0);
}

/**
 * A value valid against `schema`, the same for the same key. `budget` counts the work; pass one
 * budget to every value of a request (choices × tools) so their sum stays under one ceiling.
 */
export function synthesizeJson(
  schema: object,
  key: number,
  what = 'the schema',
  budget = new Budget(what),
  prompt?: PromptValues,
): unknown {
  budget.what = what;
  if (minimumSize(schema) > BUDGET) {
    throw new GatewayError(
      'invalid_request',
      `model-gateway-mock could not produce a value for ${what}: its minimums (minItems, minLength, minProperties) multiply out to more than ${BUDGET} characters.`,
    );
  }
  return withFaker(key, (faker) => new Generator(schema, key, faker, budget, prompt).value(schema, 0, ''));
}
