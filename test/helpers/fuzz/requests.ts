// fast-check arbitraries of whole HTTP requests for every format's endpoints: well-formed bodies built
// from realistic shapes, then (mostly) mutated; odd headers, query strings, methods and paths.
import fc from 'fast-check';
import { deep, jsonSchema, longText, mutate, mutation, serialize, text, toolName, toolSchema, weird, type Mutation } from './values.ts';

export interface FuzzRequest {
  method: string;
  /** Path and query, from the host root. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** The route the generator aimed at (for reports; the verdict works from the request itself). */
  aim: string;
}

export const TOKEN = 'sk-test';

const CHAT_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5-mini'];
const CLAUDE = ['claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-opus-5-5'];
const GEMINI = ['gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-2.5-pro'];
const OTHER_MODELS = [
  'gpt-nope',
  '',
  'text-embedding-3-small',
  'gpt-3.5-turbo-instruct',
  'whisper-1',
  'rerank-v3.5',
  'gemini-2.5-flash-preview-tts',
  'claude-sonnet-5-5',
  'gemini-embedding-001',
];

const model = (own: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...own), weight: 6 },
    { arbitrary: fc.constantFrom(...OTHER_MODELS), weight: 1 },
    { arbitrary: text, weight: 1 },
  );
const small = (max = 3) => fc.array(text, { minLength: 1, maxLength: max });
/** Drops optional fields that make no sense together, so most well-formed bodies are accepted. */
const cohere = <T extends object>(arb: fc.Arbitrary<T>, fix: (b: Record<string, unknown>) => void): fc.Arbitrary<Record<string, unknown>> =>
  arb.map((b) => {
    fix(b as Record<string, unknown>);
    return b as Record<string, unknown>;
  });

// ---- OpenAI -------------------------------------------------------------------------------------

const chatContent = fc.oneof(
  { arbitrary: text, weight: 3 },
  fc.array(
    fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record({
        type: fc.constant('image_url'),
        image_url: fc.record({ url: fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,iVBORw0KGgo=') }),
      }),
    ),
    { maxLength: 3 },
  ),
);

const openaiTool = fc.record({
  type: fc.constant('function'),
  function: fc.record({ name: toolName, description: text, parameters: toolSchema, strict: fc.boolean() }, { requiredKeys: ['name'] }),
});

const chatMessage = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'system', 'developer'), content: chatContent }),
  fc.record(
    {
      role: fc.constant('assistant'),
      content: fc.option(text, { nil: null }),
      tool_calls: fc.array(
        fc.record({
          id: fc.constantFrom('call_1', 'call_2'),
          type: fc.constant('function'),
          function: fc.record({ name: toolName, arguments: fc.constantFrom('{}', '{"city":"Oslo"}', 'not json', '[]') }),
        }),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['role'] },
  ),
  fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('call_1', 'call_2'), content: text }),
);

const responseFormat = fc.oneof(
  fc.constant({ type: 'text' }),
  fc.constant({ type: 'json_object' }),
  fc.record({
    type: fc.constant('json_schema'),
    json_schema: fc.record(
      { name: fc.constantFrom('out', 'x-y', ''), schema: jsonSchema, strict: fc.boolean() },
      { requiredKeys: ['name'] },
    ),
  }),
);

const chatBody = cohere(
  fc.record(
    {
      model: model(CHAT_MODELS),
      messages: fc.oneof(
        {
          arbitrary: fc
            .tuple(
              fc.option(fc.record({ role: fc.constantFrom('system', 'developer'), content: text }), { nil: undefined }),
              fc.array(fc.tuple(chatContent, text), { minLength: 1, maxLength: 3 }),
            )
            .map(([system, turns]) => [
              ...(system ? [system] : []),
              ...turns
                .flatMap(([u, a]) => [
                  { role: 'user', content: u },
                  { role: 'assistant', content: a },
                ])
                .slice(0, -1),
            ]),
          weight: 6,
        },
        // A tool round trip: the call, then its result.
        {
          arbitrary: fc.tuple(text, toolName, text).map(([q, name, result]) => [
            { role: 'user', content: q },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: '{"city":"Oslo"}' } }],
            },
            { role: 'tool', tool_call_id: 'call_1', content: result },
          ]),
          weight: 2,
        },
        { arbitrary: fc.array(chatMessage, { minLength: 1, maxLength: 4 }), weight: 1 },
      ),
      stream: fc.boolean(),
      stream_options: fc.record({ include_usage: fc.boolean() }),
      n: fc.integer({ min: 1, max: 3 }),
      max_tokens: fc.integer({ min: 1, max: 200 }),
      max_completion_tokens: fc.integer({ min: 1, max: 200 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      top_p: fc.double({ min: 0, max: 1, noNaN: true }),
      stop: fc.oneof(text, small(4)),
      logprobs: fc.boolean(),
      top_logprobs: fc.integer({ min: 0, max: 20 }),
      seed: fc.integer(),
      tools: fc.array(openaiTool, { maxLength: 3 }),
      tool_choice: fc.oneof(
        fc.constantFrom('auto', 'none', 'required'),
        fc.record({ type: fc.constant('function'), function: fc.record({ name: toolName }) }),
      ),
      parallel_tool_calls: fc.boolean(),
      response_format: responseFormat,
      user: text,
      metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
    },
    { requiredKeys: ['model', 'messages'] },
  ),
  (b) => {
    if (!b.stream) delete b.stream_options;
    if (!b.logprobs) delete b.top_logprobs;
    // json_object needs the word "json" in the messages, as OpenAI requires.
    if ((b.response_format as { type?: string } | undefined)?.type === 'json_object')
      (b.messages as unknown[]).unshift({ role: 'system', content: 'Answer in json.' });
    const tools = b.tools as { function: { name: string } }[] | undefined;
    if (!tools?.length) delete b.tool_choice, delete b.parallel_tool_calls;
    else if (typeof b.tool_choice === 'object') b.tool_choice = { type: 'function', function: { name: tools[0].function.name } };
  },
);

