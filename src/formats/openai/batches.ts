// OpenAI's Batch API (/v1/batches): create from an input file of purpose `batch` (JSONL, a request a
// line), retrieve, list (cursor pages, newest first), cancel. Each line is answered by the endpoint it
// names, through pipeline/offline.ts: exactly what the same request gets from that endpoint directly
// (fixtures, synthesis, usage, faults), priced at the batch discount. The file is checked and its lines
// answered when the batch is created, in counted slices; what the batch's status shows then follows
// its age on the gateway's clock (see `stageAt`), and its output and error files are written, as
// Files, once it has ended.
import { ageOn } from '../../core/clock.ts';
import { GatewayError } from '../../core/errors.ts';
import { MAX_BATCH_JOURNAL_REQUESTS, type BatchRequestRecord } from '../../core/journal.ts';
import { lineSpans } from '../../core/lines.ts';
import { roundUsd } from '../../core/prices.ts';
import type { Usage } from '../../core/reply.ts';
import { hashStrings, makeHexId, makeId } from '../../core/seed.ts';
import { runInSlices, SLICE_CHARS, yieldToLoop } from '../../core/slices.ts';
import { defineStore, type Owner } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { parseJson } from '../../pipeline/pieces.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { answerOffline } from '../../pipeline/offline.ts';
import { heldFor } from '../../scope.ts';
import { type FieldRules, isJsonObject, type JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { EXPIRES_AFTER_FIELDS, FILES, foundFile, keepFile } from './files.ts';
import { cursorPage, readRoute } from './resource.ts';
import { checkFields, checkMetadata, invalid, invalidValue } from './validate.ts';

/** The endpoints a batch's lines may name that the gateway answers (each by its own handler). */
const BATCH_ENDPOINTS = [
  '/v1/responses',
  '/v1/chat/completions',
  '/v1/embeddings',
  '/v1/completions',
  '/v1/moderations',
  '/v1/images/generations',
];
/** The others OpenAI takes, not emulated yet. */
const NOT_EMULATED = ['/v1/images/edits', '/v1/videos'];
/** Lines one batch may hold (OpenAI takes 50,000): with the file ceiling, what bounds a batch's work. */
const MAX_LINES = 10_000;
/** Characters of output and error lines one batch may make: what bounds its memory (its files' size). */
const MAX_RESULT_CHARS = 32 * 1024 * 1024;
/** Validation errors a failed batch lists (the file is not read past them). */
const MAX_ERRORS = 100;
/** A batch must finish within its 24-hour completion window. */
const WINDOW_SECONDS = 24 * 3600;
/** What a held batch costs beyond its results, by estimate. */
const BATCH_OVERHEAD = 2048;

type Status = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

/** One answered line: its output line (JSON, no newline), whether it failed, when it finished and what it used. */
interface LineResult {
  customId: string;
  json: string;
  failed: boolean;
  /** Milliseconds from the start of processing to its end (the lines' delays, one after another). */
  doneMs: number;
  usage?: Usage;
}

/** How the batch ended, once it has: its files are written then and its lines let go. */
interface Ending {
  status: 'failed' | 'completed' | 'expired' | 'cancelled';
  /** When it ended (Unix seconds, on the batch's own time line). */
  endedAt: number;
  outputFileId: string | null;
  errorFileId: string | null;
  completed: number;
  failed: number;
  usage: Usage;
  errors?: BatchError[];
}

interface HeldBatch {
  id: string;
  endpoint: string;
  inputFileId: string;
  completionWindow: string;
  metadata: JsonObject | null;
  outputExpiresAfter?: JsonObject;
  createdAt: number;
  /** Who holds it, and so its files. */
  owner: Owner;
  /** The model of its first line. */
  model?: string;
  /** Why the input file was refused: the batch fails on leaving `validating`. */
  errors?: BatchError[];
  lines: LineResult[];
  /** Seconds `in_progress` lasts: the lines' delays, one after another (at least one). */
  processingSeconds: number;
  /** Times it was retrieved: its age counts at least one second each. */
  polls: number;
  /** Its age when a cancel came. */
  cancelAge?: number;
  ended?: Ending;
}

/** OpenAI batches, per test: at most 1000 and 256 MiB of results (every test together); a full store refuses. */
const BATCHES = defineStore<HeldBatch>({
  name: 'openai.batches',
  title: 'OpenAI batches',
  maxCount: 1000,
  maxBytes: 256 * 1024 * 1024,
  whenFull: 'refuse',
  describe: (b) => ({ endpoint: b.endpoint, input_file_id: b.inputFileId, lines: b.lines.length, status: b.ended?.status ?? null }),
});

const CREATE_FIELDS = {
  input_file_id: { types: ['string'], required: true },
  endpoint: { types: ['string'], required: true },
  completion_window: { types: ['string'], required: true, values: ['24h'] },
  metadata: { types: ['object'], nullable: true },
  output_expires_after: { types: ['object'] },
} as const satisfies FieldRules;

const LINE_FIELDS = ['custom_id', 'method', 'url', 'body'];

/** A batch's age in seconds on the gateway's clock, moved on by its polls (see ageOn). */
const ageOf = (b: HeldBatch, now: number) => ageOn(now, b.createdAt, b.polls);

/**
 * Where a batch is at `age`: validating for its first second; then failed (a refused file), or
 * in_progress for its processing seconds, finalizing for one more, completed; expired if its window
 * closes first; cancelling for a second after a cancel, then cancelled.
 */
function stageAt(b: HeldBatch, age: number): { status: Status; endAge: number } {
  const finalizing = 1 + b.processingSeconds;
  if (b.cancelAge !== undefined) return { status: age < b.cancelAge + 1 ? 'cancelling' : 'cancelled', endAge: b.cancelAge };
  if (b.errors) return { status: age < 1 ? 'validating' : 'failed', endAge: 1 };
  if (finalizing > WINDOW_SECONDS && age >= WINDOW_SECONDS) return { status: 'expired', endAge: WINDOW_SECONDS };
  if (age < 1) return { status: 'validating', endAge: Infinity };
  if (age < finalizing) return { status: 'in_progress', endAge: Infinity };
  return { status: age < finalizing + 1 ? 'finalizing' : 'completed', endAge: Infinity };
}

/** Whether a line had finished by the batch's `age` (lines run from age 1, one after another). */
const doneBy = (line: LineResult, age: number) => 1 + line.doneMs / 1000 <= age;

function addUsage(into: Usage, usage: Usage | undefined): void {
  if (!usage) return;
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.cachedInputTokens += usage.cachedInputTokens;
  into.reasoningTokens += usage.reasoningTokens;
}

const noUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 });

