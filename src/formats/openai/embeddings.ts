// Embeddings (/v1/embeddings) and reranking (/v1/rerank, Jina-style; /v2/rerank, Cohere v2) in the
// gateway's OpenAI-compatible shapes. Vectors and scores come from the core's vector synthesizer.
import { mapInSlices } from '../../core/slices.ts';
import { hashString, makeId } from '../../core/seed.ts';
import { countEachInSlices, countTokens, truncateTokens } from '../../core/tokens.ts';
import { toBase64 } from '../../core/synthesize/audio.ts';
import { EMBED_SLICE_WORK, embed, embeddingSpace, embedWork, float32Bytes, relevance } from '../../core/synthesize/vectors.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { decidedReply } from '../../pipeline/delivery.ts';
import { mayBeBig } from '../../pipeline/exchange.ts';
import { operationRequest } from '../../core/request.ts';
import { openaiFormat } from './format.ts';
import { checkFields, invalid, invalidType } from './validate.ts';
import { tokenIdsText } from './validate.ts';
import { decide, isForward, type Decision, requireModel } from '../../pipeline/decide.ts';
import { type FieldRules, isJsonObject, type JsonObject } from '../fields.ts';

const MAX_INPUTS = 2048;
/** OpenAI's limit on the tokens of all inputs of one request. */
const MAX_REQUEST_TOKENS = 300_000;

const EMBEDDING_FIELDS = {
  model: { types: ['string'], required: true },
  input: { types: ['string', 'array'], required: true },
  dimensions: { types: ['integer'], min: 1 },
  encoding_format: { types: ['string'], values: ['float', 'base64'] },
  user: { types: ['string'] },
} as const satisfies FieldRules;

/** The input in any of its four shapes, as texts. */
function inputs(raw: string | unknown[]): string[] {
  const texts = (() => {
    if (typeof raw === 'string') return [raw];
    if (raw.length && raw.every((x) => typeof x === 'number')) return [tokenIdsText('input', raw)];
    return raw.map((x, i) => {
      if (typeof x === 'string') return x;
      if (Array.isArray(x)) return tokenIdsText(`input[${i}]`, x);
      throw invalidType(`input[${i}]`, ['string', 'array'], x);
    });
  })();
  if (!texts.length)
    throw invalid(
      'input',
      "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'empty_array',
    );
  if (texts.length > MAX_INPUTS) {
    throw invalid(
      'input',
      `Invalid 'input': array too long. Expected an array with maximum length ${MAX_INPUTS}, but got an array with length ${texts.length} instead.`,
      'array_above_max_length',
    );
  }
  texts.forEach((t, i) => {
    if (!t)
      throw invalid(
        typeof raw === 'string' ? 'input' : `input[${i}]`,
        `Invalid '${typeof raw === 'string' ? 'input' : `input[${i}]`}': an input must not be empty.`,
      );
  });
  return texts;
}

