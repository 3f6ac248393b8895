// Declarative field checks shared by every format. What is checked is the same everywhere; how the
// failure is worded is each vendor's own (a Wording), so clients see their service's messages.
import type { GatewayError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../pipeline/exchange.ts';
import { unknownParamsReport } from '../pipeline/params.ts';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

// The request body's type and its check are the pipeline's (it hands handlers a JsonObject); the checks below narrow its fields.
export { isJsonObject, type JsonObject };

interface FieldRule {
  types: readonly JsonType[];
  required?: boolean;
  nullable?: boolean;
  /** Lower bound: of the value for numbers, of the length for arrays. */
  min?: number;
  /** Upper bound: of the value for numbers, of the length for arrays. */
  max?: number;
  /** Allowed values (strings). */
  values?: readonly string[];
}

/** A rule set: one rule per known field. Declare it `as const satisfies FieldRules` so checks narrow. */
export type FieldRules = { readonly [name: string]: FieldRule };

/** A field that may be absent or null, of one of `types`. */
export const optional = <const T extends readonly JsonType[]>(...types: T): { types: T; nullable: true } => ({ types, nullable: true });

interface JsonTypes {
  string: string;
  number: number;
  integer: number;
  boolean: boolean;
  object: JsonObject;
  array: unknown[];
}

// A string rule with `values` admits only those; a rule typed wider than a literal admits null and
// absence unless it says otherwise, so a checker given a plain FieldRule promises no more than it checks.
type Valued<R extends FieldRule> = R extends { values: readonly (infer V extends string)[] } ? V : string;
type Present<R extends FieldRule, T extends JsonType = R['types'][number]> = T extends 'string' ? Valued<R> : JsonTypes[T];

/** What a value is once it passed `rule`. */
type FieldValue<R extends FieldRule> =
  | Present<R>
  | ('nullable' extends keyof R ? (R extends { nullable: false } ? never : null) : never)
  | (R extends { required: true } ? never : undefined);

/** What an object's known fields are once it passed `rules` (nothing more for a rule set typed by its index). */
export type CheckedFields<R extends FieldRules> = string extends keyof R ? JsonObject : JsonObject & { [K in keyof R]: FieldValue<R[K]> };

/** The vendor's words for each kind of failure; `param` is the field's path in the vendor's syntax. */
interface Wording {
  missing(param: string): GatewayError;
  invalidType(param: string, expected: readonly JsonType[], value: unknown): GatewayError;
  outOfRange(param: string, value: number, bound: number, side: 'above' | 'below', integer: boolean): GatewayError;
  invalidValue(param: string, value: unknown, allowed: readonly string[]): GatewayError;
  badLength(param: string, length: number, bound: number, side: 'above' | 'below'): GatewayError;
  unknownField(param: string): GatewayError;
}

/**
 * The fields of a value read without a rule: its own when it is an object, else none (as reading a
 * named field of a string, number, boolean or array of JSON gives undefined).
 */
export const fieldsOf = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});

/** Whether `value` is one of `values`, narrowing it to their union. */
export const isOneOf = <const T extends string>(values: readonly T[], value: unknown): value is T => values.some((v) => v === value);

/** The JSON type of a value, telling integers from other numbers. */
export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function fits(value: unknown, type: JsonType): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/**
 * Tool parameters must describe an object (every vendor refuses other schemas, and arguments are an
 * object on every wire): the offending type's name, or undefined when it does. `{}` means no parameters.
 */
export function nonObjectSchema(schema: JsonObject): string | undefined {
  if (!Object.keys(schema).length) return undefined;
  const type = schema.type;
  return typeof type === 'string' && type.toLowerCase() === 'object' ? undefined : String(type ?? 'None');
}

export interface FieldChecker {
  /** Checks one value against its rule; past the call, `value` has the type the rule promises. */
  checkField<const R extends FieldRule>(param: string, value: unknown, rule: R): asserts value is FieldValue<R>;
  /**
   * Checks every field of `body`; a field with no rule is refused. `path` prefixes params. At the top
   * level (no `path`) of a request's body, unknown names are reported and left out instead, unless
   * strictParams is on (see pipeline/params.ts). Past the call, the known fields have their rules' types.
   */
  checkFields<const R extends FieldRules>(body: JsonObject, rules: R, path?: string): asserts body is CheckedFields<R>;
}

// The required rules of each rule set, listed once: the sets are constants and every request is checked.
const required = new WeakMap<FieldRules, [string, FieldRule][]>();

function requiredOf(rules: FieldRules): [string, FieldRule][] {
  let list = required.get(rules);
  if (!list) required.set(rules, (list = Object.entries(rules).filter(([, rule]) => rule.required)));
  return list;
}

export function fieldChecker(w: Wording): FieldChecker {
  function checkField(param: string, value: unknown, rule: FieldRule): void {
    if (value === undefined) {
      if (rule.required) throw w.missing(param);
      return;
    }
    if (value === null) {
      if (rule.nullable) return;
      if (rule.required) throw w.missing(param);
      throw w.invalidType(param, rule.types, value);
    }
    if (!rule.types.some((t) => fits(value, t))) throw w.invalidType(param, rule.types, value);
    if (typeof value === 'number') {
      const integer = rule.types.includes('integer') && !rule.types.includes('number');
      if (rule.max !== undefined && value > rule.max) throw w.outOfRange(param, value, rule.max, 'above', integer);
      if (rule.min !== undefined && value < rule.min) throw w.outOfRange(param, value, rule.min, 'below', integer);
    }
    if (typeof value === 'string' && rule.values && !rule.values.includes(value)) throw w.invalidValue(param, value, rule.values);
    if (Array.isArray(value) && rule.max !== undefined && value.length > rule.max)
      throw w.badLength(param, value.length, rule.max, 'above');
    if (Array.isArray(value) && rule.min !== undefined && value.length < rule.min)
      throw w.badLength(param, value.length, rule.min, 'below');
  }

  function checkFields(body: JsonObject, rules: FieldRules, path = ''): void {
    if (!path)
      refuseUnrecognized(
        body,
        Object.keys(body).filter((name) => !Object.hasOwn(rules, name)),
        w.unknownField,
      );
    for (const [name, rule] of requiredOf(rules)) checkField(path + name, body[name], rule);
    for (const name in body) {
      const rule = rules[name];
      if (!rule || !Object.hasOwn(rules, name)) throw w.unknownField(path + name);
      if (!rule.required) checkField(path + name, body[name], rule);
    }
  }

  return { checkField, checkFields };
}

/**
 * Top-level parameters of `body` a format does not know: on a lenient request body they are reported
 * (journal warnings, `x-mock-warning`) and deleted from it, so the handler goes on as without them;
 * otherwise (strictParams, or an object that is not a request's body) the first is refused in the
 * vendor's words.
 */
export function refuseUnrecognized(body: object, names: string[], refusal: (param: string) => GatewayError): void {
  if (!names.length) return;
  const report = unknownParamsReport(body);
  if (!report) throw refusal(names[0]);
  for (const name of names) delete (body as JsonObject)[name];
  report(names);
}
