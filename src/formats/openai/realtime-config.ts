// A realtime session's configuration: parsed from `session.update` (GA and beta shapes, which name the
// same settings differently), and rendered back in the shape the client speaks.
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import { checkField, checkFields, checkUrl, invalid, invalidValue } from './validate.ts';
import { type CheckedFields, type FieldRules, isJsonObject, isOneOf, optional, type JsonObject } from '../fields.ts';

/** Server VAD settings (semantic VAD is served by the same energy rule). */
interface TurnDetection {
  type: 'server_vad' | 'semantic_vad';
  threshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
  createResponse: boolean;
  interruptResponse: boolean;
  eagerness?: string;
}

export interface SessionConfig {
  /** A conversation with responses, or transcription only (`?intent=transcription`: no responses). */
  type: 'realtime' | 'transcription';
  model: string;
  instructions: string;
  voice: string;
  /** 'audio' (audio with its transcript) or 'text'. */
  modalities: ('text' | 'audio')[];
  tools: JsonObject[];
  /** As sent: 'auto', 'none', 'required', or an object naming a tool. */
  toolChoice: string | JsonObject;
  maxOutputTokens: number | 'inf';
  /** The input transcription settings as sent, or null when off. */
  transcription: JsonObject | null;
  turnDetection: TurnDetection | null;
  temperature: number;
  speed: number;
}

export function defaultConfig(model: string, beta: boolean, type: SessionConfig['type'] = 'realtime'): SessionConfig {
  if (type === 'transcription')
    return {
      ...defaultConfig(model, beta),
      type,
      transcription: { model: 'gpt-4o-transcribe', language: null, prompt: '' },
      turnDetection: { ...vad({ type: 'server_vad' }), createResponse: false, interruptResponse: false },
    };
  return {
    type,
    model,
    instructions: '',
    voice: 'alloy',
    modalities: beta ? ['text', 'audio'] : ['audio'],
    tools: [],
    toolChoice: 'auto',
    maxOutputTokens: 'inf',
    transcription: null,
    turnDetection: vad({ type: 'server_vad' }),
    temperature: 0.8,
    speed: 1,
  };
}

function vad(raw: JsonObject): TurnDetection {
  return {
    type: raw.type === 'semantic_vad' ? 'semantic_vad' : 'server_vad',
    threshold: typeof raw.threshold === 'number' ? raw.threshold : 0.5,
    prefixPaddingMs: typeof raw.prefix_padding_ms === 'number' ? raw.prefix_padding_ms : 300,
    silenceDurationMs: typeof raw.silence_duration_ms === 'number' ? raw.silence_duration_ms : raw.type === 'semantic_vad' ? 800 : 500,
    createResponse: raw.create_response !== false,
    interruptResponse: raw.interrupt_response !== false,
    ...(raw.type === 'semantic_vad' ? { eagerness: typeof raw.eagerness === 'string' ? raw.eagerness : 'auto' } : {}),
  };
}

const MODALITIES = ['text', 'audio'] as const;
const VAD_FIELDS = {
  type: { types: ['string'], required: true, values: ['server_vad', 'semantic_vad'] },
  threshold: { types: ['number'], min: 0, max: 1 },
  prefix_padding_ms: { types: ['integer'], min: 0 },
  silence_duration_ms: { types: ['integer'], min: 0 },
  create_response: { types: ['boolean'] },
  interrupt_response: { types: ['boolean'] },
  idle_timeout_ms: optional('integer'),
  eagerness: { types: ['string'], values: ['low', 'medium', 'high', 'auto'] },
} as const satisfies FieldRules;
const FORMAT_FIELDS = {
  type: { types: ['string'], values: ['audio/pcm', 'audio/pcmu', 'audio/pcma'] },
  rate: { types: ['integer'], min: 24000, max: 24000 },
} as const satisfies FieldRules;
// Typed by its index, so a check leaves the settings a plain object: they are kept as sent, never read.
const TRANSCRIPTION_FIELDS: FieldRules = {
  model: { types: ['string'] },
  language: { types: ['string'] },
  languages: { types: ['array'] },
  prompt: { types: ['string'] },
  keywords: { types: ['array'] },
  delay: { types: ['string'] },
};
const TOOL_FIELDS = {
  type: { types: ['string'], values: ['function', 'mcp'] },
  name: { types: ['string'], required: true },
  description: { types: ['string'] },
  parameters: { types: ['object'] },
} as const satisfies FieldRules;
// A remote MCP server's tools: accepted and shown back; the emulator calls none of them.
const MCP_TOOL_FIELDS = {
  type: { types: ['string'], required: true },
  server_label: { types: ['string'], required: true },
  server_url: { types: ['string'] },
  connector_id: { types: ['string'] },
  authorization: { types: ['string'] },
  server_description: { types: ['string'] },
  headers: optional('object'),
  allowed_tools: optional('array', 'object'),
  require_approval: optional('string', 'object'),
} as const satisfies FieldRules;

