// Field checks in Bedrock's wording. AWS's request validation names a field by its path with lists
// counted from 1 (`messages.1.member.content.2.member.text`) and says which constraint failed;
// Bedrock's own checks of a conversation count from 0 (`messages.0.content.1`), as its messages do.
import { GatewayError } from '../../core/errors.ts';
import { type FieldChecker, fieldChecker, type JsonType } from '../fields.ts';

export const invalid = (param: string, message: string) => new GatewayError('invalid_request', message, { param });

/** AWS's path of a list's item: `messages.1.member` for the first message. */
export const member = (list: string, index: number) => `${list}.${index + 1}.member`;

const NAMES: Record<JsonType, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'a structure',
  array: 'a list',
};

/** A value as AWS quotes it in a validation message (cut short: it is the client's). */
const quoted = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.length > 64 ? `${text.slice(0, 64)}…` : text}'`;
};

/** AWS's request validation failure: `1 validation error detected: Value … at '…' failed to satisfy constraint: …`. */
const constraint = (param: string, value: unknown, rule: string) =>
  invalid(
    param,
    `1 validation error detected: Value ${value === undefined ? 'null' : quoted(value)} at '${param}' failed to satisfy constraint: ${rule}`,
  );

const checker: FieldChecker = fieldChecker({
  missing: (param) => constraint(param, undefined, 'Member must not be null'),
  invalidType: (param, expected, value) => constraint(param, value, `Member must be ${expected.map((t) => NAMES[t]).join(' or ')}`),
  outOfRange: (param, value, bound, side) =>
    constraint(param, value, `Member must have value ${side === 'above' ? 'less' : 'greater'} than or equal to ${bound}`),
  invalidValue: (param, value, allowed) => constraint(param, value, `Member must satisfy enum value set: [${allowed.join(', ')}]`),
  badLength: (param, length, bound, side) =>
    constraint(param, `a list of ${length}`, `Member must have length ${side === 'above' ? 'less' : 'greater'} than or equal to ${bound}`),
  unknownField: (param) => invalid(param, `Unexpected field '${param}': the request has no member of that name.`),
});
// Assertion functions need declared types to narrow at their call sites.
export const checkField: FieldChecker['checkField'] = checker.checkField;
export const checkFields: FieldChecker['checkFields'] = checker.checkFields;
