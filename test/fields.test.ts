// The field checks are assertion functions: past a check, the checked values have the types their
// rules promise, so parsers need no casts. The type expectations are proved by the type check
// (`npx tsc -p tsconfig.json`); the runtime ones show the checks still refuse what they refused.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type FieldRules, type JsonObject, optional } from '../src/formats/fields.ts';
import { checkField, checkFields } from '../src/formats/openai/validate.ts';

const RULES = {
  model: { types: ['string'], required: true },
  n: optional('integer'),
  mode: { types: ['string'], values: ['fast', 'slow'] },
  tools: { types: ['array'] },
  config: { types: ['object'] },
} as const satisfies FieldRules;

describe('field checks narrow types', () => {
  it('checkFields gives the known fields their rules’ types', () => {
    const body: JsonObject = { model: 'm', n: null, mode: 'fast', tools: [], config: {} };
    checkFields(body, RULES);
    expectTypeOf(body.model).toEqualTypeOf<string>();
    expectTypeOf(body.n).toEqualTypeOf<number | null | undefined>();
    expectTypeOf(body.mode).toEqualTypeOf<'fast' | 'slow' | undefined>();
    expectTypeOf(body.tools).toEqualTypeOf<unknown[] | undefined>();
    expectTypeOf(body.config).toEqualTypeOf<JsonObject | undefined>();
    // A field with no rule stays unknown.
    expectTypeOf(body.other).toEqualTypeOf<unknown>();
    expect(body.model).toBe('m');
  });

  it('checkFields still refuses what the rules refuse', () => {
    expect(() => checkFields({ n: 1 }, RULES)).toThrow("Missing required parameter: 'model'.");
    expect(() => checkFields({ model: 'm', mode: 'quick' }, RULES)).toThrow(
      "Invalid value for 'mode': 'quick'. Supported values are: 'fast' and 'slow'.",
    );
    expect(() => checkFields({ model: 'm', n: 1.5 }, RULES)).toThrow(
      "Invalid type for 'n': expected an integer, but got a number instead.",
    );
  });

  it('checkField narrows one value, and a rule typed only as FieldRule promises nothing it does not check', () => {
    const value: unknown = 'x';
    checkField('v', value, { types: ['string'], required: true });
    expectTypeOf(value).toEqualTypeOf<string>();
    const loose: unknown = null;
    const rule: { types: ('string' | 'integer')[]; nullable?: boolean; required?: boolean } = {
      types: ['string', 'integer'],
      nullable: true,
    };
    checkField('v', loose, rule);
    expectTypeOf(loose).toEqualTypeOf<string | number | null | undefined>();
    expect(() => checkField('v', 3, { types: ['string'], required: true })).toThrow(
      "Invalid type for 'v': expected a string, but got an integer instead.",
    );
  });

  it('a rule set typed by its index narrows nothing', () => {
    const rules: FieldRules = { model: { types: ['string'] } };
    const body: JsonObject = { model: 'm' };
    checkFields(body, rules);
    expectTypeOf(body.model).toEqualTypeOf<unknown>();
  });
});
