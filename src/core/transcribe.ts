// SEAM: the shared transcription rule. Branch media-audio is building it as core/synthesize/transcript.ts
// (audio the emulator synthesized transcribes back to its text exactly; other audio gets seeded text whose
// length follows its duration). Until the two are joined, this is the duration rule alone: one seeded
// word per 0.4 s of voiced audio, nothing for silence. Realtime input transcription calls only this.
import { withFaker } from './seed.ts';
import { frameLength, loudness } from './voice.ts';

/** Samples louder than this (of full scale) count as voiced. */
const VOICED = 0.02;
const SECONDS_PER_WORD = 0.4;

/** Seconds of voiced audio, measured in 10 ms frames. */
function voicedSeconds(samples: Int16Array, sampleRate: number): number {
  const frame = frameLength(sampleRate);
  let voiced = 0;
  for (let start = 0; start < samples.length; start += frame) {
    const end = Math.min(samples.length, start + frame);
    if (loudness(samples, start, end) > VOICED) voiced += end - start;
  }
  return voiced / sampleRate;
}

/** The text heard in `samples` (16-bit mono PCM), the same for the same audio and key. */
export function transcribe(samples: Int16Array, sampleRate: number, key: number): string {
  const words = Math.round(voicedSeconds(samples, sampleRate) / SECONDS_PER_WORD);
  if (!words) return '';
  const text = withFaker(key, (f) => f.lorem.words(words));
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}
