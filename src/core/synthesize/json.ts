// JSON values that validate against a JSON Schema, drawn deterministically from a key.
// json-schema-faker does the schema work (types, bounds, $ref/$defs, anyOf/oneOf, formats, patterns);
// we only add faker hints so that plain strings look like what their property names say.
import { generateSync } from 'json-schema-faker';
import { GatewayError } from '../errors.ts';
import { withFaker } from '../seed.ts';

type Schema = Record<string, unknown>;

// Property name → faker method, for unconstrained string properties. First match wins.
const HINTS: [RegExp, string][] = [
  [/first_?name/i, 'person.firstName'],
  [/last_?name|surname/i, 'person.lastName'],
  [/user_?name|handle|login/i, 'internet.username'],
  [/e_?mail/i, 'internet.email'],
  [/phone|mobile/i, 'phone.number'],
  [/^(name|full_?name|author|person|customer|owner|contact)$/i, 'person.fullName'],
  [/city|town|location|place|destination|origin/i, 'location.city'],
  [/country/i, 'location.country'],
  [/state|province|region/i, 'location.state'],
  [/street|address/i, 'location.streetAddress'],
  [/zip|postal/i, 'location.zipCode'],
  [/company|organi[sz]ation|employer|brand/i, 'company.name'],
  [/url|website|link|href/i, 'internet.url'],
  [/colou?r/i, 'color.human'],
  [/currency/i, 'finance.currencyCode'],
  [/(^|_)id$|uuid/i, 'string.uuid'],
  [/title|subject|headline|summary|description|text|content|message|comment|reason|answer|note|bio|query|question/i, 'hacker.phrase'],
];

// Keywords whose values are data, not schemas.
const VERBATIM = new Set(['const', 'enum', 'default', 'examples', 'required', 'example']);

function isPlainString(schema: Schema): boolean {
  const type = schema.type;
  if (type !== 'string') return false;
  return ['format', 'pattern', 'enum', 'const', 'faker', 'minLength', 'maxLength'].every((k) => schema[k] === undefined);
}

/** The most a schema's minimum value may weigh (about characters): more would let one request exhaust the server. */
const BUDGET = 1_000_000;

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
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) size = Math.max(size, minimumSize(sub, depth + 1));
  return Math.min(size + at('minProperties'), Number.MAX_SAFE_INTEGER);
}

/** A copy of `schema` with faker hints on plain string properties (by name; otherwise English words). */
function hinted(node: unknown, name = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => hinted(n, name));
  if (node === null || typeof node !== 'object') return node;
  const schema = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VERBATIM.has(key)) out[key] = value;
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([prop, sub]) => [prop, hinted(sub, prop)]));
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = hinted(value, name);
    } else if (key === '$defs' || key === 'definitions') {
      out[key] = Object.fromEntries(Object.entries(value as Schema).map(([def, sub]) => [def, hinted(sub, def)]));
    } else {
      out[key] = typeof value === 'object' ? hinted(value, name) : value;
    }
  }
  // A size bound must be a count: json-schema-faker would read "Infinity" or "1e9" past our caps.
  for (const k of ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']) {
    const v = out[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) {
      throw new GatewayError('invalid_request', `model-gateway-mock could not use the schema${name ? ` of "${name}"` : ''}: "${k}" must be a non-negative integer, got ${JSON.stringify(v)}.`);
    }
  }
  if (isPlainString(out)) out.faker = HINTS.find(([pattern]) => pattern.test(name))?.[1] ?? 'word.words';
  // Generation picks sizes between the bounds: keep the upper bounds near the lower ones, so a
  // schema allowing a huge value never costs one (the value still validates).
  for (const [max, min, cap] of [['maxItems', 'minItems', 20], ['maxLength', 'minLength', 512], ['maxProperties', 'minProperties', 20]] as const) {
    if (typeof out[max] === 'number') out[max] = Math.min(out[max] as number, Math.max((out[min] as number | undefined) ?? 0, cap));
  }
  if (typeof out.pattern === 'string' && /\{\s*\d{4,}/.test(out.pattern)) {
    throw new GatewayError('invalid_request', `model-gateway-mock generates strings for patterns with repetition counts under 1000; "${out.pattern}"${name ? ` (of "${name}")` : ''} asks for more.`);
  }
  return out;
}

/** A value valid against `schema`, the same for the same key. */
export function synthesizeJson(schema: object, key: number, what = 'the schema'): unknown {
  if (minimumSize(schema) > BUDGET) {
    throw new GatewayError('invalid_request', `model-gateway-mock could not produce a value for ${what}: its minimums (minItems, minLength, minProperties) multiply out to more than ${BUDGET} characters.`);
  }
  try {
    return withFaker(key, (faker) =>
      generateSync(hinted(schema) as Schema, { seed: (key % 2147483646) + 1, extensions: { faker }, optionalsProbability: 0.8, maxDepth: 6 }),
    );
  } catch (error) {
    throw new GatewayError('invalid_request', `model-gateway-mock could not produce a value for ${what}: ${(error as Error).message}`);
  }
}
