// OpenAI Files (/v1/files): upload (multipart `file` and `purpose`, `expires_after`), list (cursor
// pages, by `purpose`), retrieve, content (the bytes as uploaded) and delete. Files are held in memory
// per test (core/stores.ts): at most MAX_FILES files and FILES_BYTES in all, MAX_FILE_BYTES each; a
// store that is full answers with the service's error rather than losing a file. Content is never
// parsed: a batch's input file is read by the batch that names it (batches.ts), an upload's parts are
// only joined (uploads.ts).
import { GatewayError } from '../../core/errors.ts';
import { hashStrings, makeId } from '../../core/seed.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { isUpload, json, type Outbound, type Upload } from '../../pipeline/exchange.ts';
import { readFileParts } from '../file-parts.ts';
import type { Message } from '../../core/request.ts';
import { entryTestId, heldFor } from '../../scope.ts';
import { type FieldRules, refuseUnrecognized, type JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { cursorPage, readRoute } from './resource.ts';
import { checkFields, invalid, invalidType, invalidValue, missing, unknownField } from './validate.ts';

/** A file as held: its bytes exactly as uploaded (or as a batch wrote them). */
export interface HeldFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: Uint8Array;
  createdAt: number;
  expiresAt?: number;
}

/** Files one gateway holds, every test's together (OpenAI: no count limit, 2.5 TB per project). */
const MAX_FILES = 10_000;
/** Bytes of files one gateway holds, every test's together. */
const FILES_BYTES = 256 * 1024 * 1024;
/** The largest file (OpenAI: 512 MB; an Upload 8 GB). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** What a held file costs beyond its bytes (its object and name), by estimate. */
const FILE_OVERHEAD = 512;

export const FILES = defineStore<HeldFile>({
  name: 'openai.files',
  title: 'OpenAI files',
  maxCount: MAX_FILES,
  maxBytes: FILES_BYTES,
  whenFull: 'refuse',
  describe: (f) => ({ filename: f.filename, purpose: f.purpose, bytes: f.bytes.byteLength, expires_at: f.expiresAt ?? null }),
  expired: (f, now) => f.expiresAt !== undefined && f.expiresAt <= now,
});

/** The purposes a client may upload with; `batch_output` files are the batches' own. */
export const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;
const MIB = 1024 * 1024;
/** Files of purpose `batch` expire after 30 days unless `expires_after` says otherwise, as OpenAI's do. */
const BATCH_FILE_SECONDS = 30 * 24 * 3600;

/** The file object OpenAI answers with. */
export function fileObject(f: HeldFile): JsonObject {
  return {
    id: f.id,
    object: 'file',
    bytes: f.bytes.byteLength,
    created_at: f.createdAt,
    expires_at: f.expiresAt ?? null,
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
    status_details: null,
  };
}

/**
 * A fresh id (`make` gives the service's style) that `taken` does not hold: from the request and its
 * test, the n-th free one, so a test's run repeats its ids whatever other tests do meanwhile.
 */
export function freshId(call: Call, taken: (id: string) => unknown, make: (key: number) => string): string {
  for (let n = 0; ; n++) {
    const id = make(hashStrings([entryTestId(call.entry) ?? '', '\n', call.requestId, '\n', String(n)], call.runtime.seed));
    if (taken(id) === undefined) return id;
  }
}

/** The 400 for a store too full to take `size` more bytes. */
function storageFull(what: string, size: number): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Your file storage is full: ${what} of ${size} bytes would pass model-gateway-mock's ceilings (${MAX_FILES} files and ${FILES_BYTES / MIB} MiB of files in all, every test together). Delete files you no longer need (files.delete), or reset.`,
  );
}

/** The 413 (or the Upload's 400) for a file over MAX_FILE_BYTES. */
export function fileTooLarge(size: number, param = 'file'): GatewayError {
  return new GatewayError(
    'request_too_large',
    `File is too large: ${size} bytes. model-gateway-mock keeps files of at most ${MAX_FILE_BYTES / MIB} MiB (OpenAI takes 512 MB).`,
    { param },
  );
}

