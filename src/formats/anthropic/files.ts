// Anthropic's Files API at /v1/files, beside OpenAI's on the same path (each takes its own vendor's
// clients, told apart by `anthropic-version`): upload (multipart `file`, `expires_in_seconds`), list
// (Anthropic's pages: `limit`, `page` or `after_id`/`before_id`), metadata,
// download (only for files the service made downloadable: none of the uploaded ones), delete. Files are
// held per test (core/stores.ts), apart from OpenAI's: a file of one vendor is not another's. A message
// citing a file by id (`document` and `image` blocks with `source: {type: "file", file_id}`) reads as if
// the file were inlined (`checkFileSources`).
import { GatewayError } from '../../core/errors.ts';
import { makeId } from '../../core/seed.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { isUpload, json, type Inbound, type Outbound } from '../../pipeline/exchange.ts';
import { FileTexts, isTextType } from '../file-parts.ts';
import { heldFor } from '../../scope.ts';
import { fieldsOf, type JsonObject } from '../fields.ts';
import { freshId } from '../openai/files.ts';
import { anthropicFormat } from './format.ts';
import { listPage } from './list.ts';

interface AnthropicFile {
  id: string;
  filename: string;
  mimeType: string;
  bytes: Uint8Array;
  createdAt: number;
  /** Made by the service (skills, code execution), so it may be downloaded; uploads never are. */
  downloadable: boolean;
  expiresAt?: number;
}

/** Files one gateway holds, every test's together (Anthropic: 100 GB an organization). */
const MAX_FILES = 10_000;
const FILES_BYTES = 256 * 1024 * 1024;
/** The largest file (Anthropic: 500 MB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const FILE_OVERHEAD = 512;
const MIB = 1024 * 1024;
/** messages.ts's KEY_OR_BEARER (which imports this module: taken from there, it would be undefined here). */
const KEY_OR_BEARER = ['x-api-key', 'bearer'] as const;

const FILES = defineStore<AnthropicFile>({
  name: 'anthropic.files',
  title: 'Anthropic files',
  maxCount: MAX_FILES,
  maxBytes: FILES_BYTES,
  whenFull: 'refuse',
  describe: (f) => ({ filename: f.filename, mime_type: f.mimeType, bytes: f.bytes.byteLength }),
  expired: (f, now) => f.expiresAt !== undefined && f.expiresAt <= now,
});

const metadata = (f: AnthropicFile): JsonObject => ({
  id: f.id,
  type: 'file',
  filename: f.filename,
  mime_type: f.mimeType,
  size_bytes: f.bytes.byteLength,
  created_at: new Date(f.createdAt * 1000).toISOString(),
  downloadable: f.downloadable,
  expires_at: f.expiresAt === undefined ? null : new Date(f.expiresAt * 1000).toISOString(),
});

/** The media types a name's extension says, for a part sent without one. */
const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

const mimeOf = (filename: string, sent: string) =>
  sent && sent !== 'application/octet-stream'
    ? sent.split(';')[0].trim()
    : (BY_EXTENSION[filename.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream');

/** What looking a file up needs of a request (a Call, or a batch's request). */
type Held = Parameters<typeof heldFor>[0] & { runtime: { now(): number } };

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `File not found: ${id}`);
}

/** The file `id` the request's test holds, unless expired (then dropped); else Anthropic's 404. */
function found(call: Held, id: string): AnthropicFile {
  const view = heldFor(call, FILES);
  const f = view.get(id);
  if (f?.expiresAt !== undefined && f.expiresAt <= call.runtime.now()) view.delete(id);
  else if (f) return f;
  throw notFound(id);
}

function upload(call: Call<JsonObject>) {
  if (!/^\s*multipart\/form-data/i.test(call.inbound.header('content-type') ?? ''))
    throw new GatewayError(
      'invalid_request',
      "Files are uploaded as multipart/form-data with a 'file' part (the SDK's beta.files.upload does so).",
    );
  const part = Array.isArray(call.body.file) ? call.body.file[0] : call.body.file;
  if (!isUpload(part)) throw new GatewayError('invalid_request', "file: Field required (a multipart part named 'file', with a filename).");
  const seconds = Array.isArray(call.body.expires_in_seconds) ? call.body.expires_in_seconds[0] : call.body.expires_in_seconds;
  const expiresIn = seconds === undefined ? undefined : Number(seconds);
  if (expiresIn !== undefined && !(Number.isInteger(expiresIn) && expiresIn >= 3600 && expiresIn <= 7_776_000))
    throw new GatewayError('invalid_request', `expires_in_seconds: must be an integer from 3600 to 7776000, got ${String(seconds)}`);
  const size = part.bytes.byteLength;
  if (size > MAX_FILE_BYTES)
    throw new GatewayError(
      'request_too_large',
      `File too large: ${size} bytes. model-gateway-mock keeps files of at most ${MAX_FILE_BYTES / MIB} MiB (Anthropic takes 500 MB).`,
    );
  const view = heldFor(call, FILES);
  const file: AnthropicFile = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('file_011C', 20, key),
    ),
    filename: part.filename,
    mimeType: mimeOf(part.filename, part.type),
    bytes: part.bytes,
    createdAt: call.runtime.now(),
    downloadable: false,
    ...(expiresIn !== undefined && { expiresAt: call.runtime.now() + expiresIn }),
  };
  if (!view.store.fits(size + FILE_OVERHEAD) || !view.set(file.id, file, size + FILE_OVERHEAD))
    throw new GatewayError(
      'invalid_request',
      `Your file storage is full: model-gateway-mock holds at most ${MAX_FILES} files and ${FILES_BYTES / MIB} MiB of Anthropic files, every test together. Delete files you no longer need, or reset.`,
    );
  return json(metadata(file));
}

