// OpenAI vector stores (/v1/vector_stores): stores, their files (a File attached by id, cut into
// passages of tokens by its chunking strategy, each passage embedded as /v1/embeddings would), file
// batches, and search, which ranks the passages by those embeddings (core/synthesize/vectors.ts), as
// the Responses `file_search` tool does over the stores it names (`vectorSearcher`). Held per test in
// one bounded store (core/stores.ts); a file is processed when attached, in slices of counted work, and
// its status moves on the gateway's clock as a batch's does: `in_progress` for its first second or
// until it is first retrieved, then `completed` (or `failed`, for a file that is no text).
import { GatewayError } from '../../core/errors.ts';
import { makeId } from '../../core/seed.ts';
import { mapInSlices } from '../../core/slices.ts';
import { defineStore, type StoreView } from '../../core/stores.ts';
import { tokenPieces } from '../../core/tokens.ts';
import { EMBED_SLICE_WORK, nearest, PASSAGE_DIMS, passageVector, passageWork } from '../../core/synthesize/vectors.ts';
import { synthesizeFileSearch, type FileSearcher } from '../../core/synthesize/builtin.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import { fieldsOf, type JsonObject, optional } from '../fields.ts';
import { foundFile, freshId } from './files.ts';
import { openaiFormat } from './format.ts';
import { cursorPage, readRoute } from './resource.ts';
import { checkField, checkFields, checkMetadata, invalid } from './validate.ts';
import { checkFilter, checkRanking, passes, type Attributes, type Filter } from './search-options.ts';

type FileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** A passage of a file's text (from `start` to `end`, in characters), with its vector. */
interface Passage {
  start: number;
  end: number;
  vector: Float32Array;
}

interface Chunking {
  max: number;
  overlap: number;
}

interface StoreFile {
  id: string;
  filename: string;
  createdAt: number;
  /** Times it (or its batch, or its store) was retrieved: it is ready after one, as after a second on the clock. */
  polls: number;
  /** Set when a batch's cancel caught it in progress. */
  cancelled?: boolean;
  attributes: Attributes | null;
  chunking: Chunking;
  error?: { code: 'unsupported_file' | 'invalid_file'; message: string };
  /** Its text, once (passages overlap: they are held as places in it). */
  text: string;
  passages: Passage[];
  /** Bytes of its passages' text (UTF-8), what OpenAI bills as `usage_bytes`. */
  usageBytes: number;
  /** Bytes it holds here: passages as UTF-16, their vectors. */
  heldBytes: number;
}

interface FileBatch {
  id: string;
  createdAt: number;
  fileIds: string[];
  cancelled: boolean;
}

interface HeldVectorStore {
  id: string;
  name: string;
  description: string | null;
  createdAt: number;
  lastActiveAt: number;
  metadata: JsonObject | null;
  expiresAfterDays?: number;
  files: Map<string, StoreFile>;
  batches: Map<string, FileBatch>;
}

/** Vector stores one gateway holds, every test's together (OpenAI: 10,000 files a store; no count of stores). */
const MAX_STORES = 1000;
/** Bytes they hold in all: passages (as UTF-16) and their vectors. */
const STORES_BYTES = 256 * 1024 * 1024;
/** The most text a file is read for (OpenAI: 5,000,000 tokens a file); past it the file is `failed`. */
const MAX_FILE_TEXT = 4 * 1024 * 1024;
/** Files a store takes. */
const MAX_STORE_FILES = 10_000;
const STORE_OVERHEAD = 1024;
const FILE_OVERHEAD = 512;
const PASSAGE_OVERHEAD = 96;

export const VECTOR_STORES = defineStore<HeldVectorStore>({
  name: 'openai.vector-stores',
  title: 'OpenAI vector stores',
  maxCount: MAX_STORES,
  maxBytes: STORES_BYTES,
  whenFull: 'refuse',
  describe: (s) => ({ name: s.name, files: s.files.size, usage_bytes: usageBytes(s) }),
});