const prompt = fc.oneof(
  text,
  small(4),
  fc.array(fc.nat(200_000), { minLength: 1, maxLength: 20 }),
  fc.array(fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
);

const completionBody = cohere(
  fc.record(
    {
      model: model(['gpt-3.5-turbo-instruct', 'davinci-002']),
      prompt,
      max_tokens: fc.integer({ min: 1, max: 100 }),
      n: fc.integer({ min: 1, max: 3 }),
      best_of: fc.integer({ min: 1, max: 4 }),
      echo: fc.boolean(),
      suffix: text,
      logprobs: fc.integer({ min: 0, max: 5 }),
      stream: fc.boolean(),
      stream_options: fc.record({ include_usage: fc.boolean() }),
      stop: fc.oneof(text, small(4)),
      seed: fc.integer(),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    },
    { requiredKeys: ['model', 'prompt'] },
  ),
  (b) => {
    if (!b.stream) delete b.stream_options;
    if (b.stream || (b.best_of as number) < ((b.n as number | undefined) ?? 1)) delete b.best_of;
  },
);

const embeddingBody = cohere(
  fc.record(
    {
      model: model(['text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002']),
      input: prompt,
      dimensions: fc.integer({ min: 1, max: 4000 }),
      encoding_format: fc.constantFrom('float', 'base64'),
      user: text,
    },
    { requiredKeys: ['model', 'input'] },
  ),
  (b) => {
    if (!String(b.model).startsWith('text-embedding-3')) delete b.dimensions;
  },
);

const responseInput = fc.oneof(
  text,
  fc.array(
    fc.oneof(
      fc.record({
        role: fc.constantFrom('user', 'system', 'developer', 'assistant'),
        content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('input_text', 'output_text'), text }), { maxLength: 2 })),
      }),
      fc.record({
        type: fc.constant('function_call'),
        call_id: fc.constantFrom('call_1'),
        name: toolName,
        arguments: fc.constantFrom('{}', '{"a":1}', 'nope'),
      }),
      fc.record({ type: fc.constant('function_call_output'), call_id: fc.constantFrom('call_1', 'call_9'), output: text }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
);

const responsesBody = cohere(
  fc.record(
    {
      model: model(CHAT_MODELS),
      input: responseInput,
      instructions: text,
      tools: fc.array(
        fc.record(
          { type: fc.constant('function'), name: toolName, description: text, parameters: toolSchema, strict: fc.boolean() },
          { requiredKeys: ['type', 'name'] },
        ),
        { maxLength: 3 },
      ),
      tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.record({ type: fc.constant('function'), name: toolName })),
      text: fc.record({
        format: fc.oneof(
          fc.constant({ type: 'text' }),
          fc.record({ type: fc.constant('json_schema'), name: fc.constant('out'), schema: jsonSchema }),
        ),
      }),
      max_output_tokens: fc.integer({ min: 16, max: 500 }),
      stream: fc.boolean(),
      store: fc.boolean(),
      previous_response_id: fc.constantFrom(undefined, undefined, undefined, undefined, undefined, undefined, 'resp_nope', ''),
      metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    },
    { requiredKeys: ['model', 'input'] },
  ),
  (b) => {
    const tools = b.tools as { name: string }[] | undefined;
    if (!tools?.length) delete b.tool_choice;
    else if (typeof b.tool_choice === 'object') b.tool_choice = { type: 'function', name: tools[0].name };
  },
);

const rerankBody = (cohere: boolean) =>
  fc.record(
    {
      model: model(['jina-reranker-v2-base-multilingual', 'rerank-v3.5']),
      query: text,
      documents: fc.array(cohere ? text : fc.oneof(text, fc.record({ text })), { minLength: 1, maxLength: 6 }),
      top_n: fc.integer({ min: 1, max: 10 }),
      ...(cohere ? {} : { return_documents: fc.boolean() }),
      max_tokens_per_doc: fc.integer({ min: 1, max: 4096 }),
    },
    { requiredKeys: ['model', 'query', 'documents'] },
  );

// ---- Anthropic ----------------------------------------------------------------------------------

const anthropicBlock = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant('text'), text }), weight: 4 },
  fc.record({
    type: fc.constant('image'),
    source: fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('image/png', 'image/jpeg'),
      data: fc.constantFrom('iVBORw0KGgo=', ''),
    }),
  }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.constantFrom('toolu_1', 'toolu_2'),
    name: toolName,
    input: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: fc.constantFrom('toolu_1', 'toolu_9'),
      content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
      is_error: fc.boolean(),
    },
    { requiredKeys: ['type', 'tool_use_id'] },
  ),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.constantFrom('sig', '') }),
);

