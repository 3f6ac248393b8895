// Gemini generateContent request → canonical request, refusing what the API refuses.
import type { CacheRequest, CanonicalRequest, Message, OutputFormat, ReasoningEffort, TokenFraming } from '../../core/request.ts';
import type { Block } from '../../core/reply.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import { checkField, checkFields, invalid } from './validate.ts';
import { builtinTools, camelTool } from './tools.ts';
import { fileIdOf } from './files.ts';
import { type CheckedFields, type FieldRules, isJsonObject, type JsonObject, nonObjectSchema } from '../fields.ts';

/** Gemini's prebuilt voices. */
export const VOICES = [
  'Zephyr',
  'Puck',
  'Charon',
  'Kore',
  'Fenrir',
  'Leda',
  'Orus',
  'Aoede',
  'Callirrhoe',
  'Autonoe',
  'Enceladus',
  'Iapetus',
  'Umbriel',
  'Algieba',
  'Despina',
  'Erinome',
  'Algenib',
  'Rasalgethi',
  'Laomedeia',
  'Achernar',
  'Alnilam',
  'Schedar',
  'Gacrux',
  'Pulcherrima',
  'Achird',
  'Zubenelgenubi',
  'Vindemiatrix',
  'Sadachbia',
  'Sadaltager',
  'Sulafat',
];

export const REQUEST_FIELDS = {
  contents: { types: ['array'], required: true, min: 1 },
  systemInstruction: { types: ['object'] },
  tools: { types: ['array'] },
  toolConfig: { types: ['object'] },
  safetySettings: { types: ['array'] },
  generationConfig: { types: ['object'] },
  cachedContent: { types: ['string'] },
  labels: { types: ['object'] },
  model: { types: ['string'] },
  // Top-level members that @google/genai lifts out of GenerateContentConfig.
  serviceTier: { types: ['string'] },
  continuationToken: { types: ['string'] },
  store: { types: ['boolean'] },
} as const satisfies FieldRules;

export const GENERATION_FIELDS = {
  temperature: { types: ['number'], min: 0, max: 2 },
  topP: { types: ['number'], min: 0, max: 1 },
  topK: { types: ['integer'], min: 1 },
  maxOutputTokens: { types: ['integer'], min: 1 },
  stopSequences: { types: ['array'], max: 5 },
  candidateCount: { types: ['integer'], min: 1, max: 8 },
  seed: { types: ['integer'] },
  presencePenalty: { types: ['number'] },
  frequencyPenalty: { types: ['number'] },
  responseLogprobs: { types: ['boolean'] },
  logprobs: { types: ['integer'] },
  responseMimeType: { types: ['string'], values: ['text/plain', 'application/json', 'text/x.enum'] },
  responseSchema: { types: ['object'] },
  responseJsonSchema: { types: ['object'] },
  _responseJsonSchema: { types: ['object'] },
  responseModalities: { types: ['array'] },
  speechConfig: { types: ['object'] },
  thinkingConfig: { types: ['object'] },
  mediaResolution: { types: ['string'] },
  enableEnhancedCivicAnswers: { types: ['boolean'] },
  imageConfig: { types: ['object'] },
  audioTranscriptionConfig: { types: ['object'] },
} as const satisfies FieldRules;

/** A turn as parsed: function responses are split out into canonical tool turns. */
type Turn = Message & { results?: Message[] };

const PART_KINDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];