const usageBytes = (s: HeldVectorStore) => [...s.files.values()].reduce((n, f) => n + f.usageBytes, 0);
const heldBytes = (s: HeldVectorStore) => [...s.files.values()].reduce((n, f) => n + f.heldBytes, STORE_OVERHEAD);

/** OpenAI's `auto` strategy, and the static one's defaults. */
const AUTO: Chunking = { max: 800, overlap: 400 };

const fileStatus = (f: StoreFile, now: number): FileStatus =>
  f.cancelled ? 'cancelled' : now - f.createdAt < 1 && f.polls < 1 ? 'in_progress' : f.error ? 'failed' : 'completed';

const expiresAt = (s: HeldVectorStore) => (s.expiresAfterDays === undefined ? null : s.lastActiveAt + s.expiresAfterDays * 86_400);
const isExpired = (s: HeldVectorStore, now: number) => {
  const at = expiresAt(s);
  return at !== null && at <= now;
};

function fileCounts(files: Iterable<StoreFile>, now: number): JsonObject {
  const counts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
  for (const f of files) {
    counts[fileStatus(f, now)]++;
    counts.total++;
  }
  return counts;
}

function storeObject(s: HeldVectorStore, now: number): JsonObject {
  const counts = fileCounts(s.files.values(), now);
  return {
    id: s.id,
    object: 'vector_store',
    created_at: s.createdAt,
    name: s.name,
    description: s.description,
    usage_bytes: usageBytes(s),
    file_counts: counts,
    status: isExpired(s, now) ? 'expired' : counts.in_progress ? 'in_progress' : 'completed',
    expires_after: s.expiresAfterDays === undefined ? null : { anchor: 'last_active_at', days: s.expiresAfterDays },
    expires_at: expiresAt(s),
    last_active_at: s.lastActiveAt,
    metadata: s.metadata ?? {},
  };
}

const strategyObject = (c: Chunking) => ({
  type: 'static',
  static: { max_chunk_size_tokens: c.max, chunk_overlap_tokens: c.overlap },
});

function fileObject(s: HeldVectorStore, f: StoreFile, now: number): JsonObject {
  const status = fileStatus(f, now);
  return {
    id: f.id,
    object: 'vector_store.file',
    usage_bytes: status === 'completed' ? f.usageBytes : 0,
    created_at: f.createdAt,
    vector_store_id: s.id,
    status,
    last_error: status === 'failed' && f.error ? f.error : null,
    chunking_strategy: strategyObject(f.chunking),
    attributes: f.attributes ?? {},
  };
}

function batchObject(s: HeldVectorStore, b: FileBatch, now: number): JsonObject {
  const files = b.fileIds.flatMap((id) => s.files.get(id) ?? []);
  const counts = fileCounts(files, now);
  return {
    id: b.id,
    object: 'vector_store.files_batch',
    created_at: b.createdAt,
    vector_store_id: s.id,
    status: b.cancelled ? 'cancelled' : counts.in_progress ? 'in_progress' : counts.failed ? 'failed' : 'completed',
    file_counts: counts,
  };
}

const EXPIRES_AFTER = {
  anchor: { types: ['string'], required: true, values: ['last_active_at'] },
  days: { types: ['integer'], required: true, min: 1, max: 365 },
} as const;

