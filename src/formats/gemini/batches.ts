// Gemini's Batch API: `batches.create` (`POST models/{model}:batchGenerateContent`) from inline
// requests or an uploaded JSONL file (`{"key", "request"}` a line), `batches.get/list/cancel/delete`.
// Each request is answered by the synchronous generate-content endpoint through pipeline/offline.ts:
// exactly what the same request gets directly (fixtures, synthesis, usage, faults), priced at the batch
// discount. The lines are answered when the batch is created; its state then follows its age on the
// gateway's clock (moved on by its polls, as OpenAI's batches are): PENDING for its first second,
// RUNNING for its lines' time, then SUCCEEDED with its results inline or as a file (files.download).
import { ageOn } from '../../core/clock.ts';
import { GatewayError } from '../../core/errors.ts';
import { roundUsd } from '../../core/prices.ts';
import type { Usage } from '../../core/reply.ts';
import { makeId } from '../../core/seed.ts';
import { SLICE_CHARS, yieldToLoop } from '../../core/slices.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { type Inbound, json } from '../../pipeline/exchange.ts';
import { answerOffline } from '../../pipeline/offline.ts';
import { heldFor } from '../../scope.ts';
import { fieldsOf, isJsonObject, type JsonObject } from '../fields.ts';
import { freshId } from '../openai/files.ts';
import { fileBytes, writeFile } from './files.ts';
import { fromGoogleClient, geminiFormat } from './format.ts';
import { MAX_BATCH_JOURNAL_REQUESTS, type BatchRequestRecord } from '../../core/journal.ts';
import { listPage } from './pages.ts';

type State = 'BATCH_STATE_PENDING' | 'BATCH_STATE_RUNNING' | 'BATCH_STATE_SUCCEEDED' | 'BATCH_STATE_CANCELLED';

interface GeminiBatch {
  id: string;
  model: string;
  displayName?: string;
  createdAt: number;
  /** Its lines' answers: inline (`{response|error, metadata}`), or the result file's name. */
  inline?: JsonObject[];
  file?: string;
  /** Seconds its lines took (at least one). */
  processingSeconds: number;
  /** Its age when cancelled. */
  cancelAge?: number;
  polls: number;
  counts: { total: number; failed: number };
}

/** Batches held, every test's together; requests a batch (Gemini: 2 GB of input); the results' bytes. */
const MAX_BATCHES = 1000;
const BATCHES_BYTES = 256 * 1024 * 1024;
const MAX_REQUESTS = 10_000;
const MAX_RESULT_CHARS = 32 * 1024 * 1024;
const OVERHEAD = 512;

const BATCHES = defineStore<GeminiBatch>({
  name: 'gemini.batches',
  title: 'Gemini batches',
  maxCount: MAX_BATCHES,
  maxBytes: BATCHES_BYTES,
  whenFull: 'refuse',
  describe: (b) => ({ name: `batches/${b.id}`, model: b.model, requests: b.counts.total, cancelled: b.cancelAge !== undefined }),
});

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const ageOf = (b: GeminiBatch, now: number) => ageOn(now, b.createdAt, b.polls);

/** Where a batch is at `age`: pending for its first second, running for its lines' time, then succeeded (or cancelled). */
function stateAt(b: GeminiBatch, age: number): { state: State; endAge?: number } {
  const end = 1 + b.processingSeconds;
  if (b.cancelAge !== undefined && b.cancelAge < end) return { state: 'BATCH_STATE_CANCELLED', endAge: b.cancelAge };
  if (age < 1) return { state: 'BATCH_STATE_PENDING' };
  if (age < end) return { state: 'BATCH_STATE_RUNNING' };
  return { state: 'BATCH_STATE_SUCCEEDED', endAge: end };
}

/** The batch as Gemini shows it: a long-running Operation whose metadata is the GenerateContentBatch. */
function batchOperation(call: Call, b: GeminiBatch): JsonObject {
  const { state, endAge } = stateAt(b, ageOf(b, call.runtime.now()));
  const done = endAge !== undefined;
  const succeeded = state === 'BATCH_STATE_SUCCEEDED';
  const output = succeeded ? (b.file ? { responsesFile: b.file } : { inlinedResponses: { inlinedResponses: b.inline ?? [] } }) : undefined;
  const ok = b.counts.total - b.counts.failed;
  const metadata: JsonObject = {
    '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
    model: `models/${b.model}`,
    ...(b.displayName !== undefined && { displayName: b.displayName }),
    createTime: iso(b.createdAt),
    updateTime: iso(b.createdAt + (endAge ?? 0)),
    ...(done && { endTime: iso(b.createdAt + endAge) }),
    batchStats: {
      requestCount: String(b.counts.total),
      ...(succeeded
        ? { successfulRequestCount: String(ok), ...(b.counts.failed ? { failedRequestCount: String(b.counts.failed) } : {}) }
        : { pendingRequestCount: String(b.counts.total) }),
    },
    state,
    name: `batches/${b.id}`,
    ...(output && { output }),
  };
  return {
    name: `batches/${b.id}`,
    metadata,
    ...(done && { done: true }),
    ...(succeeded && {
      response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput', ...output },
    }),
  };
}

