// OpenRouter's reply fields, over OpenAI's reply: the generation id (`gen-…`), the model as asked
// (`openai/gpt-4o-mini`), the `provider` that answered, each choice's `native_finish_reason` (the
// provider's own word for why it stopped), and the cost in the usage (a stream's last chunk). A stream
// begins with OpenRouter's `: OPENROUTER PROCESSING` comment.
import type { Call } from '../../pipeline/call.ts';
import type { JsonObject, Outbound } from '../../pipeline/exchange.ts';
import { priceUsage } from '../../pipeline/limits.ts';
import { leadingFrame, touchPayloads } from '../../pipeline/touch.ts';
import { routings, type Routing } from './requests.ts';

/** The providers' own finish reasons for OpenAI's, by maker (OpenAI's are its own). */
const NATIVE: Record<string, Record<string, string>> = {
  anthropic: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' },
  google: { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' },
};

function nativeFinish(routing: Routing, reason: unknown): unknown {
  if (typeof reason !== 'string') return reason ?? null;
  return NATIVE[routing.info.owned_by]?.[reason] ?? reason;
}

/** The usage's cost (USD, OpenRouter's credits) at the gateway's price table, with its parts. */
function costOf(call: Call, routing: Routing, usage: JsonObject): void {
  const used = call.entry.usage;
  if (!used) return;
  const total = priceUsage(call.runtime, routing.info.id, used) ?? 0;
  const prompt = priceUsage(call.runtime, routing.info.id, { ...used, outputTokens: 0, reasoningTokens: 0 }) ?? 0;
  usage.cost = total;
  usage.is_byok = false;
  usage.cost_details = {
    upstream_inference_cost: null,
    upstream_inference_prompt_cost: prompt,
    upstream_inference_completions_cost: Math.round((total - prompt) * 1e11) / 1e11,
  };
}

/** One payload (a reply, or a stream's chunk) as OpenRouter sends it. */
function touch(call: Call, routing: Routing, payload: JsonObject): void {
  if (typeof payload.id === 'string') payload.id = payload.id.replace(/^(?:chatcmpl|cmpl)-/, 'gen-');
  if ('model' in payload) payload.model = routing.model;
  payload.provider = routing.provider;
  for (const choice of Array.isArray(payload.choices) ? (payload.choices as JsonObject[]) : []) {
    choice.native_finish_reason = nativeFinish(routing, choice.finish_reason);
    const message = choice.message as JsonObject | undefined;
    if (message) message.reasoning ??= null;
  }
  const usage = payload.usage;
  if (usage && typeof usage === 'object') costOf(call, routing, usage as JsonObject);
}

/** A chat, completion or embedding answer with OpenRouter's fields (an error chunk passes as it is). */
export function routedReply(call: Call, out: Outbound): Outbound {
  const routing = routings.get(call);
  if (!routing) return out;
  const touched = touchPayloads(out, (payload) => {
    if (!('error' in payload)) touch(call, routing, payload);
    return undefined;
  });
  return leadingFrame(touched, ': OPENROUTER PROCESSING\n\n');
}
