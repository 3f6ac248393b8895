// Anthropic's Message Batches: /v1/messages/batches create, retrieve, list, cancel, delete and results
// (JSONL). Each request is answered at creation by the same steps as /v1/messages (messages.ts's
// answerMessage: parse, decide, synthesize, render), so a result is what messages.create answers for
// its params. Processing ends, deterministically, with the first request about the batch after its
// creation (a retrieve, list, results or delete; a cancel before that cancels every request).
import { priceUsage } from '../../pipeline/limits.ts';
import { asGatewayError, GatewayError } from '../../core/errors.ts';
import { MAX_BATCH_JOURNAL_REQUESTS, type BatchRequestRecord } from '../../core/journal.ts';
import { BATCH_DISCOUNT, roundUsd } from '../../core/prices.ts';
import type { Usage } from '../../core/reply.ts';
import { hashStrings, makeId } from '../../core/seed.ts';
import { SLICE_CHARS, yieldToLoop } from '../../core/slices.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { isForward } from '../../pipeline/decide.ts';
import { json, type JsonObject, type Outbound } from '../../pipeline/exchange.ts';
import { lenientAlike } from '../../pipeline/params.ts';
import { requestOrigin } from '../../pipeline/paths.ts';
import { anthropicErrorBody } from './errors.ts';
import { anthropicFormat } from './format.ts';
import { listPage } from './list.ts';
import { answerMessage, anthropicVersion, KEY_OR_BEARER } from './messages.ts';
import { renderMessage } from './render.ts';
import { checkField, checkFields, invalid } from './validate.ts';
import { defineStore } from '../../core/stores.ts';
import { heldFor } from '../../scope.ts';
import type { FieldRules } from '../fields.ts';

/** Requests one batch may hold (Anthropic takes 100,000): with the body limit, what bounds a batch's work. */
const MAX_BATCH_REQUESTS = 10_000;
/** Characters of results one batch may hold (Anthropic's limit is 256 MB of request): what bounds its memory. */
const MAX_BATCH_RESULT_CHARS = 16 * 1024 * 1024;
/** A batch expires 24 hours after creation, as Anthropic's do. */
const EXPIRES_AFTER_SECONDS = 24 * 60 * 60;

type Outcome = 'succeeded' | 'errored' | 'canceled' | 'expired';

interface Result {
  customId: string;
  outcome: Outcome;
  /** The result object's JSON: `{"type":"succeeded","message":…}` or `{"type":"errored","error":…}`. */
  json: string;
}

/** A batch as held. */
class Batch {
  readonly id: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  endedAt?: number;
  cancelAt?: number;
  results: Result[];

  constructor(id: string, createdAt: number, results: Result[]) {
    this.id = id;
    this.createdAt = createdAt;
    this.expiresAt = createdAt + EXPIRES_AFTER_SECONDS;
    this.results = results;
  }
}

/** Message Batches by id, per test: at most 100 and 64 MiB of results, the oldest dropped first. */
const BATCHES = defineStore<Batch>({
  name: 'anthropic.message_batches',
  title: 'Anthropic message batches',
  maxCount: 100,
  maxBytes: 64 * 1024 * 1024,
  whenFull: 'drop-oldest',
  describe: (b) => ({ requests: b.results.length, ended: b.endedAt !== undefined }),
});

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function batchObject(call: Call, b: Batch) {
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  // Requests count as processing until the whole batch has ended, as Anthropic counts them.
  for (const r of b.results) counts[b.endedAt === undefined ? 'processing' : r.outcome]++;
  const ended = b.endedAt !== undefined;
  return {
    id: b.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : b.cancelAt !== undefined ? 'canceling' : 'in_progress',
    request_counts: counts,
    ended_at: ended ? iso(b.endedAt!) : null,
    created_at: iso(b.createdAt),
    expires_at: iso(b.expiresAt),
    archived_at: null,
    cancel_initiated_at: b.cancelAt === undefined ? null : iso(b.cancelAt),
    results_url: ended ? `${requestOrigin(call.inbound)}/v1/messages/batches/${b.id}/results` : null,
  };
}

/** Ends the batch's processing, if it has not ended: canceled if a cancel came first, expired if read after its expiry. */
function settle(call: Call, b: Batch): Batch {
  if (b.endedAt !== undefined) return b;
  const now = call.runtime.now();
  const late: Outcome | undefined = b.cancelAt !== undefined ? 'canceled' : now >= b.expiresAt ? 'expired' : undefined;
  if (late) b.results = b.results.map((r) => ({ customId: r.customId, outcome: late, json: JSON.stringify({ type: late }) }));
  b.endedAt = now;
  return b;
}

