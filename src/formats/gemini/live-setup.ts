// A Gemini Live session's configuration: the `setup` message checked as the service checks it (the
// generate-content fields through parse.ts, the Live fields here), an ephemeral token's locked
// constraints laid over it, and the request body each turn is answered as.
import type { GatewayError } from '../../core/errors.ts';
import { GENERATION_FIELDS, parseGenerateRequest, VOICES } from './parse.ts';
import { checkField, checkFields, invalid } from './validate.ts';
import { type FieldRules, isJsonObject, type JsonObject } from '../fields.ts';
import type { TurnSettings } from '../../core/voice.ts';

const SETUP_FIELDS = {
  model: { types: ['string'], required: true },
  generationConfig: { types: ['object'] },
  systemInstruction: { types: ['object'] },
  tools: { types: ['array'] },
  toolConfig: { types: ['object'] },
  realtimeInputConfig: { types: ['object'] },
  sessionResumption: { types: ['object'] },
  contextWindowCompression: { types: ['object'] },
  inputAudioTranscription: { types: ['object'] },
  outputAudioTranscription: { types: ['object'] },
  proactivity: { types: ['object'] },
  explicitVadSignal: { types: ['boolean'] },
  historyConfig: { types: ['object'] },
} as const satisfies FieldRules;

const LIVE_GENERATION_FIELDS = {
  ...GENERATION_FIELDS,
  enableAffectiveDialog: { types: ['boolean'] },
} as const satisfies FieldRules;

const SENSITIVITY = ['START_SENSITIVITY_UNSPECIFIED', 'START_SENSITIVITY_HIGH', 'START_SENSITIVITY_LOW'];
const END_SENSITIVITY = ['END_SENSITIVITY_UNSPECIFIED', 'END_SENSITIVITY_HIGH', 'END_SENSITIVITY_LOW'];

export interface LiveConfig {
  model: string;
  /** 'AUDIO' (speech, 24 kHz PCM) or 'TEXT'. */
  modality: 'AUDIO' | 'TEXT';
  voice: string;
  /** The generate-content request every turn is (its contents added per turn). */
  base: JsonObject;
  /** Automatic activity detection's settings; null when the client signals turns itself. */
  vad: TurnSettings | null;
  /** Whether the client's activity interrupts a response (START_OF_ACTIVITY_INTERRUPTS, the default). */
  interrupts: boolean;
  inputTranscription: boolean;
  outputTranscription: boolean;
  /** Session resumption asked for (handles sent after each turn), and the handle to resume, if any. */
  resumption: boolean;
  resumeHandle?: string;
  /** Context window compression asked for: the oldest turns are dropped past the limit instead of ending the session. */
  compression: boolean;
}

