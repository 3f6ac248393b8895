// What a clip of 16-bit PCM says, by the shared transcription rule: audio this emulator spoke carries
// its words in its samples (audio/watermark.ts) and transcribes back to them exactly; other audio
// gets seeded prose whose length follows how long it is voiced (nothing for silence).
import { readText } from './audio/watermark.ts';
import { synthesizeTranscript } from './synthesize/transcript.ts';
import { frameLength, loudness } from './voice.ts';

/** Samples louder than this (of full scale) count as voiced. */
const VOICED = 0.02;

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
  return readText(samples) ?? synthesizeTranscript(voicedSeconds(samples, sampleRate), key).text;
}
