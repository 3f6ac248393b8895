// OpenAI audio: /v1/audio/speech (text to an audio file, or an SSE stream of it) and
// /v1/audio/transcriptions and /v1/audio/translations (multipart upload to text, subtitles or an SSE
// stream). Speech comes from the core's speech synthesizer and encoders; text from the transcript
// synthesizer, which gives back the exact words of audio this emulator spoke.
import { GatewayError } from '../../core/errors.ts';
import { operationRequest } from '../../core/request.ts';
import { hashString, stableStringify } from '../../core/seed.ts';
import { countTokens, splitTokens } from '../../core/tokens.ts';
import { pieceTimes } from '../../core/timing.ts';
import {
  AUDIO_TOKENS_PER_SECOND,
  durationOf,
  pcmFromBase64,
  SPEECH_SAMPLE_RATE,
  synthesizeSpeechSliced,
  toBase64,
} from '../../core/synthesize/audio.ts';
import { synthesizeTranscript, type Transcript } from '../../core/synthesize/transcript.ts';
import { synthesizeLogprobs } from '../../core/synthesize/logprobs.ts';
import { CONTENT_TYPES, encodeAudio } from '../../core/audio/encode.ts';
import { probeAudio, UnknownAudio } from '../../core/audio/decode.ts';
import type { Call, Handler } from '../../pipeline/call.ts';
import { isUpload, json, type Upload } from '../../pipeline/exchange.ts';
import { decidedOutbound, decidedStream } from '../../pipeline/delivery.ts';
import type { StreamEvent } from '../../pipeline/framing.ts';
import { checkFields, invalid, invalidType, invalidValue, missing, unknownField } from './validate.ts';
import { type FieldRules, isOneOf, refuseUnrecognized, type JsonObject } from '../fields.ts';
import { decide, isForward, requireModel } from '../../pipeline/decide.ts';
import { transcriptionUsage } from './transcription-usage.ts';

// ---- speech ----

/** The voices the openai SDK documents for /v1/audio/speech. */
const SPEECH_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
const MAX_INPUT_CHARS = 4096;

const SPEECH_FIELDS = {
  model: { types: ['string'], required: true },
  input: { types: ['string'], required: true },
  voice: { types: ['string', 'object'], required: true },
  instructions: { types: ['string'] },
  response_format: { types: ['string'], values: SPEECH_FORMATS },
  speed: { types: ['number'], min: 0.25, max: 4 },
  stream_format: { types: ['string'], values: ['sse', 'audio'] },
} as const satisfies FieldRules;

/** Models that predate streamed speech events (and instructions). */
const isTts1 = (model: string) => /^tts-1(-hd)?($|-)/.test(model);

function voiceName(voice: string | JsonObject): string {
  if (typeof voice === 'object') {
    const id = voice.id;
    if (typeof id !== 'string' || !id) throw invalidType('voice.id', ['string'], id);
    return id;
  }
  if (!SPEECH_VOICES.includes(voice)) throw invalidValue('voice', voice, SPEECH_VOICES);
  return voice;
}