const COMMON = {
  model: { types: ['string'] },
  instructions: { types: ['string'] },
  tools: { types: ['array'] },
  tool_choice: { types: ['string', 'object'] },
  tracing: optional('string', 'object'),
  prompt: optional('object'),
  include: optional('array'),
} as const satisfies FieldRules;
const GA_FIELDS = {
  ...COMMON,
  type: { types: ['string'], required: true, values: ['realtime'] },
  output_modalities: { types: ['array'], min: 1, max: 1 },
  max_output_tokens: { types: ['integer', 'string'] },
  audio: { types: ['object'] },
  truncation: { types: ['string', 'object'] },
  parallel_tool_calls: { types: ['boolean'] },
  reasoning: { types: ['object'] },
} as const satisfies FieldRules;
const BETA_FIELDS = {
  ...COMMON,
  modalities: { types: ['array'], min: 1, max: 2 },
  voice: { types: ['string'] },
  input_audio_format: { types: ['string'], values: ['pcm16', 'g711_ulaw', 'g711_alaw'] },
  output_audio_format: { types: ['string'], values: ['pcm16', 'g711_ulaw', 'g711_alaw'] },
  input_audio_transcription: optional('object'),
  input_audio_noise_reduction: optional('object'),
  turn_detection: optional('object'),
  temperature: { types: ['number'], min: 0.6, max: 1.2 },
  max_response_output_tokens: { types: ['integer', 'string'] },
  speed: { types: ['number'], min: 0.25, max: 1.5 },
  client_secret: optional('object'),
} as const satisfies FieldRules;

function checkMaxTokens(param: string, value: unknown): number | 'inf' | undefined {
  if (value === undefined) return undefined;
  if (value === 'inf') return 'inf';
  if (typeof value !== 'number' || value < 1 || value > 4096)
    throw invalid(param, `Invalid '${param}': expected an integer from 1 to 4096 or 'inf', got ${JSON.stringify(value)}.`);
  return value;
}

function checkModalities(param: string, value: unknown[] | undefined): ('text' | 'audio')[] | undefined {
  if (value === undefined) return undefined;
  const modalities = new Set<'text' | 'audio'>();
  value.forEach((m, i) => {
    if (!isOneOf(MODALITIES, m)) throw invalidValue(`${param}[${i}]`, m, MODALITIES);
    modalities.add(m);
  });
  return [...modalities];
}

function checkTools(param: string, value: unknown[] | undefined): JsonObject[] | undefined {
  if (value === undefined) return undefined;
  return value.map((tool, i) => {
    checkField(`${param}[${i}]`, tool, { types: ['object'], required: true });
    checkFields(tool, tool.type === 'mcp' ? MCP_TOOL_FIELDS : TOOL_FIELDS, `${param}[${i}].`);
    if (tool.type === 'mcp') checkUrl(`${param}[${i}].server_url`, tool.server_url, "the MCP server's URL");
    return tool;
  });
}

const TOOL_CHOICES = ['auto', 'none', 'required'] as const;
const TOOL_CHOICE_FIELDS = {
  function: { type: { types: ['string'], required: true }, name: { types: ['string'], required: true } },
  mcp: { type: { types: ['string'], required: true }, server_label: { types: ['string'], required: true }, name: optional('string') },
} as const satisfies Record<string, FieldRules>;

/** A mode ('auto', 'none', 'required'), or the function or MCP tool the model must call. */
function checkToolChoice(param: string, value: string | JsonObject | undefined): string | JsonObject | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (!isOneOf(TOOL_CHOICES, value)) throw invalidValue(param, value, TOOL_CHOICES);
    return value;
  }
  checkField(`${param}.type`, value.type, { types: ['string'], required: true, values: ['function', 'mcp'] });
  checkFields(value, TOOL_CHOICE_FIELDS[value.type === 'mcp' ? 'mcp' : 'function'], `${param}.`);
  return value;
}

function checkVad(param: string, value: JsonObject | null | undefined): TurnDetection | null | undefined {
  if (value === undefined || value === null) return value;
  checkFields(value, VAD_FIELDS, `${param}.`);
  return vad(value);
}