/** A chunking strategy as sent (absent or `auto`: 800 tokens, 400 overlapping), checked as OpenAI does. */
function chunkingOf(value: unknown, param = 'chunking_strategy'): Chunking {
  if (value === undefined || value === null) return AUTO;
  checkField(param, value, { types: ['object'] });
  checkField(`${param}.type`, value.type, { types: ['string'], required: true, values: ['auto', 'static'] });
  if (value.type === 'auto') {
    checkFields(value, { type: { types: ['string'] } }, `${param}.`);
    return AUTO;
  }
  checkFields(value, { type: { types: ['string'] }, static: { types: ['object'], required: true } }, `${param}.`);
  const s = fieldsOf(value.static);
  checkFields(
    s,
    {
      max_chunk_size_tokens: { types: ['integer'], required: true, min: 100, max: 4096 },
      chunk_overlap_tokens: { types: ['integer'], required: true, min: 0 },
    },
    `${param}.static.`,
  );
  if (s.chunk_overlap_tokens > s.max_chunk_size_tokens / 2)
    throw invalid(
      `${param}.static.chunk_overlap_tokens`,
      `Invalid 'chunk_overlap_tokens': ${s.chunk_overlap_tokens}. chunk_overlap_tokens must be less than or equal to half of max_chunk_size_tokens (${s.max_chunk_size_tokens}).`,
    );
  return { max: s.max_chunk_size_tokens, overlap: s.chunk_overlap_tokens };
}

function checkAttributes(value: unknown, param = 'attributes'): Attributes | null {
  if (value === undefined || value === null) return null;
  checkField(param, value, { types: ['object'] });
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalid(param, `Invalid '${param}': at most 16 attributes, got ${entries.length}.`);
  for (const [key, v] of entries) {
    if (key.length > 64) throw invalid(param, `Invalid '${param}': keys are at most 64 characters; '${key.slice(0, 64)}…' is longer.`);
    checkField(`${param}.${key}`, v, { types: ['string', 'number', 'boolean'] });
    if (typeof v === 'string' && v.length > 512)
      throw invalid(`${param}.${key}`, `Invalid '${param}.${key}': string values are at most 512 characters.`);
  }
  return value as Attributes;
}

/** A file's text, if it is text: UTF-8 without NUL bytes (an archive, an image, a zip bomb is not read further). */
function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Cuts `text` into passages (character ranges) of at most `max` tokens, each starting `max - overlap` tokens after the one before. */
function cut(text: string, { max, overlap }: Chunking): [number, number][] {
  // Where each token starts, and the end.
  const at = [0];
  for (const piece of tokenPieces(text)) at.push(at[at.length - 1] + piece.length);
  const tokens = at.length - 1;
  const out: [number, number][] = [];
  for (let start = 0; start < tokens; start += max - overlap) {
    out.push([at[start], at[Math.min(tokens, start + max)]]);
    if (start + max >= tokens) break;
  }
  return out;
}

/** A File attached to a store: read, cut into passages and embedded now, in slices of counted work. */
async function processFile(call: Call, fileId: string, attributes: Attributes | null, chunking: Chunking): Promise<StoreFile> {
  const file = foundFile(call, fileId, 'file_id');
  const base = { id: file.id, filename: file.filename, createdAt: call.runtime.now(), polls: 0, attributes, chunking };
  const text = file.bytes.byteLength > MAX_FILE_TEXT ? undefined : textOf(file.bytes);
  if (text === undefined) {
    const error =
      file.bytes.byteLength > MAX_FILE_TEXT
        ? ({
            code: 'invalid_file',
            message: `The file is ${file.bytes.byteLength} bytes; model-gateway-mock reads files of at most ${MAX_FILE_TEXT} bytes into a vector store.`,
          } as const)
        : ({
            code: 'unsupported_file',
            message: `The file type of ${file.filename} is not supported: model-gateway-mock reads text files (UTF-8) into vector stores.`,
          } as const);
    return { ...base, error, text: '', passages: [], usageBytes: 0, heldBytes: FILE_OVERHEAD };
  }
  const seed = call.runtime.seed;
  const ranges = cut(text, chunking);
  const passages = await mapInSlices(
    ranges,
    ([start, end]) => ({ start, end, vector: passageVector(text.slice(start, end), seed) }),
    ([start, end]) => passageWork(text.slice(start, end)),
    EMBED_SLICE_WORK,
  );
  return {
    ...base,
    text,
    passages,
    usageBytes: file.bytes.byteLength,
    heldBytes: FILE_OVERHEAD + 2 * text.length + passages.length * (4 * PASSAGE_DIMS + PASSAGE_OVERHEAD),
  };
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No vector store found with id '${id}'.`, { param: 'vector_store_id' });
}

/** The store `id` as the request's test sees it, else OpenAI's 404. */
function found(call: Call, id = String(call.params.id)): HeldVectorStore {
  const s = heldFor(call, VECTOR_STORES).get(id);
  if (!s) throw notFound(id);
  return s;
}

/** The file `fileId` of a store, else OpenAI's 404. */
function foundStoreFile(s: HeldVectorStore, fileId: string): StoreFile {
  const f = s.files.get(fileId);
  if (!f) throw new GatewayError('not_found', `No file found with id '${fileId}' in vector store '${s.id}'.`, { param: 'file_id' });
  return f;
}

function storageFull(): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Your vector store storage is full: model-gateway-mock holds at most ${MAX_STORES} vector stores and ${STORES_BYTES / 1024 / 1024} MiB of their passages, every test together. Delete vector stores or files you no longer need, or reset.`,
  );
}

