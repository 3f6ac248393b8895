// OpenAI audio through the openai SDK, in both modes: speech in every format checked by real decoders,
// speech ⇒ transcription round trips in every response format, Gemini speech ⇒ transcription, SSE,
// bad uploads, fixtures and determinism.
import { describe, expect, it } from 'vitest';
import OpenAI, { BadRequestError, NotFoundError, toFile } from 'openai';
import { GoogleGenAI, Modality } from '@google/genai';
import { MPEGDecoder } from 'mpg123-decoder';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { modes, withGateway } from './helpers/modes.ts';
import { assertSchema } from './helpers/openapi.ts';
import { parseSse } from '../src/pipeline/framing.ts';

const SAY = 'The quick brown fox jumps over the lazy dog. Then it naps in the sun!';

const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer());

/** Decoded duration in seconds, by a real decoder for each container. */
async function decodedSeconds(format: string, bytes: Uint8Array): Promise<number> {
  const decoders = {
    mp3: () => new MPEGDecoder(),
    opus: () => new OggOpusDecoder(),
    flac: () => new FLACDecoder(),
  };
  if (format in decoders) {
    const d = decoders[format as keyof typeof decoders]();
    await d.ready;
    const r = await ('decodeFile' in d ? d.decodeFile(bytes) : d.decode(bytes));
    d.free();
    expect(r.errors).toEqual([]);
    if (format === 'flac') expect((r as { bitDepth: number }).bitDepth).toBe(16);
    return r.samplesDecoded / r.sampleRate;
  }
  if (format === 'wav') {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('RIFF');
    expect(view.getUint16(20, true)).toBe(1); // PCM
    expect(view.getUint32(24, true)).toBe(24000);
    expect(view.getUint16(34, true)).toBe(16);
    return view.getUint32(40, true) / 2 / 24000;
  }
  return bytes.length / 2 / 24000; // pcm
}

const MAGIC: Record<string, (b: Uint8Array) => boolean> = {
  mp3: (b) => String.fromCharCode(...b.subarray(0, 3)) === 'ID3',
  opus: (b) => String.fromCharCode(...b.subarray(0, 4)) === 'OggS' && String.fromCharCode(...b.subarray(28, 36)) === 'OpusHead',
  flac: (b) => String.fromCharCode(...b.subarray(0, 4)) === 'fLaC',
  wav: (b) => String.fromCharCode(...b.subarray(8, 12)) === 'WAVE',
  pcm: (b) => b.length % 2 === 0,
};
const CONTENT_TYPE: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
const FORMATS = ['mp3', 'opus', 'flac', 'wav', 'pcm'] as const;