async function speech(call: Call<JsonObject>) {
  const body = call.body;
  checkFields(body, SPEECH_FIELDS);
  const model = body.model;
  call.entry.model = model;
  requireModel(call, model, 'speech');
  const input = body.input;
  if (input.length > MAX_INPUT_CHARS) {
    throw invalid(
      'input',
      `Invalid 'input': string too long. Expected a string with maximum length ${MAX_INPUT_CHARS}, but got a string with length ${input.length} instead.`,
      'string_above_max_length',
    );
  }
  const voice = voiceName(body.voice);
  const format = body.response_format ?? 'mp3';
  if (format === 'aac') {
    throw invalid(
      'response_format',
      "model-gateway-mock cannot produce 'aac': no well-kept AAC encoder runs in JavaScript or WebAssembly, and it will not label other audio as AAC. Ask for 'mp3', 'opus', 'flac', 'wav' or 'pcm'.",
      'unsupported_value',
    );
  }
  const sse = body.stream_format === 'sse';
  if (sse && isTts1(model))
    throw invalid(
      'stream_format',
      `stream_format 'sse' is not supported for model ${model}; use gpt-4o-mini-tts or stream_format 'audio'.`,
      'unsupported_value',
    );
  const decision = decide(call, { ...operationRequest('openai', 'speech', model, input), stream: sse });
  if (isForward(decision)) return decision;
  const speed = body.speed ?? 1;
  const key = hashString(stableStringify({ model, input, voice, instructions: body.instructions, speed }), decision.seed);
  const pinned = decision.pinned?.audio;
  // A pinned clip is sent as given (it carries no transcript); synthesized speech carries its input.
  // Made a slice at a time with turns for other clients, its samples counted on the journal entry.
  const count = (made: number) => (call.entry.speechSamples = (call.entry.speechSamples ?? 0) + made);
  const samples =
    pinned !== undefined
      ? pcmFromBase64(pinned)
      : (await synthesizeSpeechSliced([{ text: input, voice }], key, { speed, text: input }, { count }))!;
  const text = pinned !== undefined ? undefined : input;
  const encode = () => encodeAudio(samples, SPEECH_SAMPLE_RATE, format, text, key);
  const contentType = CONTENT_TYPES[format];
  if (!sse) {
    return decidedOutbound(call, decision, key, async () => ({
      status: 200,
      headers: { 'content-type': contentType },
      body: await encode(),
    }));
  }
  const bytes = await encode();
  const inputTokens = countTokens(input);
  const outputTokens = Math.ceil(durationOf(samples) * AUDIO_TOKENS_PER_SECOND);
  const CHUNK = 12_000;
  const pieces = Math.max(1, Math.ceil(bytes.length / CHUNK));
  const times = pieceTimes(decision.latency, pieces + 1, key);
  const usage = { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
  // Each delta's base64 made as it is written.
  function* events(): Generator<StreamEvent> {
    for (let i = 0; i < pieces; i++) {
      const audio = toBase64(bytes.subarray(i * CHUNK, (i + 1) * CHUNK));
      yield { due: times[i], data: JSON.stringify({ type: 'speech.audio.delta', audio }) };
    }
    yield { due: times[pieces], data: JSON.stringify({ type: 'speech.audio.done', usage }) };
  }
  return decidedStream(call, decision, key, events);
}

// ---- transcription and translation ----

const MAX_FILE_BYTES = 25 * 1024 * 1024;
const RESPONSE_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'];
const SUPPORTED_FILES = "['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']";

const LANGUAGES: Record<string, string> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  ja: 'japanese',
  zh: 'chinese',
  ko: 'korean',
  ru: 'russian',
  pl: 'polish',
  sv: 'swedish',
  tr: 'turkish',
  ar: 'arabic',
  hi: 'hindi',
  uk: 'ukrainian',
};

/** Text fields of a multipart form, as OpenAI reads them (all values arrive as strings). */
const TRANSCRIPTION_FIELDS = [
  'file',
  'model',
  'language',
  'prompt',
  'response_format',
  'temperature',
  'timestamp_granularities',
  'include',
  'stream',
  'chunking_strategy',
  'known_speaker_names',
  'known_speaker_references',
  'keywords',
  'languages',
];
const TRANSLATION_FIELDS = ['file', 'model', 'prompt', 'response_format', 'temperature'];

// A form's fields are strings and uploads (a FormBody); the checks below also hold for a JSON body
// sent under a multipart-looking content type the pipeline did not parse as one.
function field(form: JsonObject, name: string): string | undefined {
  const v = form[name];
  if (v === undefined) return undefined;
  const one = Array.isArray(v) ? v[0] : v;
  if (isUpload(one)) throw invalidType(name, ['string'], {});
  if (typeof one !== 'string') throw invalidType(name, ['string'], one);
  return one;
}

function listField(form: JsonObject, name: string, allowed: readonly string[]): string[] {
  const v = form[name];
  const list: unknown[] = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.map((x, i) => {
    if (!isOneOf(allowed, x)) throw invalidValue(`${name}[${i}]`, isUpload(x) ? x.filename : x, allowed);
    return x;
  });
}

interface TranscriptionAsk {
  model: string;
  upload: Upload;
  format: string;
  language?: string;
  prompt?: string;
  temperature: number;
  granularities: string[];
  logprobs: boolean;
  stream: boolean;
  translate: boolean;
}