const notFound = (id: string) => new GatewayError('not_found', `Batch batches/${id} not found.`);

function found(call: Call, id: string): GeminiBatch {
  const b = heldFor(call, BATCHES).get(id);
  if (!b) throw notFound(id);
  return b;
}

/** The requests of a batch: inline, or the lines of its input file; each `{key?, request, metadata?}`. */
function requestsOf(call: Call, input: JsonObject): { request: JsonObject; key?: string; metadata?: JsonObject; text: string }[] {
  if (typeof input.fileName === 'string') {
    // The file is bounded by the files' ceiling (64 MiB); its lines by MAX_REQUESTS.
    const lines = new TextDecoder().decode(fileBytes(call, input.fileName)).split('\n');
    const spans = lines.flatMap((text, i) => (text.trim() ? [{ text, line: i + 1 }] : []));
    if (spans.length > MAX_REQUESTS)
      throw new GatewayError(
        'invalid_request',
        `The batch file has ${spans.length} requests; model-gateway-mock takes at most ${MAX_REQUESTS} a batch.`,
      );
    return spans.map(({ text, line }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GatewayError(
          'invalid_request',
          `Line ${line} of ${input.fileName} is not JSON: each line is {"key": ..., "request": {...}}.`,
        );
      }
      const row = fieldsOf(parsed);
      if (!isJsonObject(row.request))
        throw new GatewayError('invalid_request', `Line ${line} of ${input.fileName} has no "request" object.`);
      return { request: row.request, ...(typeof row.key === 'string' && { key: row.key }), text };
    });
  }
  const list = fieldsOf(input.requests).requests;
  if (!Array.isArray(list) || !list.length)
    throw new GatewayError(
      'invalid_request',
      'batch.input_config: give requests.requests (inline requests) or file_name (an uploaded JSONL file).',
    );
  if (list.length > MAX_REQUESTS)
    throw new GatewayError(
      'invalid_request',
      `The batch has ${list.length} requests; model-gateway-mock takes at most ${MAX_REQUESTS} a batch.`,
    );
  return list.map((item, i) => {
    const row = fieldsOf(item);
    if (!isJsonObject(row.request))
      throw new GatewayError('invalid_request', `batch.input_config.requests.requests[${i}].request is required.`);
    return { request: row.request, ...(isJsonObject(row.metadata) && { metadata: row.metadata }), text: JSON.stringify(row.request) };
  });
}

