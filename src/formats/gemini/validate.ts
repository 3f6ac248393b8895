// Field checks in Google's wording (its API reports the field path and the proto type at fault).
import { GatewayError } from '../../core/errors.ts';
import { type FieldChecker, fieldChecker, type JsonType } from '../fields.ts';

const PROTO: Record<JsonType, string> = {
  string: 'TYPE_STRING',
  number: 'TYPE_FLOAT',
  integer: 'TYPE_INT32',
  boolean: 'TYPE_BOOL',
  object: 'TYPE_MESSAGE',
  array: 'TYPE_REPEATED',
};

export const invalid = (param: string, message: string) => new GatewayError('invalid_request', message, { param });

const checker: FieldChecker = fieldChecker({
  missing: (param) => invalid(param, `* GenerateContentRequest.${param}: ${param.split('.').pop()} is not specified`),
  invalidType: (param, expected, value) => invalid(param, `Invalid value at '${param}' (${PROTO[expected[0]]}), ${JSON.stringify(value)}`),
  outOfRange: (param, value, bound, side) =>
    invalid(
      param,
      `Invalid value at '${param}': ${value} is out of range; it must be ${side === 'above' ? 'at most' : 'at least'} ${bound}.`,
    ),
  invalidValue: (param, value, allowed) =>
    invalid(param, `Invalid value at '${param}', "${String(value)}". Supported values: ${allowed.join(', ')}.`),
  badLength: (param, length, bound, side) =>
    invalid(param, `Invalid value at '${param}': ${length} items, but ${side === 'above' ? 'at most' : 'at least'} ${bound} are allowed.`),
  unknownField: (param) => {
    const at = param.lastIndexOf('.');
    return invalid(
      param,
      `Invalid JSON payload received. Unknown name "${param.slice(at + 1)}"${at > 0 ? ` at '${param.slice(0, at)}'` : ''}: Cannot find field.`,
    );
  },
});
// Assertion functions need declared types to narrow at their call sites.
export const checkField: FieldChecker['checkField'] = checker.checkField;
export const checkFields: FieldChecker['checkFields'] = checker.checkFields;
