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

/** When a turn detector calls speech started and stopped. */
export interface TurnSettings {
  /** Loudness (0..1) above which a frame is speech, before scaling (the realtime API's `threshold`). */
  threshold: number;
  /** Audio before the speech that the turn keeps, in ms. */
  prefixPaddingMs: number;
  /** Silence that ends a turn, in ms. */
  silenceDurationMs: number;
}

/** What the detector heard in a chunk: speech began (at `ms`, padding included) or stopped (at `ms`). */
interface TurnEdge {
  type: 'start' | 'stop';
  ms: number;
}

/**
 * Turn detection on streamed 16-bit PCM: speech where 10 ms frames are louder than the threshold; a
 * turn ends after enough silence. Frames run across chunks: what did not fill one waits for the next.
 */
export class TurnDetector {
  private readonly rate: number;
  private readonly frame: number;
  private at = 0;
  private speaking = false;
  private silentMs = 0;
  private tail = new Int16Array(0);

  constructor(sampleRate: number) {
    this.rate = sampleRate;
    this.frame = frameLength(sampleRate);
  }

  /** Whether speech is on (started, not stopped yet). */
  get inSpeech(): boolean {
    return this.speaking;
  }

  reset(): void {
    this.at = 0;
    this.speaking = false;
    this.silentMs = 0;
    this.tail = new Int16Array(0);
  }

  /** Feeds a chunk; `edge` hears each start and stop in order and may return false to stop reading it. */
  feed(chunk: Int16Array, settings: TurnSettings, edge: (e: TurnEdge) => boolean | undefined): void {
    const floor = settings.threshold * 0.05;
    const samples = new Int16Array(this.tail.length + chunk.length);
    samples.set(this.tail);
    samples.set(chunk, this.tail.length);
    const whole = samples.length - (samples.length % this.frame);
    this.tail = samples.slice(whole);
    for (let start = 0; start < whole; start += this.frame) {
      const loud = loudness(samples, start, start + this.frame) > floor;
      const ms = (this.at += this.frame) / (this.rate / 1000);
      if (loud && !this.speaking) {
        this.speaking = true;
        this.silentMs = 0;
        if (edge({ type: 'start', ms: Math.max(0, ms - 10 - settings.prefixPaddingMs) }) === false) return;
      } else if (this.speaking) {
        this.silentMs = loud ? 0 : this.silentMs + 10;
        if (this.silentMs >= settings.silenceDurationMs) {
          this.speaking = false;
          if (edge({ type: 'stop', ms }) === false) return;
        }
      }
    }
  }
}