/** Counts a store at its size now; the store full: OpenAI's 400, nothing changed (the caller undoes its change). */
function recount(view: StoreView<HeldVectorStore>, s: HeldVectorStore): boolean {
  return view.resize(s.id, heldBytes(s));
}

/** Attaches files to `s` (processed one after another); undone, whole, when the store has no room. */
async function attach(
  call: Call,
  view: StoreView<HeldVectorStore>,
  s: HeldVectorStore,
  files: { id: string; attributes: Attributes | null; chunking: Chunking }[],
): Promise<StoreFile[]> {
  if (s.files.size + files.length > MAX_STORE_FILES)
    throw invalid('file_ids', `A vector store takes at most ${MAX_STORE_FILES} files; this one has ${s.files.size}.`);
  for (const f of files) foundFile(call, f.id, 'file_id');
  const made: StoreFile[] = [];
  for (const f of files) made.push(await processFile(call, f.id, f.attributes, f.chunking));
  // The store may have been deleted (or its test reset) while the files were read.
  if (view.get(s.id) !== s) throw notFound(s.id);
  const before = new Map(s.files);
  for (const f of made) s.files.set(f.id, f);
  if (!recount(view, s)) {
    s.files.clear();
    for (const [k, v] of before) s.files.set(k, v);
    throw storageFull();
  }
  return made;
}

const CREATE_FIELDS = {
  name: optional('string'),
  description: optional('string'),
  file_ids: { types: ['array'], max: 500 },
  chunking_strategy: optional('object'),
  expires_after: optional('object'),
  metadata: optional('object'),
} as const;

async function create(call: Call<JsonObject>): Promise<ReturnType<typeof json>> {
  const body = call.body;
  checkFields(body, CREATE_FIELDS);
  checkMetadata(body.metadata);
  const chunking = chunkingOf(body.chunking_strategy);
  if (body.expires_after) checkFields(body.expires_after, EXPIRES_AFTER, 'expires_after.');
  const fileIds = (body.file_ids ?? []).map((id, i) => {
    checkField(`file_ids[${i}]`, id, { types: ['string'], required: true });
    return id;
  });
  const view = heldFor(call, VECTOR_STORES);
  const now = call.runtime.now();
  const s: HeldVectorStore = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('vs_', 24, key),
    ),
    name: body.name ?? '',
    description: body.description ?? null,
    createdAt: now,
    lastActiveAt: now,
    metadata: body.metadata ?? null,
    ...(body.expires_after && { expiresAfterDays: Number(body.expires_after.days) }),
    files: new Map(),
    batches: new Map(),
  };
  for (const id of fileIds) foundFile(call, id, 'file_ids');
  if (!view.store.fits(STORE_OVERHEAD) || !view.set(s.id, s, STORE_OVERHEAD)) throw storageFull();
  try {
    await attach(
      call,
      view,
      s,
      fileIds.map((id) => ({ id, attributes: null, chunking })),
    );
  } catch (e) {
    view.delete(s.id);
    throw e;
  }
  return json(storeObject(s, call.runtime.now()));
}

