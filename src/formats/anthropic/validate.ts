// Field checks in Anthropic's wording (its API reports validation errors pydantic-style: `path: message`).
import { type ErrorDetails, GatewayError } from '../../core/errors.ts';
import { type FieldChecker, fieldChecker, type JsonType } from '../fields.ts';

const NAMES: Record<JsonType, string> = {
  string: 'a valid string',
  number: 'a valid number',
  integer: 'a valid integer',
  boolean: 'a valid boolean',
  object: 'a valid dictionary',
  array: 'a valid list',
};

export const invalid = (param: string, message: string, details?: ErrorDetails) =>
  new GatewayError('invalid_request', `${param}: ${message}`, { param, details });

const quoted = (values: readonly string[]) =>
  values
    .map((v) => `'${v}'`)
    .join(values.length > 2 ? ', ' : ' or ')
    .replace(/, ([^,]*)$/, ' or $1');

const checker: FieldChecker = fieldChecker({
  missing: (param) => invalid(param, 'Field required'),
  invalidType: (param, expected) => invalid(param, `Input should be ${expected.map((t) => NAMES[t]).join(' or ')}`),
  outOfRange: (param, _value, bound, side) =>
    invalid(param, `Input should be ${side === 'above' ? 'less' : 'greater'} than or equal to ${bound}`),
  invalidValue: (param, _value, allowed) => invalid(param, `Input should be ${quoted(allowed)}`),
  badLength: (param, length, bound, side) =>
    invalid(
      param,
      `List should have ${side === 'above' ? 'at most' : 'at least'} ${bound} item${bound === 1 ? '' : 's'} after validation, not ${length}`,
    ),
  unknownField: (param) => invalid(param, 'Extra inputs are not permitted'),
});
// Assertion functions need declared types to narrow at their call sites.
export const checkField: FieldChecker['checkField'] = checker.checkField;
export const checkFields: FieldChecker['checkFields'] = checker.checkFields;
