// What both WebSocket adapters share (msw's ws.link in-process, `ws` standalone), kept apart from
// either so that neither drags in the other's library: the standalone server never loads msw.
import type { Inbound, SocketPeer, SocketRequests } from '../pipeline/exchange.ts';
import type { EndpointSpec, FormatEdge } from '../pipeline/call.ts';
import type { Runtime } from '../runtime.ts';
import { runEndpoint } from '../pipeline/endpoint.ts';
import { RouteTable } from '../pipeline/routes.ts';

/** Each endpoint list's route table, made with the first socket that sends a request down the pipeline. */
const tables = new WeakMap<readonly EndpointSpec[], RouteTable>();

/** A session's requests, answered as the HTTP transports answer them: by the route table, through runEndpoint. */
export function socketRequests(runtime: Runtime, endpoints: readonly EndpointSpec[], fallback: FormatEdge): SocketRequests {
  return {
    answer(inbound) {
      let table = tables.get(endpoints);
      if (!table) tables.set(endpoints, (table = new RouteTable(endpoints, fallback)));
      const routed = table.route(inbound);
      return routed && 'spec' in routed
        ? runEndpoint(runtime, routed.spec, inbound, routed.params)
        : Promise.resolve(table.refuse(inbound, routed));
    },
  };
}

/** An upgrade request as an Inbound; an upgrade has no body. */
export function inboundOf(
  method: string,
  url: URL,
  header: (name: string) => string | undefined,
  headers: () => Record<string, string>,
  signal: AbortSignal,
): Inbound {
  return { method, url, header, headers, text: async () => '', bytes: async () => new Uint8Array(0), signal };
}

/** Feeds a peer the frames that arrive before it exists, then hands over. */
export class Pending {
  private queue: string[] = [];
  private peer?: SocketPeer;
  private closed = false;

  receive(text: string): void {
    if (this.peer) this.peer.receive(text);
    else this.queue.push(text);
  }

  close(): void {
    this.closed = true;
    this.peer?.closed();
  }

  attach(peer: SocketPeer): void {
    this.peer = peer;
    for (const text of this.queue.splice(0)) peer.receive(text);
    if (this.closed) peer.closed();
  }
}