function checkTranscription(param: string, value: JsonObject | null | undefined): JsonObject | null | undefined {
  if (value === undefined || value === null) return value;
  checkFields(value, TRANSCRIPTION_FIELDS, `${param}.`);
  return { model: 'whisper-1', ...value };
}

/**
 * The configuration after applying `session` (a `session.update`'s, or the one an ephemeral key was
 * minted for) to `base`. Throws the OpenAI 400 that names the bad field (`session.…`).
 */
export function applySession(base: SessionConfig, session: unknown, beta: boolean, path = 'session'): SessionConfig {
  checkField(path, session, { types: ['object'], required: true });
  if (base.type === 'transcription') return applyTranscription({ ...base }, session, beta, path);
  return beta ? applyBeta({ ...base }, session, path) : applyGa({ ...base }, session, path);
}

const INPUT_AUDIO_FIELDS = {
  format: { types: ['object'] },
  transcription: optional('object'),
  turn_detection: optional('object'),
  noise_reduction: optional('object'),
} as const satisfies FieldRules;
const GA_TRANSCRIPTION_FIELDS = {
  type: { types: ['string'], required: true, values: ['transcription'] },
  audio: { types: ['object'] },
  include: optional('array'),
} as const satisfies FieldRules;
const BETA_TRANSCRIPTION_FIELDS = {
  input_audio_format: BETA_FIELDS.input_audio_format,
  input_audio_transcription: optional('object'),
  input_audio_noise_reduction: optional('object'),
  turn_detection: optional('object'),
  include: optional('array'),
  client_secret: optional('object'),
  modalities: BETA_FIELDS.modalities,
} as const satisfies FieldRules;

/** A transcription session's update (GA `session.update` with type transcription, beta `transcription_session.update`): input audio only. */
function applyTranscription(next: SessionConfig, s: JsonObject, beta: boolean, path: string): SessionConfig {
  let transcription: JsonObject | null | undefined;
  let turnDetection: JsonObject | null | undefined;
  if (beta) {
    checkFields(s, BETA_TRANSCRIPTION_FIELDS, `${path}.`);
    transcription = s.input_audio_transcription;
    turnDetection = s.turn_detection;
  } else {
    checkFields(s, GA_TRANSCRIPTION_FIELDS, `${path}.`);
    if (s.audio) {
      checkFields(s.audio, { input: { types: ['object'] } }, `${path}.audio.`);
      const input: JsonObject = s.audio.input ?? {};
      checkFields(input, INPUT_AUDIO_FIELDS, `${path}.audio.input.`);
      if (input.format) checkFields(input.format, FORMAT_FIELDS, `${path}.audio.input.format.`);
      transcription = input.transcription;
      turnDetection = input.turn_detection;
    }
  }
  const at = beta ? `${path}.input_audio_transcription` : `${path}.audio.input.transcription`;
  const t = checkTranscription(at, transcription);
  if (t !== undefined) next.transcription = t && { model: 'gpt-4o-transcribe', ...transcription };
  const d = checkVad(beta ? `${path}.turn_detection` : `${path}.audio.input.turn_detection`, turnDetection);
  // A transcription session never responds: its turn detection only commits.
  if (d !== undefined) next.turnDetection = d && { ...d, createResponse: false, interruptResponse: false };
  return next;
}

/** The settings both protocols, and a response.create, name alike. */
function applyCommon(
  next: SessionConfig,
  s: Pick<CheckedFields<typeof COMMON>, 'instructions' | 'tools' | 'tool_choice'>,
  path: string,
): void {
  if (typeof s.instructions === 'string') next.instructions = s.instructions;
  next.tools = checkTools(`${path}.tools`, s.tools) ?? next.tools;
  next.toolChoice = checkToolChoice(`${path}.tool_choice`, s.tool_choice) ?? next.toolChoice;
}

function applyBeta(next: SessionConfig, s: JsonObject, path: string): SessionConfig {
  checkFields(s, BETA_FIELDS, `${path}.`);
  applyCommon(next, s, path);
  next.modalities = checkModalities(`${path}.modalities`, s.modalities) ?? next.modalities;
  if (typeof s.voice === 'string') next.voice = s.voice;
  const t = checkTranscription(`${path}.input_audio_transcription`, s.input_audio_transcription);
  if (t !== undefined) next.transcription = t;
  const d = checkVad(`${path}.turn_detection`, s.turn_detection);
  if (d !== undefined) next.turnDetection = d;
  next.maxOutputTokens = checkMaxTokens(`${path}.max_response_output_tokens`, s.max_response_output_tokens) ?? next.maxOutputTokens;
  if (typeof s.temperature === 'number') next.temperature = s.temperature;
  if (typeof s.speed === 'number') next.speed = s.speed;
  return next;
}