/** Refuses a file name the purpose does not take, in OpenAI's words (the Batch and Fine-tuning APIs read JSONL only). */
export function checkFileName(filename: string, purpose: string): void {
  const api = purpose === 'batch' ? 'Batch API' : purpose === 'fine-tune' ? 'Fine-Tuning API' : undefined;
  if (api && !filename.toLowerCase().endsWith('.jsonl'))
    throw new GatewayError('invalid_request', `Invalid file format for ${api}. Must be .jsonl`);
}

/** When a new file of `purpose` expires: `expires_after` seconds after creation, else 30 days for a batch file, else never. */
export function expiryOf(now: number, purpose: string, expiresAfter: JsonObject | undefined, param = 'expires_after'): number | undefined {
  if (expiresAfter === undefined) return purpose === 'batch' ? now + BATCH_FILE_SECONDS : undefined;
  checkFields(expiresAfter, EXPIRES_AFTER_FIELDS, `${param}.`);
  return now + expiresAfter.seconds;
}

export const EXPIRES_AFTER_FIELDS = {
  anchor: { types: ['string'], required: true, values: ['created_at'] },
  seconds: { types: ['integer'], required: true, min: 3600, max: 2_592_000 },
} as const satisfies FieldRules;

/**
 * Keeps a new file in `view` (the request's test's, or shared), or throws the error the service gives:
 * too large (413), or the store full (400). Nothing is kept when it fails. Its id and time are drawn
 * from the request unless given (a batch's output file has its batch's).
 */
export function keepFile(
  call: Call,
  file: Omit<HeldFile, 'id' | 'createdAt'> & Partial<Pick<HeldFile, 'id' | 'createdAt'>>,
  view = heldFor(call, FILES),
): HeldFile {
  const size = file.bytes.byteLength;
  if (size > MAX_FILE_BYTES) throw fileTooLarge(size);
  const held: HeldFile = {
    ...file,
    id:
      file.id ??
      freshId(
        call,
        (id) => view.get(id),
        (key) => makeId('file-', 22, key),
      ),
    createdAt: file.createdAt ?? call.runtime.now(),
  };
  if (!view.store.fits(size + FILE_OVERHEAD) || !view.set(held.id, held, size + FILE_OVERHEAD)) throw storageFull('this file', size);
  return held;
}

/** The file `id` as the request's test sees it, unless expired; else OpenAI's 404. */
export function foundFile(call: Call, id: string, param = 'file_id'): HeldFile {
  const view = heldFor(call, FILES);
  const file = view.get(id);
  if (file && file.expiresAt !== undefined && file.expiresAt <= call.runtime.now()) view.delete(id);
  else if (file) return file;
  throw new GatewayError('not_found', `No such File object: ${id}`, { param });
}

/** Whether a file reads as text (a PDF or a binary file does not: the gateway does not parse them). */
function readsAsText(file: HeldFile): boolean {
  const head = file.bytes.subarray(0, 1024);
  return (
    !/\.pdf$/i.test(file.filename) && !(head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46) && !head.includes(0)
  );
}

/**
 * Reads the files a request's messages give by id (a Responses `input_file`, a chat `file` part) as the
 * model would: a text file's text, counted as input and part of what the reply is made from; an
 * unknown one, or another test's, is OpenAI's 404 naming it.
 */
export function readOpenAIFileParts(call: Call, messages: readonly Message[]): Promise<void> {
  return readFileParts(messages, (id) => {
    const file = foundFile(call, id);
    return readsAsText(file) ? file.bytes : undefined;
  });
}

/** A message with its files given by id kept by id only (their text is read again when it is continued). */
export function withoutFileTexts(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'file' && p.fileId !== undefined)) return m;
  return { ...m, parts: m.parts.map((p) => (p.type === 'file' && p.fileId !== undefined ? { type: 'file', fileId: p.fileId } : p)) };
}

