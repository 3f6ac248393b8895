// The journal's copy of each answer, for people inspecting traffic: the body as written (a stream's
// events as they go out), cut at CAPTURE_LIMIT so the journal stays bounded in bytes.
import { CAPTURE_LIMIT, captureBytes, compactCapture, newCapture, type JournalEntry } from '../core/journal.ts';
import { isPieces, isPlayback, type Outbound } from './exchange.ts';
import { maskedHeaders } from '../auth/keys.ts';

const encoder = new TextEncoder();

/**
 * Records `out` in `entry` (`started` from performance.now()): a plain body at once, a stream's events
 * as they are written (chaining the stream's hooks), and the duration when the answer is complete.
 */
export function captureResponse(entry: JournalEntry, out: Outbound, started: number): void {
  const done = () => void (entry.durationMs = Math.round(performance.now() - started));
  if (out.broken) return done();
  // Masked like the request's: a recorded upstream's answer may set a cookie.
  const captured = newCapture(entry, maskedHeaders(out.headers));
  // A big JSON reply written in pieces is kept as its first piece: the cut comes long before its end.
  const body = isPieces(out.body) ? out.body.head : out.body;
  if (!isPlayback(body)) {
    // A UTF-16 unit is 1 to 3 UTF-8 bytes: a shorter body fits whole. A longer one is kept as bytes,
    // like a stream's: encodeInto fills CAPTURE_LIMIT bytes and stops before a character that would
    // not fit, so the cut is on a character's start and the rest of the body is never encoded.
    if (typeof body === 'string' && body.length * 3 <= CAPTURE_LIMIT) captured.body = body;
    else if (typeof body === 'string') {
      const room = new Uint8Array(CAPTURE_LIMIT);
      const { read, written } = encoder.encodeInto(body, room);
      captureBytes(captured, room.slice(0, written));
      if (read < body.length) captured.truncated = true;
    } else if (body instanceof Uint8Array) captured.binaryBytes = body.byteLength;
    return done();
  }
  // A stream's chunks are kept as the bytes written (see captureBytes), joined into one at the end. A
  // plain data property, never a getter: a per-request accessor made V8 keep whole requests alive
  // (see adapters/node.ts).
  const { onProgress, onEnd } = body.hooks;
  body.hooks = {
    onProgress(sent, chunk) {
      captureBytes(captured, chunk);
      onProgress?.(sent, chunk);
    },
    onEnd(outcome) {
      compactCapture(captured);
      done();
      onEnd?.(outcome);
    },
  };
}
