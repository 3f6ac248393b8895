// How Gemini Live refuses a connection it will not serve (a bad key, a used-up or expired ephemeral
// token, a rate limit): not with an HTTP status on the handshake but by accepting the socket and
// closing it, 1008 with the error's message as the reason (1011 for a quota or a server error), which
// @google/genai's live.connect reports as "Live connection closed before setup completed (code 1008): …".
// Kept apart from live.ts so that the route table can name it without loading the session.
import type { Outbound } from '../../pipeline/exchange.ts';

/** A close frame's reason holds 123 bytes: a longer one is cut at a character, marked with `...`. */
export function closeReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  return bytes.length <= 123 ? reason : `${new TextDecoder().decode(bytes.slice(0, 120)).replace(/\uFFFD$/, '')}...`;
}

/** The close a refused handshake becomes: its code and reason, from the HTTP error the pipeline made. */
export function liveRefusal(out: Outbound): { code: number; reason: string } {
  let message = '';
  try {
    message = (JSON.parse(typeof out.body === 'string' ? out.body : '{}') as { error?: { message?: string } }).error?.message ?? '';
  } catch {
    // not JSON: the status says it
  }
  const code = out.status === 429 || out.status >= 500 ? 1011 : 1008;
  return { code, reason: closeReason(message || `HTTP ${out.status}`) };
}