function applyGa(next: SessionConfig, s: JsonObject, path: string): SessionConfig {
  checkFields(s, GA_FIELDS, `${path}.`);
  applyCommon(next, s, path);
  next.modalities = checkModalities(`${path}.output_modalities`, s.output_modalities) ?? next.modalities;
  next.maxOutputTokens = checkMaxTokens(`${path}.max_output_tokens`, s.max_output_tokens) ?? next.maxOutputTokens;
  const audio = s.audio;
  if (audio !== undefined) {
    checkFields(audio, { input: { types: ['object'] }, output: { types: ['object'] } }, `${path}.audio.`);
    const input = audio.input;
    if (input) {
      checkFields(
        input,
        {
          format: { types: ['object'] },
          transcription: optional('object'),
          turn_detection: optional('object'),
          noise_reduction: optional('object'),
        },
        `${path}.audio.input.`,
      );
      if (input.format) checkFields(input.format, FORMAT_FIELDS, `${path}.audio.input.format.`);
      const t = checkTranscription(`${path}.audio.input.transcription`, input.transcription);
      if (t !== undefined) next.transcription = t;
      const d = checkVad(`${path}.audio.input.turn_detection`, input.turn_detection);
      if (d !== undefined) next.turnDetection = d;
    }
    if (audio.output) applyAudioOutput(next, audio.output, `${path}.audio.output`, SESSION_AUDIO_OUTPUT);
  }
  return next;
}

const RESPONSE_AUDIO_OUTPUT = { format: { types: ['object'] }, voice: { types: ['string', 'object'] } } as const satisfies FieldRules;
const SESSION_AUDIO_OUTPUT = { ...RESPONSE_AUDIO_OUTPUT, speed: { types: ['number'], min: 0.25, max: 1.5 } } as const satisfies FieldRules;

/** A GA session's or response's `audio.output`: checked, its voice (and a session's speed) taken. */
function applyAudioOutput(next: SessionConfig, output: JsonObject, path: string, rules: FieldRules): void {
  checkFields(output, rules, `${path}.`);
  if (isJsonObject(output.format)) checkFields(output.format, FORMAT_FIELDS, `${path}.format.`);
  if (typeof output.voice === 'string') next.voice = output.voice;
  if (typeof output.speed === 'number') next.speed = output.speed;
}

// What a response.create may set for that response alone; the rest is the session's.
const RESPONSE_COMMON = {
  instructions: COMMON.instructions,
  tools: COMMON.tools,
  tool_choice: COMMON.tool_choice,
  conversation: { types: ['string'] },
  input: { types: ['array'] },
  metadata: optional('object'),
  prompt: optional('object'),
} as const satisfies FieldRules;
const GA_RESPONSE_FIELDS = {
  ...RESPONSE_COMMON,
  output_modalities: GA_FIELDS.output_modalities,
  max_output_tokens: GA_FIELDS.max_output_tokens,
  audio: GA_FIELDS.audio,
  parallel_tool_calls: GA_FIELDS.parallel_tool_calls,
  reasoning: GA_FIELDS.reasoning,
} as const satisfies FieldRules;
const BETA_RESPONSE_FIELDS = {
  ...RESPONSE_COMMON,
  modalities: BETA_FIELDS.modalities,
  max_response_output_tokens: BETA_FIELDS.max_response_output_tokens,
  voice: BETA_FIELDS.voice,
  output_audio_format: BETA_FIELDS.output_audio_format,
  temperature: BETA_FIELDS.temperature,
} as const satisfies FieldRules;

/**
 * The settings of one response: the session's, with what its response.create sets. Throws the error
 * event's 400 naming the bad field (`response.…`), as for a session.update.
 */
