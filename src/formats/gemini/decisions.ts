// POST /{version}/decisions (@google/genai's `ai.decisions.create`): structured questions (noul: true or
// false; choice: one of named options; score: a level of a rubric) evaluated against a shared input,
// each answered with calibrated probabilities, synthesized deterministically from the question and the
// input (core/synthesize/decision.ts).
import { GatewayError } from '../../core/errors.ts';
import { hashStrings, hashStringsInSlices } from '../../core/seed.ts';
import { countEachInSlices } from '../../core/tokens.ts';
import { outcomeProbabilities } from '../../core/synthesize/decision.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { isJsonObject, type FieldRules, type JsonObject } from '../fields.ts';
import { fromGoogleClient, geminiFormat, KEY_WAYS } from './format.ts';
import { checkField, checkFields, invalid } from './validate.ts';

const REQUEST = {
  input: { types: ['string', 'object', 'array'], required: true },
  model: { types: ['string'], required: true },
  questions: { types: ['object'], required: true },
} as const satisfies FieldRules;

const QUESTION = {
  type: { types: ['string'], required: true, values: ['noul', 'choice', 'score'] },
  instructions: { types: ['string', 'object', 'array'], required: true },
  criteria: { types: ['object', 'array'] },
} as const satisfies FieldRules;

/** A question's options: between 2 and 255. */
const MAX_OPTIONS = 255;
/** Questions in one request (the service's bound is not published; this one keeps the work bounded). */
const MAX_QUESTIONS = 1000;

/** The text of content (a string, a content block, or a list of them); media blocks count by their type. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (isJsonObject(content)) return typeof content.text === 'string' ? content.text : String(content.type ?? '');
  return '';
}

/** Rounded to four decimals, as the answers' probabilities are. */
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

function options(id: string, question: JsonObject): string[] {
  const at = `questions.${id}.criteria`;
  if (question.type === 'noul') {
    if (question.criteria !== undefined) checkField(at, question.criteria, { types: ['object'] });
    return ['true', 'false'];
  }
  checkField(at, question.criteria, { types: [question.type === 'choice' ? 'object' : 'array'], required: true });
  const named = question.type === 'choice' ? Object.keys(question.criteria as JsonObject) : (question.criteria as unknown[]).map(String);
  if (named.length < 2 || named.length > MAX_OPTIONS)
    throw invalid(
      at,
      `${at} must have between 2 and ${MAX_OPTIONS} ${question.type === 'choice' ? 'options' : 'levels'}, got ${named.length}.`,
    );
  if (question.type === 'choice' && named.some((o) => o === '' || o.trim() !== o || /\p{Cc}/u.test(o)))
    throw invalid(at, `${at}: an option ID must be non-empty, without control characters or leading or trailing whitespace.`);
  return named;
}

function answer(id: string, question: JsonObject, key: number): JsonObject {
  const named = options(id, question);
  const p = outcomeProbabilities(key, named.length);
  const best = p.indexOf(Math.max(...p));
  if (question.type === 'noul') {
    const noul = Math.min(0.99, Math.max(0.01, p[0]));
    return { type: 'noul', noul, confidence: round4(Math.max(noul, 1 - noul)) };
  }
  if (question.type === 'choice')
    return { type: 'choice', choice: named[best], confidence: p[best], probabilities: Object.fromEntries(named.map((o, i) => [o, p[i]])) };
  const legend = Object.fromEntries(named.flatMap((text, i) => (text ? [[String(i), text]] : [])));
  return {
    type: 'score',
    score: round4(p.reduce((sum, q, i) => sum + i * q, 0)),
    confidence: p[best],
    probabilities: Object.fromEntries(p.map((q, i) => [String(i), q])),
    legend,
  };
}

/**
 * The input is shared by every question: hashed once, in slices, and each question's key derived from
 * that hash and its own fields; every text counted in slices (a 32 MiB input with 1,000 questions was
 * hashed 1,000 times on one turn of the event loop).
 */
async function decide(call: Call<JsonObject>): Promise<Outbound> {
  const body = call.body;
  checkFields(body, REQUEST);
  const model = body.model.replace(/^models\//, '');
  if (!call.runtime.catalogue.get(model)) throw new GatewayError('not_found', `models/${model} is not found for decisions.`);
  call.entry.model = model;
  const questions = Object.entries(body.questions);
  if (!questions.length) throw invalid('questions', 'questions must have at least 1 question.');
  if (questions.length > MAX_QUESTIONS)
    throw invalid('questions', `questions may have at most ${MAX_QUESTIONS} questions, got ${questions.length}.`);
  const input = textOf(body.input);
  const instructions: string[] = [];
  for (const [id, question] of questions) {
    checkField(`questions.${id}`, question, { types: ['object'] });
    checkFields(question as JsonObject, QUESTION, `questions.${id}.`);
    const text = textOf((question as JsonObject).instructions);
    if (!text.trim()) throw invalid(`questions.${id}.instructions`, `questions.${id}.instructions must have at least one content block.`);
    instructions.push(text);
  }
  const inputKey = String(await hashStringsInSlices([model, input], call.runtime.seed));
  const counts = await countEachInSlices([input, ...instructions]);
  const inputTokens = counts.reduce((sum, n) => sum + n, 0);
  const answers: JsonObject = {};
  questions.forEach(([id, question], i) => {
    const q = question as JsonObject;
    answers[id] = answer(
      id,
      q,
      hashStrings([inputKey, id, String(q.type), instructions[i], JSON.stringify(q.criteria ?? null)], call.runtime.seed),
    );
  });
  // One output token an answer: a decision is read from the model's probabilities, not generated.
  const outputTokens = questions.length;
  return json({
    answers,
    usage: { total_input_tokens: inputTokens, total_output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  });
}

export const decisionEndpoints: EndpointSpec[] = ['/v1beta', '/v1'].map((v) => ({
  method: 'POST',
  path: `${v}/decisions`,
  format: geminiFormat,
  auth: KEY_WAYS,
  accepts: v === '/v1' ? fromGoogleClient : undefined,
  handle: decide,
}));