describe.each(modes)('OpenAI audio ($name)', (mode) => {
  const ctx = withGateway(mode, {
    fixtures: [
      {
        name: 'pinned-transcript',
        match: { endpoint: { contains: 'transcriptions' }, userMessage: 'pin my transcript' },
        reply: { text: 'Pinned words.' },
      },
      {
        name: 'clip',
        match: { endpoint: { contains: 'speech' }, userMessage: 'play the clip' },
        reply: { audio: Buffer.from(new Int16Array([1, -1, 256, -32768]).buffer).toString('base64') },
      },
      {
        name: 'speech-503',
        match: { endpoint: { contains: 'speech' }, userMessage: 'fail this speech' },
        error: { status: 503, message: 'busy' },
      },
    ],
  });
  const speak = (format: (typeof FORMATS)[number], extra: Partial<OpenAI.Audio.SpeechCreateParams> = {}) =>
    ctx.client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: SAY, voice: 'alloy', response_format: format, ...extra });

  it.each(FORMATS)('speaks %s that a real decoder reads, of the right length', async (format) => {
    const res = await speak(format);
    expect(res.headers.get('content-type')).toBe(CONTENT_TYPE[format]);
    const bytes = await bytesOf(res);
    expect(MAGIC[format](bytes)).toBe(true);
    const seconds = await decodedSeconds(format, bytes);
    const reference = await decodedSeconds('pcm', await bytesOf(await speak('pcm')));
    expect(reference).toBeGreaterThan(2);
    // MP3 frames round the end up (under 0.1 s); the rest are exact.
    expect(Math.abs(seconds - reference)).toBeLessThan(format === 'mp3' ? 0.1 : 1e-6);
  });

  it('changes the duration with speed, and each voice sounds different', async () => {
    const normal = (await bytesOf(await speak('pcm'))).length;
    const fast = (await bytesOf(await speak('pcm', { speed: 2 }))).length;
    const slow = (await bytesOf(await speak('pcm', { speed: 0.5 }))).length;
    expect(fast / normal).toBeGreaterThan(0.45);
    expect(fast / normal).toBeLessThan(0.6);
    expect(slow / normal).toBeGreaterThan(1.8);
    const a = await bytesOf(await speak('pcm', { voice: 'alloy' }));
    const b = await bytesOf(await speak('pcm', { voice: 'onyx' }));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('gives identical bytes for the same request', async () => {
    for (const format of ['mp3', 'opus', 'flac'] as const) {
      const a = await bytesOf(await speak(format));
      const b = await bytesOf(await speak(format));
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    }
  });

  it('streams speech as speech.audio.delta events and a done event with usage', async () => {
    const res = await speak('pcm', { stream_format: 'sse' });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    const events = parseSse(text).map((f) => JSON.parse(f.data));
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    expect(deltas.length).toBeGreaterThan(1);
    const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio, 'base64')));
    expect(audio.equals(Buffer.from(await bytesOf(await speak('pcm'))))).toBe(true);
    const done = events.at(-1);
    expect(done.type).toBe('speech.audio.done');
    assertSchema('SpeechAudioDoneEvent', done);
    assertSchema('SpeechAudioDeltaEvent', deltas[0]);
    expect(done.usage.total_tokens).toBe(done.usage.input_tokens + done.usage.output_tokens);
  });

  it('refuses what the service refuses: aac, long input, unknown voice, wrong model, sse on tts-1', async () => {
    await expect(ctx.client.audio.speech.create({ model: 'tts-1', input: 'hi', voice: 'alloy', response_format: 'aac' })).rejects.toThrow(
      /cannot produce 'aac'/,
    );
    await expect(ctx.client.audio.speech.create({ model: 'tts-1', input: 'x'.repeat(4097), voice: 'alloy' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(ctx.client.audio.speech.create({ model: 'tts-1', input: 'hi', voice: 'robot' })).rejects.toThrow(
      /Invalid value for 'voice'/,
    );
    await expect(ctx.client.audio.speech.create({ model: 'tts-1', input: 'hi', voice: 'alloy', speed: 5 })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(ctx.client.audio.speech.create({ model: 'whisper-1', input: 'hi', voice: 'alloy' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      ctx.client.audio.speech.create({ model: 'tts-1', input: 'hi', voice: 'alloy', stream_format: 'sse' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(ctx.client.audio.speech.create({ model: 'tts-1', input: 'fail this speech', voice: 'alloy' })).rejects.toThrow(/busy/);
  });

  describe('speech ⇒ transcription', () => {
    it.each(FORMATS)('gives the original text back from %s', async (format) => {
      const audio = await bytesOf(await speak(format));
      const file = await toFile(audio, `speech.${format}`, { type: CONTENT_TYPE[format] });
      const r = await ctx.client.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file });
      expect(r.text).toBe(SAY);
      expect(r.usage).toMatchObject({ type: 'tokens' });
      assertSchema('CreateTranscriptionResponseJson', r);
    });

    it('answers in every response format, cues inside the real duration', async () => {
      const audio = await bytesOf(await speak('wav'));
      const duration = (audio.length - 44) / 2 / 24000;
      const file = () => toFile(audio, 'speech.wav', { type: 'audio/wav' });
      const json = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await file() });
      expect(json).toEqual({ text: SAY, usage: { type: 'duration', seconds: Math.ceil(duration) } });
      const text = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await file(), response_format: 'text' });
      expect(text).toBe(SAY);
      const verbose = await ctx.client.audio.transcriptions.create({
        model: 'whisper-1',
        file: await file(),
        response_format: 'verbose_json',
        timestamp_granularities: ['word', 'segment'],
        language: 'en',
      });
      assertSchema('CreateTranscriptionResponseVerboseJson', verbose);
      expect(verbose.text).toBe(SAY);
      expect(verbose.language).toBe('english');
      expect(verbose.duration).toBeCloseTo(duration, 1);
      expect(verbose.segments!.map((s) => s.text.trim()).join(' ')).toBe(SAY);
      expect(verbose.words!.map((w) => w.word)).toEqual(SAY.split(' ').map((w) => w.replace(/[.!]$/, '')));
      for (const t of [...verbose.segments!, ...verbose.words!]) {
        expect(t.start).toBeGreaterThanOrEqual(0);
        expect(t.end).toBeGreaterThanOrEqual(t.start);
        expect(t.end).toBeLessThanOrEqual(duration);
      }
      for (const format of ['srt', 'vtt'] as const) {
        const subs = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await file(), response_format: format });
        expect(typeof subs).toBe('string');
        if (format === 'vtt') expect(subs.startsWith('WEBVTT\n\n')).toBe(true);
        const cues = [...subs.matchAll(/(\d\d):(\d\d):(\d\d)[,.](\d{3}) --> (\d\d):(\d\d):(\d\d)[,.](\d{3})\n(.+)\n/g)];
        expect(cues.length).toBe(2);
        expect(cues.map((c) => c[9]).join(' ')).toBe(SAY);
        for (const c of cues) {
          const end = Number(c[5]) * 3600 + Number(c[6]) * 60 + Number(c[7]) + Number(c[8]) / 1000;
          expect(end).toBeLessThanOrEqual(duration);
        }
      }
      const translated = await ctx.client.audio.translations.create({ model: 'whisper-1', file: await file() });
      expect(translated.text).toBe(SAY);
    });

    it('streams the transcript as transcript.text.delta events and a done event', async () => {
      const audio = await bytesOf(await speak('flac'));
      const stream = await ctx.client.audio.transcriptions.create({
        model: 'gpt-4o-mini-transcribe',
        file: await toFile(audio, 'speech.flac'),
        stream: true,
        include: ['logprobs'],
      });
      let text = '';
      let done: OpenAI.Audio.TranscriptionTextDoneEvent | undefined;
      for await (const event of stream) {
        if (event.type === 'transcript.text.delta') {
          text += event.delta;
          expect(event.logprobs).toHaveLength(1);
        } else if (event.type === 'transcript.text.done') done = event;
      }
      expect(text).toBe(SAY);
      expect(done!.text).toBe(SAY);
      expect(done!.usage!.total_tokens).toBe(done!.usage!.input_tokens + done!.usage!.output_tokens);
      expect(done!.logprobs!.map((l) => l.token).join('')).toBe(SAY);
    });

    it('transcribes Gemini speech (raw PCM) back to its text', async () => {
      const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root } });
      const said = 'Say cheerfully: have a wonderful day!';
      const r = await google.models.generateContent({
        model: 'gemini-2.5-flash-preview-tts',
        contents: said,
        config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      });
      const pcm = Buffer.from(r.candidates![0].content!.parts![0].inlineData!.data!, 'base64');
      const t = await ctx.client.audio.transcriptions.create({
        model: 'whisper-1',
        file: await toFile(pcm, 'gemini.pcm', { type: 'audio/pcm' }),
        response_format: 'verbose_json',
      });
      expect(t.text).toBe(said);
      expect(t.duration).toBeCloseTo(pcm.length / 2 / 24000, 1);
    });
  });

  it('transcribes other audio as text that grows with its duration, the same every time', async () => {
    const wav = (seconds: number) => {
      const samples = new Int16Array(24000 * seconds).map((_, i) => Math.round(8000 * Math.sin(i / 9)));
      const out = Buffer.alloc(44 + samples.length * 2);
      out.write('RIFF', 0);
      out.writeUInt32LE(36 + samples.length * 2, 4);
      out.write('WAVEfmt ', 8);
      out.writeUInt32LE(16, 16);
      out.writeUInt16LE(1, 20);
      out.writeUInt16LE(1, 22);
      out.writeUInt32LE(24000, 24);
      out.writeUInt32LE(48000, 28);
      out.writeUInt16LE(2, 32);
      out.writeUInt16LE(16, 34);
      out.write('data', 36);
      out.writeUInt32LE(samples.length * 2, 40);
      Buffer.from(samples.buffer).copy(out, 44);
      return out;
    };
    const short = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav(2), 'a.wav') });
    const long = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav(12), 'b.wav') });
    const again = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav(12), 'b.wav') });
    expect(short.text.split(' ').length).toBeGreaterThan(2);
    expect(long.text.split(' ').length).toBeGreaterThan(short.text.split(' ').length * 3);
    expect(again).toEqual(long);
  });

  it('lets a fixture pin a transcript (matched on what the audio says)', async () => {
    const audio = await bytesOf(
      await ctx.client.audio.speech.create({ model: 'tts-1', input: 'pin my transcript', voice: 'nova', response_format: 'wav' }),
    );
    const r = await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(audio, 'a.wav') });
    expect(r.text).toBe('Pinned words.');
  });

  it('refuses bad uploads as the service does', async () => {
    const wav = await bytesOf(await speak('wav'));
    await expect(
      ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('just some text'), 'notes.txt') }),
    ).rejects.toThrow(/Invalid file format/);
    await expect(
      ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('RIFF\0\0\0\0WAVEjunk'), 'broken.wav') }),
    ).rejects.toThrow(/corrupted/);
    await expect(ctx.client.audio.transcriptions.create({ model: 'whisper-1' } as never)).rejects.toThrow(/'file'/);
    await expect(ctx.client.audio.transcriptions.create({ model: 'tts-1', file: await toFile(wav, 'a.wav') })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      ctx.client.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(wav, 'a.wav'), response_format: 'srt' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(
      ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'a.wav'), stream: true }),
    ).rejects.toBeInstanceOf(BadRequestError);
    const big = await ctx.client.audio.transcriptions
      .create({ model: 'whisper-1', file: await toFile(new Uint8Array(25 * 1024 * 1024 + 1), 'big.wav') })
      .catch((e: unknown) => e);
    expect(big).toBeInstanceOf(BadRequestError);
    expect(String((big as Error).message)).toMatch(/Maximum content size limit/);
  });

  it('sends a fixture-pinned clip as speech, in any format', async () => {
    const pcm = await bytesOf(
      await ctx.client.audio.speech.create({ model: 'tts-1', input: 'play the clip', voice: 'alloy', response_format: 'pcm' }),
    );
    expect([...new Int16Array(pcm.buffer, pcm.byteOffset, 4)]).toEqual([1, -1, 256, -32768]);
    const flac = await bytesOf(
      await ctx.client.audio.speech.create({ model: 'tts-1', input: 'play the clip', voice: 'alloy', response_format: 'flac' }),
    );
    expect(await decodedSeconds('flac', flac)).toBeCloseTo(4 / 24000, 6);
  });

  it('applies x-mock-* overrides and faults to audio endpoints', async () => {
    const wav = await bytesOf(await speak('wav'));
    const forced = await ctx.client.audio.transcriptions
      .create({ model: 'whisper-1', file: await toFile(wav, 'a.wav') }, { headers: { 'x-mock-status': '429' } })
      .catch((e: unknown) => e);
    expect(forced).toBeInstanceOf(OpenAI.RateLimitError);
    const post = (headers: Record<string, string>) =>
      fetch(`${ctx.gw.root}/v1/audio/speech`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini-tts', input: SAY, voice: 'ash', response_format: 'mp3', stream_format: 'sse' }),
      });
    const failed = await (await post({ 'x-mock-fault': 'STREAM_ERROR,after=1,status=500' })).text();
    const frames = parseSse(failed).map((f) => JSON.parse(f.data));
    expect(frames).toHaveLength(2);
    expect(frames[0].type).toBe('speech.audio.delta');
    expect(frames[1].error.type).toBe('server_error');
    await expect(post({ 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' }).then((r) => r.arrayBuffer())).rejects.toThrow();
    const reseeded = await bytesOf(
      await ctx.client.audio.speech.create(
        { model: 'tts-1', input: 'seeded', voice: 'alloy', response_format: 'pcm' },
        { headers: { 'x-mock-seed': '9' } },
      ),
    );
    const plain = await bytesOf(
      await ctx.client.audio.speech.create({ model: 'tts-1', input: 'seeded', voice: 'alloy', response_format: 'pcm' }),
    );
    expect(Buffer.from(reseeded).equals(Buffer.from(plain))).toBe(false);
  });

  it('journals the upload by name, type and size', async () => {
    const wav = await bytesOf(await speak('wav'));
    await ctx.client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'journal.wav', { type: 'audio/wav' }) });
    const entry = (await ctx.gw.requests()).filter((e) => e.path === '/v1/audio/transcriptions').at(-1)!;
    expect(entry.body).toMatchObject({ model: 'whisper-1', file: { filename: 'journal.wav', type: 'audio/wav', bytes: wav.length } });
    expect(entry.status).toBe(200);
  });
});
