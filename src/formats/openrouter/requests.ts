// OpenRouter's request extensions, checked and taken out of the body before OpenAI's handler sees it:
// `models` (fallbacks, answered by the first that exists), `provider` (routing preferences), `transforms`,
// `route`, `usage: {include}` (deprecated by OpenRouter: usage and cost now come with every reply, and
// a stream's last chunk, asked or not), `reasoning` (its effort becomes OpenAI's `reasoning_effort`),
// and the sampling and plugin fields other providers take. What the reply needs of them (the model id
// used, the provider) is kept for replies.ts.
import { GatewayError } from '../../core/errors.ts';
import type { ModelInfo } from '../../core/models.ts';
import type { Call } from '../../pipeline/call.ts';
import { isJsonObject, type JsonObject } from '../../pipeline/exchange.ts';
import { dialectModel } from '../../pipeline/mount.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { catalogueId, madeBy, providerName } from './models.ts';

/** What the reply of a routed request says about its routing. */
export interface Routing {
  /** The OpenRouter id that answered (the first of `model` and `models` that exists). */
  model: string;
  /** The catalogue model it stands for. */
  info: ModelInfo;
  /** The provider that answered: the first the request asks for, else the model's maker. */
  provider: string;
}

/** Each routed request's routing, for its reply. */
export const routings = new WeakMap<Call, Routing>();

const invalid = (message: string, param?: string) => new GatewayError('invalid_request', message, param ? { param } : {});

type Check = (value: unknown, name: string) => void;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const strings: Check = (v, name) => {
  if (!isStrings(v)) throw invalid(`${name}: expected an array of strings`, name);
};
const number: Check = (v, name) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${name}: expected a number`, name);
};
const boolean: Check = (v, name) => {
  if (typeof v !== 'boolean') throw invalid(`${name}: expected a boolean`, name);
};
const object: Check = (v, name) => {
  if (!isJsonObject(v)) throw invalid(`${name}: expected an object`, name);
};
const oneOf =
  (...values: string[]): Check =>
  (v, name) => {
    if (typeof v !== 'string' || !values.includes(v))
      throw invalid(`${name}: expected one of ${values.join(', ')}, got ${JSON.stringify(v)}`, name);
  };

/** The fields of an object extension that are checked (others are OpenRouter's to add: accepted). */
const fields =
  (rules: Record<string, Check>): Check =>
  (v, name) => {
    object(v, name);
    for (const [field, check] of Object.entries(rules)) {
      const value = (v as JsonObject)[field];
      if (value !== undefined && value !== null) check(value, `${name}.${field}`);
    }
  };

const EFFORTS = ['xhigh', 'high', 'medium', 'low', 'minimal', 'none'];

/** OpenRouter's own top-level fields, with their checks. */
const EXTENSIONS: Record<string, Check> = {
  models: strings,
  provider: fields({
    order: strings,
    only: strings,
    ignore: strings,
    allow_fallbacks: boolean,
    require_parameters: boolean,
    data_collection: oneOf('allow', 'deny'),
    sort: oneOf('price', 'throughput', 'latency'),
    quantizations: strings,
  }),
  transforms: strings,
  route: oneOf('fallback'),
  usage: fields({ include: boolean }),
  reasoning: fields({ effort: oneOf(...EFFORTS), max_tokens: number, exclude: boolean, enabled: boolean }),
  include_reasoning: boolean,
  plugins: (v, name) => {
    if (!Array.isArray(v) || !v.every(isJsonObject)) throw invalid(`${name}: expected an array of objects`, name);
  },
  top_k: number,
  min_p: number,
  top_a: number,
  repetition_penalty: number,
  debug: object,
  cache_control: object,
};

/** The catalogue model an OpenRouter id names, made by the vendor it names; undefined for none. */
function modelOf(call: Call, name: string): ModelInfo | undefined {
  const id = dialectModel(call, { modelName: catalogueId }, name);
  const info = id === undefined ? undefined : call.runtime.catalogue.get(id);
  // A deployment mapping (`--deployment openrouter/auto=gpt-4o-mini`) names its model whatever the prefix.
  return info && (call.runtime.deployments.has(name) || madeBy(name, info)) ? info : undefined;
}

/**
 * The request as OpenAI's handler takes it: OpenRouter's fields checked and taken out, the model the
 * first of `model` and `models` that exists (OpenRouter's 400 naming them when none does).
 */
export function routedRequest(call: Call): void {
  const body = call.body;
  if (!body) return;
  const own: JsonObject = {};
  for (const [name, value] of Object.entries(body)) {
    const check = EXTENSIONS[name];
    if (!check) own[name] = value;
    else if (value !== undefined && value !== null) check(value, name);
  }
  const asked = [body.model, ...((body.models as string[] | undefined) ?? [])].filter((m): m is string => typeof m === 'string');
  // No model at all: OpenAI's checks say so.
  if (asked.length) {
    const found = asked.map((name) => ({ name, info: modelOf(call, name) })).find((m) => m.info);
    if (!found) {
      const which =
        asked.length === 1 ? `${asked[0]} is not a valid model ID` : `None of the models ${asked.join(', ')} is a valid model ID`;
      throw invalid(
        `${which}: OpenRouter's ids are vendor/model, such as openai/gpt-4o-mini, anthropic/claude-sonnet-4.5 or google/gemini-2.5-flash (GET /api/v1/models lists them).`,
        'model',
      );
    }
    own.model = found.info!.id;
    const provider = body.provider as { order?: string[]; only?: string[] } | undefined;
    routings.set(call, {
      model: found.name,
      info: found.info!,
      provider: provider?.order?.[0] ?? provider?.only?.[0] ?? providerName(found.info!),
    });
  }
  const effort = (body.reasoning as { effort?: string } | undefined)?.effort;
  if (effort !== undefined && own.reasoning_effort === undefined) own.reasoning_effort = effort;
  // Every chat or completion stream ends with its usage (and cost), as OpenAI's does when asked with include_usage.
  if (own.stream === true && /^\/v1\/(?:chat\/)?completions$/.test(call.canonicalPath ?? ''))
    own.stream_options = { ...(isJsonObject(own.stream_options) ? own.stream_options : {}), include_usage: true };
  lenientAlike(body, own);
  call.body = own;
}