function update(call: Call<JsonObject>) {
  const s = found(call);
  const body = call.body;
  checkFields(body, { name: optional('string'), expires_after: optional('object'), metadata: optional('object') });
  checkMetadata(body.metadata);
  if (body.expires_after) checkFields(body.expires_after, EXPIRES_AFTER, 'expires_after.');
  if (body.name !== undefined) s.name = body.name ?? '';
  if (body.metadata !== undefined) s.metadata = body.metadata;
  if (body.expires_after !== undefined) {
    if (body.expires_after === null) delete s.expiresAfterDays;
    else s.expiresAfterDays = Number(body.expires_after.days);
  }
  return json(storeObject(s, call.runtime.now()));
}

/** Moves every file of a store on, as a retrieve does (the fixed clock's clients poll to see progress). */
function poll(files: Iterable<StoreFile | undefined>): void {
  for (const f of files) if (f) f.polls++;
}

// ---- search ----

interface Found {
  text: string;
  file: StoreFile;
  score: number;
}

/** The passages of completed files of `stores` nearest `query`, best first. */
function searchStores(
  stores: readonly HeldVectorStore[],
  query: string,
  max: number,
  seed: number,
  now: number,
  filter?: Filter,
  threshold = 0,
): Found[] {
  const files = new Map<Passage, StoreFile>();
  const passages: Passage[] = [];
  for (const s of stores) {
    s.lastActiveAt = now;
    for (const f of s.files.values()) {
      if (fileStatus(f, now) !== 'completed' || (filter && !passes(filter, f.attributes))) continue;
      for (const p of f.passages) {
        files.set(p, f);
        passages.push(p);
      }
    }
  }
  return nearest(passageVector(query, seed), passages, max, threshold).map(({ item, score }) => {
    const file = files.get(item)!;
    return { text: file.text.slice(item.start, item.end), file, score };
  });
}

function search(call: Call<JsonObject>) {
  const s = found(call);
  const now = call.runtime.now();
  if (isExpired(s, now)) throw invalid('vector_store_id', `Vector store ${s.id} has expired; it can no longer be searched.`);
  const body = call.body;
  checkFields(body, {
    query: { types: ['string', 'array'], required: true },
    filters: optional('object'),
    max_num_results: { types: ['integer'], min: 1, max: 50 },
    ranking_options: optional('object'),
    rewrite_query: { types: ['boolean'] },
  });
  const queries = typeof body.query === 'string' ? [body.query] : body.query;
  queries.forEach((q, i) => checkField(`query[${i}]`, q, { types: ['string'] }));
  const filter = body.filters ? checkFilter(body.filters, 'filters') : undefined;
  const threshold = checkRanking(body.ranking_options, 'ranking_options');
  const results = searchStores([s], (queries as string[]).join(' '), body.max_num_results ?? 10, call.runtime.seed, now, filter, threshold);
  return json({
    object: 'vector_store.search_results.page',
    search_query: queries,
    data: results.map((r) => ({
      file_id: r.file.id,
      filename: r.file.filename,
      score: r.score,
      attributes: r.file.attributes ?? {},
      content: [{ type: 'text', text: r.text }],
    })),
    has_more: false,
    next_page: null,
  });
}

/**
 * The file search of a request's Responses `file_search` tool: over the named vector stores the
 * request's test sees, ranked as `/search` ranks; none of them held: passages synthesized as before.
 */
export function vectorSearcher(call: Call): FileSearcher {
  return (storeIds, query, max, key, options = {}) => {
    const view = heldFor(call, VECTOR_STORES);
    const now = call.runtime.now();
    const stores = storeIds.flatMap((id) => {
      const s = view.get(id);
      return s && !isExpired(s, now) ? [s] : [];
    });
    if (!stores.length) return synthesizeFileSearch(storeIds, query, max, key);
    return searchStores(stores, query, max, call.runtime.seed, now, options.filters, options.scoreThreshold).map((r) => ({
      fileId: r.file.id,
      filename: r.file.filename,
      text: r.text,
      score: r.score,
      attributes: r.file.attributes ?? {},
    }));
  };
}

