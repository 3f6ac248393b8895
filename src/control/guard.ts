// Who may use the control plane (/__admin) and the console pages: the emulator's owner. By default
// that is any client on this machine (loopback); from elsewhere the admin token is required. And no
// web page the owner happens to visit may change the emulator's state: browsers mark every request
// with where it comes from (Sec-Fetch-Site, Origin), so a state-changing request a browser marks as
// cross-origin is refused, while clients that are not browsers (curl, SDKs: neither header) pass, as
// in Go's net/http CrossOriginProtection. A Host that is not this machine (DNS rebinding) needs the
// token too.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The cookie a console page sets after being opened with `?admin_token=`, for its own fetches. */
export const ADMIN_COOKIE = 'mgm_admin';

// Loopback as addresses, parsed: 127.0.0.0/8 and ::1 (BlockList also matches IPv4-mapped IPv6, such as
// ::ffff:127.0.0.1). A prefix test on text would take the name `127.0.0.1.nip.io` for this machine.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `address` is a literal loopback address (never a name: names resolve to anything). */
function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether `host` (an interface to bind) keeps the server on this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopback(host.replace(/^\[|\]$/g, ''));
}

/** A fresh admin token, for servers bound beyond loopback without one. */
export function generateAdminToken(): string {
  return `mgm-admin-${randomBytes(18).toString('base64url')}`;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    // A value that is no percent-encoding (`mgm_admin=%`) is taken as written: it is then no token.
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return v.join('=');
    }
  }
  return undefined;
}

/** The admin token a request presents in a header (`x-admin-token` or `Authorization: Bearer`). */
function headerToken(req: IncomingMessage): string | undefined {
  const header = req.headers['x-admin-token'];
  if (typeof header === 'string' && header) return header;
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}

/**
 * Whether the Host header names this machine (a rebinding attack names the attacker's domain): a
 * literal loopback address, `localhost` or a `*.localhost` name (which resolvers keep on this machine),
 * or the host the server was bound to. Every other name, `127.0.0.1.nip.io` included, needs the token.
 */
function localHostHeader(req: IncomingMessage, boundHost: string): boolean {
  const raw = req.headers.host ?? '';
  const name = raw.startsWith('[') ? raw.slice(0, raw.indexOf(']') + 1) : raw.replace(/:\d+$/, '');
  const bare = name.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' || bare.endsWith('.localhost') || isLoopback(bare) || bare === boundHost.replace(/^\[|\]$/g, '').toLowerCase()
  );
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Why a browser marked `req` as cross-origin, or undefined when it did not: Sec-Fetch-Site, when
 * sent, must be `same-origin` or `none` (typed in the address bar); else an Origin, when sent, must
 * name the Host the request was sent to. A request with neither comes from no browser.
 */
function crossOrigin(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site) return site === 'same-origin' || site === 'none' ? undefined : `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !origin) return undefined;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    // `null` (a sandboxed frame, a file:// page) and anything unparseable: not this origin.
  }
  return host !== undefined && host.toLowerCase() === (req.headers.host ?? '').toLowerCase() ? undefined : `Origin: ${origin}`;
}

interface GuardVerdict {
  ok: boolean;
  status?: number;
  message?: string;
}

/**
 * Whether a control-plane or console request may proceed. `adminToken` is undefined when none is set
 * (then only loopback clients get in). A page opened with `?admin_token=` is checked like a header.
 */
export function guardControlPlane(req: IncomingMessage, url: URL, boundHost: string, adminToken: string | undefined): GuardVerdict {
  const presented = headerToken(req) ?? url.searchParams.get('admin_token') ?? cookie(req, ADMIN_COOKIE);
  const byToken = adminToken !== undefined && presented !== undefined && sameSecret(presented, adminToken);
  const needsToken = adminToken
    ? 'Send the admin token (printed at start, or set with --admin-token) as the x-admin-token header, or open the page with ?admin_token=<token>.'
    : 'Start the server with --admin-token <token> to allow other machines.';
  if (!byToken) {
    if (!isLoopback(req.socket.remoteAddress))
      return { ok: false, status: 403, message: `The control plane answers only clients on this machine. ${needsToken}` };
    if (!localHostHeader(req, boundHost))
      return {
        ok: false,
        status: 403,
        message: `The Host header "${req.headers.host ?? ''}" does not name this machine; the control plane refuses it (DNS rebinding). ${needsToken}`,
      };
  }
  // A cross-site form or no-cors fetch can send a simple POST; the browser marks it as cross-origin.
  // The token in a header passes: a page cannot set one cross-origin without a preflight we never grant.
  const tokenInHeader = adminToken !== undefined && headerToken(req) !== undefined && sameSecret(headerToken(req)!, adminToken);
  const foreign = STATE_CHANGING.has(req.method ?? '') && !tokenInHeader ? crossOrigin(req) : undefined;
  if (foreign) {
    return {
      ok: false,
      status: 403,
      message: `A web page on another origin may not change the emulator's state (${foreign}, Host: ${req.headers.host ?? ''}). Send it from the emulator's own pages, from a client that is not a browser (curl, an SDK), or with the admin token in the x-admin-token header.`,
    };
  }
  return { ok: true };
}
