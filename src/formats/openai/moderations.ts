// Moderations (POST /v1/moderations): `input` as a text, texts (a result each) or one multimodal list of
// text and image parts (one result), judged by core/synthesize/moderation.ts: deterministic scores,
// high for the documented trigger words, pinned by a fixture's `reply.moderation`. Each result is its
// own request to the fixtures (as an embedding input is), matched on its text. OpenAI sends no usage:
// none is charged.
import { GatewayError } from '../../core/errors.ts';
import { operationRequest } from '../../core/request.ts';
import { hashString, makeHexId } from '../../core/seed.ts';
import {
  FLAG_THRESHOLD,
  IMAGE_CATEGORIES,
  MODERATION_CATEGORIES,
  type ModerationInput,
  moderationScores,
} from '../../core/synthesize/moderation.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { decide, type Decision, isForward, type Forward, requireModel } from '../../pipeline/decide.ts';
import { decidedReply } from '../../pipeline/delivery.ts';
import type { Outbound } from '../../pipeline/exchange.ts';
import { type FieldRules, isJsonObject, type JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { checkField, checkFields, invalid, invalidType } from './validate.ts';

const FIELDS = {
  input: { types: ['string', 'array'], required: true },
  model: { types: ['string'] },
} as const satisfies FieldRules;

/** Inputs one request may carry (texts, or parts of one multimodal input): what bounds its work. */
const MAX_INPUTS = 2048;
/** The categories the text models do not judge (`null` in their results). */
const OMNI_ONLY = ['illicit', 'illicit/violent'];

/** What each result is judged on: a text each for a text or texts, one multimodal input for a list of parts. */
function inputsOf(raw: string | unknown[]): ModerationInput[] {
  if (typeof raw === 'string') return [{ texts: [raw], images: [] }];
  if (!raw.length)
    throw invalid(
      'input',
      "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'empty_array',
    );
  if (raw.length > MAX_INPUTS)
    throw invalid(
      'input',
      `Invalid 'input': array too long. Expected an array with maximum length ${MAX_INPUTS}, but got an array with length ${raw.length} instead.`,
      'array_above_max_length',
    );
  if (typeof raw[0] === 'string')
    return raw.map((text, i) => {
      if (typeof text !== 'string') throw invalidType(`input[${i}]`, ['string'], text);
      return { texts: [text], images: [] };
    });
  const texts: string[] = [];
  const images: string[] = [];
  raw.forEach((part, i) => {
    if (!isJsonObject(part)) throw invalidType(`input[${i}]`, ['object'], part);
    checkField(`input[${i}].type`, part.type, { types: ['string'], required: true, values: ['text', 'image_url'] });
    if (part.type === 'text') {
      checkField(`input[${i}].text`, part.text, { types: ['string'], required: true });
      texts.push(part.text);
    } else {
      checkField(`input[${i}].image_url`, part.image_url, { types: ['object'], required: true });
      const url = (part.image_url as JsonObject).url;
      checkField(`input[${i}].image_url.url`, url, { types: ['string'], required: true });
      images.push(url);
    }
  });
  return [{ texts, images }];
}

/** One result as OpenAI renders it: flags, scores, and which kinds of input each category was judged on. */
function result(input: ModerationInput, decision: Decision, omni: boolean): JsonObject {
  const scores = moderationScores(input, decision.seed, decision.pinned?.moderation);
  const categories: JsonObject = {};
  const categoryScores: JsonObject = {};
  const applied: JsonObject = {};
  let flagged = false;
  for (const c of MODERATION_CATEGORIES) {
    const judged = omni || !OMNI_ONLY.includes(c);
    const flag = scores[c] >= FLAG_THRESHOLD;
    categories[c] = judged ? flag : null;
    categoryScores[c] = judged ? scores[c] : 0;
    flagged ||= judged && flag;
    const kinds: string[] = [];
    if (input.texts.length) kinds.push('text');
    if (input.images.length && IMAGE_CATEGORIES.includes(c)) kinds.push('image');
    applied[c] = kinds;
  }
  return { flagged, categories, category_scores: categoryScores, category_applied_input_types: applied };
}

function moderate(call: Call<JsonObject>): Outbound | Forward | Promise<Outbound> {
  const body = call.body;
  checkFields(body, FIELDS);
  const model = body.model ?? 'omni-moderation-latest';
  call.entry.model = model;
  requireModel(call, model, 'moderation');
  const omni = call.runtime.catalogue.get(model)?.input_modalities?.includes('image') ?? false;
  const inputs = inputsOf(body.input);
  if (!omni && inputs.some((i) => i.images.length))
    throw new GatewayError('invalid_request', `Model ${model} does not take image inputs: send images to omni-moderation-latest.`, {
      param: 'input',
    });
  // Each input is its own request to the fixtures, matched on its text; each also names the whole
  // list, which a recording of the list matches on (see matchKey), as embeddings' inputs do.
  const texts = inputs.map((input) => input.texts.join('\n'));
  const batch = texts.length > 1 ? texts : undefined;
  const decisions: Decision[] = [];
  for (const text of texts) {
    const decision = decide(call, { ...operationRequest('openai', 'moderation', model, text), batch });
    if (isForward(decision)) return decision;
    decisions.push(decision);
  }
  const key = hashString(JSON.stringify(body.input), call.runtime.seed);
  return decidedReply(call, decisions, key, () => ({
    id: makeHexId('modr-', 32, key),
    model,
    results: inputs.map((input, i) => result(input, decisions[i], omni)),
  }));
}

export const moderationEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/moderations', format: openaiFormat, auth: ['bearer'], handle: moderate },
];