const userBlocks = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ type: fc.constant('text'), text }), weight: 4 },
    fc.record({
      type: fc.constant('image'),
      source: fc.record({
        type: fc.constant('base64'),
        media_type: fc.constantFrom('image/png', 'image/jpeg'),
        data: fc.constantFrom('iVBORw0KGgo='),
      }),
    }),
  ),
  { minLength: 1, maxLength: 3 },
);
const anthropicMessages = fc.oneof(
  {
    arbitrary: fc.array(fc.tuple(fc.oneof(text, userBlocks), text), { minLength: 1, maxLength: 3 }).map((turns) =>
      turns
        .flatMap(([u, a]) => [
          { role: 'user', content: u },
          { role: 'assistant', content: a },
        ])
        .slice(0, -1),
    ),
    weight: 6,
  },
  // A tool round trip: call, then its result.
  {
    arbitrary: fc.tuple(text, toolName, fc.jsonValue({ maxDepth: 2 }), text).map(([q, name, input, result]) => [
      { role: 'user', content: q },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name, input: { v: input } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
    ]),
    weight: 2,
  },
  {
    arbitrary: fc.array(
      fc.record({
        role: fc.constantFrom('user', 'assistant', 'user', 'system'),
        content: fc.oneof(text, fc.array(anthropicBlock, { minLength: 1, maxLength: 3 })),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    weight: 1,
  },
);

const anthropicFields = {
  model: model(CLAUDE),
  messages: anthropicMessages,
  system: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
  tools: fc.array(fc.record({ name: toolName, description: text, input_schema: toolSchema }, { requiredKeys: ['name', 'input_schema'] }), {
    maxLength: 3,
  }),
  tool_choice: fc.oneof(
    fc.record({ type: fc.constantFrom('auto', 'any', 'none') }),
    fc.record({ type: fc.constant('tool'), name: toolName }),
    fc.record({ type: fc.constant('auto'), disable_parallel_tool_use: fc.boolean() }),
  ),
  thinking: fc.oneof(
    fc.record({ type: fc.constant('enabled'), budget_tokens: fc.integer({ min: 0, max: 50_000 }) }),
    fc.constant({ type: 'disabled' }),
  ),
  output_config: fc.record({ format: fc.record({ type: fc.constant('json_schema'), schema: jsonSchema }) }),
};

const anthropicCoherence = (b: Record<string, unknown>) => {
  const tools = b.tools as { name: string }[] | undefined;
  if (!tools?.length) delete b.tool_choice;
  else if ((b.tool_choice as { type?: string } | undefined)?.type === 'tool') b.tool_choice = { type: 'tool', name: tools[0].name };
  if (b.thinking && (b.thinking as { type: string }).type === 'enabled' && typeof b.max_tokens === 'number')
    (b.thinking as { budget_tokens: number }).budget_tokens = Math.max(
      1024,
      Math.min((b.thinking as { budget_tokens: number }).budget_tokens, b.max_tokens - 1),
    );
};
const messagesBody = cohere(
  fc.record(
    {
      ...anthropicFields,
      max_tokens: fc.integer({ min: 1, max: 4096 }),
      stream: fc.boolean(),
      stop_sequences: small(3),
      temperature: fc.double({ min: 0, max: 1, noNaN: true }),
      top_k: fc.integer({ min: 0, max: 500 }),
      metadata: fc.record({ user_id: fc.string({ maxLength: 20 }) }),
    },
    { requiredKeys: ['model', 'messages', 'max_tokens'] },
  ),
  anthropicCoherence,
);
const countBody = cohere(fc.record(anthropicFields, { requiredKeys: ['model', 'messages'] }), anthropicCoherence);

// ---- Gemini -------------------------------------------------------------------------------------

const geminiPart = fc.oneof(
  { arbitrary: fc.record({ text }), weight: 5 },
  fc.record({
    inlineData: fc.record({ mimeType: fc.constantFrom('image/png', 'audio/wav', ''), data: fc.constantFrom('iVBORw0KGgo=', '') }),
  }),
  fc.record({ functionCall: fc.record({ name: toolName, args: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['name'] }) }),
  fc.record({ functionResponse: fc.record({ name: toolName, response: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['name'] }) }),
  fc.record({ text, thought: fc.boolean() }),
);
const textParts = fc.array(fc.record({ text }), { minLength: 1, maxLength: 3 });
const contents = fc.oneof(
  {
    arbitrary: fc.array(fc.tuple(textParts, textParts), { minLength: 1, maxLength: 3 }).map((turns) =>
      turns
        .flatMap(([u, m]) => [
          { role: 'user', parts: u },
          { role: 'model', parts: m },
        ])
        .slice(0, -1),
    ),
    weight: 5,
  },
  {
    arbitrary: fc.tuple(textParts, toolName, fc.jsonValue({ maxDepth: 2 })).map(([q, name, v]) => [
      { role: 'user', parts: q },
      { role: 'model', parts: [{ functionCall: { name, args: { v } } }] },
      { role: 'user', parts: [{ functionResponse: { name, response: { result: v } } }] },
    ]),
    weight: 2,
  },
  {
    arbitrary: fc.array(
      fc.record(
        { role: fc.constantFrom('user', 'model', 'user'), parts: fc.array(geminiPart, { minLength: 1, maxLength: 3 }) },
        { requiredKeys: ['parts'] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
    weight: 1,
  },
);

const generationConfig = fc.record(
  {
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    maxOutputTokens: fc.integer({ min: 1, max: 2000 }),
    candidateCount: fc.integer({ min: 1, max: 3 }),
    stopSequences: small(3),
    responseMimeType: fc.constantFrom('text/plain', 'application/json', 'text/x.enum'),
    responseSchema: jsonSchema,
    responseJsonSchema: jsonSchema,
    thinkingConfig: fc.record({ includeThoughts: fc.boolean(), thinkingBudget: fc.integer({ min: -1, max: 10_000 }) }),
    responseModalities: fc.array(fc.constantFrom('TEXT', 'AUDIO', 'IMAGE'), { maxLength: 2 }),
    speechConfig: fc.oneof(
      fc.record({ voiceConfig: fc.record({ prebuiltVoiceConfig: fc.record({ voiceName: fc.constantFrom('Kore', 'Puck', 'Nobody') }) }) }),
      fc.record({
        multiSpeakerVoiceConfig: fc.record({
          speakerVoiceConfigs: fc.array(
            fc.record({
              speaker: fc.constantFrom('Joe', 'Jane'),
              voiceConfig: fc.record({ prebuiltVoiceConfig: fc.record({ voiceName: fc.constantFrom('Kore', 'Puck') }) }),
            }),
            { maxLength: 3 },
          ),
        }),
      }),
    ),
    seed: fc.integer(),
  },
  { requiredKeys: [] },
);

const generateBody = cohere(
  fc.record(
    {
      contents,
      systemInstruction: fc.record({ parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 }) }),
      tools: fc.array(
        fc.record({
          functionDeclarations: fc.array(
            fc.record(
              { name: toolName, description: text, parameters: toolSchema, parametersJsonSchema: toolSchema },
              { requiredKeys: ['name'] },
            ),
            { maxLength: 3 },
          ),
        }),
        { maxLength: 2 },
      ),
      toolConfig: fc.record({
        functionCallingConfig: fc.record(
          { mode: fc.constantFrom('AUTO', 'ANY', 'NONE', 'VALIDATED'), allowedFunctionNames: fc.array(toolName, { maxLength: 2 }) },
          { requiredKeys: ['mode'] },
        ),
      }),
      generationConfig,
      safetySettings: fc.array(
        fc.record({ category: fc.constantFrom('HARM_CATEGORY_HARASSMENT'), threshold: fc.constantFrom('BLOCK_NONE') }),
        { maxLength: 1 },
      ),
    },
    { requiredKeys: ['contents'] },
  ),
  (b) => {
    const names = ((b.tools as { functionDeclarations: { name: string }[] }[] | undefined) ?? []).flatMap((t) =>
      t.functionDeclarations.map((d) => d.name),
    );
    const config = (b.toolConfig as { functionCallingConfig: { allowedFunctionNames?: string[] } } | undefined)?.functionCallingConfig;
    if (config?.allowedFunctionNames) config.allowedFunctionNames = config.allowedFunctionNames.filter((n) => names.includes(n));
  },
);

const geminiCountBody = fc.oneof(
  fc.record({ contents }),
  fc.record({ generateContentRequest: fc.record({ model: fc.constantFrom('models/gemini-2.5-flash'), contents }) }),
);
const embedContent = fc.record(
  {
    content: fc.record({ parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 3 }) }),
    outputDimensionality: fc.integer({ min: 1, max: 4000 }),
    taskType: fc.constantFrom('RETRIEVAL_QUERY', 'SEMANTIC_SIMILARITY'),
  },
  { requiredKeys: ['content'] },
);
const batchBody = fc.record({
  requests: fc.array(
    embedContent.map((r) => ({ model: 'models/gemini-embedding-001', ...r })),
    { minLength: 1, maxLength: 5 },
  ),
});

// ---- Headers, queries, methods ------------------------------------------------------------------

type Auth = 'bearer' | 'x-api-key' | 'goog' | 'api-key' | 'sigv4';

/** Header values: Latin-1 only (fetch refuses anything else), mostly garbage. */
const headerText = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[\u0000-\u001f\u007f]/g, '')),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    '0',
    '-1',
    'NaN',
    '1e309',
    '\u00e9\u00ff',
    'a'.repeat(4000),
    'constructor',
    '__proto__',
    'toString=5',
  ),
);

