// A canonical request (src/types/request.ts) for unit tests of the core: a plain one-turn chat,
// `over` replacing any field (each keeps its place, so a key made from the object is the same).
import type { CanonicalRequest, Message } from '../../src/core/request.ts';

export const userMessage = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

export function canonicalRequest(over: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    format: 'openai',
    operation: 'chat',
    model: 'gpt-4o-mini',
    messages: [userMessage('hello')],
    stop: [],
    n: 1,
    stream: false,
    tools: [],
    toolChoice: 'auto',
    parallelToolCalls: true,
    output: { type: 'text' },
    ...over,
  };
}