// ---- files and file batches ----

async function addFile(call: Call<JsonObject>) {
  const view = heldFor(call, VECTOR_STORES);
  const s = found(call);
  const body = call.body;
  checkFields(body, {
    file_id: { types: ['string'], required: true },
    attributes: optional('object'),
    chunking_strategy: optional('object'),
  });
  const [made] = await attach(call, view, s, [
    { id: body.file_id, attributes: checkAttributes(body.attributes), chunking: chunkingOf(body.chunking_strategy) },
  ]);
  return json(fileObject(s, made, call.runtime.now()));
}

function listFiles(call: Call, s: HeldVectorStore, files: StoreFile[]) {
  const now = call.runtime.now();
  const filter = call.inbound.url.searchParams.get('filter');
  if (filter !== null) checkField('filter', filter, { types: ['string'], values: ['in_progress', 'completed', 'failed', 'cancelled'] });
  const listed = files.filter((f) => filter === null || fileStatus(f, now) === filter).map((f) => fileObject(s, f, now));
  return json(cursorPage(call, listed, { order: 'desc' }));
}

async function addBatch(call: Call<JsonObject>) {
  const view = heldFor(call, VECTOR_STORES);
  const s = found(call);
  const body = call.body;
  checkFields(body, {
    file_ids: { types: ['array'], max: 2000 },
    files: { types: ['array'], max: 2000 },
    attributes: optional('object'),
    chunking_strategy: optional('object'),
  });
  if ((body.file_ids === undefined) === (body.files === undefined))
    throw invalid('file_ids', "Provide exactly one of 'file_ids' or 'files'.", 'invalid_request');
  const attributes = checkAttributes(body.attributes);
  const chunking = chunkingOf(body.chunking_strategy);
  const files = body.file_ids
    ? body.file_ids.map((id, i) => {
        checkField(`file_ids[${i}]`, id, { types: ['string'], required: true });
        return { id, attributes, chunking };
      })
    : (body.files ?? []).map((value, i) => {
        checkField(`files[${i}]`, value, { types: ['object'], required: true });
        const f = fieldsOf(value);
        checkFields(
          f,
          { file_id: { types: ['string'], required: true }, attributes: optional('object'), chunking_strategy: optional('object') },
          `files[${i}].`,
        );
        return {
          id: f.file_id,
          attributes: f.attributes === undefined ? attributes : checkAttributes(f.attributes, `files[${i}].attributes`),
          chunking: f.chunking_strategy ? chunkingOf(f.chunking_strategy, `files[${i}].chunking_strategy`) : chunking,
        };
      });
  if (!files.length) throw invalid('file_ids', "Invalid 'file_ids': empty array. Expected at least one file.", 'empty_array');
  const made = await attach(call, view, s, files);
  const batch: FileBatch = {
    id: freshId(
      call,
      (id) => s.batches.get(id),
      (key) => makeId('vsfb_', 24, key),
    ),
    createdAt: call.runtime.now(),
    fileIds: made.map((f) => f.id),
    cancelled: false,
  };
  s.batches.set(batch.id, batch);
  return json(batchObject(s, batch, call.runtime.now()));
}

function foundBatch(s: HeldVectorStore, id: string): FileBatch {
  const b = s.batches.get(id);
  if (!b) throw new GatewayError('not_found', `No file batch found with id '${id}' in vector store '${s.id}'.`, { param: 'batch_id' });
  return b;
}

const post = (path: string, handle: (call: Call<JsonObject>) => unknown): EndpointSpec =>
  ({ method: 'POST', path, format: openaiFormat, auth: ['bearer'], handle }) as EndpointSpec;