/** A well-formed SigV4 header whose access key id is the token (the gateway checks the shape, not the signature). */
const SIGV4 = {
  authorization: `AWS4-HMAC-SHA256 Credential=${TOKEN}/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=${'0a'.repeat(32)}`,
  'x-amz-date': '20261128T101500Z',
};

const goodAuth = (way: Auth): Record<string, string> =>
  way === 'bearer'
    ? { authorization: `Bearer ${TOKEN}` }
    : way === 'x-api-key'
      ? { 'x-api-key': TOKEN }
      : way === 'api-key'
        ? { 'api-key': TOKEN }
        : way === 'sigv4'
          ? SIGV4
          : { 'x-goog-api-key': TOKEN };

const badAuth = fc.oneof(
  fc.constant({}),
  fc
    .constantFrom(
      'Bearer',
      'Bearer ',
      'bearer sk-test',
      'Basic c2stdGVzdA==',
      `Bearer ${TOKEN} extra`,
      'Bearer sk-wrong',
      `Token ${TOKEN}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      `Bearer\t${TOKEN}`,
      'AWS4-HMAC-SHA256',
      `AWS4-HMAC-SHA256 Credential=${TOKEN}/2026/us-east-1/bedrock/aws4_request`,
      'AWS4-HMAC-SHA256 Credential=, SignedHeaders=, Signature=',
      `AWS4-HMAC-SHA256 Credential=${TOKEN}/20261128/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'a'.repeat(64)}`,
    )
    .map((v) => ({ authorization: v })),
  fc.constantFrom('', 'sk-wrong', `${TOKEN} `, 'x'.repeat(3000)).map((v) => ({ 'x-api-key': v })),
  fc.constantFrom('', 'sk-wrong').map((v) => ({ 'x-goog-api-key': v })),
  headerText.map((v) => ({ authorization: v })),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'garbage/',
  ';;;',
  '',
);

const mockHeaders = fc.dictionary(
  fc.constantFrom('x-mock-status', 'x-mock-fault', 'x-mock-seed', 'x-mock-latency', 'x-mock-nonsense', 'x-mock-'),
  fc.oneof(
    headerText,
    fc.constantFrom('400', '404', '429', '500', '503', '529', '599', '600', '99', '4e2', ' 500', '+500', '500.0', '0x1f4'),
    fc.constantFrom(
      'NOPE',
      'STREAM_ERROR,after=x',
      'STALL,ms=-1',
      'STREAM_ERROR,status=0',
      'STALL,ms=99999999999',
      ',,,',
      'STREAM_CUT,after=-1',
      'STALL,probability=2',
      'STREAM_EROR',
    ),
    fc.constantFrom('-1', '1.5', '99999999999999999999', '42', 'abc'),
    fc.constantFrom('instant', 'ttft=1', 'tps=0', 'ttft=-1', 'tps=abc', 'jitter=2', 'slow,ttft=', 'ttft=1e400', 'realistic,ttft=0,tps=0'),
  ),
  { maxKeys: 3 },
);

const otherHeaders = fc.dictionary(
  fc.constantFrom(
    'anthropic-version',
    'x-goog-api-client',
    'accept',
    'accept-encoding',
    'origin',
    'x-stainless-retry-count',
    'anthropic-beta',
    'openai-organization',
    'x-foo',
  ),
  headerText,
  { maxKeys: 3 },
);

const query = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'alt=sse',
        'alt=json',
        `key=${TOKEN}`,
        'key=',
        'key=sk-wrong',
        '%ZZ',
        '%00=%00',
        'limit=0',
        'limit=-1',
        'limit=abc',
        'limit=1e9',
        'pageSize=-5',
        'pageToken=zz',
        'after_id=nope',
        'before_id=gpt-4o',
        'order=asc',
        'stream=true',
        `q=${'a'.repeat(3000)}`,
        '&&',
        '=',
      ),
      fc
        .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 16 }))
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    ),
    { maxLength: 3 },
  )
  .map((parts) => (parts.length ? `?${parts.join('&')}` : ''));

/** `arb` once in `n` cases, else null. */
const rarely = <T>(arb: fc.Arbitrary<T>, n: number) =>
  fc.oneof({ arbitrary: fc.constant(null), weight: n - 1 }, { arbitrary: arb, weight: 1 });

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'];

/** A path segment (a model id, a response id): mostly real, sometimes odd. */
const segment = (own: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...own), weight: 5 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent), weight: 1 },
    { arbitrary: fc.constantFrom('..', '.', '%2F', '%00', 'a:b:c', '%E0%A4%A', 'x'.repeat(2000)), weight: 1 },
  );

// ---- Whole requests -----------------------------------------------------------------------------

interface Shape {
  aim: string;
  method: string;
  path: fc.Arbitrary<string>;
  auth: Auth;
  body?: fc.Arbitrary<Record<string, unknown>>;
  /** Headers a well-formed request of this route carries. */
  headers?: Record<string, string>;
  /** The query strings its clients send (Azure's api-version), instead of the odd ones every route gets. */
  query?: fc.Arbitrary<string>;
}

const bodyText = (body: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    { arbitrary: body.map(serialize), weight: 10 },
    {
      arbitrary: fc
        .tuple(body, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([b, ms]: [Record<string, unknown>, Mutation[]]) => serialize(mutate(b, ms))),
      weight: 10,
    },
    {
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          'null',
          '[]',
          '"x"',
          '{',
          '{"model":',
          '{}',
          '{"a":1,"a":2}',
          '{/*c*/}',
          ' '.repeat(10_000),
          '\ufeff{}',
          'NaN',
          '1e309',
          '['.repeat(100_000),
        ),
        body.chain((b) =>
          fc.nat().map((n) => {
            const s = serialize(b);
            return s.slice(0, n % (s.length + 1));
          }),
        ),
        deep.map(serialize),
        fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
        fc.string({ unit: 'binary', maxLength: 200 }),
      ),
      weight: 1,
    },
    { arbitrary: fc.uint8Array({ maxLength: 200 }), weight: 1 },
  );

function request(shape: Shape): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof({ arbitrary: fc.constant(shape.method), weight: 12 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
      path: shape.path,
      query: shape.query ? fc.oneof({ arbitrary: shape.query, weight: 6 }, { arbitrary: query, weight: 1 }) : query,
      auth: fc.oneof({ arbitrary: fc.constant(goodAuth(shape.auth)), weight: 8 }, { arbitrary: badAuth, weight: 1 }),
      contentType: rarely(contentType, 8),
      mock: rarely(mockHeaders, 6),
      other: rarely(otherHeaders, 4),
      routeHeaders: fc.option(fc.constant(shape.headers ?? {}), { freq: 12 }),
      body: shape.body ? bodyText(shape.body) : fc.option(fc.string({ maxLength: 100 }), { freq: 10 }).map((b) => b ?? undefined),
    })
    .map((r) => {
      const headers: Record<string, string> = { ...(r.routeHeaders ?? {}), ...(r.other ?? {}), ...(r.mock ?? {}), ...r.auth };
      if (r.contentType !== null) headers['content-type'] = r.contentType;
      else if (shape.body) headers['content-type'] = 'application/json';
      return {
        method: r.method,
        path: r.path + r.query,
        headers,
        body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body,
        aim: shape.aim,
      };
    });
}

const ANTHROPIC_VERSION = { 'anthropic-version': '2023-06-01' };
const versions = fc.constantFrom('/v1beta', '/v1');
const geminiAction = (actions: string[], models: string[]) =>
  fc
    .tuple(
      versions,
      segment(models),
      fc.oneof(
        { arbitrary: fc.constantFrom(...actions), weight: 8 },
        { arbitrary: fc.constantFrom('generateContent', 'countTokens', 'embedContent', 'nope', '', 'generateContent:x'), weight: 1 },
      ),
    )
    .map(([v, m, a]) => `${v}/models/${m}:${a}`);
const EMBED_GEMINI = ['gemini-embedding-001', 'text-embedding-004'];

export const openaiRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    arbitrary: request({ aim: 'chat', method: 'POST', path: fc.constant('/v1/chat/completions'), auth: 'bearer', body: chatBody }),
    weight: 6,
  },
  {
    arbitrary: request({ aim: 'completions', method: 'POST', path: fc.constant('/v1/completions'), auth: 'bearer', body: completionBody }),
    weight: 3,
  },
  {
    arbitrary: request({ aim: 'embeddings', method: 'POST', path: fc.constant('/v1/embeddings'), auth: 'bearer', body: embeddingBody }),
    weight: 3,
  },
  {
    arbitrary: request({ aim: 'responses', method: 'POST', path: fc.constant('/v1/responses'), auth: 'bearer', body: responsesBody }),
    weight: 4,
  },
  {
    arbitrary: request({
      aim: 'response by id',
      method: 'GET',
      path: fc
        .tuple(segment(['resp_nope', 'resp_1']), fc.constantFrom('', '/input_items', '/cancel'))
        .map(([id, tail]) => `/v1/responses/${id}${tail}`),
      auth: 'bearer',
    }),
    weight: 1,
  },
  {
    arbitrary: request({ aim: 'rerank v1', method: 'POST', path: fc.constant('/v1/rerank'), auth: 'bearer', body: rerankBody(false) }),
    weight: 2,
  },
  {
    arbitrary: request({ aim: 'rerank v2', method: 'POST', path: fc.constant('/v2/rerank'), auth: 'bearer', body: rerankBody(true) }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'models',
      method: 'GET',
      path: fc.oneof(
        fc.constant('/v1/models'),
        segment([...CHAT_MODELS, 'gpt-nope']).map((m) => `/v1/models/${m}`),
      ),
      auth: 'bearer',
    }),
    weight: 1,
  },
);

/** Azure's api-version as its clients send it (dated on the deployments paths, none or v1 on the v1 paths), and as they get it wrong. */
const apiVersion = fc.constantFrom(
  '?api-version=2024-10-21',
  '?api-version=2025-04-01-preview',
  '',
  '?api-version=v1',
  '?api-version=preview',
  '?api-version=banana',
);
const DEPLOYMENTS = ['gpt-4o-mini', 'gpt-35-turbo', 'text-embedding-3-small', 'no-such-deployment'];
const ROUTED = [
  'openai/gpt-4o-mini',
  'anthropic/claude-sonnet-4.5',
  'google/gemini-2.5-flash',
  'gpt-4o-mini',
  'anthropic/gpt-4o',
  'nobody/none',
];

/** OpenRouter's own request fields, well-formed or not, over a chat body. */
const routedChatBody = fc
  .tuple(
    chatBody,
    fc.constantFrom(...ROUTED),
    fc.record(
      {
        models: fc.array(fc.constantFrom(...ROUTED), { maxLength: 3 }),
        provider: fc.oneof(
          fc.record({ order: fc.constant(['OpenAI']), sort: fc.constantFrom('price', 'cheapest') }, { requiredKeys: [] }),
          weird,
        ),
        transforms: fc.oneof(fc.constant(['middle-out']), weird),
        route: fc.constantFrom('fallback', 'nope'),
        usage: fc.oneof(fc.record({ include: fc.boolean() }), weird),
        reasoning: fc.oneof(fc.record({ effort: fc.constantFrom('low', 'high', 'huge') }), weird),
        top_k: fc.oneof(fc.integer(), weird),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([body, model, extensions]) => ({ ...body, model, ...extensions }));

/** Azure OpenAI's and OpenRouter's paths: the vendors' endpoints through a cloud or a router. */
export const dialectRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    arbitrary: request({
      aim: 'azure chat (deployment)',
      method: 'POST',
      path: segment(DEPLOYMENTS).map((d) => `/openai/deployments/${d}/chat/completions`),
      query: apiVersion,
      auth: 'api-key',
      body: chatBody,
    }),
    weight: 4,
  },
  {
    arbitrary: request({
      aim: 'azure embeddings (deployment)',
      method: 'POST',
      path: segment(DEPLOYMENTS).map((d) => `/openai/deployments/${d}/embeddings`),
      query: apiVersion,
      auth: 'api-key',
      body: embeddingBody,
    }),
    weight: 1,
  },
  {
    arbitrary: request({
      aim: 'azure chat (v1)',
      method: 'POST',
      path: fc.constant('/openai/v1/chat/completions'),
      query: apiVersion,
      auth: 'api-key',
      body: chatBody,
    }),
    weight: 3,
  },
  {
    arbitrary: request({
      aim: 'azure responses',
      method: 'POST',
      path: fc.constantFrom('/openai/responses', '/openai/v1/responses'),
      query: apiVersion,
      auth: 'api-key',
      body: responsesBody,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'azure models',
      method: 'GET',
      path: fc.constantFrom('/openai/models', '/openai/v1/models', '/openai/v1/models/gpt-4o-mini'),
      query: apiVersion,
      auth: 'api-key',
    }),
    weight: 1,
  },
  {
    arbitrary: request({
      aim: 'openrouter chat',
      method: 'POST',
      path: fc.constant('/api/v1/chat/completions'),
      auth: 'bearer',
      body: routedChatBody,
    }),
    weight: 4,
  },
  {
    arbitrary: request({ aim: 'openrouter models', method: 'GET', path: fc.constant('/api/v1/models'), auth: 'bearer' }),
    weight: 1,
  },
);

export const anthropicRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    arbitrary: request({
      aim: 'messages',
      method: 'POST',
      path: fc.constant('/v1/messages'),
      auth: 'x-api-key',
      body: messagesBody,
      headers: ANTHROPIC_VERSION,
    }),
    weight: 6,
  },
  {
    arbitrary: request({
      aim: 'messages (bearer, 2026-10-21)',
      method: 'POST',
      path: fc.constant('/v1/messages'),
      auth: 'bearer',
      body: messagesBody,
      headers: { 'anthropic-version': '2026-10-21' },
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'count_tokens',
      method: 'POST',
      path: fc.constant('/v1/messages/count_tokens'),
      auth: 'x-api-key',
      body: countBody,
      headers: ANTHROPIC_VERSION,
    }),
    weight: 3,
  },
  {
    arbitrary: request({
      aim: 'models (anthropic)',
      method: 'GET',
      path: fc.oneof(
        fc.constant('/v1/models'),
        segment([...CLAUDE, 'claude-nope']).map((m) => `/v1/models/${m}`),
      ),
      auth: 'x-api-key',
      headers: ANTHROPIC_VERSION,
    }),
    weight: 1,
  },
);

export const geminiRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    arbitrary: request({
      aim: 'generateContent',
      method: 'POST',
      path: geminiAction(['generateContent', 'streamGenerateContent'], [...GEMINI, 'gemini-2.5-flash-preview-tts']),
      auth: 'goog',
      body: generateBody,
    }),
    weight: 6,
  },
  {
    arbitrary: request({
      aim: 'countTokens',
      method: 'POST',
      path: geminiAction(['countTokens'], GEMINI),
      auth: 'goog',
      body: geminiCountBody,
    }),
    weight: 3,
  },
  {
    arbitrary: request({
      aim: 'embedContent',
      method: 'POST',
      path: geminiAction(['embedContent'], EMBED_GEMINI),
      auth: 'goog',
      body: embedContent,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'batchEmbedContents',
      method: 'POST',
      path: geminiAction(['batchEmbedContents'], EMBED_GEMINI),
      auth: 'goog',
      body: batchBody,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'models (gemini)',
      method: 'GET',
      path: fc
        .tuple(versions, fc.option(segment([...GEMINI, 'models%2Fgemini-2.5-flash', 'nope'])))
        .map(([v, m]) => (m === null ? `${v}/models` : `${v}/models/${m}`)),
      auth: 'goog',
    }),
    weight: 1,
  },
);

// ---- Vertex AI ----------------------------------------------------------------------------------

/** Where a Vertex AI model is: a project and location (a region or global), or none (express mode). */
const vertexWhere = fc.oneof(
  { arbitrary: fc.constantFrom('/projects/my-project/locations/us-central1', '/projects/my-project/locations/global'), weight: 3 },
  { arbitrary: fc.constant(''), weight: 1 },
);
const vertexPath = (where: fc.Arbitrary<string>, publisher: string, methods: string[], models: string[]) =>
  fc
    .tuple(
      fc.constantFrom('/v1', '/v1beta1'),
      where,
      fc.oneof(
        { arbitrary: fc.constant(publisher), weight: 10 },
        { arbitrary: fc.constantFrom('google', 'anthropic', 'meta', ''), weight: 1 },
      ),
      segment(models),
      fc.oneof(
        { arbitrary: fc.constantFrom(...methods), weight: 8 },
        { arbitrary: fc.constantFrom('generateContent', 'rawPredict', 'predict', 'batchEmbedContents', 'nope', ''), weight: 1 },
      ),
    )
    .map(([v, w, p, m, a]) => `${v}${w}/publishers/${p}/models/${m}:${a}`);
const VERTEX_CLAUDE = [...CLAUDE, 'claude-haiku-4-5@20251001', 'claude-sonnet-4-5@20250929', 'claude-sonnet-4-5-20250929'];
const vertexEmbedBody = fc.record(
  {
    content: fc.record({ parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 3 }) }),
    embedContentConfig: fc.record(
      { outputDimensionality: fc.integer({ min: 0, max: 4000 }), taskType: fc.constantFrom('RETRIEVAL_QUERY'), autoTruncate: fc.boolean() },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['content'] },
);
const predictBody = fc.record(
  {
    instances: fc.array(
      fc.record({ content: text, task_type: fc.constantFrom('RETRIEVAL_DOCUMENT'), title: text }, { requiredKeys: ['content'] }),
      {
        minLength: 1,
        maxLength: 5,
      },
    ),
    parameters: fc.record({ outputDimensionality: fc.integer({ min: 0, max: 4000 }), autoTruncate: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ['instances'] },
);
/** Anthropic's bodies as Vertex AI takes them: the model in the path (here, mostly, not in the body) and anthropic_version in the body. */
const onVertex = (body: fc.Arbitrary<Record<string, unknown>>, keepModel: boolean) =>
  fc
    .tuple(
      body,
      fc.oneof(
        { arbitrary: fc.constantFrom('vertex-2023-10-16', '2026-10-21'), weight: 8 },
        { arbitrary: fc.constantFrom('bedrock-2023-05-31', 'vertex', undefined), weight: 1 },
      ),
    )
    .map(([b, version]) => {
      const { model, ...rest } = b;
      return { ...(keepModel ? { model } : {}), ...rest, ...(version === undefined ? {} : { anthropic_version: version }) };
    });

export const vertexRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    arbitrary: request({
      aim: 'Vertex generateContent',
      method: 'POST',
      path: vertexPath(vertexWhere, 'google', ['generateContent', 'streamGenerateContent'], [...GEMINI, 'gemini-2.0-flash-001']),
      auth: 'bearer',
      body: generateBody,
    }),
    weight: 5,
  },
  {
    arbitrary: request({
      aim: 'Vertex countTokens, computeTokens',
      method: 'POST',
      path: vertexPath(vertexWhere, 'google', ['countTokens', 'computeTokens'], GEMINI),
      auth: 'goog',
      body: generateBody,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'Vertex embedContent',
      method: 'POST',
      path: vertexPath(vertexWhere, 'google', ['embedContent'], ['gemini-embedding-2', ...EMBED_GEMINI]),
      auth: 'goog',
      body: vertexEmbedBody,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'Vertex predict',
      method: 'POST',
      path: vertexPath(vertexWhere, 'google', ['predict'], EMBED_GEMINI),
      auth: 'bearer',
      body: predictBody,
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'Vertex rawPredict',
      method: 'POST',
      path: vertexPath(
        fc.constant('/projects/my-project/locations/us-east5'),
        'anthropic',
        ['rawPredict', 'streamRawPredict'],
        VERTEX_CLAUDE,
      ),
      auth: 'bearer',
      body: onVertex(messagesBody, false),
    }),
    weight: 5,
  },
  {
    arbitrary: request({
      aim: 'Vertex count-tokens',
      method: 'POST',
      path: fc.constantFrom('/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict'),
      auth: 'bearer',
      body: onVertex(countBody, true),
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'Vertex publisher models',
      method: 'GET',
      path: fc
        .tuple(
          fc.constantFrom('/v1', '/v1beta1'),
          fc.constantFrom('google', 'anthropic', 'meta'),
          fc.option(segment([...GEMINI, ...VERTEX_CLAUDE, 'nope'])),
        )
        .map(([v, p, m]) => `${v}/publishers/${p}/models${m === null ? '' : `/${m}`}`),
      auth: 'goog',
    }),
    weight: 1,
  },
);

// ---- Amazon Bedrock -----------------------------------------------------------------------------

const BEDROCK_MODELS = [
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'anthropic.claude-haiku-4-5-20251001-v1:0',
  'amazon.nova-pro-v1:0',
  'meta.llama3-1-70b-instruct-v1:0',
  'gpt-4o',
  'amazon.titan-embed-text-v2:0',
  'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
];
const converseBlock = fc.oneof(
  { arbitrary: fc.record({ text }), weight: 6 },
  fc.record({
    image: fc.record({
      format: fc.constantFrom('png', 'jpeg', 'bmp'),
      source: fc.record({ bytes: fc.constantFrom('iVBORw0KGgo=', '', '!!') }),
    }),
  }),
  fc.record({
    document: fc.record(
      { name: text, format: fc.constantFrom('txt', 'pdf', 'exe'), source: fc.record({ text }) },
      { requiredKeys: ['name', 'source'] },
    ),
  }),
  fc.record({ cachePoint: fc.record({ type: fc.constantFrom('default', 'other') }) }),
  fc.record({ guardContent: fc.record({ text: fc.record({ text }) }) }),
  fc.record({ text, image: fc.record({ format: fc.constant('png'), source: fc.record({ bytes: fc.constant('iVBORw0KGgo=') }) }) }),
);
const converseTurns = fc
  .array(fc.tuple(fc.array(converseBlock, { minLength: 1, maxLength: 3 }), fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 })), {
    minLength: 1,
    maxLength: 3,
  })
  .map((turns) =>
    turns
      .flatMap(([u, a]) => [
        { role: 'user', content: u },
        { role: 'assistant', content: a },
      ])
      .slice(0, -1),
  );
const toolTurns = fc.tuple(toolName, fc.jsonValue({ maxDepth: 2 }), text).map(([name, input, result]) => [
  { role: 'user', content: [{ text: 'Use the tool' }] },
  { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name, input } }] },
  {
    role: 'user',
    content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: result }, { json: { ok: true } }], status: 'success' } }],
  },
]);
const bedrockTool = fc.record(
  {
    toolSpec: fc.record(
      { name: toolName, description: text, inputSchema: fc.record({ json: toolSchema }) },
      { requiredKeys: ['name', 'inputSchema'] },
    ),
  },
  { requiredKeys: ['toolSpec'] },
);
const converseBody = cohere(
  fc.record(
    {
      messages: fc.oneof({ arbitrary: converseTurns, weight: 4 }, { arbitrary: toolTurns, weight: 1 }),
      system: fc.array(fc.oneof(fc.record({ text }), fc.constant({ cachePoint: { type: 'default' } })), { maxLength: 2 }),
      inferenceConfig: fc.record(
        {
          maxTokens: fc.integer({ min: 1, max: 4096 }),
          temperature: fc.double({ min: 0, max: 1, noNaN: true }),
          topP: fc.double({ min: 0, max: 1, noNaN: true }),
          stopSequences: small(3),
        },
        { requiredKeys: [] },
      ),
      toolConfig: fc.record(
        {
          tools: fc.array(bedrockTool, { minLength: 1, maxLength: 2 }),
          toolChoice: fc.constantFrom({ auto: {} }, { any: {} }, { tool: { name: 'get_weather' } }),
        },
        { requiredKeys: ['tools'] },
      ),
      additionalModelRequestFields: fc.constantFrom(
        {},
        { thinking: { type: 'enabled', budget_tokens: 1024 } },
        { reasoningConfig: { type: 'enabled' } },
        { top_k: 5 },
      ),
      outputConfig: fc.constantFrom(
        {
          textFormat: {
            type: 'json_schema',
            structure: { jsonSchema: { schema: '{"type":"object","properties":{"a":{"type":"string"}}}' } },
          },
        },
        { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: 'not json' } } } },
      ),
      guardrailConfig: fc.constant({ guardrailIdentifier: 'gr-1', guardrailVersion: '1' }),
    },
    { requiredKeys: ['messages'] },
  ),
  (b) => {
    // A tool conversation needs toolConfig, and a forced tool one that exists: mostly give them.
    if (Array.isArray(b.messages) && b.messages.length === 3 && !b.toolConfig)
      b.toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] };
    const inference = b.inferenceConfig as { maxTokens?: number } | undefined;
    const thinking = (b.additionalModelRequestFields as { thinking?: unknown } | undefined)?.thinking;
    if (thinking && inference) inference.maxTokens = 4096;
  },
);
/** InvokeModel's body: Anthropic's Messages body without model and stream, with Bedrock's anthropic_version. */
const invokeBody = messagesBody.map(({ model: _m, stream: _s, ...rest }) => ({ anthropic_version: 'bedrock-2023-05-31', ...rest }));
const bedrockPath = (operations: string[]) =>
  fc
    .tuple(
      segment(BEDROCK_MODELS).map((m) => (m.includes('%') ? m : encodeURIComponent(m))),
      fc.oneof(
        { arbitrary: fc.constantFrom(...operations), weight: 10 },
        { arbitrary: fc.constantFrom('converse-later', '', 'invoke/x'), weight: 1 },
      ),
    )
    .map(([m, op]) => `/model/${m}/${op}`);

export const bedrockRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  ...(['sigv4', 'bearer'] as const).flatMap((auth) => [
    {
      arbitrary: request({
        aim: `converse (${auth})`,
        method: 'POST',
        path: bedrockPath(['converse', 'converse-stream']),
        auth,
        body: converseBody,
      }),
      weight: 5,
    },
    {
      arbitrary: request({
        aim: `invoke (${auth})`,
        method: 'POST',
        path: bedrockPath(['invoke', 'invoke-with-response-stream']),
        auth,
        body: invokeBody,
      }),
      weight: 3,
    },
  ]),
  {
    arbitrary: request({
      aim: 'count-tokens',
      method: 'POST',
      path: bedrockPath(['count-tokens']),
      auth: 'sigv4',
      body: fc.oneof(
        converseBody.map((converse) => ({ input: { converse } })),
        invokeBody.map((b) => ({ input: { invokeModel: { body: Buffer.from(JSON.stringify(b)).toString('base64') } } })),
        fc.constant({ input: {} }),
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: request({
      aim: 'mantle messages',
      method: 'POST',
      path: fc.constant('/anthropic/v1/messages'),
      auth: 'bearer',
      body: messagesBody,
      headers: ANTHROPIC_VERSION,
    }),
    weight: 2,
  },
);

// ---- Control plane (standalone only) ------------------------------------------------------------

/** Tokens the admin fuzz may issue or revoke: never the one every other request uses. */
const adminToken = fc.string({ minLength: 1, maxLength: 30 }).filter((t) => t !== TOKEN);

const fixture = fc.record(
  {
    name: text,
    match: fc.record(
      {
        userMessage: fc.oneof(text, fc.record({ contains: text }), fc.record({ regex: fc.constantFrom('a+', '(a+)+$', '[', '.*') })),
        model: fc.constantFrom('gpt-4o', 'zzz-no-model'),
      },
      { requiredKeys: [] },
    ),
    reply: fc.record(
      {
        text,
        toolCalls: fc.array(
          fc.record({ name: toolName, arguments: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('{}', 'nope')) }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
    error: fc.record({ status: fc.integer({ min: 0, max: 700 }), message: text }, { requiredKeys: ['status'] }),
    once: fc.boolean(),
    priority: fc.integer(),
    scenario: fc.constantFrom('s', ''),
    latency: fc.constantFrom('instant', 'nope', 'ttft=1'),
  },
  { requiredKeys: [] },
);

const adminBody = fc.oneof(
  fixture,
  fc.array(fixture, { maxLength: 3 }),
  fc.record({ fixtures: fc.array(fixture, { maxLength: 3 }) }),
  fc.record(
    { token: adminToken, models: fc.array(fc.constantFrom('gpt-4o', 'x'), { maxLength: 2 }), quota: fc.integer({ min: -1, max: 10 }) },
    { requiredKeys: [] },
  ),
  fc.record({ state: text }),
  fc.record({ state: weird }),
  weird.filter((v) => typeof v === 'object' && v !== null) as fc.Arbitrary<Record<string, unknown>>,
);

const adminRoute = fc.oneof(
  fc.constantFrom(
    ['GET', '/__admin/health'],
    ['GET', '/__admin/requests'],
    ['GET', '/__admin/requests/count'],
    ['GET', '/__admin/requests/unmatched'],
    ['DELETE', '/__admin/requests'],
    ['GET', '/__admin/fixtures'],
    ['POST', '/__admin/fixtures'],
    ['GET', '/__admin/scenarios'],
    ['POST', '/__admin/scenarios/reset'],
    ['GET', '/__admin/tokens'],
    ['POST', '/__admin/tokens'],
    ['POST', '/__admin/reset'],
    ['GET', '/__admin'],
    ['GET', '/__admin/nope'],
  ),
  fc.tuple(
    fc.constant('DELETE'),
    adminToken.map((t) => `/__admin/tokens/${encodeURIComponent(t)}`),
  ),
  fc.tuple(
    fc.constant('DELETE'),
    segment(['fx_1', 'fx_999']).map((id) => `/__admin/fixtures/${id}`),
  ),
  fc.tuple(
    fc.constant('PUT'),
    segment(['s', 'order']).map((n) => `/__admin/scenarios/${n}/state`),
  ),
);

export const adminRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    route: adminRoute,
    method: fc.option(fc.constantFrom(...METHODS), { freq: 10 }),
    query,
    contentType: rarely(contentType, 6),
    body: fc.oneof(
      { arbitrary: adminBody.map(serialize), weight: 6 },
      {
        arbitrary: fc
          .tuple(adminBody, fc.array(mutation, { minLength: 1, maxLength: 2 }))
          .map(([b, ms]) => serialize(mutate(b as Record<string, unknown>, ms))),
        weight: 3,
      },
      { arbitrary: fc.oneof(fc.constantFrom('', '{', 'null', '[]', '"x"'), deep.map(serialize), longText), weight: 1 },
    ),
    other: rarely(otherHeaders, 3),
  })
  .map((r) => {
    const method = r.method ?? r.route[0];
    const headers: Record<string, string> = { ...(r.other ?? {}), 'content-type': r.contentType ?? 'application/json' };
    return {
      method,
      path: r.route[1] + r.query,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : r.body,
      aim: `admin ${r.route[0]} ${r.route[1]}`,
    };
  });

/** Whether a request changes the control plane's state (the fuzz resets after each one). */
export const changesState = (r: FuzzRequest) =>
  r.path.startsWith('/__admin') && r.method !== 'GET' && r.method !== 'HEAD' && r.method !== 'OPTIONS';
