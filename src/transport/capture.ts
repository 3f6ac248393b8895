// The journal's copy of each answer, for people inspecting traffic: the body as written (a stream's
// events as they go out), cut at CAPTURE_LIMIT so the journal stays bounded in bytes.
import { CAPTURE_LIMIT, captureBytes, compactCapture, type CapturedResponse, type JournalEntry } from '../core/journal.ts';
import { isPlayback, type Outbound } from './exchange.ts';
import { utf8 } from './sse.ts';

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
    // A UTF-16 unit is 1 to 3 UTF-8 bytes: a shorter body fits whole. Of a longer one the first
    // CAPTURE_LIMIT units (at least CAPTURE_LIMIT bytes) are encoded and cut like a stream's, never the
    // whole body, however big.
    if (typeof body === 'string' && body.length * 3 <= CAPTURE_LIMIT) captured.body = body;
    else if (typeof body === 'string') {
      captureBytes(captured, utf8(body.slice(0, CAPTURE_LIMIT)));
      // More units than the limit are more bytes than it, even if the cut prefix fitted exactly.
      if (body.length > CAPTURE_LIMIT) captured.truncated = true;
    }
    else if (body instanceof Uint8Array) captured.binaryBytes = body.byteLength;
    return done();
  }
  // A stream's chunks are kept as the bytes written (see captureBytes), joined into one at the end. A
  // plain data property, never a getter: a per-request accessor made V8 keep whole requests alive
  // (see transport/node.ts).
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
