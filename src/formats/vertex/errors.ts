// GatewayError → Vertex AI's answer: Google's status and `{error:{code, message, status, details?}}`
// body, as the Gemini API words it, but for a credential: Vertex AI takes an access token, and answers
// a missing or unknown one with a 401 UNAUTHENTICATED (the Gemini API's is a 400 API_KEY_INVALID).
import type { GatewayError } from '../../core/errors.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import type { RecordedEvent } from '../../pipeline/framing.ts';
import { geminiErrorResponse, geminiStreamError } from '../gemini/errors.ts';

const HINT =
  'Vertex AI takes an access token in `Authorization: Bearer` (express mode: an API key in x-goog-api-key); the gateway token stands for either.';

function unauthenticated(error: GatewayError) {
  return {
    error: {
      code: 401,
      message: `${error.message} ${HINT}`,
      status: 'UNAUTHENTICATED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
          domain: 'googleapis.com',
          metadata: { service: 'aiplatform.googleapis.com' },
        },
      ],
    },
  };
}

/** A failure as Vertex AI answers it. */
export function vertexErrorResponse(error: GatewayError): Outbound {
  if (error.kind !== 'authentication') return geminiErrorResponse(error);
  return json(unauthenticated(error), 401, error.headers);
}

/** A failure part-way through a stream: the error object as a chunk, which @google/genai raises. */
export const vertexStreamError = (error: GatewayError): RecordedEvent =>
  error.kind === 'authentication' ? { data: JSON.stringify(unauthenticated(error)) } : geminiStreamError(error);