/** The line written for a request a batch did not get to: `code` says why. */
function unfinishedLine(b: HeldBatch, line: LineResult, index: number, code: 'batch_expired' | 'batch_cancelled'): string {
  const message =
    code === 'batch_expired'
      ? 'This request could not be executed before the completion window expired.'
      : 'This request could not be executed before the batch was cancelled.';
  return JSON.stringify({ id: lineId(b, index), custom_id: line.customId, response: null, error: { code, message } });
}

const lineId = (b: HeldBatch, index: number) => makeHexId('batch_req_', 32, hashStrings([b.id, String(index)]));

/**
 * Ends the batch if it has ended by `age`: writes its output and error files (its test's, or shared)
 * and lets its lines go. A file the store cannot take fails the batch with the reason.
 */
function settle(call: Call, b: HeldBatch, age: number): void {
  if (b.ended) return;
  const { status, endAge } = stageAt(b, age);
  if (status !== 'completed' && status !== 'failed' && status !== 'expired' && status !== 'cancelled') return;
  const usage = noUsage();
  const output: string[] = [];
  const errors: string[] = [];
  b.lines.forEach((line, i) => {
    if (doneBy(line, endAge)) {
      (line.failed ? errors : output).push(line.json);
      if (!line.failed) addUsage(usage, line.usage);
    } else errors.push(unfinishedLine(b, line, i, status === 'expired' ? 'batch_expired' : 'batch_cancelled'));
  });
  const endedAt = b.createdAt + (status === 'completed' ? 2 + b.processingSeconds : endAge + (status === 'cancelled' ? 1 : 0));
  const ending: Ending = {
    status,
    endedAt,
    outputFileId: null,
    errorFileId: null,
    completed: output.length,
    failed: errors.length,
    usage,
    errors: b.errors,
  };
  const view = call.runtime.stores.of(FILES).view(b.owner);
  const expiresAt = b.outputExpiresAfter ? endedAt + Number(b.outputExpiresAfter.seconds) : undefined;
  const write = (lines: string[], kind: 'output' | 'error') =>
    keepFile(
      call,
      {
        id: makeId('file-', 22, hashStrings([b.id, kind])),
        createdAt: endedAt,
        filename: `batch_${b.id.slice('batch_'.length)}_${kind}.jsonl`,
        purpose: 'batch_output',
        bytes: new TextEncoder().encode(lines.map((l) => `${l}\n`).join('')),
        expiresAt,
      },
      view,
    ).id;
  try {
    if (output.length) ending.outputFileId = write(output, 'output');
    if (errors.length) ending.errorFileId = write(errors, 'error');
  } catch (error) {
    const why = error instanceof GatewayError ? error.message : String(error);
    if (ending.outputFileId) view.delete(ending.outputFileId);
    Object.assign(ending, { status: 'failed', outputFileId: null, errorFileId: null });
    ending.errors = [{ code: 'output_not_stored', message: `The batch's results could not be stored: ${why}`, param: null, line: null }];
  }
  b.ended = ending;
  b.lines = [];
  call.runtime.stores.of(BATCHES).resize(b.id, b.owner, BATCH_OVERHEAD);
}