/** Gemini's OpenAPI-style Schema (types in capitals, `nullable`) as JSON Schema. */
function toJsonSchema(schema: unknown, at = 'schema'): Record<string, unknown> {
  if (schema === null || typeof schema !== 'object') return {};
  const s: JsonObject = { ...schema };
  const out: JsonObject = {};
  // A Schema is a typed message: properties a map of Schemas, items a Schema, anyOf a list of them.
  function expect<K extends 'object' | 'array'>(
    key: string,
    value: unknown,
    kind: K,
  ): asserts value is K extends 'array' ? unknown[] : JsonObject {
    if (value === null || typeof value !== 'object' || Array.isArray(value) !== (kind === 'array')) {
      throw invalid(
        `${at}.${key}`,
        `Invalid value at '${at}.${key}' (${kind === 'array' ? 'TYPE_LIST' : 'TYPE_MESSAGE'}), ${JSON.stringify(value) ?? 'undefined'}`,
      );
    }
  }
  for (const [key, value] of Object.entries(s)) {
    if (key === 'type') continue;
    if (key === 'nullable' || key === 'propertyOrdering') continue;
    if (key === 'properties') {
      expect(key, value, 'object');
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v, `${at}.properties.${k}`)]));
    } else if (key === 'items') {
      expect(key, value, 'object');
      out.items = toJsonSchema(value, `${at}.items`);
    } else if (key === 'anyOf') {
      expect(key, value, 'array');
      out.anyOf = value.map((v, i) => toJsonSchema(v, `${at}.anyOf[${i}]`));
    } else if (
      key === 'minItems' ||
      key === 'maxItems' ||
      key === 'minLength' ||
      key === 'maxLength' ||
      key === 'minProperties' ||
      key === 'maxProperties'
    )
      out[key] = Number(value);
    else out[key] = value;
  }
  if (typeof s.type === 'string') {
    const type = s.type.toLowerCase();
    out.type = s.nullable ? [type, 'null'] : type;
  }
  return out;
}

function parsePart(param: string, part: unknown, role: string, message: Turn): void {
  checkField(param, part, { types: ['object'], required: true });
  const kind = PART_KINDS.find((k) => part[k] !== undefined);
  if (!kind) throw invalid(param, `${param}: a part must set one of ${PART_KINDS.join(', ')}.`);
  if (kind === 'text') {
    checkField(`${param}.text`, part.text, { types: ['string'], required: true });
    // Earlier thoughts are context, not conversation.
    if (part.thought !== true) message.parts.push({ type: 'text', text: part.text });
    return;
  }
  const value = part[kind];
  checkField(`${param}.${kind}`, value, { types: ['object'], required: true });
  if (kind === 'inlineData' || kind === 'fileData') {
    checkField(`${param}.${kind}.mimeType`, value.mimeType, { types: ['string'], required: true });
    const mime = value.mimeType;
    if (mime.startsWith('image/') || mime.startsWith('audio/')) message.parts.push({ type: mime.startsWith('image/') ? 'image' : 'audio' });
    else {
      // A file named by its Files API URI is read, if it is text, before the request is answered (readGeminiFileParts, files.ts).
      const id = kind === 'fileData' && typeof value.fileUri === 'string' ? fileIdOf(value.fileUri) : undefined;
      message.parts.push(id === undefined ? { type: 'file' } : { type: 'file', fileId: id });
    }
  } else if (kind === 'functionCall') {
    if (role !== 'model') throw invalid(`${param}.functionCall`, `${param}.functionCall: function calls can only appear in model turns.`);
    checkField(`${param}.functionCall.name`, value.name, { types: ['string'], required: true });
    // Gemini pairs calls and responses by name (an id is optional): the name serves as the id. The id
    // is passed on unchecked, as Gemini echoes it.
    (message.toolCalls ??= []).push({
      id: (value.id as string | undefined) ?? value.name,
      name: value.name,
      arguments: JSON.stringify(value.args ?? {}),
    });
  } else if (kind === 'functionResponse') {
    checkField(`${param}.functionResponse.name`, value.name, { types: ['string'], required: true });
    message.results ??= [];
    message.results.push({
      role: 'tool',
      toolCallId: (value.id as string | undefined) ?? value.name,
      parts: [{ type: 'text', text: JSON.stringify(value.response ?? {}) }],
    });
  }
}

