// Reading a reply's stream events, in whichever text API they came: the playground shows them as they
// arrive, the inspector assembles a journaled stream from them. One reader, so both read alike.

/** The text APIs, by how their streams are shaped. */
export type TextApi = 'chat' | 'completions' | 'responses' | 'messages' | 'gemini' | 'converse';

export interface Usage {
  input?: number;
  output?: number;
}

/** What a stream's events say, piece by piece. */
export interface StreamSink {
  text(piece: string): void;
  usage(u: Usage): void;
  /** A tool call's name (when it starts) or a piece of its arguments, by the call's position. */
  tool?(index: number, name: string | undefined, args: string): void;
  /** An error sent inside the stream. */
  error(message: string): void;
}

/** The text API a journaled request spoke, from its path and format; undefined for other endpoints. */
export function textApiOf(path: string, format?: string): TextApi | undefined {
  if (format === 'gemini') return /:(?:stream)?generateContent$/i.test(path.split('?')[0]) ? 'gemini' : undefined;
  if (format === 'bedrock') return /\/converse-stream$/.test(path) ? 'converse' : undefined;
  // Bedrock's InvokeModelWithResponseStream: Messages events, each in a `chunk` frame (readStreamEvent unwraps them).
  if (/^\/model\/[^/]+\/invoke-with-response-stream$/.test(path)) return 'messages';
  // The dialects' paths too: Azure's deployments and /openai/v1, OpenRouter's /api/v1, Claude on Vertex.
  if (/\/chat\/completions$/.test(path)) return 'chat';
  if (/\/(?:v1|deployments\/[^/]+)\/completions$/.test(path)) return 'completions';
  if (/\/v1\/responses$/.test(path)) return 'responses';
  if (/\/v1\/messages$|:streamRawPredict$/.test(path)) return 'messages';
  return undefined;
}

/** One stream event's payload read into `sink`. */
export function readStreamEvent(api: TextApi, event: string, data: string, sink: StreamSink): void {
  if (data === '[DONE]') return;
  const d = JSON.parse(data);
  // An AWS event-stream `chunk` frame (InvokeModel's stream): its `bytes` are the event, base64 of UTF-8 JSON.
  if (event === 'chunk' && typeof d.bytes === 'string') {
    const inner = new TextDecoder().decode(Uint8Array.from(atob(d.bytes), (c) => c.charCodeAt(0)));
    return readStreamEvent(api, JSON.parse(inner).type ?? 'message', inner, sink);
  }
  if (d.error || event === 'error') return sink.error(d.error?.message ?? d.message ?? data);
  switch (api) {
    case 'chat':
    case 'completions': {
      const choice = d.choices?.[0];
      const piece = choice?.delta?.content ?? choice?.text;
      if (piece) sink.text(piece);
      for (const call of choice?.delta?.tool_calls ?? []) sink.tool?.(call.index ?? 0, call.function?.name, call.function?.arguments ?? '');
      if (d.usage) sink.usage({ input: d.usage.prompt_tokens, output: d.usage.completion_tokens });
      break;
    }
    case 'responses':
      if (d.type === 'response.output_text.delta') sink.text(d.delta);
      if (d.type === 'response.output_item.added' && d.item?.type === 'function_call') sink.tool?.(d.output_index, d.item.name, '');
      if (d.type === 'response.function_call_arguments.delta') sink.tool?.(d.output_index, undefined, d.delta);
      if (d.type === 'response.completed' || d.type === 'response.incomplete')
        sink.usage({ input: d.response.usage?.input_tokens, output: d.response.usage?.output_tokens });
      if (d.type === 'response.failed') sink.error(d.response?.error?.message ?? 'failed');
      break;
    case 'messages':
      if (d.type === 'message_start') sink.usage({ input: d.message.usage?.input_tokens });
      if (d.type === 'content_block_start' && d.content_block?.type === 'tool_use') sink.tool?.(d.index, d.content_block.name, '');
      if (d.type === 'content_block_delta' && d.delta?.type === 'text_delta') sink.text(d.delta.text);
      if (d.type === 'content_block_delta' && d.delta?.type === 'input_json_delta') sink.tool?.(d.index, undefined, d.delta.partial_json);
      if (d.type === 'message_delta') sink.usage({ output: d.usage?.output_tokens });
      break;
    case 'gemini':
      readGemini(d, sink);
      break;
    case 'converse':
      // Bedrock's ConverseStream: the event is named by the frame, its payload is the event's member.
      if (event === 'contentBlockDelta' && d.delta?.text) sink.text(d.delta.text);
      if (event === 'contentBlockStart' && d.start?.toolUse) sink.tool?.(d.contentBlockIndex ?? 0, d.start.toolUse.name, '');
      if (event === 'contentBlockDelta' && d.delta?.toolUse) sink.tool?.(d.contentBlockIndex ?? 0, undefined, d.delta.toolUse.input ?? '');
      if (event === 'metadata') sink.usage({ input: d.usage?.inputTokens, output: d.usage?.outputTokens });
      break;
  }
}

/** A generate-content reply (whole, or one streamed chunk): its text, function calls and usage. */
export function readGemini(d: any, sink: Pick<StreamSink, 'text' | 'usage' | 'tool'>): void {
  (d.candidates?.[0]?.content?.parts ?? []).forEach((part: any, i: number) => {
    if (part.text && !part.thought) sink.text(part.text);
    if (part.functionCall) sink.tool?.(i, part.functionCall.name, JSON.stringify(part.functionCall.args ?? {}));
  });
  if (d.usageMetadata) sink.usage({ input: d.usageMetadata.promptTokenCount, output: d.usageMetadata.candidatesTokenCount });
}