export const vectorStoreEndpoints: EndpointSpec[] = [
  post('/v1/vector_stores', create),
  readRoute('GET', '/v1/vector_stores', (call) => {
    const now = call.runtime.now();
    return json(
      cursorPage(
        call,
        heldFor(call, VECTOR_STORES)
          .values()
          .map((s) => storeObject(s, now)),
        { order: 'desc' },
      ),
    );
  }),
  readRoute('GET', '/v1/vector_stores/:id', (call) => {
    const s = found(call);
    poll(s.files.values());
    return json(storeObject(s, call.runtime.now()));
  }),
  post('/v1/vector_stores/:id', update),
  readRoute('DELETE', '/v1/vector_stores/:id', (call) => {
    const s = found(call);
    heldFor(call, VECTOR_STORES).delete(s.id);
    return json({ id: s.id, object: 'vector_store.deleted', deleted: true });
  }),
  post('/v1/vector_stores/:id/search', search),
  post('/v1/vector_stores/:id/files', addFile),
  readRoute('GET', '/v1/vector_stores/:id/files', (call) => {
    const s = found(call);
    return listFiles(call, s, [...s.files.values()]);
  }),
  readRoute('GET', '/v1/vector_stores/:id/files/:file', (call) => {
    const s = found(call);
    const f = foundStoreFile(s, String(call.params.file));
    poll([f]);
    return json(fileObject(s, f, call.runtime.now()));
  }),
  post('/v1/vector_stores/:id/files/:file', (call) => {
    const s = found(call);
    const f = foundStoreFile(s, String(call.params.file));
    checkFields(call.body, { attributes: { types: ['object'], required: true, nullable: true } });
    f.attributes = checkAttributes(call.body.attributes ?? null);
    return json(fileObject(s, f, call.runtime.now()));
  }),
  readRoute('DELETE', '/v1/vector_stores/:id/files/:file', (call) => {
    const view = heldFor(call, VECTOR_STORES);
    const s = found(call);
    const f = foundStoreFile(s, String(call.params.file));
    s.files.delete(f.id);
    recount(view, s);
    return json({ id: f.id, object: 'vector_store.file.deleted', deleted: true });
  }),
  readRoute('GET', '/v1/vector_stores/:id/files/:file/content', (call) => {
    const s = found(call);
    const f = foundStoreFile(s, String(call.params.file));
    return json({
      object: 'vector_store.file_content.page',
      data: f.text ? [{ type: 'text', text: f.text }] : [],
      has_more: false,
      next_page: null,
    });
  }),
  post('/v1/vector_stores/:id/file_batches', addBatch),
  readRoute('GET', '/v1/vector_stores/:id/file_batches/:batch', (call) => {
    const s = found(call);
    const b = foundBatch(s, String(call.params.batch));
    poll(b.fileIds.map((id) => s.files.get(id)));
    return json(batchObject(s, b, call.runtime.now()));
  }),
  {
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches/:batch/cancel',
    format: openaiFormat,
    auth: ['bearer'],
    bodiless: true,
    handle(call) {
      const s = found(call);
      const b = foundBatch(s, String(call.params.batch));
      const now = call.runtime.now();
      if (batchObject(s, b, now).status !== 'in_progress')
        throw invalid(
          'batch_id',
          `Cannot cancel a vector store file batch that is ${String(batchObject(s, b, now).status)}.`,
          'invalid_request',
        );
      b.cancelled = true;
      for (const id of b.fileIds) {
        const f = s.files.get(id);
        if (f && fileStatus(f, now) === 'in_progress') f.cancelled = true;
      }
      return json(batchObject(s, b, now));
    },
  },
  readRoute('GET', '/v1/vector_stores/:id/file_batches/:batch/files', (call) => {
    const s = found(call);
    const b = foundBatch(s, String(call.params.batch));
    return listFiles(
      call,
      s,
      b.fileIds.flatMap((id) => s.files.get(id) ?? []),
    );
  }),
];