/** Anthropic clients (SDKs, the AI SDK) always send anthropic-version; OpenAI clients never do (on paths both serve). */
export const fromAnthropicClient = (inbound: Inbound) => inbound.header('anthropic-version') !== undefined;

const route = (method: 'GET' | 'DELETE', path: string, handle: (call: Call) => Outbound): EndpointSpec => ({
  method,
  path,
  format: anthropicFormat,
  auth: KEY_OR_BEARER,
  accepts: fromAnthropicClient,
  handle,
});

function download(call: Call): Outbound {
  const f = found(call, String(call.params.id));
  if (!f.downloadable)
    throw new GatewayError(
      'invalid_request',
      `File ${f.id} is not downloadable: only files the service creates (skills, the code execution tool) can be downloaded, not uploaded ones.`,
    );
  return { status: 200, headers: { 'content-type': f.mimeType }, body: f.bytes };
}

export const anthropicFileEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/files', format: anthropicFormat, auth: KEY_OR_BEARER, accepts: fromAnthropicClient, handle: upload },
  route('GET', '/v1/files', (call) => {
    // Newest first, as the service lists them; `next_page` is the cursor the SDK's PageCursor follows.
    const now = call.runtime.now();
    const live = heldFor(call, FILES)
      .values()
      .filter((f) => f.expiresAt === undefined || f.expiresAt > now)
      .reverse();
    const page = listPage(call, live, (f) => f.id, 'file', metadata);
    return json({ ...page, next_page: page.has_more ? page.last_id : null });
  }),
  route('GET', '/v1/files/:id', (call) => json(metadata(found(call, String(call.params.id))))),
  route('GET', '/v1/files/:id/content', download),
  route('DELETE', '/v1/files/:id', (call) => {
    const f = found(call, String(call.params.id));
    heldFor(call, FILES).delete(f.id);
    return json({ id: f.id, type: 'file_deleted' });
  }),
];

/** The media types a block may cite a file of, by block type. */
const CITABLE: Record<string, (mime: string) => boolean> = {
  image: (mime) => mime.startsWith('image/'),
  document: (mime) => mime === 'application/pdf' || mime.startsWith('text/'),
};

/**
 * Checks the files a request's messages cite by id (`source: {type: "file", file_id}` in `document`
 * and `image` blocks): each must be one the request's test holds, of a type the block takes, as the
 * service answers (a 404 naming the file, a 400 for the wrong kind). Such a block is then read as the
 * same block inlined would be: a text document's text is what the returned function gives for its id
 * (decoded in slices: a file may be 64 MiB).
 */
export async function checkFileSources(ctx: Held, body: Record<string, unknown>): Promise<(id: string) => string | undefined> {
  const texts = new FileTexts();
  const read = new Map<string, string | undefined>();
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const [i, m] of messages.entries()) {
    const content = fieldsOf(m).content;
    if (!Array.isArray(content)) continue;
    for (const [j, b] of content.entries()) {
      const block = fieldsOf(b);
      const source = fieldsOf(block.source);
      if (source.type !== 'file' || typeof block.type !== 'string' || !CITABLE[block.type]) continue;
      const at = `messages.${i}.content.${j}.source.file_id`;
      if (typeof source.file_id !== 'string') throw new GatewayError('invalid_request', `${at}: Field required`);
      const f = found(ctx, source.file_id);
      if (!CITABLE[block.type](f.mimeType))
        throw new GatewayError(
          'invalid_request',
          `${at}: file ${f.id} is ${f.mimeType}, which a ${block.type} block does not take (${block.type === 'image' ? 'an image' : 'a PDF or plain text'}).`,
        );
      read.set(f.id, await texts.of(f.id, () => (isTextType(f.mimeType) ? f.bytes : undefined)));
    }
  }
  return (id) => read.get(id);
}
