// Record mode through Bedrock: a forwarded request carries the client's signature, made for the
// emulator's host with a gateway token for its key; Bedrock wants one for its own host, made with real
// AWS credentials. So the request is signed anew, by the AWS SDK's own signer (@smithy/signature-v4
// with @aws-crypto/sha256-js, optional peers loaded only here), with the credentials in the emulator's
// environment, as the AWS SDKs read them: a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK), else
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), in AWS_REGION (else the upstream
// host's region).
import { GatewayError } from '../../core/errors.ts';
import { importNodeOnly, nodeEnv } from '../../core/node-only.ts';

/** The client's signing headers, which the new signature replaces. */
const SIGNING = new Set(['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256', 'host']);

/** A request on its way upstream, as record mode sends it. */
export interface UpstreamRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

type Env = Record<string, string | undefined>;

const noCredentials = () =>
  new GatewayError(
    'authentication',
    'Record mode through Bedrock signs each request for the upstream with your AWS credentials, and the emulator has none: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK, where the emulator runs.',
    { code: 'UnrecognizedClientException', status: 403 },
  );

/** The signer's packages, or the error that says to install them. */
async function signerPackages() {
  try {
    // By a specifier bundlers leave alone: a browser build of the package neither holds nor looks for them.
    const [{ SignatureV4 }, { Sha256 }] = await Promise.all([
      importNodeOnly<typeof import('@smithy/signature-v4')>('@smithy/signature-v4'),
      importNodeOnly<typeof import('@aws-crypto/sha256-js')>('@aws-crypto/sha256-js'),
    ]);
    return { SignatureV4, Sha256 };
  } catch {
    throw new GatewayError(
      'server',
      'Record mode through Bedrock signs requests with the AWS SDK signer: npm install -D @smithy/signature-v4 @aws-crypto/sha256-js (the AWS SDK for JavaScript brings them).',
    );
  }
}

/** The headers `request` goes upstream with: signed anew for the upstream's host, or carrying a Bedrock API key. */
export async function bedrockUpstreamHeaders(request: UpstreamRequest, env: Env = nodeEnv()): Promise<Record<string, string>> {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !SIGNING.has(name.toLowerCase())));
  const key = env.AWS_BEARER_TOKEN_BEDROCK;
  if (key) return { ...headers, authorization: `Bearer ${key}` };
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw noCredentials();
  const { url } = request;
  const region =
    env.AWS_REGION ??
    env.AWS_DEFAULT_REGION ??
    /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1] ??
    'us-east-1';
  const { SignatureV4, Sha256 } = await signerPackages();
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }) },
    region,
    service: 'bedrock',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port && { port: Number(url.port) }),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...headers, host: url.host },
    body: request.body,
  });
  // fetch sets Host from the URL (the same value it was signed with) and refuses it as a header.
  const { host: _, ...out } = signed.headers as Record<string, string>;
  return out;
}
