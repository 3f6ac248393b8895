// OpenAI Uploads (/v1/uploads): a file sent in parts. `create` names the file (`filename`, `purpose`,
// `bytes`, `mime_type`, `expires_after`) and answers a `pending` Upload that expires an hour later on
// the gateway's clock; parts (`data`, multipart) are added, then `complete` joins the ones `part_ids`
// lists, in that order, checks their size (and `md5`, when given) and makes them a File; `cancel` ends
// it. Parts are held until then (per test, core/stores.ts), never past the Upload's declared bytes.
import { GatewayError } from '../../core/errors.ts';
import { md5Steps } from '../../core/md5.ts';
import { makeHexId } from '../../core/seed.ts';
import { runInSlices } from '../../core/slices.ts';
import { defineStore } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { isUpload, json, type Outbound } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import { type FieldRules, refuseUnrecognized, type JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { checkFileName, expiryOf, fileObject, fileTooLarge, freshId, type HeldFile, keepFile, MAX_FILE_BYTES, PURPOSES } from './files.ts';
import { checkField, checkFields, invalid, missing, unknownField } from './validate.ts';

/** An Upload expires an hour after its creation, as OpenAI's do. */
const UPLOAD_SECONDS = 3600;
/** The largest part (OpenAI's limit). */
const MAX_PART_BYTES = 64 * 1024 * 1024;
/** What an Upload's object costs beyond its parts' bytes, by estimate. */
const UPLOAD_OVERHEAD = 1024;

interface Part {
  bytes: Uint8Array;
  createdAt: number;
}

interface HeldUpload {
  id: string;
  filename: string;
  purpose: string;
  /** The bytes the whole file will have, as `create` said. */
  bytes: number;
  createdAt: number;
  expiresAt: number;
  /** The File's expiry (from `expires_after`), once made. */
  fileExpiresAt?: number;
  status: 'pending' | 'completed' | 'cancelled';
  /** The parts added so far, by id (emptied once completed or cancelled). */
  parts: Map<string, Part>;
  /** Bytes of the parts held. */
  received: number;
  file?: HeldFile;
}

/** Uploads per gateway, every test's together, with their parts' bytes: at most 1000 and 256 MiB; a full store refuses. */
const UPLOADS = defineStore<HeldUpload>({
  name: 'openai.uploads',
  title: 'OpenAI uploads (and their parts)',
  maxCount: 1000,
  maxBytes: 256 * 1024 * 1024,
  whenFull: 'refuse',
  describe: (u) => ({
    filename: u.filename,
    purpose: u.purpose,
    status: u.status,
    parts: u.parts.size,
    received: u.received,
    bytes: u.bytes,
  }),
});

const CREATE_FIELDS = {
  filename: { types: ['string'], required: true },
  purpose: { types: ['string'], required: true, values: PURPOSES },
  bytes: { types: ['integer'], required: true, min: 0 },
  mime_type: { types: ['string'], required: true },
  expires_after: { types: ['object'] },
} as const satisfies FieldRules;

const COMPLETE_FIELDS = {
  part_ids: { types: ['array'], required: true },
  md5: { types: ['string'] },
} as const satisfies FieldRules;

/** The status as of now: a pending Upload past its hour has expired. */
const statusOf = (u: HeldUpload, now: number) => (u.status === 'pending' && now >= u.expiresAt ? 'expired' : u.status);

function uploadObject(call: Call, u: HeldUpload): JsonObject {
  return {
    id: u.id,
    object: 'upload',
    bytes: u.bytes,
    created_at: u.createdAt,
    filename: u.filename,
    purpose: u.purpose,
    status: statusOf(u, call.runtime.now()),
    expires_at: u.expiresAt,
    file: u.file ? fileObject(u.file) : null,
  };
}

function found(call: Call): HeldUpload {
  const id = String(call.params.id);
  const upload = heldFor(call, UPLOADS).get(id);
  if (!upload) throw new GatewayError('not_found', `No such Upload object: ${id}`, { param: 'upload_id' });
  return upload;
}

/** The Upload, if it still takes parts (or a completion); else the 400 that says why not. */
function pending(call: Call, action: string): HeldUpload {
  const upload = found(call);
  const status = statusOf(upload, call.runtime.now());
  if (status !== 'pending')
    throw invalid(
      'upload_id',
      `Cannot ${action}: the Upload ${upload.id} is ${status}. Only a pending Upload takes parts and completes.`,
      undefined,
    );
  return upload;
}

const MIB = 1024 * 1024;

function create(call: Call<JsonObject>): Outbound {
  const body = call.body;
  checkFields(body, CREATE_FIELDS);
  if (body.bytes > MAX_FILE_BYTES) throw fileTooLarge(body.bytes, 'bytes');
  checkFileName(body.filename, body.purpose);
  const now = call.runtime.now();
  const view = heldFor(call, UPLOADS);
  const upload: HeldUpload = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeHexId('upload_', 32, key),
    ),
    filename: body.filename,
    purpose: body.purpose,
    bytes: body.bytes,
    createdAt: now,
    expiresAt: now + UPLOAD_SECONDS,
    fileExpiresAt: expiryOf(now, body.purpose, body.expires_after ?? undefined),
    status: 'pending',
    parts: new Map(),
    received: 0,
  };
  if (!view.set(upload.id, upload, UPLOAD_OVERHEAD))
    throw new GatewayError(
      'invalid_request',
      'Your upload storage is full: model-gateway-mock holds at most 1000 Uploads and 256 MiB of their parts (every test together). Complete or cancel some, or reset.',
    );
  return json(uploadObject(call, upload));
}

