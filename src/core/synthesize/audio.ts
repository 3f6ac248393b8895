// Speech-like audio: 24 kHz 16-bit mono PCM, one voiced tone per syllable. Each voice has its own
// pitch, timbre and pace (derived from its name), so voices differ and each always sounds the same;
// duration grows with the text. The text itself rides in the samples' low bits (core/audio/watermark.ts),
// so a transcription of this audio gives it back exactly.
import WavEncoder from 'wav-encoder';
import { hashString, Rng } from '../seed.ts';
import { embedText } from '../audio/watermark.ts';
import { yieldToLoop } from '../slices.ts';

export const SPEECH_SAMPLE_RATE = 24000;

/** Audio tokens per second of speech (Gemini's rate; used for every format's audio usage). */
export const AUDIO_TOKENS_PER_SECOND = 25;

interface SpeechOptions {
  /** Pace, 0.25..4: 2 speaks in half the time. Default 1. */
  speed?: number;
  /** The text hidden in the samples for transcription to recover. Default: the segments' texts, one a line. */
  text?: string;
}

export interface SpeechSegment {
  text: string;
  voice: string;
}

interface Voice {
  pitch: number;
  /** Relative strength of harmonics 1..5. */
  harmonics: number[];
  syllablesPerSecond: number;
}

const TABLE_SIZE = 4096;

function voiceOf(name: string): Voice & { wave: Float64Array } {
  const rng = new Rng(hashString(name.toLowerCase()));
  const voice = {
    pitch: 95 + rng.next() * 150,
    harmonics: [1, 0.3 + rng.next() * 0.6, 0.1 + rng.next() * 0.5, rng.next() * 0.3, rng.next() * 0.2],
    syllablesPerSecond: 3.2 + rng.next() * 1.4,
  };
  // One period of the voice's timbre: every pitch plays the same shape faster or slower, so a sample
  // is one table look-up instead of a sine per harmonic.
  const wave = new Float64Array(TABLE_SIZE + 1);
  for (let i = 0; i <= TABLE_SIZE; i++) {
    voice.harmonics.forEach((weight, h) => (wave[i] += weight * Math.sin((2 * Math.PI * (h + 1) * i) / TABLE_SIZE)));
  }
  return { ...voice, wave };
}

function syllables(word: string): number {
  return Math.max(1, (word.toLowerCase().match(/[aeiouy]+/g) ?? []).length);
}

/**
 * The segments cut after the last whole word that ends within `seconds` of speech (timed as
 * synthesizeSpeech times it), and whether anything was cut: output limits end speech early.
 */
export function speechWithin(segments: readonly SpeechSegment[], seconds: number, speed = 1): { segments: SpeechSegment[]; cut: boolean } {
  let at = 0.2 / speed; // the leading and trailing silence
  const kept: SpeechSegment[] = [];
  for (const segment of segments) {
    const voice = voiceOf(segment.voice);
    const syllable = Math.round(SPEECH_SAMPLE_RATE / (voice.syllablesPerSecond * speed)) / SPEECH_SAMPLE_RATE;
    const words = segment.text.split(/\s+/).filter(Boolean);
    for (let w = 0; w < words.length; w++) {
      at += syllables(words[w]) * syllable + (/[.!?]$/.test(words[w]) ? 0.3 : 0.06) / speed;
      if (at > seconds) {
        if (w) kept.push({ ...segment, text: words.slice(0, w).join(' ') });
        return { segments: kept, cut: true };
      }
    }
    kept.push(segment);
  }
  return { segments: kept, cut: false };
}

/** Samples made between turns for other clients (about a second of speech): bounds one slice's work. */
export const SPEECH_SLICE_SAMPLES = SPEECH_SAMPLE_RATE;

/**
 * Synthesis as steps: yields the samples made so far after each word once a slice's worth is made, and
 * returns the finished samples. Sync and sliced callers run the same steps, so they give the same bytes.
 */
function* speechSteps(segments: readonly SpeechSegment[], key: number, options: SpeechOptions): Generator<number, Int16Array> {
  const rng = new Rng(key);
  const speed = options.speed ?? 1;
  // Two bytes a sample, grown by doubling: a long slow clip must not hold a JS number per sample.
  let out = new Int16Array(SPEECH_SAMPLE_RATE);
  let size = 0;
  let sliceStart = 0;
  const room = (n: number) => {
    if (size + n <= out.length) return;
    const grown = new Int16Array(Math.max(out.length * 2, size + n));
    grown.set(out.subarray(0, size));
    out = grown;
  };
  const silence = (seconds: number) => {
    const n = Math.round((seconds / speed) * SPEECH_SAMPLE_RATE);
    room(n);
    size += n; // already zero
  };
  silence(0.1);
  for (const { text, voice: name } of segments) {
    const voice = voiceOf(name);
    // Every syllable of a voice lasts as long: its loudness envelope is computed once, not per sample.
    const length = Math.round(SPEECH_SAMPLE_RATE / (voice.syllablesPerSecond * speed));
    const envelopeOf = Float64Array.from({ length }, (_, i) => Math.sin((Math.PI * i) / length) ** 0.6);
    for (const word of text.split(/\s+/).filter(Boolean)) {
      for (let s = syllables(word); s > 0; s--) {
        const f0 = voice.pitch * (0.9 + rng.next() * 0.25);
        room(length);
        const step = (f0 * TABLE_SIZE) / SPEECH_SAMPLE_RATE;
        for (let i = 0; i < length; i++) {
          const envelope = envelopeOf[i];
          const phase = (i * step) % TABLE_SIZE;
          const at = Math.floor(phase);
          const v = voice.wave[at] + (voice.wave[at + 1] - voice.wave[at]) * (phase - at);
          out[size++] = Math.max(-32768, Math.min(32767, Math.round(envelope * v * 6000)));
        }
      }
      silence(/[.!?]$/.test(word) ? 0.3 : 0.06);
      if (size - sliceStart >= SPEECH_SLICE_SAMPLES) {
        sliceStart = size;
        yield size;
      }
    }
  }
  silence(0.1);
  return embedText(out.subarray(0, size), options.text ?? segments.map((s) => s.text).join('\n'));
}

