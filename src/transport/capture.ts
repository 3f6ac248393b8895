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
  // A stream's chunks are appended as written (cheap: V8 joins strings lazily), and a body of several
  // chunks is settled into one flat copy at the end, so a finished entry holds one compact string, not
  // hundreds of pieces. At zero latency the whole stream is one chunk, kept as is. A plain data
  // property, never a getter: a per-request accessor made V8 keep whole requests alive (see
  // transport/node.ts).
  let chunks = 0;
  body.hooks = {
    onProgress(sent, chunk) {
      append(captured, chunk);
      chunks++;
      onProgress?.(sent, chunk);
    },
    onEnd(outcome) {
      if (chunks > 1 && captured.body !== undefined) captured.body = detached(captured.body);
      done();
      onEnd?.(outcome);
    },
  };
}
