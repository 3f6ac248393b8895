// Gemini's Files API: `files.upload` by the resumable upload protocol (`POST /upload/v1beta/files` with
// `X-Goog-Upload-Protocol: resumable` and `X-Goog-Upload-Command: start`, answered with the URL to send
// the bytes to in `X-Goog-Upload-URL`; then `upload` chunks at their offsets, the last one `upload,
// finalize`), `files.get`, `files.list` (pages of `pageSize`, `pageToken`) and `files.delete`. Files
// are held per test (core/stores.ts), apart from the other vendors', and expire 48 hours after upload
// on the gateway's clock, as Gemini's do. A `fileData` part whose `fileUri` names a file the request's
// test holds reads as the same `inlineData` would (`checkFileUris`); one it does not hold is Gemini's 403.
import { GatewayError } from '../../core/errors.ts';
import { makeId } from '../../core/seed.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { type Inbound, isUpload, json, type Outbound } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import { isTextType, readFileParts } from '../file-parts.ts';
import type { Message } from '../../core/request.ts';
import { fieldsOf, type JsonObject } from '../fields.ts';
import { freshId } from '../openai/files.ts';
import { fromGoogleClient, geminiFormat } from './format.ts';
import { listPage } from './pages.ts';

interface GeminiFile {
  /** `abc123…`: the file's name is `files/<id>`. */
  id: string;
  displayName?: string;
  mimeType: string;
  /** The size the upload declared, and the bytes received so far (what it is counted at) while it is under way. */
  declared: number;
  chunks: Uint8Array[];
  received: number;
  /** Set once finalized: a file; until then an upload under way, not listed. */
  bytes?: Uint8Array;
  /** Its SHA-256 as Gemini shows it (the hex digest, base64-encoded), set once finalized. */
  sha256?: string;
  createdAt: number;
  /** Where its URI points (the origin the upload came to). */
  origin: string;
}

/** Files one gateway holds, every test's together (Gemini: 20 GB a project). */
const MAX_FILES = 10_000;
const FILES_BYTES = 256 * 1024 * 1024;
/** The largest file (Gemini: 2 GB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Gemini keeps a file 48 hours. */
const KEPT_SECONDS = 48 * 3600;
const OVERHEAD = 512;
const MIB = 1024 * 1024;

const FILES = defineStore<GeminiFile>({
  name: 'gemini.files',
  title: 'Gemini files',
  maxCount: MAX_FILES,
  maxBytes: FILES_BYTES,
  whenFull: 'refuse',
  describe: (f) => ({
    name: `files/${f.id}`,
    mime_type: f.mimeType,
    bytes: f.bytes?.byteLength ?? f.received,
    state: f.bytes ? 'ACTIVE' : 'UPLOADING',
  }),
});

/** `chunks` as one array of `length` bytes. */
function joined(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/** The bytes' SHA-256 as Gemini shows it, the hex digest base64-encoded (Web Crypto: this module runs in browsers too). */
async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return btoa(Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''));
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function fileObject(f: GeminiFile): JsonObject {
  const bytes = f.bytes ?? new Uint8Array(0);
  return {
    name: `files/${f.id}`,
    ...(f.displayName !== undefined && { displayName: f.displayName }),
    mimeType: f.mimeType,
    sizeBytes: String(bytes.byteLength),
    createTime: iso(f.createdAt),
    updateTime: iso(f.createdAt),
    expirationTime: iso(f.createdAt + KEPT_SECONDS),
    sha256Hash: f.sha256 ?? '',
    uri: `${f.origin}/v1beta/files/${f.id}`,
    state: 'ACTIVE',
    source: 'UPLOADED',
  };
}

/** The finished, unexpired file `id` the request's test holds; else Gemini's 403 (it says the same of a file that is not there). */
function found(call: Parameters<typeof heldFor>[0] & { runtime: { now(): number } }, id: string): GeminiFile {
  const view = heldFor(call, FILES);
  const f = view.get(id);
  if (f?.bytes && f.createdAt + KEPT_SECONDS <= call.runtime.now()) view.delete(id);
  else if (f?.bytes) return f;
  throw new GatewayError('permission', `You do not have permission to access the File ${id} or it may not exist.`);
}