/** A form field as one string (a repeated field: its first), or undefined. */
function formText(form: JsonObject, name: string): string | undefined {
  const v = form[name];
  const one = Array.isArray(v) ? v[0] : v;
  if (one === undefined) return undefined;
  if (typeof one !== 'string') throw invalidType(name, ['string'], isUpload(one) ? {} : one);
  return one;
}

/** `expires_after[anchor]` and `expires_after[seconds]` of a form, as the object JSON would send. */
function formExpiresAfter(form: JsonObject): JsonObject | undefined {
  const anchor = formText(form, 'expires_after[anchor]');
  const seconds = formText(form, 'expires_after[seconds]');
  if (anchor === undefined && seconds === undefined) return undefined;
  return { anchor, seconds: seconds !== undefined && /^-?\d+$/.test(seconds.trim()) ? Number(seconds) : seconds };
}

const FORM_FIELDS = ['file', 'purpose', 'expires_after[anchor]', 'expires_after[seconds]'];

async function create(call: Call<JsonObject>): Promise<Outbound> {
  if (!/^\s*multipart\/form-data/i.test(call.inbound.header('content-type') ?? ''))
    throw new GatewayError(
      'invalid_request',
      "Files are uploaded as multipart/form-data, with a 'file' part and a 'purpose' field (the SDKs' files.create does so).",
    );
  const form = call.body;
  refuseUnrecognized(
    form,
    Object.keys(form).filter((name) => !FORM_FIELDS.includes(name)),
    unknownField,
  );
  const file = Array.isArray(form.file) ? form.file[0] : form.file;
  if (file === undefined) throw missing('file');
  if (!isUpload(file))
    throw invalid(
      'file',
      "Invalid 'file': expected a file upload (a multipart part with a filename), but got a text field.",
      'invalid_type',
    );
  const purpose = formText(form, 'purpose');
  if (purpose === undefined) throw missing('purpose');
  if (!(PURPOSES as readonly string[]).includes(purpose)) throw invalidValue('purpose', purpose, PURPOSES);
  const upload: Upload = file;
  checkFileName(upload.filename, purpose);
  const expiresAt = expiryOf(call.runtime.now(), purpose, formExpiresAfter(form));
  return json(fileObject(keepFile(call, { filename: upload.filename, purpose, bytes: upload.bytes, expiresAt })));
}

/** The files the request's test sees that have not expired, oldest first (expired ones are dropped as they are met). */
function liveFiles(call: Call): HeldFile[] {
  const view = heldFor(call, FILES);
  const now = call.runtime.now();
  const out: HeldFile[] = [];
  for (const [id, file] of [...view.entries()]) {
    if (file.expiresAt !== undefined && file.expiresAt <= now) view.delete(id);
    else out.push(file);
  }
  return out;
}

function list(call: Call): Outbound {
  const purpose = call.inbound.url.searchParams.get('purpose');
  const files = liveFiles(call).filter((f) => purpose === null || f.purpose === purpose);
  // OpenAI lists files newest first by default, up to 10,000 a page.
  return json(cursorPage(call, files.map(fileObject), { order: 'desc', limit: 10_000, maxLimit: 10_000 }));
}

/** OpenAI keeps files of purpose `assistants` to itself: they cannot be downloaded. */
const NOT_DOWNLOADABLE = ['assistants'];

function content(call: Call): Outbound {
  const file = foundFile(call, String(call.params.id));
  if (NOT_DOWNLOADABLE.includes(file.purpose))
    throw new GatewayError('invalid_request', `Not allowed to download files of purpose: ${file.purpose}`, { param: 'file_id' });
  return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: file.bytes };
}

export const fileEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/files', format: openaiFormat, auth: ['bearer'], handle: create },
  readRoute('GET', '/v1/files', list),
  readRoute('GET', '/v1/files/:id', (call) => json(fileObject(foundFile(call, String(call.params.id))))),
  readRoute('GET', '/v1/files/:id/content', content),
  readRoute('DELETE', '/v1/files/:id', (call) => {
    const id = String(call.params.id);
    foundFile(call, id);
    heldFor(call, FILES).delete(id);
    return json({ id, object: 'file', deleted: true });
  }),
];