function found(call: Call): Batch {
  anthropicVersion(call);
  const id = String(call.params.id);
  const batch = heldFor(call, BATCHES).get(id);
  if (!batch)
    throw new GatewayError(
      'not_found',
      `message_batch_id: no Message Batch with id '${id}' (batches are held until reset, the oldest dropped past 100 or 64 MiB).`,
    );
  return batch;
}

/** One request's result: the message messages.create answers for `params`, or the error it answers with; and its usage and cost. */
async function resultOf(
  call: Call,
  customId: string,
  params: JsonObject,
  version: string,
): Promise<Pick<Result, 'outcome' | 'json'> & { record: BatchRequestRecord; usage?: Usage; costUsd?: number }> {
  // The request as /v1/messages would see it: its path (fixtures may match on it), the batch's headers,
  // and a journal entry of its own, so one request's model and fixture do not overwrite another's.
  const inbound = { url: new URL('/v1/messages', call.inbound.url), header: (name: string) => call.inbound.header(name) };
  const entry = { ...call.entry };
  const ctx = { runtime: call.runtime, inbound, entry, token: call.token };
  const record = (status: BatchRequestRecord['status']): BatchRequestRecord => ({
    custom_id: customId,
    status,
    ...(entry.model !== undefined && { model: entry.model }),
    ...(entry.fixture !== undefined && { fixture: entry.fixture }),
    ...(entry.nearMiss !== undefined && { nearMiss: entry.nearMiss }),
  });
  try {
    // Before answering: a stream asked for must not use up a `once` fixture.
    if (params.stream === true) throw invalid('stream', 'Batch requests cannot be streamed: leave `stream` out of a batch request.');
    const { request, answered } = await answerMessage(ctx, params, version);
    if (isForward(answered))
      throw new GatewayError(
        'server',
        'model-gateway-mock records single requests, not batch requests: add a fixture for this request to answer it in a batch.',
      );
    // Faults and delays are about a connection: a batch result has none.
    const json = JSON.stringify({ type: 'succeeded', message: answered.raw ?? renderMessage(answered.reply, request) });
    // Billed as Anthropic bills batches: at BATCH_DISCOUNT of the standard price.
    const usage = entry.usage;
    const costUsd = usage && priceUsage(call.runtime, entry.model, usage, BATCH_DISCOUNT);
    return { outcome: 'succeeded', json, record: record('succeeded'), usage, costUsd };
  } catch (error) {
    return {
      outcome: 'errored',
      json: JSON.stringify({ type: 'errored', error: anthropicErrorBody(asGatewayError(error), null) }),
      record: record('errored'),
    };
  }
}

/** `usage` added to `into`, kind by kind (optional kinds kept absent while every part lacks them). */
function addUsage(into: Usage | undefined, usage: Usage): Usage {
  if (!into) return { ...usage };
  const sum: Usage = {
    inputTokens: into.inputTokens + usage.inputTokens,
    outputTokens: into.outputTokens + usage.outputTokens,
    cachedInputTokens: into.cachedInputTokens + usage.cachedInputTokens,
    reasoningTokens: into.reasoningTokens + usage.reasoningTokens,
  };
  for (const kind of ['cacheCreationInputTokens', 'cacheCreation1hInputTokens', 'imageInputTokens', 'audioInputTokens'] as const) {
    if (into[kind] !== undefined || usage[kind] !== undefined) sum[kind] = (into[kind] ?? 0) + (usage[kind] ?? 0);
  }
  return sum;
}

/** A fresh id: from the request and its place in the journal, so a run repeats its ids. */
function newId(call: Call): string {
  for (let n = 0; ; n++) {
    const id = makeId('msgbatch_01', 22, hashStrings([call.requestId, String(call.entry.seq), String(n)], call.runtime.seed));
    if (!call.runtime.stores.of(BATCHES).has(id)) return id;
  }
}

const CREATE_FIELDS = { requests: { types: ['array'], required: true, min: 1 } } as const satisfies FieldRules;
const REQUEST_FIELDS = {
  custom_id: { types: ['string'], required: true },
  params: { types: ['object'], required: true },
} as const satisfies FieldRules;