function addPart(call: Call<JsonObject>): Outbound {
  if (!/^\s*multipart\/form-data/i.test(call.inbound.header('content-type') ?? ''))
    throw new GatewayError(
      'invalid_request',
      "A Part is sent as multipart/form-data, its bytes in a 'data' part (uploads.parts.create does so).",
    );
  const form = call.body;
  refuseUnrecognized(
    form,
    Object.keys(form).filter((name) => name !== 'data'),
    unknownField,
  );
  const data = Array.isArray(form.data) ? form.data[0] : form.data;
  if (data === undefined) throw missing('data');
  if (!isUpload(data))
    throw invalid('data', "Invalid 'data': expected the part's bytes as a file upload, but got a text field.", 'invalid_type');
  const upload = pending(call, 'add a Part');
  const size = data.bytes.byteLength;
  if (size > MAX_PART_BYTES) throw invalid('data', `A Part is at most ${MAX_PART_BYTES / MIB} MB; this one is ${size} bytes.`, undefined);
  // Nothing past the declared size is held: the completion would refuse it anyway.
  if (upload.received + size > upload.bytes)
    throw invalid(
      'data',
      `This Part would bring the Upload to ${upload.received + size} bytes, past the ${upload.bytes} bytes it was created with.`,
      undefined,
    );
  const view = heldFor(call, UPLOADS);
  if (!view.resize(upload.id, UPLOAD_OVERHEAD + upload.received + size))
    throw new GatewayError(
      'invalid_request',
      `Your upload storage is full: model-gateway-mock holds at most 256 MiB of parts (every test together). Complete or cancel other Uploads, or reset.`,
    );
  const id = freshId(
    call,
    (partId) => upload.parts.get(partId),
    (key) => makeHexId('part_', 32, key),
  );
  upload.parts.set(id, { bytes: data.bytes, createdAt: call.runtime.now() });
  upload.received += size;
  return json({ id, object: 'upload.part', created_at: call.runtime.now(), upload_id: upload.id });
}

async function complete(call: Call<JsonObject>): Promise<Outbound> {
  const body = call.body;
  checkFields(body, COMPLETE_FIELDS);
  const upload = pending(call, 'complete it');
  const ids = body.part_ids;
  const parts = ids.map((id, i) => {
    checkField(`part_ids[${i}]`, id, { types: ['string'], required: true });
    const part = upload.parts.get(id);
    if (!part) throw invalid(`part_ids[${i}]`, `No Part '${id}' in the Upload ${upload.id}.`, undefined);
    return part;
  });
  if (new Set(ids).size !== ids.length) throw invalid('part_ids', 'Each Part may be listed once.', undefined);
  const total = parts.reduce((n, p) => n + p.bytes.byteLength, 0);
  if (total !== upload.bytes)
    throw invalid(
      'part_ids',
      `The Parts listed hold ${total} bytes, but the Upload was created with bytes=${upload.bytes}. The sizes must match.`,
      undefined,
    );
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p.bytes, at);
    at += p.bytes.byteLength;
  }
  if (body.md5 !== undefined) {
    const md5 = await runInSlices(md5Steps(bytes));
    if (md5 !== body.md5.toLowerCase())
      throw invalid('md5', `The md5 checksum you sent (${body.md5}) does not match the bytes uploaded (${md5}).`, undefined);
  }
  // Another completion (or a cancel) may have come while this one hashed: the first wins.
  pending(call, 'complete it');
  upload.file = keepFile(call, { filename: upload.filename, purpose: upload.purpose, bytes, expiresAt: upload.fileExpiresAt });
  upload.status = 'completed';
  settle(call, upload);
  return json(uploadObject(call, upload));
}

/** The Upload's parts let go (completed or cancelled): it keeps its object only. */
function settle(call: Call, upload: HeldUpload): void {
  upload.parts.clear();
  upload.received = 0;
  heldFor(call, UPLOADS).resize(upload.id, UPLOAD_OVERHEAD);
}

export const uploadEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/uploads', format: openaiFormat, auth: ['bearer'], handle: create },
  { method: 'POST', path: '/v1/uploads/:id/parts', format: openaiFormat, auth: ['bearer'], handle: addPart },
  { method: 'POST', path: '/v1/uploads/:id/complete', format: openaiFormat, auth: ['bearer'], handle: complete },
  {
    method: 'POST',
    path: '/v1/uploads/:id/cancel',
    format: openaiFormat,
    auth: ['bearer'],
    bodiless: true,
    handle(call) {
      const upload = pending(call, 'cancel it');
      upload.status = 'cancelled';
      settle(call, upload);
      return json(uploadObject(call, upload));
    },
  },
];
