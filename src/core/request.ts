// The canonical request: what every wire format's request means, with the vendor's spelling removed.
import type { Message, CanonicalRequest } from '../types/request.ts';
export type {
  Role,
  Part,
  ToolCallRef,
  Message,
  OutputFormat,
  CanonicalRequest,
  CitableDocument,
  ReasoningEffort,
  CacheRequest,
  TokenFraming,
  ToolSpec,
  ToolChoice,
} from '../types/request.ts';

export function textOf(message: Message): string {
  return joinedTexts(message.parts);
}

/**
 * The texts of the `text` items (message parts, reply blocks), joined. One text item is its text as
 * is: the commonest case, met several times per request, builds no array.
 */
export function joinedTexts(items: readonly { type: string; text?: unknown }[]): string {
  const only = items.length === 1 ? items[0] : undefined;
  if (only?.type === 'text' && typeof only.text === 'string') return only.text;
  return items.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The text of the last user turn, what fixtures most often match on. */
export function lastUserText(request: CanonicalRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    if (request.messages[i].role === 'user') return textOf(request.messages[i]);
  }
  return '';
}

/** The text of the files and documents the last user message gives, joined by new lines ('' for none read). */
export function lastUserFileText(request: CanonicalRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role === 'user') return m.parts.flatMap((p) => (p.type === 'file' && p.text !== undefined ? [p.text] : [])).join('\n');
  }
  return '';
}

/** The canonical form of a request that is not a conversation (an embedding input, a rerank query, an image prompt…), so fixtures and overrides apply to it too. */
export function operationRequest(
  format: CanonicalRequest['format'],
  operation: Exclude<CanonicalRequest['operation'], 'chat'>,
  model: string,
  text: string,
): CanonicalRequest {
  return plainRequest(format, operation, model, [{ role: 'user', parts: [{ type: 'text', text }] }]);
}

/** A request of `messages` with nothing else asked: no tools, one text choice, not streamed. */
export function plainRequest(
  format: CanonicalRequest['format'],
  operation: CanonicalRequest['operation'],
  model: string,
  messages: Message[],
): CanonicalRequest {
  return {
    format,
    operation,
    model,
    messages,
    stop: [],
    n: 1,
    stream: false,
    tools: [],
    toolChoice: 'none',
    parallelToolCalls: false,
    output: { type: 'text' },
  };
}