function usageObject(u: Usage) {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** The batch object as OpenAI answers it, at the batch's age now (ending it, and writing its files, if it has ended). */
function batchObject(call: Call, b: HeldBatch): JsonObject {
  const age = ageOf(b, call.runtime.now());
  settle(call, b, age);
  const { status } = b.ended ?? stageAt(b, age);
  const at = (offset: number, reached: boolean) => (reached ? b.createdAt + offset : null);
  const finalizing = 1 + b.processingSeconds;
  const progressed = !b.errors && (b.cancelAge ?? Infinity) >= 1 && age >= 1;
  let counts = { total: 0, completed: 0, failed: 0 };
  let usage = noUsage();
  if (b.ended) {
    counts = { total: b.ended.completed + b.ended.failed, completed: b.ended.completed, failed: b.ended.failed };
    usage = b.ended.usage;
  } else if (status !== 'validating') {
    counts.total = b.lines.length;
    for (const line of b.lines) {
      if (!doneBy(line, age)) continue;
      if (line.failed) counts.failed++;
      else {
        counts.completed++;
        addUsage(usage, line.usage);
      }
    }
  }
  const errors = b.ended?.errors ?? (status === 'failed' ? b.errors : undefined);
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    model: b.model ?? null,
    errors: errors ? { object: 'list', data: errors } : null,
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status,
    output_file_id: b.ended?.outputFileId ?? null,
    error_file_id: b.ended?.errorFileId ?? null,
    created_at: b.createdAt,
    in_progress_at: at(1, progressed),
    expires_at: b.createdAt + WINDOW_SECONDS,
    finalizing_at: at(finalizing, status === 'finalizing' || status === 'completed'),
    completed_at: status === 'completed' ? (b.ended?.endedAt ?? null) : null,
    failed_at: status === 'failed' ? (b.ended?.endedAt ?? b.createdAt + 1) : null,
    expired_at: at(WINDOW_SECONDS, status === 'expired'),
    cancelling_at: at(b.cancelAge ?? 0, b.cancelAge !== undefined),
    cancelled_at: at((b.cancelAge ?? 0) + 1, status === 'cancelled'),
    request_counts: counts,
    usage: usageObject(usage),
    metadata: b.metadata,
  };
}

function found(call: Call): HeldBatch {
  const id = String(call.params.id);
  const batch = heldFor(call, BATCHES).get(id);
  if (!batch) throw new GatewayError('not_found', `No such Batch object: ${id}`, { param: 'batch_id' });
  return batch;
}

/** The refusal of one line of the input file, as a failed batch lists it. */
const lineError = (line: number, code: string, message: string, param: string | null = null): BatchError => ({
  code,
  message,
  param,
  line,
});

/** What one line of the input file asks, or why it is refused. */
async function readLine(text: string, line: number, endpoint: string): Promise<{ customId: string; body: JsonObject } | BatchError> {
  let request: JsonObject;
  try {
    request = await parseJson(text);
  } catch {
    return lineError(line, 'invalid_json_line', 'This line is not parseable as valid JSON.');
  }
  for (const name of LINE_FIELDS)
    if (request[name] === undefined) return lineError(line, 'missing_required_parameter', `Missing required parameter: '${name}'.`, name);
  const unknown = Object.keys(request).find((name) => !LINE_FIELDS.includes(name));
  if (unknown) return lineError(line, 'invalid_request', `Unrecognized request argument supplied: ${unknown}`, unknown);
  if (typeof request.custom_id !== 'string')
    return lineError(line, 'invalid_request', "Invalid 'custom_id': expected a string.", 'custom_id');
  if (request.method !== 'POST')
    return lineError(line, 'invalid_request', "Invalid 'method': only POST requests are supported in a batch.", 'method');
  if (request.url !== endpoint)
    return lineError(line, 'url_mismatch', 'The URL provided for this request does not match the batch endpoint.', 'url');
  if (!isJsonObject(request.body)) return lineError(line, 'invalid_request', "Invalid 'body': expected an object.", 'body');
  return { customId: request.custom_id, body: request.body };
}

