// Field checks with OpenAI's own error wording, shared by every OpenAI-format endpoint.
import { GatewayError } from '../../core/errors.ts';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export interface FieldRule {
  types: JsonType[];
  required?: boolean;
  nullable?: boolean;
  min?: number;
  max?: number;
  /** Allowed values (strings). */
  values?: string[];
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function fits(value: unknown, type: JsonType): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function quoteList(values: readonly string[]): string {
  const q = values.map((v) => `'${v}'`);
  return q.length <= 2 ? q.join(' and ') : `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

export function missing(param: string): GatewayError {
  return new GatewayError('invalid_request', `Missing required parameter: '${param}'.`, { param, code: 'missing_required_parameter' });
}

export function invalidType(param: string, expected: readonly string[], value: unknown): GatewayError {
  const wanted = expected.map((t) => ARTICLE[t] ?? t).join(' or ');
  return new GatewayError('invalid_request', `Invalid type for '${param}': expected ${wanted}, but got ${ARTICLE[typeOf(value)]} instead.`, {
    param,
    code: 'invalid_type',
  });
}

export function invalidValue(param: string, value: unknown, supported: readonly string[]): GatewayError {
  return new GatewayError('invalid_request', `Invalid value for '${param}': '${String(value)}'. Supported values are: ${quoteList(supported)}.`, {
    param,
    code: 'invalid_value',
  });
}

export function invalid(param: string, message: string, code: string | undefined = 'invalid_value'): GatewayError {
  return new GatewayError('invalid_request', message, { param, code });
}

function outOfRange(param: string, value: number, bound: number, side: 'above' | 'below', integer: boolean): GatewayError {
  const kind = integer ? 'integer' : 'decimal';
  const relation = side === 'above' ? `<= ${bound}` : `>= ${bound}`;
  return new GatewayError(
    'invalid_request',
    `Invalid '${param}': ${kind} ${side} ${side === 'above' ? 'maximum' : 'minimum'} value. Expected a value ${relation}, but got ${value} instead.`,
    { param, code: `${kind}_${side}_${side === 'above' ? 'max' : 'min'}_value` },
  );
}

/** Checks one value against its rule; `param` is the field's path for the message. */
export function checkField(param: string, value: unknown, rule: FieldRule): void {
  if (value === undefined) {
    if (rule.required) throw missing(param);
    return;
  }
  if (value === null) {
    if (rule.nullable) return;
    if (rule.required) throw missing(param);
    throw invalidType(param, rule.types, value);
  }
  if (!rule.types.some((t) => fits(value, t))) throw invalidType(param, rule.types, value);
  if (typeof value === 'number') {
    const integer = rule.types.includes('integer') && !rule.types.includes('number');
    if (rule.max !== undefined && value > rule.max) throw outOfRange(param, value, rule.max, 'above', integer);
    if (rule.min !== undefined && value < rule.min) throw outOfRange(param, value, rule.min, 'below', integer);
  }
  if (typeof value === 'string' && rule.values && !rule.values.includes(value)) throw invalidValue(param, value, rule.values);
  if (Array.isArray(value) && rule.max !== undefined && value.length > rule.max) {
    throw invalid(param, `Invalid '${param}': array too long. Expected an array with maximum length ${rule.max}, but got an array with length ${value.length} instead.`, 'array_above_max_length');
  }
  if (Array.isArray(value) && rule.min !== undefined && value.length < rule.min) {
    throw invalid(param, `Invalid '${param}': empty array. Expected an array with minimum length ${rule.min}, but got an empty array instead.`, 'empty_array');
  }
}

/** Checks every field of `body` against `rules`; a field with no rule is refused, as OpenAI does. */
export function checkFields(body: Record<string, unknown>, rules: Record<string, FieldRule>): void {
  for (const [name, rule] of Object.entries(rules)) if (rule.required) checkField(name, body[name], rule);
  for (const name in body) {
    const rule = rules[name];
    if (!rule || !Object.hasOwn(rules, name)) {
      throw new GatewayError('invalid_request', `Unrecognized request argument supplied: ${name}`, { param: name });
    }
    if (!rule.required) checkField(name, body[name], rule);
  }
}