async function embeddings(call: Call<JsonObject>) {
  const body = call.body;
  checkFields(body, EMBEDDING_FIELDS);
  const model = body.model;
  call.entry.model = model;
  requireModel(call, model, 'embedding');
  const info = call.runtime.catalogue.get(model)!;
  const dims = info.dimensions ?? 1536;
  const texts = inputs(body.input);
  const dimensions = body.dimensions;
  if (dimensions !== undefined) {
    if (info.fixed_dimensions) throw invalid('dimensions', 'This model does not support specifying dimensions.', undefined);
    if (dimensions > dims)
      throw invalid(
        'dimensions',
        `Invalid 'dimensions': integer above maximum value. Expected a value <= ${dims}, but got ${dimensions} instead.`,
        'integer_above_max_value',
      );
  }
  const limit = info.context_window ?? 8191;
  // Counted with the event loop served between slices of BPE: a batch's texts can be megabytes.
  const counts = await countEachInSlices(texts);
  counts.forEach((n, i) => {
    if (n > limit) {
      throw invalid(
        texts.length > 1 ? `input[${i}]` : 'input',
        `This model's maximum context length is ${limit} tokens, however you requested ${n} tokens (${n} in your prompt; 0 for the completion). Please reduce your prompt.`,
        'context_length_exceeded',
      );
    }
  });
  const base64 = body.encoding_format === 'base64';
  const tokens = counts.reduce((a, b) => a + b, 0);
  if (tokens > MAX_REQUEST_TOKENS) {
    throw invalid('input', `Requested ${tokens} tokens, max ${MAX_REQUEST_TOKENS} tokens per request`, 'max_tokens_per_request');
  }
  // Each input is its own request to the fixtures: one may pin its vector, fail it, or break it. Each
  // also names the whole batch, which a recording of the batch matches on (see matchKey).
  const batch = texts.length > 1 ? texts : undefined;
  const decisions: Decision[] = [];
  for (const text of texts) {
    const decision = decide(call, { ...operationRequest('openai', 'embedding', model, text), batch });
    if (isForward(decision)) return decision;
    decisions.push(decision);
  }
  // Encoded here, in slices of counted work, so a big batch never holds the event loop for long.
  const encoded = await mapInSlices(
    texts,
    (text, i) => {
      const pinned = decisions[i].pinned?.embedding;
      const v = pinned ? Float32Array.from(pinned) : embed(text, embeddingSpace(model, decisions[i].seed), dims, dimensions);
      return base64 ? toBase64(float32Bytes(v)) : Array.from(v);
    },
    (text) => embedWork(text, dims),
    EMBED_SLICE_WORK,
  );
  return decidedReply(
    call,
    decisions,
    hashString(texts.join('\u0000'), call.runtime.seed),
    () =>
      mayBeBig({
        object: 'list',
        data: encoded.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    tokens,
  );
}

const RERANK_FIELDS = {
  model: { types: ['string'], required: true },
  query: { types: ['string'], required: true },
  // Cohere's documented cap; beyond it the service refuses (ranking cost grows with the count).
  documents: { types: ['array'], required: true, min: 1, max: 1000 },
  top_n: { types: ['integer'], min: 1 },
  return_documents: { types: ['boolean'] },
  max_chunks_per_doc: { types: ['integer'] },
  max_tokens_per_doc: { types: ['integer'], min: 1 },
} as const satisfies FieldRules;
// Cohere's rerank has no return_documents.
const { return_documents: _returnDocuments, ...COHERE_RERANK_FIELDS } = RERANK_FIELDS;

/** Documents ranked by relevance to the query, best first (ties by index). */
function rank(call: Call<JsonObject>, cohere: boolean) {
  const body = call.body;
  checkFields(body, cohere ? COHERE_RERANK_FIELDS : RERANK_FIELDS);
  const model = body.model;
  call.entry.model = model;
  requireModel(call, model, 'rerank');
  const documents = body.documents.map((d, i) => {
    if (typeof d === 'string') return d;
    if (!cohere && isJsonObject(d) && typeof d.text === 'string') return d.text;
    throw invalidType(`documents[${i}]`, cohere ? ['string'] : ['string', 'object with text'], d);
  });
  const query = body.query;
  const decision = decide(call, operationRequest('openai', 'rerank', model, query));
  if (isForward(decision)) return decision;
  const space = embeddingSpace(model, decision.seed);
  // Cohere reads only the first max_tokens_per_doc tokens of each document (4096 by default).
  const read = (text: string) => (cohere ? truncateTokens(text, body.max_tokens_per_doc ?? 4096) : text);
  const ranked = documents
    .map((text, index) => ({ index, text, score: relevance(query, read(text), space) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, body.top_n ?? documents.length);
  const tokens = countTokens(query) * documents.length + documents.reduce((n, d) => n + countTokens(d), 0);
  return { ranked, tokens, model, decision };
}

export const embeddingEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/embeddings', format: openaiFormat, auth: ['bearer'], handle: embeddings },
  {
    method: 'POST',
    path: '/v1/rerank',
    format: openaiFormat,
    auth: ['bearer'],
    handle(call) {
      const ranking = rank(call, false);
      if (isForward(ranking)) return ranking;
      const { ranked, tokens, model, decision } = ranking;
      const withDocs = call.body.return_documents !== false;
      return decidedReply(
        call,
        decision,
        hashString(JSON.stringify(call.body), call.runtime.seed),
        () => ({
          model,
          results: ranked.map((r) => ({ index: r.index, relevance_score: r.score, ...(withDocs ? { document: { text: r.text } } : {}) })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
        tokens,
      );
    },
  },
  {
    method: 'POST',
    path: '/v2/rerank',
    format: openaiFormat,
    auth: ['bearer'],
    handle(call) {
      const ranking = rank(call, true);
      if (isForward(ranking)) return ranking;
      const { ranked, decision } = ranking;
      const key = hashString(JSON.stringify(call.body), call.runtime.seed);
      const id = makeId('', 36, key);
      // Cohere bills a rerank in search units, not tokens (its reply tells only those): no tokens are
      // charged to the window and there is no cost, the request counts as a request.
      return decidedReply(call, decision, key, () => ({
        id: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`.toLowerCase(),
        results: ranked.map((r) => ({ index: r.index, relevance_score: r.score })),
        meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
      }));
    },
  },
];
