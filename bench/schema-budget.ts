// What schema synthesis costs at its ceilings (core/synthesize/budget.ts): each shape below runs into
// a ceiling (or stays just under it); the time to reach it is the most one request's schema can cost.
// Usage: node bench/schema-budget.ts   (no build needed: it imports the sources)
import { synthesizeJson } from '../src/core/synthesize/json.ts';

const fan = (levels: number, via: '$defs' | 'definitions', combinator = 'allOf') => {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) defs[`d${i}`] = { [combinator]: [{ $ref: `#/${via}/d${i + 1}` }, { $ref: `#/${via}/d${i + 1}` }] };
  defs[`d${levels}`] = { type: 'string' };
  return { [via]: defs, $ref: `#/${via}/d0` };
};
/** The fan-out with a heavy leaf: `leaf` is merged at every level. */
const fanTo = (levels: number, leaf: unknown) => {
  const schema = fan(levels, '$defs') as unknown as { $defs: Record<string, unknown> };
  schema.$defs[`d${levels}`] = leaf;
  return schema;
};
const inline = (levels: number): unknown => (levels === 0 ? { type: 'string' } : { allOf: [inline(levels - 1), inline(levels - 1)] });

const shapes: [string, unknown][] = [
  ['$defs allOf fan-out, 18 levels', fan(18, '$defs')],
  ['definitions allOf fan-out, 18 levels', fan(18, 'definitions')],
  ['inline allOf fan-out, 16 levels', inline(16)],
  ['fan-out to 10 000 keywords', fanTo(12, Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x${i}`, i])))],
  ['fan-out to an enum of 5000', fanTo(12, { enum: Array.from({ length: 5000 }, (_, i) => ({ id: i })) })],
  [
    'fan-out to 5000 properties',
    fanTo(12, { type: 'object', properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'integer' }])) }),
  ],
  [
    '40 000 strings of a 5000-char pattern',
    { type: 'array', minItems: 40_000, items: { type: 'string', pattern: `${'a|'.repeat(2500)}b` } },
  ],
  ['pattern ((a{999}){999}){999}', { type: 'string', pattern: '^((a{999}){999}){999}$' }],
  ['pattern ((a{0}){999}){999}', { type: 'string', pattern: '^((a{0}){999}){999}$' }],
  ['99 999 hinted strings', { type: 'array', minItems: 99_999, items: { type: 'string' } }],
  ['99 999 emails', { type: 'array', minItems: 99_999, items: { type: 'string', format: 'email' } }],
  ['999 999 characters', { type: 'string', minLength: 999_999 }],
  [
    '33 333 objects of two properties',
    {
      type: 'array',
      minItems: 33_333,
      items: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } }, required: ['name', 'n'] },
    },
  ],
];

for (const [name, schema] of shapes) {
  const times: number[] = [];
  let outcome = '';
  for (let run = 0; run < 5; run++) {
    // CPU time of this process, less noisy than the wall clock on a shared machine.
    const start = process.cpuUsage();
    try {
      outcome = `${JSON.stringify(synthesizeJson(schema as object, run + 1)).length} characters`;
    } catch (error) {
      outcome = (error as Error).message.replace(/^.*?(after|at) /, '$1 ').slice(0, 60);
    }
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(40)} median cpu ${times[2].toFixed(1).padStart(6)} ms  max ${times[4].toFixed(1).padStart(6)} ms  ${outcome}`);
}
