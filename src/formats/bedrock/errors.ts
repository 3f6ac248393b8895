// GatewayError → Bedrock's errors: the status, `x-amzn-errortype` naming the exception (the AWS SDKs
// raise the class of that name) and a `{"message": …}` body; inside a stream, an exception frame
// whose `:exception-type` is the stream union's member (`throttlingException`, …).
import type { ErrorKind, GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';

/** The exception each kind of failure is, as Bedrock names it. */
const EXCEPTION: Record<ErrorKind, string> = {
  invalid_request: 'ValidationException',
  authentication: 'UnrecognizedClientException',
  permission: 'AccessDeniedException',
  not_found: 'ResourceNotFoundException',
  method_not_allowed: 'UnknownOperationException',
  request_too_large: 'ValidationException',
  rate_limit: 'ThrottlingException',
  quota: 'ServiceQuotaExceededException',
  server: 'InternalServerException',
  overloaded: 'ServiceUnavailableException',
  unavailable: 'ServiceUnavailableException',
};

/** Bedrock's exceptions by a status a fixture or `x-mock-status` pins, where the kind alone would say less. */
const BY_STATUS: Record<number, string> = {
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  503: 'ServiceUnavailableException',
};

/** Where AWS's front door and Bedrock's service name their exceptions (what follows the name in `x-amzn-errortype`). */
const NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';
const FRONT_DOOR = 'http://internal.amazon.com/coral/com.amazon.coral.service/';

/** The exception a failure is: a code that is already one (a fixture's, SigV4's), else by status, else by kind. */
function exceptionOf(error: GatewayError): string {
  if (error.code && /^[A-Z][A-Za-z]*Exception$/.test(error.code)) return error.code;
  return BY_STATUS[error.status] ?? EXCEPTION[error.kind];
}

/** Bedrock has no 401 (a bad credential is a 403) and no 529 (an overload is a 503). */
const statusOf = (error: GatewayError) => (error.status === 401 ? 403 : error.status === 529 ? 503 : error.status);

/** A failure as Bedrock answers it: status, `x-amzn-errortype` and `{"message": …}` (the request id is the pipeline's header). */
export function bedrockErrorResponse(error: GatewayError): Outbound {
  const exception = exceptionOf(error);
  const front = error.kind === 'authentication' || exception === 'UnknownOperationException';
  return json({ message: error.message }, statusOf(error), {
    ...error.headers,
    'x-amzn-errortype': `${exception}:${front ? FRONT_DOOR : NAMESPACE}`,
  });
}

/** The exceptions both response streams (ConverseStream's, InvokeModelWithResponseStream's) carry as themselves. */
const STREAMED = ['ThrottlingException', 'ValidationException', 'ServiceUnavailableException'];

/**
 * The member of a response stream's union a failure part-way through it is sent as (its exception,
 * camel-cased): a throttle, a validation or an outage as itself, anything else as the model's
 * stream failing (`modelStreamErrorException`, with the status it failed with).
 */
export function streamExceptionOf(error: GatewayError): { type: string; payload: Record<string, unknown> } {
  const exception = exceptionOf(error);
  const member = STREAMED.includes(exception) ? exception : 'ModelStreamErrorException';
  const payload: Record<string, unknown> = { message: error.message };
  // The model's own failure carries what the model said, and its status.
  if (member === 'ModelStreamErrorException')
    Object.assign(payload, { originalStatusCode: statusOf(error), originalMessage: error.message });
  return { type: member[0].toLowerCase() + member.slice(1), payload };
}
