// Audio files of 16-bit mono PCM, each through a real encoder: WAV (wav-encoder), FLAC (our verbatim
// writer), MP3 (lamejs), Ogg Opus (libopus via opusscript, our Ogg writer). Each carries the words it
// speaks where transcription finds them again: the samples' low bits survive the lossless formats;
// the lossy ones carry a tag (ID3 TXXX, Vorbis/Opus comment) named TRANSCRIPT_TAG.
// The encoders load on first use, so start-up does not pay for them.
import { importNodeOnly, runsOnNode } from '../node-only.ts';

import { flacBytes } from './flac.ts';
import { oggOpusBytes } from './ogg.ts';
import { concat } from '../bytes.ts';
import { GatewayError } from '../errors.ts';
import { yieldToLoop } from '../slices.ts';

type AudioFormat = 'wav' | 'pcm' | 'flac' | 'mp3' | 'opus';

export const TRANSCRIPT_TAG = 'MGM_TRANSCRIPT';

export const CONTENT_TYPES: Record<AudioFormat | 'aac', string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

function syncsafe(n: number): number[] {
  return [(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f];
}

/** An ID3v2.4 tag holding one TXXX frame (UTF-8). */
function id3Tag(description: string, value: string): Uint8Array {
  const enc = new TextEncoder();
  const body = concat([Uint8Array.of(3), enc.encode(description), Uint8Array.of(0), enc.encode(value)]);
  const frame = concat([enc.encode('TXXX'), Uint8Array.from(syncsafe(body.length)), Uint8Array.of(0, 0), body]);
  return concat([enc.encode('ID3'), Uint8Array.of(4, 0, 0), Uint8Array.from(syncsafe(frame.length)), frame]);
}

/** Encoding runs in slices of this many seconds, letting other requests through between them. */
const SLICE_SECONDS = 2;

/** wav-encoder's 16-bit mapping (via floats, positive values scaled by 32767/32768), kept so WAV bytes stay as they were. */
const asWavEncoder = (v: number) => (v < 0 ? v : Math.round((v / 32768) * 32767));

/**
 * Little-endian 16-bit PCM after `header`, written a slice at a time with turns between: what pcmBytes
 * gives (and, with WAV's 44-byte header and `map`, what wav-encoder gives), without blocking.
 */
async function pcmAfter(header: Uint8Array, samples: Int16Array, sampleRate: number, map = (v: number) => v): Promise<Uint8Array> {
  const bytes = new Uint8Array(header.length + samples.length * 2);
  bytes.set(header);
  const view = new DataView(bytes.buffer, header.length);
  const slice = SLICE_SECONDS * sampleRate;
  for (let start = 0; start < samples.length; start += slice) {
    if (start) await yieldToLoop();
    const end = Math.min(samples.length, start + slice);
    for (let i = start; i < end; i++) view.setInt16(i * 2, map(samples[i]), true);
  }
  return bytes;
}

/** The canonical 44-byte header of a 16-bit mono PCM WAV file of `count` samples. */
function wavHeader(count: number, sampleRate: number): Uint8Array {
  const header = new Uint8Array(44);
  const v = new DataView(header.buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => (header[at + i] = c.charCodeAt(0)));
  text(0, 'RIFF');
  v.setUint32(4, 36 + count * 2, true);
  text(8, 'WAVEfmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  text(36, 'data');
  v.setUint32(40, count * 2, true);
  return header;
}

async function mp3Bytes(samples: Int16Array, sampleRate: number, text: string | undefined): Promise<Uint8Array> {
  const { Mp3Encoder } = await import('@breezystack/lamejs');
  const encoder = new Mp3Encoder(1, sampleRate, 64);
  const parts: Uint8Array[] = text === undefined ? [] : [id3Tag(TRANSCRIPT_TAG, text)];
  const slice = 1152 * Math.round((SLICE_SECONDS * sampleRate) / 1152);
  for (let i = 0; i < samples.length; i += 1152) {
    if (i && i % slice === 0) await yieldToLoop();
    parts.push(encoder.encodeBuffer(samples.subarray(i, i + 1152)));
  }
  parts.push(encoder.flush());
  return concat(parts);
}

/** libopus's look-ahead at 48 kHz for the audio application: what the decoder skips. */
const OPUS_PRE_SKIP = 312;
/** libopus's OPUS_SET_COMPLEXITY request: 3 of 10 is ~3x faster and still clean for speech. */
const OPUS_SET_COMPLEXITY = 4010;

async function opusBytes(samples: Int16Array, sampleRate: number, text: string | undefined, key: number): Promise<Uint8Array> {
  // opusscript (the only kept libopus build on npm) hands packets back as Node Buffers.
  if (!runsOnNode()) {
    throw new GatewayError(
      'invalid_request',
      "model-gateway-mock can encode 'opus' only under Node.js (its libopus build needs Node's Buffer); in a browser ask for 'mp3', 'flac', 'wav' or 'pcm'.",
      { param: 'response_format', code: 'unsupported_value' },
    );
  }
  const { default: OpusScript } = await importNodeOnly<{ default: typeof import('opusscript') }>('opusscript');
  const rate = sampleRate as 24000;
  const encoder = new OpusScript(rate, 1, OpusScript.Application.AUDIO);
  try {
    encoder.setBitrate(32000);
    encoder.encoderCTL(OPUS_SET_COMPLEXITY, 3);
    const frame = rate / 50; // 20 ms
    const scale = 48000 / rate;
    // Pad so the packets cover the look-ahead and the last partial frame.
    const needed = samples.length + Math.ceil(OPUS_PRE_SKIP / scale);
    const padded = new Int16Array(Math.ceil(needed / frame) * frame);
    padded.set(samples);
    const packets: Uint8Array[] = [];
    for (let i = 0; i < padded.length; i += frame) {
      if (i && i % (frame * 50 * SLICE_SECONDS) === 0) await yieldToLoop();
      // opusscript copies its input into a 16-bit heap view element by element: hand it samples, not bytes.
      packets.push(Uint8Array.from(encoder.encode(new Uint16Array(padded.buffer, i * 2, frame) as unknown as Buffer, frame)));
    }
    return oggOpusBytes({
      packets,
      frameSamples48k: frame * scale,
      preSkip: OPUS_PRE_SKIP,
      totalSamples48k: samples.length * scale,
      inputSampleRate: rate,
      comments: text === undefined ? [] : [`${TRANSCRIPT_TAG}=${text}`],
      serial: (key % 4294967296) >>> 0,
    });
  } finally {
    encoder.delete();
  }
}

/** A file of `samples` in `format`, carrying `text` (if given) for transcription; `key` seeds what a format draws (Ogg serial). */
export async function encodeAudio(
  samples: Int16Array,
  sampleRate: number,
  format: AudioFormat,
  text: string | undefined,
  key: number,
): Promise<Uint8Array> {
  switch (format) {
    case 'pcm':
      return pcmAfter(new Uint8Array(0), samples, sampleRate);
    case 'wav':
      return pcmAfter(wavHeader(samples.length, sampleRate), samples, sampleRate, asWavEncoder);
    case 'flac':
      return flacBytes(samples, sampleRate, text === undefined ? [] : [`${TRANSCRIPT_TAG}=${text}`]);
    case 'mp3':
      return mp3Bytes(samples, sampleRate, text);
    case 'opus':
      return opusBytes(samples, sampleRate, text, key);
  }
}