/** `models/x` or `x` → `x`. */
export const modelId = (name: string): string => name.replace(/^models\//, '');

/** An ephemeral token's locked fields laid over the client's setup: the token's values win; a masked field the token leaves unset is cleared. */
export function constrained(setup: JsonObject, locked: JsonObject | undefined, mask: readonly string[] | undefined): JsonObject {
  if (!locked) return setup;
  const out: JsonObject = { ...setup };
  for (const [k, v] of Object.entries(locked)) {
    out[k] = isJsonObject(v) && isJsonObject(out[k]) && k !== 'generationConfig' ? { ...out[k], ...v } : v;
    if (k === 'generationConfig' && isJsonObject(v)) out[k] = { ...(isJsonObject(setup[k]) ? setup[k] : {}), ...v };
  }
  for (const path of mask ?? []) {
    const [head, tail] = path.split('.', 2);
    if (tail === undefined) {
      if (!(head in locked)) delete out[head];
    } else if (isJsonObject(out[head]) && !(isJsonObject(locked[head]) && tail in locked[head])) {
      const { [tail]: _dropped, ...rest } = out[head];
      out[head] = rest;
    }
  }
  return out;
}

/** Parses `setup` (after an ephemeral token's constraints are applied); throws the GatewayError the session closes with. */
export function parseSetup(setup: JsonObject): LiveConfig {
  checkFields(setup, SETUP_FIELDS, 'setup.');
  const model = modelId(setup.model);
  const generation: JsonObject = setup.generationConfig ?? {};
  checkFields(generation, LIVE_GENERATION_FIELDS, 'setup.generationConfig.');
  const modalities: unknown[] = generation.responseModalities ?? ['AUDIO'];
  for (const [i, m] of modalities.entries())
    checkField(`setup.generationConfig.responseModalities[${i}]`, m, { types: ['string'], values: ['TEXT', 'AUDIO', 'IMAGE'] });
  if (modalities.length !== 1 || modalities[0] === 'IMAGE')
    throw invalid(
      'setup.generationConfig.responseModalities',
      `Live sessions take exactly one response modality, TEXT or AUDIO; got ${JSON.stringify(modalities)}.`,
    );
  const modality = modalities[0] as 'AUDIO' | 'TEXT';
  const speech: JsonObject = isJsonObject(generation.speechConfig) ? generation.speechConfig : {};
  const prebuilt =
    isJsonObject(speech.voiceConfig) && isJsonObject(speech.voiceConfig.prebuiltVoiceConfig) ? speech.voiceConfig.prebuiltVoiceConfig : {};
  const voiceName: unknown = prebuilt.voiceName;
  if (voiceName !== undefined) {
    checkField('setup.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName', voiceName, {
      types: ['string'],
      required: true,
    });
    if (!VOICES.includes(voiceName))
      throw invalid(
        'setup.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName',
        `Voice name ${voiceName} is not supported. Allowed voice names are: ${VOICES.map((v) => v.toLowerCase()).join(', ')}`,
      );
  }
  // Each turn is a generate-content request for text (spoken here when the modality is AUDIO), so the
  // same fixtures answer it as answer the same prompt on generate-content.
  const { responseModalities: _m, speechConfig: _s, enableAffectiveDialog: _a, mediaResolution: _r, ...textGeneration } = generation;
  const base: JsonObject = {
    ...(setup.systemInstruction ? { systemInstruction: setup.systemInstruction } : {}),
    ...(setup.tools ? { tools: setup.tools } : {}),
    ...(setup.toolConfig ? { toolConfig: setup.toolConfig } : {}),
    generationConfig: textGeneration,
  };
  // Checked now as a request with one empty turn, so a bad tool or instruction closes the session at setup.
  parseGenerateRequest({ ...base, contents: [{ role: 'user', parts: [{ text: '' }] }] }, model, true);
  const input: JsonObject = setup.realtimeInputConfig ?? {};
  checkFields(
    input,
    {
      automaticActivityDetection: { types: ['object'] },
      activityHandling: { types: ['string'], values: ['ACTIVITY_HANDLING_UNSPECIFIED', 'START_OF_ACTIVITY_INTERRUPTS', 'NO_INTERRUPTION'] },
      turnCoverage: { types: ['string'], values: ['TURN_COVERAGE_UNSPECIFIED', 'TURN_INCLUDES_ONLY_ACTIVITY', 'TURN_INCLUDES_ALL_INPUT'] },
    },
    'setup.realtimeInputConfig.',
  );
  const auto: JsonObject = input.automaticActivityDetection ?? {};
  checkFields(
    auto,
    {
      disabled: { types: ['boolean'] },
      startOfSpeechSensitivity: { types: ['string'], values: SENSITIVITY },
      endOfSpeechSensitivity: { types: ['string'], values: END_SENSITIVITY },
      prefixPaddingMs: { types: ['integer'], min: 0 },
      silenceDurationMs: { types: ['integer'], min: 0 },
    },
    'setup.realtimeInputConfig.automaticActivityDetection.',
  );
  const vad: TurnSettings | null = auto.disabled
    ? null
    : {
        threshold: auto.startOfSpeechSensitivity === 'START_SENSITIVITY_LOW' ? 0.7 : 0.5,
        prefixPaddingMs: auto.prefixPaddingMs ?? 20,
        silenceDurationMs: auto.silenceDurationMs ?? (auto.endOfSpeechSensitivity === 'END_SENSITIVITY_LOW' ? 800 : 500),
      };
  const resumption = setup.sessionResumption;
  if (resumption)
    checkFields(resumption, { handle: { types: ['string'] }, transparent: { types: ['boolean'] } }, 'setup.sessionResumption.');
  const compression = setup.contextWindowCompression;
  if (compression)
    checkFields(
      compression,
      { slidingWindow: { types: ['object'] }, triggerTokens: { types: ['integer', 'string'] } },
      'setup.contextWindowCompression.',
    );
  return {
    model,
    modality,
    voice: typeof voiceName === 'string' ? voiceName : 'Puck',
    base,
    vad,
    interrupts: input.activityHandling !== 'NO_INTERRUPTION',
    inputTranscription: setup.inputAudioTranscription !== undefined,
    outputTranscription: setup.outputAudioTranscription !== undefined,
    resumption: resumption !== undefined,
    resumeHandle: resumption?.handle || undefined,
    compression: compression !== undefined,
  };
}

/** The error a setup is refused with, as the close code the service uses: 1008 for a model or access, 1007 for the request. */
export function closeCodeOf(error: GatewayError): number {
  if (error.status >= 500) return 1011;
  return error.kind === 'not_found' || error.kind === 'permission' || error.kind === 'authentication' ? 1008 : 1007;
}
