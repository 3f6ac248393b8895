// Field checks with OpenAI's own error wording, shared by every OpenAI-format endpoint.
import { GatewayError } from '../../core/errors.ts';
import { detokenize } from '../../core/tokens.ts';
import { type FieldChecker, fieldChecker, type JsonObject, typeOf, type JsonType } from '../fields.ts';

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function quoteList(values: readonly string[]): string {
  const q = values.map((v) => `'${v}'`);
  return q.length <= 2 ? q.join(' and ') : `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

export function missing(param: string): GatewayError {
  return new GatewayError('invalid_request', `Missing required parameter: '${param}'.`, { param, code: 'missing_required_parameter' });
}

export function invalidType(param: string, expected: readonly (JsonType | string)[], value: unknown): GatewayError {
  const wanted = expected.map((t) => ARTICLE[t] ?? t).join(' or ');
  return new GatewayError(
    'invalid_request',
    `Invalid type for '${param}': expected ${wanted}, but got ${ARTICLE[typeOf(value)]} instead.`,
    {
      param,
      code: 'invalid_type',
    },
  );
}

export function invalidValue(param: string, value: unknown, supported: readonly string[]): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Invalid value for '${param}': '${String(value)}'. Supported values are: ${quoteList(supported)}.`,
    {
      param,
      code: 'invalid_value',
    },
  );
}

export function invalid(param: string, message: string, code: string | undefined = 'invalid_value'): GatewayError {
  return new GatewayError('invalid_request', message, { param, code });
}

/** The text token ids spell (a prompt or input sent as tokens), or the 400 that names `param`. */
/** A URL field (the spec's `format: uri`), when given: it must parse as an absolute URL. */
export function checkUrl(param: string, value: unknown, what: string): void {
  // Its type is checked by its rule; a value of another type is that rule's error.
  if (typeof value === 'string' && !URL.canParse(value))
    throw invalid(param, `Invalid '${param}': expected ${what}, got ${JSON.stringify(value.slice(0, 100))}.`);
}

export function tokenIdsText(param: string, ids: unknown[]): string {
  let text: string | false;
  try {
    text = detokenize(ids);
  } catch {
    // Ids inside the vocabulary's range that no token has (the encoder's gaps) throw.
    text = false;
  }
  if (text === false) throw invalid(param, `Invalid '${param}': token ids must be integers from the model's vocabulary.`);
  return text;
}

export function unknownField(param: string): GatewayError {
  return new GatewayError('invalid_request', `Unrecognized request argument supplied: ${param}`, { param });
}

const checker: FieldChecker = fieldChecker({
  missing,
  invalidType,
  invalidValue,
  outOfRange(param, value, bound, side, integer) {
    const kind = integer ? 'integer' : 'decimal';
    const relation = side === 'above' ? `<= ${bound}` : `>= ${bound}`;
    return new GatewayError(
      'invalid_request',
      `Invalid '${param}': ${kind} ${side} ${side === 'above' ? 'maximum' : 'minimum'} value. Expected a value ${relation}, but got ${value} instead.`,
      { param, code: `${kind}_${side}_${side === 'above' ? 'max' : 'min'}_value` },
    );
  },
  badLength(param, length, bound, side) {
    if (side === 'above') {
      return invalid(
        param,
        `Invalid '${param}': array too long. Expected an array with maximum length ${bound}, but got an array with length ${length} instead.`,
        'array_above_max_length',
      );
    }
    return invalid(
      param,
      `Invalid '${param}': array too short. Expected an array with minimum length ${bound}, but got an array with length ${length} instead.`,
      'array_below_min_length',
    );
  },
  unknownField,
});
// Assertion functions need declared types to narrow at their call sites.
export const checkField: FieldChecker['checkField'] = checker.checkField;
export const checkFields: FieldChecker['checkFields'] = checker.checkFields;

/** OpenAI's metadata: at most 16 string values, keys up to 64 and values up to 512 characters. */
export function checkMetadata(metadata: JsonObject | null | undefined): void {
  if (metadata === null || metadata === undefined) return;
  const entries = Object.entries(metadata);
  if (entries.length > 16) {
    throw invalid(
      'metadata',
      `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${entries.length} properties instead.`,
      'object_above_max_properties',
    );
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw invalidType(`metadata.${key}`, ['string'], value);
    if (key.length > 64)
      throw invalid(
        'metadata',
        `Invalid 'metadata': string too long. Expected a key of at most 64 characters, but got one of ${key.length} characters instead.`,
        'string_above_max_length',
      );
    if (value.length > 512)
      throw invalid(
        `metadata.${key}`,
        `Invalid 'metadata.${key}': string too long. Expected a string with maximum length 512, but got a string with length ${value.length} instead.`,
        'string_above_max_length',
      );
  }
}
