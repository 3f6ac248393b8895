// The journal's copy of each answer, for people inspecting traffic: the body as written (a stream's
// events as they go out), cut at CAPTURE_LIMIT so the journal stays bounded in bytes.
import type { CapturedResponse, JournalEntry } from '../core/journal.ts';
import { detached } from '../core/strings.ts';
import { isPlayback, type Outbound } from './exchange.ts';

/** Characters of a response body (or of a stream's events) the journal keeps per request. */
export const CAPTURE_LIMIT = 64 * 1024;

function append(captured: CapturedResponse, text: string): void {
  const room = CAPTURE_LIMIT - (captured.body?.length ?? 0);
  if (captured.truncated || room <= 0) {
    captured.truncated = true;
    return;
  }
  if (text.length > room) {
    captured.body = (captured.body ?? '') + detached(text.slice(0, room));
    captured.truncated = true;
  } else captured.body = (captured.body ?? '') + text;
}

/**
 * Records `out` in `entry` (`started` from performance.now()): a plain body at once, a stream's events
 * as they are written (chaining the stream's hooks), and the duration when the answer is complete.
 */
export function captureResponse(entry: JournalEntry, out: Outbound, started: number): void {
  const done = () => void (entry.durationMs = Math.round(performance.now() - started));
  if (out.broken) return done();
  const captured: CapturedResponse = { headers: { ...out.headers } };
  entry.response = captured;
  const body = out.body;
  if (!isPlayback(body)) {
    if (typeof body === 'string') append(captured, body);
    else if (body instanceof Uint8Array) captured.binaryBytes = body.byteLength;
    return done();
  }
  const { onProgress, onEnd } = body.hooks;
  // A stream keeps the chunks as written (at zero latency, the whole stream is one chunk, kept as is)
  // and joins them once, when read or at the end: appending each to one string built a rope of
  // thousands of small pieces per entry and cost a copy per chunk.
  const parts: string[] = [];
  let length = 0;
  let joined: string | undefined;
  const flush = () => {
    if (parts.length) {
      joined = joined === undefined && parts.length === 1 ? parts[0] : (joined ?? '') + parts.join('');
      parts.length = 0;
    }
    return joined;
  };
  Object.defineProperty(captured, 'body', {
    get: flush,
    set: (v: string | undefined) => void ((joined = v), (parts.length = 0)),
    enumerable: true,
    configurable: true,
  });
  body.hooks = {
    onProgress(sent, chunk) {
      if (!captured.truncated) {
        const room = CAPTURE_LIMIT - length;
        if (chunk.length > room) {
          if (room > 0) parts.push(detached(chunk.slice(0, room)));
          length = CAPTURE_LIMIT;
          captured.truncated = true;
        } else {
          parts.push(chunk);
          length += chunk.length;
        }
      }
      onProgress?.(sent, chunk);
    },
    onEnd(outcome) {
      // Settle to a plain, flat property so the entry holds one compact string, not the frames.
      const final = flush();
      Object.defineProperty(captured, 'body', { value: final, writable: true, enumerable: true, configurable: true });
      if (final === undefined) delete captured.body;
      done();
      onEnd?.(outcome);
    },
  };
}