async function create(call: Call<JsonObject>): Promise<Outbound> {
  const version = anthropicVersion(call);
  const body = call.body;
  checkFields(body, CREATE_FIELDS);
  const requests = body.requests;
  if (requests.length > MAX_BATCH_REQUESTS) {
    throw invalid(
      'requests',
      `A batch may hold at most ${MAX_BATCH_REQUESTS} requests in model-gateway-mock (Anthropic takes 100,000); this one has ${requests.length}. Split it into smaller batches.`,
    );
  }
  const seen = new Set<string>();
  const checked = requests.map((r, i) => {
    checkField(`requests.${i}`, r, { types: ['object'], required: true });
    checkFields(r, REQUEST_FIELDS, `requests.${i}.`);
    const customId = r.custom_id;
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(customId))
      throw invalid(`requests.${i}.custom_id`, "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
    if (seen.has(customId))
      throw invalid(`requests.${i}.custom_id`, `Duplicate custom_id '${customId}': each request in a batch needs its own.`);
    seen.add(customId);
    return { customId, params: r.params };
  });
  const results: Result[] = [];
  const records: BatchRequestRecord[] = [];
  let usage: Usage | undefined;
  let costUsd: number | undefined;
  let nearMiss: unknown;
  let chars = 0;
  let sinceYield = 0;
  for (const r of checked) {
    // Each request's params as /v1/messages takes a body: unknown top-level names accepted with a warning unless strictParams.
    const params = { ...r.params };
    lenientAlike(body, params);
    const { record, usage: used, costUsd: cost, ...result } = await resultOf(call, r.customId, params, version);
    results.push({ customId: r.customId, ...result });
    if (records.length < MAX_BATCH_JOURNAL_REQUESTS) records.push(record);
    nearMiss ??= record.nearMiss;
    if (used) usage = addUsage(usage, used);
    if (cost !== undefined) costUsd = roundUsd((costUsd ?? 0) + cost);
    chars += result.json.length + r.customId.length;
    if (chars > MAX_BATCH_RESULT_CHARS) {
      throw invalid(
        'requests',
        `The batch's results would hold more than ${MAX_BATCH_RESULT_CHARS / 1024 / 1024} MiB in model-gateway-mock (stopped at request ${results.length} of ${requests.length}): send fewer requests or lower their max_tokens.`,
      );
    }
    // The work is counted (characters made, plus a share for each request's own steps) and the event loop served between slices.
    sinceYield += result.json.length + 1024;
    if (sinceYield >= SLICE_CHARS) {
      await yieldToLoop();
      sinceYield = 0;
      if (call.inbound.signal.aborted) throw new GatewayError('invalid_request', 'The client went away while its batch was being created.');
    }
  }
  // On the batch's own entry: the requests' outcomes, and their tokens and cost, which the pipeline then
  // charges to the token's rate limits and spending as it charges any reply (pipeline/limits.ts).
  call.entry.batch = { requests: records, more: results.length - records.length };
  // The first near miss (strict mode) wherever it is in the batch, so strict mode's checks see it.
  if (nearMiss !== undefined) call.entry.nearMiss = nearMiss;
  if (usage) call.entry.usage = usage;
  if (costUsd !== undefined) call.entry.costUsd = costUsd;
  const now = call.runtime.now();
  const batch = new Batch(newId(call), now, results);
  heldFor(call, BATCHES).set(batch.id, batch, chars + 1024);
  return json(batchObject(call, batch));
}

/** The held batches, newest first (as Anthropic lists them). */
function held(call: Call): Batch[] {
  return heldFor(call, BATCHES).values().reverse();
}

export const batchEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/messages/batches', format: anthropicFormat, auth: KEY_OR_BEARER, handle: create },
  {
    method: 'GET',
    path: '/v1/messages/batches',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    handle(call) {
      anthropicVersion(call);
      return json(
        listPage(
          call,
          held(call),
          (b) => b.id,
          'message batch',
          (b) => batchObject(call, settle(call, b)),
        ),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/messages/batches/:id',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    handle: (call) => json(batchObject(call, settle(call, found(call)))),
  },
  {
    method: 'DELETE',
    path: '/v1/messages/batches/:id',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    handle(call) {
      // Settled first, so this never meets a batch in progress (Anthropic refuses those: cancel first).
      const batch = settle(call, found(call));
      heldFor(call, BATCHES).delete(batch.id);
      return json({ id: batch.id, type: 'message_batch_deleted' });
    },
  },
  {
    method: 'POST',
    path: '/v1/messages/batches/:id/cancel',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    bodiless: true,
    handle(call) {
      const batch = found(call);
      // Once processing has ended there is nothing to cancel: the batch is answered as it is.
      if (batch.endedAt === undefined) batch.cancelAt ??= call.runtime.now();
      return json(batchObject(call, batch));
    },
  },
  {
    method: 'GET',
    path: '/v1/messages/batches/:id/results',
    format: anthropicFormat,
    auth: KEY_OR_BEARER,
    handle(call) {
      const batch = settle(call, found(call));
      const lines = batch.results.map((r) => `{"custom_id":${JSON.stringify(r.customId)},"result":${r.json}}\n`);
      return { status: 200, headers: { 'content-type': 'application/binary' }, body: lines.join('') };
    },
  },
];