function parseContents(raw: unknown[]): Message[] {
  const out: Message[] = [];
  raw.forEach((c, i) => {
    const param = `contents[${i}]`;
    checkField(param, c, { types: ['object'], required: true });
    const role = c.role ?? 'user';
    if (role !== 'user' && role !== 'model') throw invalid(`${param}.role`, 'Please use a valid role: user, model.');
    checkField(`${param}.parts`, c.parts, { types: ['array'], required: true, min: 1 });
    const turn: Turn = { role: role === 'model' ? 'assistant' : 'user', parts: [] };
    c.parts.forEach((p, j) => parsePart(`${param}.parts[${j}]`, p, role, turn));
    const { results, ...message } = turn;
    out.push(...(results ?? []));
    if (message.parts.length || message.toolCalls || !results) out.push(message);
  });
  return out;
}

function parseTools(raw: unknown[] = []): ToolSpec[] {
  const tools: ToolSpec[] = [];
  raw.forEach((given, i) => {
    checkField(`tools[${i}]`, given, { types: ['object'], required: true });
    const t = camelTool(given);
    // Built-in tools (search, code execution, URL context…) first: the model may use them as it answers.
    tools.push(...builtinTools(`tools[${i}]`, t));
    const declarations = t.functionDeclarations;
    if (declarations === undefined) return;
    checkField(`tools[${i}].functionDeclarations`, declarations, { types: ['array'], required: true });
    declarations.forEach((decl, j) => {
      const at = `tools[${i}].functionDeclarations[${j}]`;
      checkField(at, decl, { types: ['object'], required: true });
      checkField(`${at}.name`, decl.name, { types: ['string'], required: true });
      if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(decl.name)) {
        throw invalid(
          `${at}.name`,
          `${at}.name: Invalid function name. Must start with a letter or an underscore, and contain only a-z, A-Z, 0-9, underscores, dots, colons and dashes, at most 64 characters.`,
        );
      }
      const objectSchema = (field: string, schema: unknown): JsonObject | undefined => {
        checkField(`${at}.${field}`, schema, { types: ['object'] });
        const type = schema === undefined ? undefined : nonObjectSchema(schema);
        if (type !== undefined)
          throw invalid(`${at}.${field}`, `${at}.${field}: function parameters must be a schema of type OBJECT, got ${type}.`);
        return schema;
      };
      const schema = objectSchema('parameters', decl.parameters);
      const jsonSchema = objectSchema('parametersJsonSchema', decl.parametersJsonSchema);
      const given = [jsonSchema, schema].find((s) => s && Object.keys(s).length);
      const parameters =
        given === undefined ? { type: 'object', properties: {} } : given === jsonSchema ? given : toJsonSchema(given, `${at}.parameters`);
      // The description is passed on unchecked, as before.
      tools.push({ name: decl.name, description: decl.description as string | undefined, parameters });
    });
  });
  return tools;
}

function parseToolConfig(raw: JsonObject | undefined, tools: ToolSpec[]): ToolChoice {
  // functionCallingConfig has no rule: anything but an object is read as no config.
  const config = raw?.functionCallingConfig;
  if (!isJsonObject(config)) return 'auto';
  checkField('toolConfig.functionCallingConfig.mode', config.mode, {
    types: ['string'],
    values: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'],
  });
  checkField('toolConfig.functionCallingConfig.allowedFunctionNames', config.allowedFunctionNames, { types: ['array'] });
  const allowed = (config.allowedFunctionNames ?? []).map((n, i) => {
    checkField(`toolConfig.functionCallingConfig.allowedFunctionNames[${i}]`, n, { types: ['string'], required: true });
    return n;
  });
  for (const name of allowed) {
    if (!tools.some((t) => t.name === name))
      throw invalid(
        'toolConfig.functionCallingConfig.allowedFunctionNames',
        `Function "${name}" in allowedFunctionNames is not declared in tools.`,
      );
  }
  if (config.mode === 'NONE') return 'none';
  if (config.mode === 'ANY') return allowed.length === 1 ? { name: allowed[0] } : 'required';
  return 'auto';
}

