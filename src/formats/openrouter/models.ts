// OpenRouter's model ids, `vendor/model` (`openai/gpt-4o-mini`, `anthropic/claude-sonnet-4.5`,
// `google/gemini-2.5-flash`), to and from the catalogue's, and its models list.
import type { ModelInfo } from '../../core/models.ts';
import { priceOf } from '../../core/prices.ts';
import type { Call } from '../../pipeline/call.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';

/** OpenRouter's vendor prefix for a catalogue model's maker, where the two differ in nothing but case. */
const vendorOf = (m: Pick<ModelInfo, 'owned_by'>) => m.owned_by.toLowerCase();

/** Anthropic's versions are dotted on OpenRouter (`claude-sonnet-4.5`), dashed in Anthropic's own ids (`claude-sonnet-4-5`). */
const dotted = (vendor: string, id: string) => (vendor === 'anthropic' ? id.replace(/(\d)-(\d)(?=-|$)/g, '$1.$2') : id);
const dashed = (vendor: string, id: string) => (vendor === 'anthropic' ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id);

/** The catalogue id an OpenRouter id names (its `:free`, `:nitro`… variant dropped), undefined for one that is not `vendor/model`. */
export function catalogueId(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) return undefined;
  const vendor = name.slice(0, slash);
  return dashed(vendor, name.slice(slash + 1).replace(/:[a-z-]+$/, ''));
}

/** Whether the catalogue model `model` is made by the vendor the OpenRouter id names (`anthropic/gpt-4o` is no model). */
export const madeBy = (name: string, model: Pick<ModelInfo, 'owned_by'>) => name.slice(0, name.indexOf('/')) === vendorOf(model);

/** A catalogue model's OpenRouter id. */
export const openrouterId = (m: Pick<ModelInfo, 'id' | 'owned_by'>) => `${vendorOf(m)}/${dotted(vendorOf(m), m.id)}`;

/** The provider OpenRouter names for a model's maker (the reply's `provider`). */
export function providerName(m: Pick<ModelInfo, 'owned_by'>): string {
  const vendor = vendorOf(m);
  return PROVIDERS[vendor] ?? vendor.charAt(0).toUpperCase() + vendor.slice(1);
}

const PROVIDERS: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Google AI Studio' };
const TOKENIZERS: Record<string, string> = { openai: 'GPT', anthropic: 'Claude', google: 'Gemini' };

/** A price per million tokens as OpenRouter's per-token string (`0.00000015`). */
const perToken = (perMillion: number | undefined) =>
  perMillion === undefined ? '0' : (perMillion / 1e6).toFixed(12).replace(/\.?0+$/, '') || '0';

/** What the chat models of the catalogue accept, as OpenRouter lists it. */
const SUPPORTED = [
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'response_format',
  'structured_outputs',
  'tools',
  'tool_choice',
];

function modelObject(call: Call, m: ModelInfo) {
  const id = openrouterId(m);
  const vendor = vendorOf(m);
  const price = priceOf(call.runtime.prices, call.runtime.catalogue, m.id);
  const inputs = ['text', ...(m.input_modalities ?? []).filter((x) => x !== 'text')];
  const outputs = ['text', ...(m.capabilities.includes('image') ? ['image'] : [])];
  return {
    id,
    canonical_slug: id,
    hugging_face_id: '',
    name: `${providerName(m).replace(' AI Studio', '')}: ${m.display_name ?? m.id}`,
    created: m.created,
    description: `${m.display_name ?? m.id}, served by model-gateway-mock.`,
    context_length: m.context_window ?? 32768,
    architecture: {
      modality: `${inputs.join('+')}->${outputs.join('+')}`,
      input_modalities: inputs,
      output_modalities: outputs,
      tokenizer: TOKENIZERS[vendor] ?? 'Other',
      instruct_type: null,
    },
    pricing: {
      prompt: perToken(price?.input),
      completion: perToken(price?.output),
      request: '0',
      image: '0',
      web_search: '0',
      internal_reasoning: perToken(price?.reasoning ?? price?.output),
      ...(price?.cached_input !== undefined && { input_cache_read: perToken(price.cached_input) }),
    },
    top_provider: {
      context_length: m.context_window ?? 32768,
      max_completion_tokens: m.max_output_tokens ?? null,
      is_moderated: vendor === 'openai',
    },
    per_request_limits: null,
    supported_parameters: m.reasoning ? [...SUPPORTED, 'reasoning', 'include_reasoning'] : SUPPORTED,
    default_parameters: {},
  };
}

/** `GET /api/v1/models`: the catalogue's chat and completion models, by OpenRouter id. */
export function listModels(call: Call): Outbound {
  const models = call.runtime.catalogue.list().filter((m) => m.capabilities.includes('chat') || m.capabilities.includes('completion'));
  return json({ data: models.map((m) => modelObject(call, m)) });
}