function parseTranscription(call: Call<JsonObject>, translate: boolean): TranscriptionAsk {
  const contentType = call.inbound.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    throw new GatewayError(
      'invalid_request',
      `Invalid Content-Type header (${contentType.split(';')[0] || 'none'}), expected multipart/form-data. (HINT: If you're using curl, you can pass -F 'file=@<file_path>' and -F 'model=<model_name>')`,
    );
  }
  const form = call.body;
  const known = translate ? TRANSLATION_FIELDS : TRANSCRIPTION_FIELDS;
  refuseUnrecognized(
    form,
    Object.keys(form).filter((name) => !known.includes(name)),
    unknownField,
  );
  const model = field(form, 'model');
  if (!model) throw missing('model');
  call.entry.model = model;
  const file = form.file;
  const upload = Array.isArray(file) ? file[0] : file;
  if (file === undefined) throw missing('file');
  if (!isUpload(upload))
    throw invalid(
      'file',
      "Invalid 'file': expected an uploaded file (multipart part with a filename), but got a string instead.",
      'invalid_type',
    );
  requireModel(call, model, 'transcription');
  const format = field(form, 'response_format') ?? 'json';
  if (!RESPONSE_FORMATS.includes(format)) throw invalidValue('response_format', format, RESPONSE_FORMATS);
  const whisper = model.startsWith('whisper');
  if (!whisper && !['json', 'text'].includes(format)) {
    throw invalid(
      'response_format',
      `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
      'unsupported_value',
    );
  }
  const temperatureText = field(form, 'temperature');
  const temperature = temperatureText === undefined ? 0 : Number(temperatureText);
  if (!Number.isFinite(temperature)) throw invalidType('temperature', ['number'], temperatureText);
  if (temperature < 0 || temperature > 1) {
    throw invalid(
      'temperature',
      `Invalid 'temperature': decimal ${temperature > 1 ? 'above maximum' : 'below minimum'} value. Expected a value ${temperature > 1 ? '<= 1' : '>= 0'}, but got ${temperature} instead.`,
      temperature > 1 ? 'decimal_above_max_value' : 'decimal_below_min_value',
    );
  }
  const granularities = listField(form, 'timestamp_granularities', ['word', 'segment']);
  if (granularities.length && format !== 'verbose_json') {
    throw invalid(
      'timestamp_granularities',
      "timestamp_granularities is only supported with response_format 'verbose_json'.",
      'unsupported_value',
    );
  }
  const include = listField(form, 'include', ['logprobs']);
  if (include.length && (whisper || format !== 'json')) {
    throw invalid(
      'include',
      `include[]=logprobs is only supported for gpt-4o-transcribe models with response_format 'json'.`,
      'unsupported_value',
    );
  }
  const streamText = field(form, 'stream');
  if (streamText !== undefined && !['true', 'false'].includes(streamText)) throw invalidType('stream', ['boolean'], streamText);
  const stream = streamText === 'true';
  if (stream && whisper) throw invalid('stream', `Streaming is not supported for the ${model} model.`, 'unsupported_value');
  const language = field(form, 'language');
  if (language !== undefined && !/^[a-z]{2,3}$/.test(language)) throw invalidValue('language', language, Object.keys(LANGUAGES));
  if (upload.bytes.byteLength > MAX_FILE_BYTES) {
    throw invalid(
      'file',
      `Maximum content size limit (${MAX_FILE_BYTES}) exceeded (${upload.bytes.byteLength} bytes read)`,
      'file_too_large',
    );
  }
  return {
    model,
    upload,
    format,
    language,
    prompt: field(form, 'prompt'),
    temperature,
    granularities,
    logprobs: include.length > 0,
    stream,
    translate,
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function stamp(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000);
  return `${pad(Math.floor(ms / 3600000))}:${pad(Math.floor(ms / 60000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

function subtitles(t: Transcript, kind: 'srt' | 'vtt'): string {
  const cues = t.segments.map((s, i) => {
    const times = `${stamp(s.start, kind === 'srt' ? ',' : '.')} --> ${stamp(s.end, kind === 'srt' ? ',' : '.')}`;
    return kind === 'srt' ? `${i + 1}\n${times}\n${s.text.trim()}\n` : `${times}\n${s.text.trim()}\n`;
  });
  return kind === 'srt' ? cues.join('\n') : `WEBVTT\n\n${cues.join('\n')}`;
}

async function transcribe(call: Call<JsonObject>, translate: boolean) {
  const ask = parseTranscription(call, translate);
  let probed;
  try {
    probed = probeAudio(ask.upload.bytes, ask.upload.filename, ask.upload.type);
  } catch (error) {
    if (error instanceof UnknownAudio) throw invalid('file', `Invalid file format. Supported formats: ${SUPPORTED_FILES}`, 'invalid_value');
    throw invalid(
      'file',
      `Audio file might be corrupted or unsupported (model-gateway-mock read ${(error as Error).message}).`,
      'invalid_value',
    );
  }
  // Fixtures match what the audio says (when known), else the prompt.
  const heard = probed.text ?? ask.prompt ?? '';
  const decision = decide(call, { ...operationRequest('openai', 'transcription', ask.model, heard), stream: ask.stream });
  if (isForward(decision)) return decision;
  const fileKey = hashString(new TextDecoder('latin1').decode(ask.upload.bytes));
  const key = hashString(
    stableStringify({
      model: ask.model,
      file: fileKey,
      language: ask.language,
      prompt: ask.prompt,
      translate,
      temperature: ask.temperature,
    }),
    decision.seed,
  );
  const pinned = decision.pinned?.text;
  const transcript = synthesizeTranscript(probed.duration, key, pinned !== undefined ? [pinned].flat()[0] : probed.text);
  const text = transcript.text;
  const whisper = ask.model.startsWith('whisper');
  const tokenUsage = transcriptionUsage('gpt-4o-transcribe', probed.duration, ask.prompt, text);
  const durationUsage = transcriptionUsage('whisper-1', probed.duration, ask.prompt, text);
  const logprobs = () =>
    synthesizeLogprobs(text, 0, key).map((l) => ({ token: l.token, logprob: l.logprob, bytes: [...new TextEncoder().encode(l.token)] }));
  if (ask.stream) {
    const pieces = splitTokens(text);
    const times = pieceTimes(decision.latency, pieces.length + 1, key);
    const probs = ask.logprobs ? logprobs() : undefined;
    function* events(): Generator<StreamEvent> {
      for (const [i, delta] of pieces.entries())
        yield { due: times[i], data: JSON.stringify({ type: 'transcript.text.delta', delta, ...(probs ? { logprobs: [probs[i]] } : {}) }) };
      yield {
        due: times[pieces.length],
        data: JSON.stringify({ type: 'transcript.text.done', text, ...(probs ? { logprobs: probs } : {}), usage: tokenUsage }),
      };
    }
    return decidedStream(call, decision, key, events);
  }
  const plain = (body: string) => ({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });
  return decidedOutbound(call, decision, key, () => {
    switch (ask.format) {
      case 'text':
        return plain(text);
      case 'srt':
      case 'vtt':
        return plain(subtitles(transcript, ask.format));
      case 'verbose_json': {
        const words = ask.granularities.includes('word');
        const segments = !ask.granularities.length || ask.granularities.includes('segment');
        return json({
          task: translate ? 'translate' : 'transcribe',
          language: translate ? 'english' : (LANGUAGES[ask.language ?? 'en'] ?? ask.language),
          duration: Math.round(probed.duration * 100) / 100,
          text,
          ...(segments
            ? {
                segments: transcript.segments.map((s) => ({
                  ...s,
                  seek: 0,
                  temperature: ask.temperature,
                  avg_logprob: -0.2,
                  compression_ratio: 1.2,
                  no_speech_prob: 0.01,
                })),
              }
            : {}),
          ...(words ? { words: transcript.words } : {}),
          usage: durationUsage,
        });
      }
      default:
        return json({
          text,
          ...(ask.logprobs ? { logprobs: logprobs() } : {}),
          ...(translate ? {} : { usage: whisper ? durationUsage : tokenUsage }),
        });
    }
  });
}

/** The handlers of the audio routes (routes-media.ts: loaded on the first request to one). */
export const audioHandlers = {
  speech,
  transcriptions: (call) => transcribe(call, false),
  translations: (call) => transcribe(call, true),
} satisfies Record<string, Handler<JsonObject>>;