function parseSpeech(config: JsonObject = {}): Extract<OutputFormat, { type: 'audio' }> {
  // The voice configs have no rules: what is not an object is read as no voice (Kore).
  const voiceName = (voice: unknown, at: string): string => {
    const prebuilt = isJsonObject(voice) ? voice.prebuiltVoiceConfig : undefined;
    const name = isJsonObject(prebuilt) ? prebuilt.voiceName : undefined;
    if (name === undefined) return 'Kore';
    checkField(at, name, { types: ['string'] });
    if (!VOICES.includes(name))
      throw invalid(
        at,
        `Voice name ${String(name)} is not supported. Allowed voice names are: ${VOICES.map((v) => v.toLowerCase()).join(', ')}`,
      );
    return name;
  };
  const multi = config.multiSpeakerVoiceConfig;
  if (multi) {
    // Unchecked: a truthy non-object reads as no speakers; the list itself must be an array.
    const listed = isJsonObject(multi) ? multi.speakerVoiceConfigs : undefined;
    checkField('generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs', listed, { types: ['array'] });
    const speakers: unknown[] = listed ?? [];
    if (speakers.length !== 2) {
      throw invalid(
        'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
        `Multi-speaker voice config must have exactly 2 speakers, but ${speakers.length} were given.`,
      );
    }
    const parsed = speakers.map((s, i) => {
      const at = `generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs[${i}]`;
      checkField(at, s, { types: ['object'], required: true });
      checkField(`${at}.speaker`, s.speaker, { types: ['string'], required: true });
      return { name: s.speaker, voice: voiceName(s.voiceConfig, `${at}.voiceConfig.prebuiltVoiceConfig.voiceName`) };
    });
    return { type: 'audio', voice: parsed[0].voice, speakers: parsed };
  }
  return { type: 'audio', voice: voiceName(config.voiceConfig, 'generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName') };
}

/** Output sizes of Gemini's image models by aspect ratio (1K). */
export const ASPECT_RATIOS: Record<string, [number, number]> = {
  '1:1': [1024, 1024],
  '2:3': [832, 1248],
  '3:2': [1248, 832],
  '3:4': [864, 1184],
  '4:3': [1184, 864],
  '4:5': [896, 1152],
  '5:4': [1152, 896],
  '9:16': [768, 1344],
  '16:9': [1344, 768],
  '21:9': [1536, 672],
};

function imageSize(config: JsonObject = {}): { width: number; height: number } {
  checkFields(
    config,
    { aspectRatio: { types: ['string'], values: Object.keys(ASPECT_RATIOS) }, imageSize: { types: ['string'], values: ['1K'] } },
    'generationConfig.imageConfig.',
  );
  const [width, height] = ASPECT_RATIOS[config.aspectRatio ?? '1:1'];
  return { width, height };
}

function parseOutput(config: CheckedFields<typeof GENERATION_FIELDS>): OutputFormat {
  const modalities: unknown[] = config.responseModalities ?? ['TEXT'];
  modalities.forEach((m, i) =>
    checkField(`generationConfig.responseModalities[${i}]`, m, { types: ['string'], values: ['TEXT', 'IMAGE', 'AUDIO'] }),
  );
  if (modalities.includes('AUDIO')) return parseSpeech(config.speechConfig);
  if (modalities.includes('IMAGE')) return { type: 'image', ...imageSize(config.imageConfig), text: modalities.includes('TEXT') };
  if (config.responseMimeType !== 'application/json') return { type: 'text' };
  const schema =
    config.responseJsonSchema ??
    config._responseJsonSchema ??
    (config.responseSchema ? toJsonSchema(config.responseSchema, 'generationConfig.responseSchema') : undefined);
  return schema ? { type: 'json_schema', schema } : { type: 'json' };
}

/**
 * Gemini counts a prompt's text and nothing around it: no per-turn or role tokens (its countTokens
 * gives 10 for "The quick brown fox jumps over the lazy dog.", as o200k does).
 */
const GEMINI_FRAMING: TokenFraming = { priming: 0, perMessage: 0, roles: false };

/** Implicit caching: repeated prefixes are reported exactly (step 1), kept 5 minutes after their last use. */
const IMPLICIT_CACHE: CacheRequest = { automatic: { stepTokens: 1, ttlSeconds: 300 } };

