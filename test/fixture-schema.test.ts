// The published fixture schema (schemas/fixture.schema.json) describes every field of the Fixture type:
// each field the type has is in the schema, and each property of the schema has a description (what an
// editor shows on hover).
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import schema from '../schemas/fixture.schema.json' with { type: 'json' };

type Node = { [key: string]: unknown };

/** Every property of the schema, by its path, with its description (undefined when it has none). */
function properties(node: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(node)) node.forEach((n, i) => properties(n, `${path}[${i}]`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Node)) {
      if (key === 'properties')
        for (const [name, prop] of Object.entries(value as Node)) {
          out.set(`${path}/${name}`, (prop as Node).description);
          properties(prop, `${path}/${name}`, out);
        }
      else properties(value, `${path}/${key}`, out);
    }
  }
  return out;
}

/**
 * The field names of `export interface <name>` in a file of src/types (its own, not those it extends;
 * a field is a line `  name?: …` at the body's first level). TypeScript 7 ships no compiler API to ask.
 */
function fieldsOf(file: string, name: string): string[] {
  const text = readFileSync(fileURLToPath(new URL(`../src/types/${file}`, import.meta.url)), 'utf8');
  const body = new RegExp(`^export interface ${name}\\b[^{]*\\{\\n([\\s\\S]*?)^\\}`, 'm').exec(text);
  if (!body) throw new Error(`no interface ${name} in src/types/${file}`);
  return [...body[1].matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
}

const keys = (node: unknown) => Object.keys((node as { properties: Node }).properties).sort();

describe('the fixture JSON Schema', () => {
  it('has a description on every property', () => {
    const all = properties(schema);
    expect(all.size).toBeGreaterThan(60);
    expect([...all].filter(([, d]) => typeof d !== 'string' || !d).map(([path]) => path)).toEqual([]);
  });

  it('has every field of the Fixture type (a predicate, a function, is in-process only)', () => {
    const answer = fieldsOf('fixtures.ts', 'FixtureAnswer');
    const defs = schema.$defs as Node;
    expect(answer).toContain('reply');
    expect(keys(schema)).toEqual([...fieldsOf('fixtures.ts', 'Fixture'), ...answer].sort());
    expect(keys(schema.properties.match)).toEqual(
      fieldsOf('fixtures.ts', 'FixtureMatch')
        .filter((f) => f !== 'predicate')
        .sort(),
    );
    expect(keys(defs.answer)).toEqual(answer.sort());
    // FixtureReply is PinnedReply without its name.
    expect(keys(defs.reply)).toEqual(
      fieldsOf('reply.ts', 'PinnedReply')
        .filter((f) => f !== 'name')
        .sort(),
    );
    expect(keys(defs.error)).toEqual(fieldsOf('fixtures.ts', 'FixtureError').sort());
    expect(keys(defs.fault)).toEqual(fieldsOf('faults.ts', 'FaultSpec').sort());
  });
});
