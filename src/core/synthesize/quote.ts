// A reply's quote of a document the request gave with citations asked for: one sentence of one document,
// chosen by the reply's key, so the same request cites the same words and a test can predict them (the
// sentence is in the document, word for word).
import type { CitableDocument } from '../request.ts';
import { deriveKey, Rng } from '../seed.ts';

/** Characters of each document read for sentences: the work stays bounded whatever the document's size. */
const SCAN_CHARS = 16 * 1024;
/** A sentence worth quoting: long enough to say something, short enough to be a quote. */
const MIN_CHARS = 12;
const MAX_CHARS = 400;

/** Where a quote is in its document (UTF-16 offsets, end exclusive). */
interface Quote {
  document: CitableDocument;
  from: number;
  to: number;
}

/** The sentences of a document's head worth quoting, as offsets into its text. */
function sentences(text: string): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  const head = text.slice(0, SCAN_CHARS);
  // Sentences end at . ! ? (and the full-width 。！？ of Chinese and Japanese text) or a line's end.
  for (const m of head.matchAll(/[^.!?\n。！？]+[.!?。！？]*/g)) {
    const lead = m[0].length - m[0].trimStart().length;
    const from = m.index + lead;
    const to = m.index + m[0].trimEnd().length;
    if (to - from >= MIN_CHARS && to - from <= MAX_CHARS) out.push({ from, to });
  }
  // A document with no such sentence is quoted from its start: up to a word's end, else MAX_CHARS
  // characters, never ending inside a surrogate pair.
  if (!out.length && text.trim()) {
    const from = text.length - text.trimStart().length;
    const cut = text.slice(from, from + MAX_CHARS);
    const space = cut.lastIndexOf(' ');
    let end = cut.length < MAX_CHARS ? cut.trimEnd().length : space > 0 ? space : cut.length;
    if (end < cut.length && (cut.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
    out.push({ from, to: from + end });
  }
  return out;
}

/** The sentence a reply quotes, or undefined when no document has text. */
export function documentQuote(documents: readonly CitableDocument[], key: number): Quote | undefined {
  const found = documents.map((document) => ({ document, spans: sentences(document.text) })).filter((d) => d.spans.length);
  if (!found.length) return undefined;
  const rng = new Rng(deriveKey(key, 'quote'));
  const { document, spans } = rng.pick(found);
  return { document, ...rng.pick(spans) };
}
