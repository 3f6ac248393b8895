// Declarative field checks shared by every format. What is checked is the same everywhere; how the
// failure is worded is each vendor's own (a Wording), so clients see their service's messages.
import type { GatewayError } from '../core/errors.ts';
import { unknownParamsReport } from '../pipeline/params.ts';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export interface FieldRule {
  types: JsonType[];
  required?: boolean;
  nullable?: boolean;
  /** Lower bound: of the value for numbers, of the length for arrays. */
  min?: number;
  /** Upper bound: of the value for numbers, of the length for arrays. */
  max?: number;
  /** Allowed values (strings). */
  values?: string[];
}

/** A field that may be absent or null, of one of `types`. */
export const optional = (...types: JsonType[]): FieldRule => ({ types, nullable: true });

/** The vendor's words for each kind of failure; `param` is the field's path in the vendor's syntax. */
export interface Wording {
  missing(param: string): GatewayError;
  invalidType(param: string, expected: readonly JsonType[], value: unknown): GatewayError;
  outOfRange(param: string, value: number, bound: number, side: 'above' | 'below', integer: boolean): GatewayError;
  invalidValue(param: string, value: unknown, allowed: readonly string[]): GatewayError;
  badLength(param: string, length: number, bound: number, side: 'above' | 'below'): GatewayError;
  unknownField(param: string): GatewayError;
}

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
export function nonObjectSchema(schema: Record<string, unknown>): string | undefined {
  if (!Object.keys(schema).length) return undefined;
  const type = schema.type;
  return typeof type === 'string' && type.toLowerCase() === 'object' ? undefined : String(type ?? 'None');
}

export interface FieldChecker {
  /** Checks one value against its rule. */
  checkField(param: string, value: unknown, rule: FieldRule): void;
  /**
   * Checks every field of `body`; a field with no rule is refused. `path` prefixes params. At the top
   * level (no `path`) of a request's body, unknown names are reported and left out instead, unless
   * strictParams is on (see pipeline/params.ts).
   */
  checkFields(body: Record<string, unknown>, rules: Record<string, FieldRule>, path?: string): void;
}

// The required rules of each rule set, listed once: the sets are constants and every request is checked.
const required = new WeakMap<Record<string, FieldRule>, [string, FieldRule][]>();

function requiredOf(rules: Record<string, FieldRule>): [string, FieldRule][] {
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
    if (Array.isArray(value) && rule.max !== undefined && value.length > rule.max) throw w.badLength(param, value.length, rule.max, 'above');
    if (Array.isArray(value) && rule.min !== undefined && value.length < rule.min) throw w.badLength(param, value.length, rule.min, 'below');
  }

  function checkFields(body: Record<string, unknown>, rules: Record<string, FieldRule>, path = ''): void {
    if (!path) refuseUnrecognized(body, Object.keys(body).filter((name) => !Object.hasOwn(rules, name)), w.unknownField);
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
  for (const name of names) delete (body as Record<string, unknown>)[name];
  report(names);
}