export function applyResponse(base: SessionConfig, response: JsonObject, beta: boolean): SessionConfig {
  const next = { ...base };
  if (beta) {
    checkFields(response, BETA_RESPONSE_FIELDS, 'response.');
    next.modalities = checkModalities('response.modalities', response.modalities) ?? next.modalities;
    next.maxOutputTokens =
      checkMaxTokens('response.max_response_output_tokens', response.max_response_output_tokens) ?? next.maxOutputTokens;
    if (typeof response.voice === 'string') next.voice = response.voice;
  } else {
    checkFields(response, GA_RESPONSE_FIELDS, 'response.');
    next.modalities = checkModalities('response.output_modalities', response.output_modalities) ?? next.modalities;
    next.maxOutputTokens = checkMaxTokens('response.max_output_tokens', response.max_output_tokens) ?? next.maxOutputTokens;
    if (response.audio) {
      checkFields(response.audio, { output: { types: ['object'] } }, 'response.audio.');
      if (response.audio.output) applyAudioOutput(next, response.audio.output, 'response.audio.output', RESPONSE_AUDIO_OUTPUT);
    }
  }
  applyCommon(next, response, 'response');
  return next;
}

function vadObject(d: TurnDetection | null) {
  if (!d) return null;
  if (d.type === 'semantic_vad')
    return { type: d.type, eagerness: d.eagerness, create_response: d.createResponse, interrupt_response: d.interruptResponse };
  return {
    type: d.type,
    threshold: d.threshold,
    prefix_padding_ms: d.prefixPaddingMs,
    silence_duration_ms: d.silenceDurationMs,
    idle_timeout_ms: null,
    create_response: d.createResponse,
    interrupt_response: d.interruptResponse,
  };
}

const PCM = { type: 'audio/pcm', rate: 24000 };

/** The session object the client sees, in its protocol's shape. */
export function renderSession(c: SessionConfig, id: string, expiresAt: number, beta: boolean): JsonObject {
  if (c.type === 'transcription') {
    const vadShown = c.turnDetection && {
      type: c.turnDetection.type,
      threshold: c.turnDetection.threshold,
      prefix_padding_ms: c.turnDetection.prefixPaddingMs,
      silence_duration_ms: c.turnDetection.silenceDurationMs,
    };
    if (beta)
      return {
        id,
        object: 'realtime.transcription_session',
        expires_at: expiresAt,
        input_audio_format: 'pcm16',
        input_audio_transcription: c.transcription,
        turn_detection: vadShown,
        input_audio_noise_reduction: null,
        include: null,
        client_secret: null,
      };
    return {
      type: 'transcription',
      object: 'realtime.transcription_session',
      id,
      expires_at: expiresAt,
      audio: { input: { format: PCM, transcription: c.transcription, noise_reduction: null, turn_detection: vadShown } },
      include: null,
    };
  }
  if (beta) {
    return {
      id,
      object: 'realtime.session',
      model: c.model,
      expires_at: expiresAt,
      modalities: c.modalities,
      instructions: c.instructions,
      voice: c.voice,
      input_audio_format: 'pcm16',
      output_audio_format: 'pcm16',
      input_audio_transcription: c.transcription,
      input_audio_noise_reduction: null,
      turn_detection: vadObject(c.turnDetection),
      tools: c.tools,
      tool_choice: c.toolChoice,
      temperature: c.temperature,
      max_response_output_tokens: c.maxOutputTokens,
      speed: c.speed,
      tracing: null,
      prompt: null,
      include: null,
    };
  }
  return {
    type: 'realtime',
    object: 'realtime.session',
    id,
    model: c.model,
    output_modalities: c.modalities,
    instructions: c.instructions,
    tools: c.tools,
    tool_choice: c.toolChoice,
    max_output_tokens: c.maxOutputTokens,
    tracing: null,
    truncation: 'auto',
    prompt: null,
    expires_at: expiresAt,
    // The published schema has no nulls for settings that are off: they are left out.
    audio: {
      input: { format: PCM, ...(c.transcription ? { transcription: c.transcription } : {}), turn_detection: vadObject(c.turnDetection) },
      output: { format: PCM, voice: c.voice, speed: c.speed },
    },
  };
}

/**
 * Session or response tools, checked, as canonical tool specs (function tools only: an MCP server's
 * tools are not called).
 */
export function toolSpecs(tools: readonly JsonObject[]): ToolSpec[] {
  return tools
    .filter((t) => t.type === undefined || t.type === 'function')
    .map((t) => ({
      name: String(t.name),
      description: typeof t.description === 'string' ? t.description : undefined,
      parameters: isJsonObject(t.parameters) ? t.parameters : { type: 'object', properties: {} },
    }));
}

/** A realtime tool_choice as the canonical one. */
export function toolChoiceOf(choice: unknown): ToolChoice {
  if (choice === 'none' || choice === 'required' || choice === 'auto') return choice;
  if (isJsonObject(choice) && typeof choice.name === 'string') return { name: choice.name };
  return 'auto';
}
