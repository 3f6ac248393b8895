// The lines of a JSONL file, found in its bytes (no text is made of it): where each non-blank line
// starts and ends, and how many there are. Work in steps (slices.ts), so a file of many megabytes is
// scanned with the event loop served between slices; only the first `keep` lines' places are kept, so
// a file of a million lines costs its count, not a million places.
import { SLICE_CHARS, type Steps } from './slices.ts';

interface LineSpans {
  /** Non-blank lines in the file. */
  count: number;
  /** The first `keep` of them: [start, end) byte offsets (a line's `\r\n` end left out), and its 1-based line number. */
  spans: { start: number; end: number; line: number }[];
}

const isBlank = (bytes: Uint8Array, start: number, end: number) => {
  for (let i = start; i < end; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== 0x0d) return false;
  return true;
};

export function* lineSpans(bytes: Uint8Array, keep: number): Steps<LineSpans> {
  const spans: LineSpans['spans'] = [];
  let count = 0;
  let line = 0;
  let done = 0;
  for (let start = 0; start < bytes.byteLength; ) {
    const newline = bytes.indexOf(0x0a, start);
    const stop = newline < 0 ? bytes.byteLength : newline;
    line++;
    // A blank line (whitespace only) is no request: files often end with one.
    if (!isBlank(bytes, start, stop)) {
      count++;
      if (spans.length < keep) spans.push({ start, end: stop > start && bytes[stop - 1] === 0x0d ? stop - 1 : stop, line });
    }
    done += stop - start + 1;
    start = stop + 1;
    if (done >= SLICE_CHARS) {
      yield done;
      done = 0;
    }
  }
  return { count, spans };
}