/** The input file's lines checked: the first MAX_ERRORS refusals, or none. */
async function validate(call: Call, bytes: Uint8Array, spans: { start: number; end: number; line: number }[], endpoint: string) {
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  const decoder = new TextDecoder();
  let work = 0;
  for (const { start, end, line } of spans) {
    if (end - start > call.runtime.maxBodyBytes) {
      errors.push(
        lineError(line, 'request_too_large', `This line is ${end - start} bytes; a request is at most ${call.runtime.maxBodyBytes} bytes.`),
      );
    } else {
      const read = await readLine(decoder.decode(bytes.subarray(start, end)), line, endpoint);
      if ('code' in read) errors.push(read);
      else if (seen.has(read.customId))
        errors.push(
          lineError(
            line,
            'duplicate_custom_id',
            'The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.',
            'custom_id',
          ),
        );
      else seen.add(read.customId);
    }
    if (errors.length >= MAX_ERRORS) break;
    work += end - start + 256;
    if (work >= SLICE_CHARS) {
      await yieldToLoop();
      work = 0;
    }
  }
  return errors;
}

/** The spec that answers a line's endpoint (the batch endpoints list the OpenAI endpoints they reach). */
type FindEndpoint = (path: string) => EndpointSpec;

/** Every line answered, in order, as its endpoint answers it; the create request's entry sums what they cost. */
async function run(
  call: Call<JsonObject>,
  b: HeldBatch,
  bytes: Uint8Array,
  spans: { start: number; end: number; line: number }[],
  find: FindEndpoint,
) {
  const spec = find(b.endpoint);
  const decoder = new TextDecoder();
  const records: BatchRequestRecord[] = [];
  const usage = noUsage();
  let costUsd: number | undefined;
  let nearMiss: unknown;
  let chars = 0;
  let work = 0;
  let elapsedMs = 0;
  for (const [index, { start, end }] of spans.entries()) {
    const text = decoder.decode(bytes.subarray(start, end));
    const read = await readLine(text, 0, b.endpoint);
    if ('code' in read) throw new Error('a validated line no longer reads');
    b.model ??= typeof read.body.model === 'string' ? read.body.model : undefined;
    const answer = await answerOffline(call, spec, b.endpoint, read.body, end - start, text);
    elapsedMs += answer.delayMs;
    const failed = answer.status >= 400;
    const line = `{"id":${JSON.stringify(lineId(b, index))},"custom_id":${JSON.stringify(read.customId)},"response":{"status_code":${answer.status},"request_id":${JSON.stringify(answer.requestId)},"body":${answer.body}},"error":null}`;
    b.lines.push({ customId: read.customId, json: line, failed, doneMs: elapsedMs, usage: answer.usage });
    const e = answer.entry;
    if (records.length < MAX_BATCH_JOURNAL_REQUESTS)
      records.push({
        custom_id: read.customId,
        status: failed ? 'errored' : 'succeeded',
        ...(e.model !== undefined && { model: e.model }),
        ...(e.fixture !== undefined && { fixture: e.fixture }),
        ...(e.nearMiss !== undefined && { nearMiss: e.nearMiss }),
      });
    nearMiss ??= e.nearMiss;
    addUsage(usage, answer.usage);
    if (answer.costUsd !== undefined) costUsd = roundUsd((costUsd ?? 0) + answer.costUsd);
    chars += line.length;
    if (chars > MAX_RESULT_CHARS)
      throw invalid(
        'input_file_id',
        `The batch's results would hold more than ${MAX_RESULT_CHARS / 1024 / 1024} MiB in model-gateway-mock (stopped at line ${index + 1} of ${spans.length}): send fewer requests, or smaller ones.`,
        undefined,
      );
    // Counted work (characters read and made, and a share for each request's own steps), the event loop served between slices.
    work += end - start + line.length + 1024;
    if (work >= SLICE_CHARS) {
      await yieldToLoop();
      work = 0;
      if (call.inbound.signal.aborted) throw new GatewayError('invalid_request', 'The client went away while its batch was being created.');
    }
  }
  b.processingSeconds = Math.max(1, Math.ceil(elapsedMs / 1000));
  // On the batch's own entry: its lines' outcomes, and their tokens and cost, which the pipeline then
  // charges to the token's rate limits and spending as it charges any reply (pipeline/limits.ts).
  call.entry.batch = { requests: records, more: spans.length - records.length };
  if (nearMiss !== undefined) call.entry.nearMiss = nearMiss;
  if (spans.length) call.entry.usage = usage;
  if (costUsd !== undefined) call.entry.costUsd = costUsd;
  return chars;
}