const LEVELS: Record<string, ReasoningEffort> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high', XHIGH: 'xhigh' };

/**
 * thinkingConfig: `thinkingBudget` 0 turns thinking off, -1 (or none) leaves it dynamic (minimal
 * effort's size, as the service's recorded figures are), a positive budget bounds it; `thinkingLevel` names an effort; includeThoughts shows it.
 */
function parseThinking(config: JsonObject, show: boolean): CanonicalRequest['reasoning'] {
  checkFields(
    config,
    {
      includeThoughts: { types: ['boolean'] },
      thinkingBudget: { types: ['integer'], min: -1 },
      thinkingLevel: { types: ['string'], values: ['THINKING_LEVEL_UNSPECIFIED', ...Object.keys(LEVELS)] },
    },
    'generationConfig.thinkingConfig.',
  );
  const budget = config.thinkingBudget;
  const level = config.thinkingLevel && LEVELS[config.thinkingLevel];
  if (budget === 0) return { effort: 'none' };
  // maxOutputTokens bounds thoughts and answer together, thoughts first: the real 2.5 Flash asked
  // "why is the sky blue?" with maxOutputTokens 20 thinks 19 tokens and answers nothing. Its dynamic
  // thinking is short (the recordings: 19–573 tokens, median ~80), minimal effort's size here.
  const out: NonNullable<CanonicalRequest['reasoning']> = { firstFromLimit: true };
  if (budget !== undefined && budget > 0) out.budgetTokens = budget;
  else out.effort = 'minimal';
  if (level) out.effort = level;
  if (show) out.show = true;
  return out;
}

export interface GeminiOptions {
  /** Show thought parts (thinkingConfig.includeThoughts). */
  includeThoughts: boolean;
  /** The encoded file of each image block, made before rendering (encoding is asynchronous). */
  files?: Map<Block, { bytes: Uint8Array; mimeType: string }>;
}

export function parseGenerateRequest(
  body: JsonObject,
  model: string,
  stream: boolean,
): { request: CanonicalRequest; options: GeminiOptions } {
  checkFields(body, REQUEST_FIELDS);
  const config: JsonObject = body.generationConfig ?? {};
  checkFields(config, GENERATION_FIELDS, 'generationConfig.');
  const stop = (config.stopSequences ?? []).map((s, i) => {
    checkField(`generationConfig.stopSequences[${i}]`, s, { types: ['string'], required: true });
    return s;
  });
  const system = body.systemInstruction;
  let systemText = '';
  if (system) {
    checkField('systemInstruction.parts', system.parts, { types: ['array'], required: true });
    // The parts' texts (a part with none adds nothing); a text that is no string is refused.
    systemText = system.parts
      .map((p, i) => {
        if (!isJsonObject(p)) return '';
        checkField(`systemInstruction.parts[${i}].text`, p.text, { types: ['string'] });
        return p.text ?? '';
      })
      .join('');
  }
  const messages: Message[] = [
    ...(systemText ? [{ role: 'system' as const, parts: [{ type: 'text' as const, text: systemText }] }] : []),
    ...parseContents(body.contents),
  ];
  const tools = parseTools(body.tools);
  const thinking = config.thinkingConfig ?? {};
  const includeThoughts = thinking.includeThoughts === true;
  const reasoning = parseThinking(thinking, includeThoughts);
  const maxTokens = config.maxOutputTokens;
  return {
    request: {
      format: 'gemini',
      operation: 'chat',
      model,
      messages,
      maxTokens,
      stop,
      n: config.candidateCount ?? 1,
      seed: config.seed,
      stream,
      tools,
      toolChoice: parseToolConfig(body.toolConfig, tools),
      parallelToolCalls: true,
      output: parseOutput(config),
      ...(reasoning ? { reasoning } : {}),
      cache: IMPLICIT_CACHE,
      framing: GEMINI_FRAMING,
    },
    options: { includeThoughts },
  };
}