/** `models/{model}:batchGenerateContent`: the batch made, its requests answered by `generate` (the synchronous endpoint). */
export async function createBatch(call: Call<JsonObject>, model: string, generate: EndpointSpec): Promise<ReturnType<typeof json>> {
  if (!call.runtime.catalogue.get(model)?.capabilities.includes('chat'))
    throw new GatewayError(
      'not_found',
      `models/${model} is not found for API version v1beta, or is not supported for batchGenerateContent.`,
    );
  const batch = fieldsOf(call.body.batch);
  const input = fieldsOf(batch.inputConfig);
  const requests = requestsOf(call, input);
  const view = heldFor(call, BATCHES);
  const b: GeminiBatch = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('', 16, key).toLowerCase(),
    ),
    model,
    ...(typeof batch.displayName === 'string' && { displayName: batch.displayName }),
    createdAt: call.runtime.now(),
    processingSeconds: 1,
    polls: 0,
    counts: { total: requests.length, failed: 0 },
  };
  if (!view.store.fits(OVERHEAD) || !view.set(b.id, b, OVERHEAD)) throw full();
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  let costUsd: number | undefined;
  let chars = 0;
  let work = 0;
  let elapsedMs = 0;
  const rows: JsonObject[] = [];
  const records: BatchRequestRecord[] = [];
  const path = `/v1beta/models/${model}:generateContent`;
  // A batch refused part-way (its results past the ceiling, a failure answering a line) is not kept.
  try {
    for (const [index, r] of requests.entries()) {
      const answer = await answerOffline(call, generate, path, r.request, r.text.length, r.text, { call: `${model}:generateContent` });
      elapsedMs += answer.delayMs;
      const body = JSON.parse(answer.body) as JsonObject;
      const failed = answer.status >= 400;
      if (failed) b.counts.failed++;
      // The batch's entry lists its first lines' outcomes, as OpenAI's and Anthropic's batches' do (the requests page shows them).
      const e = answer.entry;
      if (records.length < MAX_BATCH_JOURNAL_REQUESTS)
        records.push({
          custom_id: r.key ?? `request-${index + 1}`,
          status: failed ? 'errored' : 'succeeded',
          ...(e.model !== undefined && { model: e.model }),
          ...(e.fixture !== undefined && { fixture: e.fixture }),
          ...(e.nearMiss !== undefined && { nearMiss: e.nearMiss }),
        });
      const result = failed ? { error: fieldsOf(body.error) } : { response: body };
      rows.push(
        b.file === undefined && typeof input.fileName === 'string'
          ? { ...(r.key !== undefined && { key: r.key }), ...result }
          : { ...result, ...(r.metadata && { metadata: r.metadata }) },
      );
      if (answer.usage) {
        usage.inputTokens += answer.usage.inputTokens;
        usage.outputTokens += answer.usage.outputTokens;
        usage.cachedInputTokens += answer.usage.cachedInputTokens;
        usage.reasoningTokens += answer.usage.reasoningTokens;
      }
      if (answer.costUsd !== undefined) costUsd = roundUsd((costUsd ?? 0) + answer.costUsd);
      chars += answer.body.length;
      if (chars > MAX_RESULT_CHARS)
        throw new GatewayError(
          'invalid_request',
          `The batch's results would hold more than ${MAX_RESULT_CHARS / 1024 / 1024} MiB in model-gateway-mock: send fewer requests, or smaller ones.`,
        );
      work += r.text.length + answer.body.length + 1024;
      if (work >= SLICE_CHARS) {
        await yieldToLoop();
        work = 0;
      }
    }
  } catch (error) {
    view.delete(b.id);
    throw error;
  }
  b.processingSeconds = Math.max(1, Math.ceil(elapsedMs / 1000));
  if (typeof input.fileName === 'string') {
    const text = rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
    const name = await writeFile(call, new TextEncoder().encode(text), 'application/jsonl', `batch-${b.id}-results`);
    if (!name) {
      view.delete(b.id);
      throw full();
    }
    b.file = name;
  } else b.inline = rows;
  // Inline results are held as parsed objects: counted as the caches count theirs, two bytes a character of their JSON.
  if (!view.resize(b.id, OVERHEAD + (b.inline ? chars * 2 : 0))) {
    view.delete(b.id);
    throw full();
  }
  call.entry.model = model;
  call.entry.batch = { requests: records, more: requests.length - records.length };
  if (requests.length) call.entry.usage = usage;
  if (costUsd !== undefined) call.entry.costUsd = costUsd;
  return json(batchOperation(call, b));
}

function full(): GatewayError {
  return new GatewayError(
    'quota',
    `Batch storage is full: model-gateway-mock holds at most ${MAX_BATCHES} Gemini batches and ${BATCHES_BYTES / (1024 * 1024)} MiB of their results, every test together. Delete batches you no longer need (batches.delete), or reset.`,
  );
}

const KEY_WAYS = ['query-key', 'x-goog-api-key', 'bearer'] as const;

export const geminiBatchEndpoints: EndpointSpec[] = (['v1beta', 'v1'] as const).flatMap((v): EndpointSpec[] => {
  // `/v1/batches` is OpenAI's too: under /v1, Google's clients only.
  const at = {
    format: geminiFormat,
    auth: KEY_WAYS,
    ...(v === 'v1' && { accepts: fromGoogleClient }),
  };
  return [
    {
      ...at,
      method: 'GET',
      path: `/${v}/batches`,
      handle(call) {
        const all = heldFor(call, BATCHES).values().reverse();
        return listPage(call, all, 'operations', (b) => batchOperation(call, b), 50, 1000);
      },
    },
    {
      ...at,
      method: 'GET',
      path: `/${v}/batches/:id`,
      handle(call) {
        const b = found(call, String(call.params.id));
        const answer = batchOperation(call, b);
        // A poll moves the batch on by at least a second of its age.
        b.polls = Math.max(b.polls, ageOf(b, call.runtime.now())) + 1;
        return json(answer);
      },
    },
    {
      ...at,
      method: 'POST',
      path: `/${v}/batches/:id`,
      bodiless: true,
      handle(call) {
        const target = String(call.params.id);
        if (!target.endsWith(':cancel'))
          throw new GatewayError('not_found', `Unknown method on batches/${target}: this gateway serves :cancel.`);
        const b = found(call, target.slice(0, -':cancel'.length));
        b.cancelAge ??= ageOf(b, call.runtime.now());
        return json({});
      },
    },
    {
      ...at,
      method: 'DELETE',
      path: `/${v}/batches/:id`,
      handle(call) {
        const b = found(call, String(call.params.id));
        heldFor(call, BATCHES).delete(b.id);
        return json({});
      },
    },
  ];
});