/** PCM samples speaking `segments` in turn, the same for the same key. */
export function synthesizeSpeech(segments: readonly SpeechSegment[], key: number, options: SpeechOptions = {}): Int16Array {
  const steps = speechSteps(segments, key, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Where sliced synthesis reports its work, and how it learns that nobody wants the rest. */
export interface SpeechWork {
  /** Told of the samples made by each slice, as they are made. */
  count(samples: number): void;
  /** Asked at every turn: true stops the synthesis there (the result is then undefined). */
  stopped?: () => boolean;
}

/**
 * synthesizeSpeech a slice (about a second of speech) at a time, with a turn for other clients between
 * slices; counts the samples made on `work` and stops at the first turn where `work.stopped()` holds.
 * The samples are those synthesizeSpeech gives.
 */
export async function synthesizeSpeechSliced(
  segments: readonly SpeechSegment[],
  key: number,
  options: SpeechOptions,
  work: SpeechWork,
): Promise<Int16Array | undefined> {
  const steps = speechSteps(segments, key, options);
  let counted = 0;
  for (;;) {
    const step = steps.next();
    const made = step.done ? step.value.length : step.value;
    work.count(made - counted);
    counted = made;
    if (step.done) return step.value;
    await yieldToLoop();
    if (work.stopped?.()) return undefined;
  }
}

/**
 * The speech of each text block of a reply, as a live session speaks it: a block at a time, sliced
 * (synthesizeSpeechSliced), a turn for other clients before each block; `voice` undefined makes none
 * (a text response) but keeps the turns. Each block's key is `key(index)`. A session that ends
 * meanwhile (`work.stopped()`) gets nothing more made (undefined).
 */
export async function speakTextBlocks(
  blocks: readonly { type: string; text?: string }[],
  voice: string | undefined,
  key: (block: number) => number,
  work: SpeechWork,
): Promise<Map<number, Int16Array> | undefined> {
  const speech = new Map<number, Int16Array>();
  for (let b = 0; b < blocks.length; b++) {
    await yieldToLoop();
    if (work.stopped?.()) return undefined;
    const block = blocks[b];
    if (voice === undefined || block.type !== 'text') continue;
    const samples = await synthesizeSpeechSliced([{ text: block.text ?? '', voice }], key(b), {}, work);
    if (!samples) return undefined;
    speech.set(b, samples);
  }
  return speech;
}

/** Little-endian bytes of the samples, whatever the platform's byte order. */
export function pcmBytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  samples.forEach((v, i) => view.setInt16(i * 2, v, true));
  return bytes;
}

/** A WAV file of the samples. */
export function wavBytes(samples: Int16Array, sampleRate = SPEECH_SAMPLE_RATE): Uint8Array {
  const channel = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) channel[i] = samples[i] / 32768;
  return new Uint8Array(WavEncoder.encode.sync({ sampleRate, channelData: [channel] }, { bitDepth: 16, float: false, symmetric: false }));
}

/** Seconds of audio. */
export function durationOf(samples: Int16Array, sampleRate = SPEECH_SAMPLE_RATE): number {
  return samples.length / sampleRate;
}

const BASE64 = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', (c) => c.charCodeAt(0));
const PAD = 61; // '='

/**
 * Base64 without Buffer, so the core also runs in browsers: written as ASCII bytes and decoded once,
 * linear and allocation-light (btoa over a binary string took over a second for minutes of audio).
 */
export function toBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let j = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[j++] = BASE64[n >>> 18];
    out[j++] = BASE64[(n >>> 12) & 63];
    out[j++] = BASE64[(n >>> 6) & 63];
    out[j++] = BASE64[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out[j++] = BASE64[n >>> 18];
    out[j++] = BASE64[(n >>> 12) & 63];
    out[j++] = i + 1 < bytes.length ? BASE64[(n >>> 6) & 63] : PAD;
    out[j++] = PAD;
  }
  return new TextDecoder().decode(out);
}

/** Samples from base64 little-endian 16-bit PCM (a fixture's pinned audio). */
export function pcmFromBase64(base64: string): Int16Array {
  const binary = atob(base64);
  const view = new DataView(Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer);
  return Int16Array.from({ length: Math.floor(binary.length / 2) }, (_, i) => view.getInt16(i * 2, true));
}