function full(): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Your file storage is full: model-gateway-mock holds at most ${MAX_FILES} Gemini files and ${FILES_BYTES / MIB} MiB of them, every test together. Delete files you no longer need, or reset.`,
  );
}

const header = (call: Call, name: string) => call.inbound.header(name)?.trim().toLowerCase();

/** `start`: a new upload of the declared size and type, answered with the URL its bytes go to. */
function start(call: Call<JsonObject>, bytes: Uint8Array): Outbound {
  let meta: JsonObject = {};
  if (bytes.byteLength) {
    try {
      meta = fieldsOf(fieldsOf(JSON.parse(new TextDecoder().decode(bytes))).file);
    } catch {
      throw new GatewayError(
        'invalid_request',
        'Invalid JSON payload received: the upload start request carries {"file": {"displayName", "mimeType"}}.',
      );
    }
  }
  const declaredText = call.inbound.header('x-goog-upload-header-content-length');
  const declared = Number(declaredText);
  if (!declaredText || !Number.isInteger(declared) || declared < 0)
    throw new GatewayError(
      'invalid_request',
      'X-Goog-Upload-Header-Content-Length: the size of the file, in bytes, is required to start an upload.',
    );
  if (declared > MAX_FILE_BYTES)
    throw new GatewayError(
      'request_too_large',
      `File too large: ${declared} bytes. model-gateway-mock keeps files of at most ${MAX_FILE_BYTES / MIB} MiB (Gemini takes 2 GB).`,
    );
  const mimeType = String(meta.mimeType ?? call.inbound.header('x-goog-upload-header-content-type') ?? '');
  if (!mimeType) throw new GatewayError('invalid_request', 'Unknown mime type: set file.mimeType or X-Goog-Upload-Header-Content-Type.');
  const view = heldFor(call, FILES);
  const f: GeminiFile = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('', 12, key).toLowerCase(),
    ),
    ...(typeof meta.displayName === 'string' && { displayName: meta.displayName }),
    mimeType,
    declared,
    chunks: [],
    received: 0,
    createdAt: call.runtime.now(),
    origin: call.inbound.url.origin,
  };
  // Refused at the start when the whole file would not fit; counted at what has come in, as it comes.
  if (!view.store.fits(declared + OVERHEAD) || !view.set(f.id, f, OVERHEAD)) throw full();
  const url = `${call.inbound.url.origin}${call.inbound.url.pathname}?upload_id=${f.id}&upload_protocol=resumable`;
  return {
    status: 200,
    headers: { 'x-goog-upload-url': url, 'x-goog-upload-status': 'active', 'content-type': 'application/json' },
    body: '',
  };
}

/** `upload` (and `finalize`): a chunk at its offset; the last one makes the file. */
async function upload(call: Call<JsonObject>, bytes: Uint8Array, command: string): Promise<Outbound> {
  const id = call.inbound.url.searchParams.get('upload_id') ?? '';
  const view = heldFor(call, FILES);
  const f = view.get(id);
  if (!f || f.bytes) throw new GatewayError('not_found', `No upload session ${id}: start one with X-Goog-Upload-Command: start.`);
  const offset = Number(call.inbound.header('x-goog-upload-offset') ?? f.received);
  if (offset !== f.received)
    throw new GatewayError('invalid_request', `X-Goog-Upload-Offset ${offset} does not follow the ${f.received} bytes received so far.`);
  if (f.received + bytes.byteLength > f.declared)
    throw new GatewayError('invalid_request', `The upload passes its declared size of ${f.declared} bytes.`);
  if (!view.resize(f.id, f.received + bytes.byteLength + OVERHEAD)) throw full();
  f.chunks.push(bytes);
  f.received += bytes.byteLength;
  if (!command.includes('finalize'))
    return { status: 200, headers: { 'x-goog-upload-status': 'active', 'content-type': 'application/json' }, body: '' };
  if (f.received !== f.declared)
    throw new GatewayError('invalid_request', `The upload was finalized at ${f.received} bytes; it declared ${f.declared}.`);
  f.bytes = f.chunks.length === 1 ? f.chunks[0] : joined(f.chunks, f.received);
  f.chunks = [];
  f.sha256 = await sha256Of(f.bytes);
  return {
    status: 200,
    headers: { 'x-goog-upload-status': 'final', 'content-type': 'application/json' },
    body: JSON.stringify({ file: fileObject(f) }),
  };
}

const KEY_WAYS = ['query-key', 'x-goog-api-key', 'bearer'] as const;

const VERSIONS = ['v1beta', 'v1'];

export const geminiFileEndpoints: EndpointSpec[] = VERSIONS.flatMap((v): EndpointSpec[] => {
  // On /v1 paths other vendors share (`/v1/files`): Google's clients only.
  const accepts = v === 'v1' ? fromGoogleClient : undefined;
  const route = (method: 'GET' | 'DELETE', path: string, handle: (call: Call) => Outbound): EndpointSpec => ({
    method,
    path: `/${v}${path}`,
    format: geminiFormat,
    auth: KEY_WAYS,
    accepts,
    handle,
  });
  return [
    {
      method: 'POST',
      path: `/upload/${v}/files`,
      format: geminiFormat,
      auth: KEY_WAYS,
      rawBody: true,
      handle(call) {
        const data = call.body.data;
        const bytes = isUpload(data) ? data.bytes : new Uint8Array(0);
        const command = header(call, 'x-goog-upload-command') ?? '';
        if (command === 'start') {
          if (header(call, 'x-goog-upload-protocol') !== 'resumable')
            throw new GatewayError(
              'invalid_request',
              'Only the resumable upload protocol is emulated: send X-Goog-Upload-Protocol: resumable.',
            );
          return start(call, bytes);
        }
        if (command.startsWith('upload')) return upload(call, bytes, command);
        throw new GatewayError('invalid_request', `X-Goog-Upload-Command must be start, upload, or "upload, finalize"; got "${command}".`);
      },
    },
    route('GET', '/files', (call) => {
      const now = call.runtime.now();
      const all = heldFor(call, FILES)
        .values()
        .filter((f) => f.bytes && f.createdAt + KEPT_SECONDS > now)
        .reverse();
      return listPage(call, all, 'files', fileObject, 10, 100);
    }),
    route('GET', '/files/:id', (call) => {
      const id = String(call.params.id);
      // `files/<id>:download?alt=media` (files.download): the bytes, for the files the gateway writes (a batch's results).
      if (id.endsWith(':download')) {
        const f = found(call, id.slice(0, -':download'.length));
        return { status: 200, headers: { 'content-type': f.mimeType }, body: f.bytes! };
      }
      return json(fileObject(found(call, id)));
    }),
    route('DELETE', '/files/:id', (call) => {
      const f = found(call, String(call.params.id));
      heldFor(call, FILES).delete(f.id);
      return json({});
    }),
  ];
});

/**
 * Keeps `bytes` as a finished file of the request's test, written by the gateway (a batch's results),
 * as `files/<prefix><id>`; undefined when the store is full.
 */
export async function writeFile(call: Call, bytes: Uint8Array, mimeType: string, displayName: string): Promise<string | undefined> {
  const view = heldFor(call, FILES);
  const id = freshId(
    call,
    (i) => view.get(i),
    (key) => `batch-${makeId('', 12, key).toLowerCase()}`,
  );
  const f: GeminiFile = {
    id,
    displayName,
    mimeType,
    declared: bytes.byteLength,
    chunks: [],
    received: bytes.byteLength,
    bytes,
    sha256: await sha256Of(bytes),
    createdAt: call.runtime.now(),
    origin: call.inbound.url.origin,
  };
  return view.set(id, f, bytes.byteLength + OVERHEAD) ? `files/${id}` : undefined;
}

/** A finished file's bytes, as the request's test holds it (a batch's input file); Gemini's 403 otherwise. */
export function fileBytes(call: Call, name: string): Uint8Array {
  return found(call, name.replace(/^files\//, '')).bytes!;
}

/** The id a Files API URI names (`…/v1beta/files/<id>`, `…/v1/files/<id>`, or `files/<id>`), else undefined (a bucket or a video link). */
export const fileIdOf = (uri: string) => /(?:^|\/v1(?:beta)?\/)files\/([a-z0-9-]+)$/.exec(uri)?.[1];

/**
 * Checks the files a generate-content request names in `fileData` parts: a Files API URI must name a
 * file the request's test holds (Gemini's 403 otherwise). Such a part is then read as the same
 * `inlineData` would be; other URIs (Cloud Storage, videos) are taken as they are.
 */
export function checkFileUris(call: Call, body: JsonObject): void {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  for (const c of contents)
    for (const part of Array.isArray(fieldsOf(c).parts) ? (fieldsOf(c).parts as unknown[]) : []) {
      const uri = fieldsOf(fieldsOf(part).fileData).fileUri;
      const id = typeof uri === 'string' ? fileIdOf(uri) : undefined;
      if (id !== undefined) found(call, id);
    }
}

/**
 * Reads the text files a request's `fileData` parts name (parse.ts marks them by id) as the model
 * would: their text counts as input and shapes the reply.
 */
export function readGeminiFileParts(call: Call, messages: readonly Message[]): Promise<void> {
  return readFileParts(messages, (id) => {
    const file = found(call, id);
    return isTextType(file.mimeType) ? file.bytes : undefined;
  });
}
