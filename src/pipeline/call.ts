// What the pipeline hands an endpoint's handler, and what a handler is: the contract between the
// pipeline (endpoint.ts runs it) and the formats. Types only, so record mode and the decisions can
// name a Call without importing the pipeline that runs them.
import type { GatewayError } from '../core/errors.ts';
import type { JournalEntry } from '../core/journal.ts';
import type { EphemeralKind, KeyWay } from '../auth/keys.ts';
import type { RateWindow } from '../core/ratelimit.ts';
import type { Usage } from '../core/reply.ts';
import type { Runtime } from '../runtime.ts';
import type { Inbound, JsonObject, Outbound } from './exchange.ts';
import type { DecisionState, Forward } from './decide.ts';
import type { FormatName } from '../formats/names.ts';
import type { RecordedEvent } from './framing.ts';

/** What a wire format tells the pipeline about itself. */
export interface FormatEdge {
  name: FormatName;
  /** The response header that carries the request id, in the vendor's name. */
  requestIdHeader: string;
  /** The vendor's id style for request ids, e.g. `req_` + 32 characters. */
  requestIdPrefix: string;
  /** Renders a failure in the vendor's status, headers and body (some bodies carry the request id). */
  errorResponse(error: GatewayError, requestId: string): Outbound;
  /** Whether its stream events carry an SSE `event:` name, the payload's `type` (a fixture's raw payloads are framed so). */
  namedEvents: boolean;
  /** Renders a failure part-way through a stream as the vendor's in-stream error event (the stream's framing frames it). */
  streamError(error: GatewayError, requestId: string): RecordedEvent;
  /** The vendor's rate-limit headers for a window (on replies and on its 429); none for a vendor that sends none. */
  rateLimitHeaders(window: RateWindow): Record<string, string>;
  /**
   * The usage a fixture's verbatim `raw` body (a body, a stream's payloads, or a recorded stream) tells
   * its client, in canonical form; undefined when it tells none. A raw answer is charged for this.
   */
  usageOf(raw: unknown): Usage | undefined;
  /**
   * Whether a request no endpoint takes (unknown path, wrong method) came from this vendor's clients
   * (their headers, their path prefixes): its error is then rendered in this format (routes.ts).
   */
  recognizes?(request: Pick<Inbound, 'url' | 'header'>): boolean;
  /**
   * The headers a request forwarded upstream (record mode) is sent with, for a vendor whose clients
   * sign each request for its host (Bedrock's SigV4: signed anew with the emulator's own credentials);
   * absent, the client's own headers go.
   */
  upstreamHeaders?(request: {
    method: string;
    url: URL;
    headers: Record<string, string>;
    body?: string | Uint8Array;
  }): Promise<Record<string, string>>;
}

export type Params = Record<string, string | readonly string[] | undefined>;

/**
 * The live state a handler reads: what the decisions read (the stores among it), prices, the body
 * limit, the reader timeout, the live-stream count, the realtime items' shared ceiling and the
 * deployments (a cloud account's names for models). The journal, the rate windows and spending are the
 * pipeline's (endpoint.ts).
 */
type CallState = DecisionState &
  Pick<Runtime, 'prices' | 'maxBodyBytes' | 'activeStreams' | 'realtimeItems' | 'readerTimeoutMs' | 'deployments' | 'sockets'>;

/**
 * A request as its handler gets it. `Body` is what the endpoint promises of the body (see EndpointSpec):
 * a JsonObject on a POST that takes a body; undefined may come to the others.
 */
export interface Call<Body extends JsonObject | undefined = JsonObject | undefined> {
  inbound: Inbound;
  params: Params;
  /**
   * The body: a JSON object (the pipeline refuses any other JSON), or a multipart body's fields and
   * uploads (a FormBody, itself a JsonObject); undefined when there is none (a GET or DELETE, or an
   * empty body on a `bodiless` POST).
   */
  body: Body;
  requestId: string;
  runtime: CallState;
  /** This request's journal entry: handlers fill in model, fixture and stream progress. */
  entry: JournalEntry;
  /** The issued token the request acts for: the one it presented, or the one that minted its client secret. */
  token: string;
  /** The client secret (`ek_…`) the request presented instead of a token, on the routes that take one. */
  clientSecret?: string;
  format: FormatEdge;
  /**
   * For an endpoint mounted on a dialect's path (mount.ts): the endpoint's own path with this request's
   * parameters (`/v1/chat/completions`), which fixtures' `endpoint` also matches and recordings keep.
   */
  canonicalPath?: string;
  /**
   * Set when the request has no connection (a batch line, pipeline/offline.ts): delivery adds the time
   * it would have waited to `delayMs` instead of waiting, and a connection fault is answered as broken
   * for the caller to report (a batch reports the service's 500 for the line).
   */
  offline?: { delayMs: number };
}

/** A handler: the answer, or (record mode, no fixture matched) the request to forward upstream. */
export type Handler<Body extends JsonObject | undefined> = (call: Call<Body>) => Outbound | Forward | Promise<Outbound | Forward>;

interface Route {
  /** Path from the host root, msw syntax (`/v1/models/:model`). */
  path: string;
  /**
   * Its stable id (mount() names endpoints by it): by default its format, method and path
   * (`openai POST /v1/chat/completions`; mount.ts's endpointId).
   */
  id?: string;
  /** The dialect it belongs to (`azure`), when it is another vendor's endpoint mounted on a cloud's paths (mount.ts); the journal names it. */
  dialect?: string;
  format: FormatEdge;
  /** How the token may be presented on this route; none means the route is public (image file URLs). */
  auth: readonly KeyWay[];
  /**
   * For paths two formats share (`GET /v1/models`): whether this format takes the request. Those
   * with `accepts` are asked first; the one endpoint of a method and path without it takes the rest
   * (routes.ts refuses two).
   */
  accepts?(inbound: Inbound): boolean;
  /** A WebSocket endpoint: its GET is an upgrade, answered with an Outbound that carries `socket`. */
  upgrade?: boolean;
  /**
   * How its service refuses a handshake it will not serve, when not with the HTTP error: the socket
   * accepted, then closed with this code and reason (Gemini Live's 1008).
   */
  refusedUpgrade?: (out: Outbound) => { code: number; reason: string };
  /** Also takes the ephemeral keys of this kind (realtime's client secrets, Live's auth tokens; those work nowhere else). */
  ephemeral?: EphemeralKind;
}

/** A POST (or a PATCH, Gemini's updates) that takes a body: its handler always has one (a body that is neither a JSON object nor a form was refused). */
export interface BodyEndpoint extends Route {
  method: 'POST' | 'PATCH';
  bodiless?: false;
  /**
   * A body of bytes, never parsed (a resumable upload's chunk): read within the body limit and handed
   * over as `call.body.data`, an Upload of the request's content type.
   */
  rawBody?: true;
  handle: Handler<JsonObject>;
}

/** A GET or DELETE (no body), or a POST that may come without one. */
type OtherEndpoint = Route & { handle: Handler<JsonObject | undefined> } & (
    | { method: 'GET' | 'DELETE'; bodiless?: undefined }
    | {
        method: 'POST';
        /** A POST that takes no body (`/v1/responses/:id/cancel`): an empty body there is none, not a JSON parse error. */
        bodiless: true;
      }
  );

export type EndpointSpec = BodyEndpoint | OtherEndpoint;