async function create(call: Call<JsonObject>, find: FindEndpoint): Promise<Outbound> {
  const body = call.body;
  checkFields(body, CREATE_FIELDS);
  checkMetadata(body.metadata);
  if (body.output_expires_after) checkFields(body.output_expires_after, EXPIRES_AFTER_FIELDS, 'output_expires_after.');
  const endpoint = body.endpoint;
  if (NOT_EMULATED.includes(endpoint))
    throw invalid(
      'endpoint',
      `Batches of ${endpoint} are not emulated yet by model-gateway-mock; it runs ${BATCH_ENDPOINTS.join(', ')}.`,
      undefined,
    );
  if (!BATCH_ENDPOINTS.includes(endpoint)) throw invalidValue('endpoint', endpoint, [...BATCH_ENDPOINTS, ...NOT_EMULATED]);
  const file = foundFile(call, body.input_file_id, 'input_file_id');
  if (file.purpose !== 'batch')
    throw invalid(
      'input_file_id',
      `Invalid 'input_file_id': the file ${file.id} was uploaded with purpose '${file.purpose}'; a batch reads a file uploaded with purpose 'batch'.`,
      undefined,
    );
  const view = heldFor(call, BATCHES);
  const full = () =>
    new GatewayError(
      'invalid_request',
      'Too many batches are held: model-gateway-mock keeps at most 1000 batches and 256 MiB of their results (every test together). Reset to make room.',
    );
  if (!view.store.fits(BATCH_OVERHEAD)) throw full();
  const now = call.runtime.now();
  const b: HeldBatch = {
    id: makeHexId('batch_', 32, hashStrings([call.requestId, String(call.entry.seq)], call.runtime.seed)),
    endpoint,
    inputFileId: file.id,
    completionWindow: body.completion_window,
    metadata: body.metadata ?? null,
    ...(body.output_expires_after && { outputExpiresAfter: body.output_expires_after }),
    createdAt: now,
    owner: view.owner,
    lines: [],
    processingSeconds: 1,
    polls: 0,
  };
  // The file's lines are found without reading them as text; a file of too many is refused by its count.
  const { count, spans } = await runInSlices(lineSpans(file.bytes, MAX_LINES));
  if (!count) b.errors = [{ code: 'empty_file', message: 'The batch input file is empty.', param: null, line: null }];
  else if (count > MAX_LINES)
    b.errors = [
      {
        code: 'too_many_tasks',
        message: `The batch input file has ${count} requests; model-gateway-mock runs at most ${MAX_LINES} in a batch (OpenAI: 50,000).`,
        param: null,
        line: null,
      },
    ];
  else {
    const errors = await validate(call, file.bytes, spans, endpoint);
    if (errors.length) b.errors = errors;
  }
  const chars = b.errors ? 0 : await run(call, b, file.bytes, spans, find);
  if (!view.set(b.id, b, BATCH_OVERHEAD + 2 * chars)) throw full();
  return json(batchObject(call, b));
}

/** The batch routes; `find` gives the endpoint that answers a line's URL. */
export function batchEndpoints(find: FindEndpoint): EndpointSpec[] {
  return [
    { method: 'POST', path: '/v1/batches', format: openaiFormat, auth: ['bearer'], handle: (call) => create(call, find) },
    readRoute('GET', '/v1/batches', (call) => {
      const held = heldFor(call, BATCHES).values();
      // Newest first, 20 to a page (at most 100), as OpenAI lists batches.
      return json(
        cursorPage(
          call,
          held.map((b) => batchObject(call, b)),
          { order: 'desc' },
        ),
      );
    }),
    readRoute('GET', '/v1/batches/:id', (call) => {
      const batch = found(call);
      // A poll moves the batch on by at least a second of its age (see ageOf).
      const answer = batchObject(call, batch);
      batch.polls = Math.max(batch.polls, ageOf(batch, call.runtime.now())) + 1;
      return json(answer);
    }),
    {
      method: 'POST',
      path: '/v1/batches/:id/cancel',
      format: openaiFormat,
      auth: ['bearer'],
      bodiless: true,
      handle(call) {
        const batch = found(call);
        const age = ageOf(batch, call.runtime.now());
        settle(call, batch, age);
        const { status } = batch.ended ?? stageAt(batch, age);
        if (status === 'validating' || status === 'in_progress') batch.cancelAge = age;
        else if (status !== 'cancelling')
          throw invalid(
            'batch_id',
            `Cannot cancel a batch with status '${status}': only a validating or in-progress batch can be cancelled.`,
            undefined,
          );
        return json(batchObject(call, batch));
      },
    },
  ];
}
