// Voice activity: how loud a stretch of 16-bit PCM is, the one measure behind turn detection and the
// transcription rule's count of voiced time.

/** Root-mean-square level of samples[start, end), as a fraction of full scale (0..1). */
export function loudness(samples: Int16Array, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i] * samples[i];
  return end > start ? Math.sqrt(sum / (end - start)) / 32768 : 0;
}

/** Samples in one 10 ms analysis frame at `sampleRate`. */
export function frameLength(sampleRate: number): number {
  return Math.max(1, Math.round(sampleRate / 100));
}
