// Property test: every value synthesized for a generated schema validates against it (ajv, draft 2020-12).
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { synthesizeJson } from '../src/core/synthesize/json.ts';
import { Rng } from '../src/core/seed.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** A random schema, nested up to `depth`, drawing on the keywords structured outputs use. */
function schemaFrom(rng: Rng, depth: number): Record<string, unknown> {
  const kinds =
    depth > 0
      ? ['string', 'integer', 'number', 'boolean', 'enum', 'const', 'format', 'array', 'object', 'anyOf', 'oneOf', 'nullable']
      : ['string', 'integer', 'number', 'boolean', 'enum', 'format'];
  switch (rng.pick(kinds)) {
    case 'string':
      return rng.next() < 0.5 ? { type: 'string' } : { type: 'string', minLength: rng.int(1, 4), maxLength: rng.int(5, 12) };
    case 'integer':
      return { type: 'integer', minimum: rng.int(-50, 0), maximum: rng.int(1, 50) };
    case 'number':
      return { type: 'number', minimum: 0, exclusiveMaximum: rng.int(1, 100) };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { type: 'string', enum: ['red', 'green', 'blue'].slice(0, rng.int(1, 3)) };
    case 'const':
      return { const: rng.pick(['fixed', 7, true]) };
    case 'format':
      return { type: 'string', format: rng.pick(['email', 'date-time', 'date', 'uuid', 'uri', 'ipv4']) };
    case 'array':
      return { type: 'array', items: schemaFrom(rng, depth - 1), minItems: rng.int(0, 2), maxItems: rng.int(2, 4) };
    case 'anyOf':
      return { anyOf: [schemaFrom(rng, depth - 1), schemaFrom(rng, depth - 1)] };
    case 'oneOf':
      return { oneOf: [{ type: 'string', maxLength: 3 }, { type: 'integer' }] };
    case 'nullable':
      return { type: ['string', 'null'] };
    default: {
      const names = ['name', 'email', 'city', 'title', 'count', 'items', 'id', 'description', 'website', 'x'];
      const properties: Record<string, unknown> = {};
      for (let i = rng.int(1, 5); i > 0; i--) properties[rng.pick(names) + (i > 3 ? i : '')] = schemaFrom(rng, depth - 1);
      const keys = Object.keys(properties);
      return { type: 'object', properties, required: keys.filter(() => rng.next() < 0.7), additionalProperties: false };
    }
  }
}

describe('JSON from a schema', () => {
  it('validates for 300 generated schemas, each under several keys', () => {
    const rng = new Rng(2026);
    for (let i = 0; i < 300; i++) {
      const schema = schemaFrom(rng, 3);
      const validate = ajv.compile(schema);
      for (const key of [1, 2, 3]) {
        const value = synthesizeJson(schema, key + i * 7);
        if (!validate(value))
          throw new Error(`schema ${JSON.stringify(schema)}\nvalue ${JSON.stringify(value)}\n${ajv.errorsText(validate.errors)}`);
      }
    }
  });

  it('refuses schemas whose minimums would exhaust the server, instead of hanging', () => {
    expect(() => synthesizeJson({ type: 'array', minItems: 100_000_000 }, 1)).toThrow(/multiply out to more than 1000000/);
    expect(() =>
      synthesizeJson(
        { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'string', minLength: 10 } } },
        1,
      ),
    ).toThrow(/multiply out/);
    expect(synthesizeJson({ type: 'array', minItems: 50, items: { type: 'string', minLength: 20 } }, 1)).toHaveLength(50);
  });

  it('resolves $ref/$defs and recursion-free nesting, deterministically', () => {
    const schema = {
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
          required: ['street', 'city'],
          additionalProperties: false,
        },
      },
      properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/$defs/address' }, email: { type: 'string' } },
      required: ['home', 'work', 'email'],
      additionalProperties: false,
    };
    const value = synthesizeJson(schema, 42) as { home: { city: string }; email: string };
    expect(ajv.validate(schema, value)).toBe(true);
    expect(synthesizeJson(schema, 42)).toEqual(value);
    expect(synthesizeJson(schema, 43)).not.toEqual(value);
    expect(value.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(value.home.city).toMatch(/^[A-Z]/);
  });
});
