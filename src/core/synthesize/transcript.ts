// A transcript of audio: the words it is known to speak (audio this emulator made carries them), or
// plausible English whose length follows the duration (about 2.5 words a second). Segments are
// sentences and words get times in proportion to their length, all inside the real duration.
import { withFaker } from '../seed.ts';
import { tokenize } from '../tokens.ts';

interface TimedWord {
  word: string;
  start: number;
  end: number;
}

interface TranscriptSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
}

export interface Transcript {
  text: string;
  duration: number;
  segments: TranscriptSegment[];
  words: TimedWord[];
}

const WORDS_PER_SECOND = 2.5;
/** Synthesized text stops growing here, so a long upload costs no more than this. */
const MAX_SYNTHESIZED_WORDS = 4000;

/** Seeded prose of about `count` words, in sentences of 4 to 12. */
function prose(count: number, key: number): string {
  return withFaker(key, (f) => {
    const sentences: string[] = [];
    for (let left = count; left > 0; ) {
      const n = Math.min(left, f.number.int({ min: 4, max: 12 }));
      const words = f.word.words(n).split(' ').slice(0, n);
      sentences.push(`${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`);
      left -= n;
    }
    return sentences.join(' ');
  });
}

const round = (x: number) => Math.round(x * 100) / 100;

/** The transcript of `duration` seconds of audio saying `text` (synthesized from `key` when unknown). */
export function synthesizeTranscript(duration: number, key: number, text?: string): Transcript {
  const said =
    text ?? (duration >= 0.3 ? prose(Math.min(MAX_SYNTHESIZED_WORDS, Math.max(1, Math.round(duration * WORDS_PER_SECOND))), key) : '');
  const words = said.split(/\s+/).filter(Boolean);
  // Speech fills the audio but for a short lead-in and tail; times are spread by word length.
  const lead = Math.min(0.1, duration / 10);
  const span = Math.max(0, duration - 2 * lead);
  const weight = words.reduce((n, w) => n + w.length + 1, 0) || 1;
  let at = lead;
  const timed: TimedWord[] = words.map((w) => {
    const length = (span * (w.length + 1)) / weight;
    const t = {
      word: w.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '') || w,
      start: round(at),
      end: round(Math.min(duration, at + length)),
    };
    at += length;
    return t;
  });
  // Sentences: split after . ! ? (keeping the text exact when joined with spaces).
  const segments: TranscriptSegment[] = [];
  let first = 0;
  words.forEach((w, i) => {
    if (/[.!?]["')\]]*$/.test(w) || i === words.length - 1) {
      const segText = words.slice(first, i + 1).join(' ');
      segments.push({
        id: segments.length,
        start: timed[first].start,
        end: timed[i].end,
        text: ` ${segText}`,
        tokens: [...tokenize(` ${segText}`)],
      });
      first = i + 1;
    }
  });
  return { text: said, duration, segments, words: timed };
}
