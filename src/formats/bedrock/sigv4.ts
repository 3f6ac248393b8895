// AWS Signature Version 4 as the AWS SDKs send it, read as a way to present a token: the access key
// id in `Credential=` names the gateway token (set AWS_ACCESS_KEY_ID to it, any secret). The header's
// shape is checked as AWS checks it, with AWS's words for what is wrong; the signature's value is
// not (the gateway has no secret to check it against).
//   Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<yyyymmdd>/<region>/<service>/aws4_request,
//                  SignedHeaders=host;x-amz-date;…, Signature=<64 hex digits>
import { GatewayError } from '../../core/errors.ts';
import type { KeyReader, KeySource } from '../../auth/keys.ts';

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** AWS's refusal of a signature it cannot read (403, `IncompleteSignatureException`). */
const incomplete = (message: string) => new GatewayError('authentication', message, { code: 'IncompleteSignatureException', status: 403 });

/** AWS's refusal of a signature it reads but does not accept (403, `InvalidSignatureException`). */
const invalid = (message: string) => new GatewayError('authentication', message, { code: 'InvalidSignatureException', status: 403 });

/** The `Name=value` parameters after the algorithm, by name (the first of each). */
function parameters(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    if (at > 0 && !out.has(name)) out.set(name, part.slice(at + 1).trim());
  }
  return out;
}

/** The access key id of a well-formed SigV4 Authorization header for `service`; throws AWS's 403 for a malformed one. */
function accessKeyOf(header: string, source: KeySource, service: string): string {
  const space = header.indexOf(' ');
  const algorithm = space < 0 ? header : header.slice(0, space);
  const params = parameters(space < 0 ? '' : header.slice(space + 1));
  const credential = params.get('Credential');
  const signedHeaders = params.get('SignedHeaders');
  const signature = params.get('Signature');
  const date = source.header('x-amz-date') ?? source.header('date');
  if (algorithm === ALGORITHM && (!credential || !signedHeaders || !signature || !date)) {
    const missing = [
      !credential && "Authorization header requires 'Credential' parameter.",
      !signature && "Authorization header requires 'Signature' parameter.",
      !signedHeaders && "Authorization header requires 'SignedHeaders' parameter.",
      !date && "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    ].filter(Boolean);
    // AWS also echoes the header, but the journal keeps answers: the token stays out of them.
    throw incomplete(missing.join(' '));
  }
  if (algorithm !== ALGORITHM) {
    throw incomplete(
      `Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Unsupported algorithm '${algorithm.slice(0, 40)}': AWS clients sign with ${ALGORITHM} (or send a Bedrock API key as 'Authorization: Bearer <token>').`,
    );
  }
  const scope = credential!.split('/');
  if (scope.length !== 5 || !scope[0]) {
    throw incomplete(
      `Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got ${scope.length}. Set the access key id (AWS_ACCESS_KEY_ID) to a gateway token.`,
    );
  }
  const [keyId, day, region, scoped, terminator] = scope;
  if (!/^[a-z0-9-]+$/.test(region)) throw invalid(`Credential should be scoped to a valid region, not '${region}'.`);
  if (scoped !== service) throw invalid(`Credential should be scoped to correct service: '${service}'. `);
  if (terminator !== 'aws4_request')
    throw invalid(`Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'.`);
  const stamp =
    /^\d{8}/.exec(date!)?.[0] ?? (Number.isNaN(Date.parse(date!)) ? '' : new Date(date!).toISOString().slice(0, 10).replaceAll('-', ''));
  if (day !== stamp) {
    throw invalid(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${stamp}', from '${date}'.`,
    );
  }
  if (!signedHeaders!.split(';').some((name) => name === 'host' || name === ':authority'))
    throw invalid("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  if (!/^[0-9a-f]{64}$/.test(signature!))
    throw invalid(
      `The request signature we calculated does not match the signature you provided: '${signature}' is not 64 hexadecimal digits.`,
    );
  return keyId;
}

/**
 * The token of a request signed for `service` (`bedrock` for the runtime, `bedrock-mantle` for its
 * Anthropic-compatible endpoint). An `Authorization: Bearer` header is not this way's: a Bedrock API
 * key is read as any bearer token.
 */
export function sigV4(service: string): KeyReader {
  return {
    read(source) {
      const header = source.header('authorization');
      if (!header || /^Bearer\s/i.test(header)) return undefined;
      return accessKeyOf(header.trim(), source, service);
    },
  };
}
