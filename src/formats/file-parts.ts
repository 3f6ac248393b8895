// Files a request gives by id, read as the model reads them: each format's parser marks such a part
// (`{type: 'file', fileId}`), and before the request is answered its text is filled in from the
// format's own store. Each file is read once per request however often it is named, and what one
// request reads is bounded in bytes (a short body may name a 64 MiB file a hundred times).
import { GatewayError } from '../core/errors.ts';
import type { Message } from '../core/request.ts';
import { decodeInSlices } from '../pipeline/pieces.ts';

/** Bytes of files one request may have read as text, every distinct file together (more than any model's context holds). */
const FILE_INPUT_BYTES = 16 * 1024 * 1024;

/** The files one request reads as text: each decoded once (in slices), their bytes counted against FILE_INPUT_BYTES. */
export class FileTexts {
  private readonly texts = new Map<string, string | undefined>();
  private bytes = 0;

  /** The text of file `id`, from `bytesOf` (undefined: not read as text); the vendor's 400 past the budget. */
  async of(id: string, bytesOf: (id: string) => Uint8Array | undefined): Promise<string | undefined> {
    if (this.texts.has(id)) return this.texts.get(id);
    const bytes = bytesOf(id);
    if (bytes && (this.bytes += bytes.byteLength) > FILE_INPUT_BYTES)
      throw new GatewayError(
        'invalid_request',
        `The files this request gives add up to more than ${FILE_INPUT_BYTES / 1024 / 1024} MiB of text, more than a model reads at once: give fewer or smaller files.`,
      );
    const text = bytes && (await decodeInSlices(bytes, new TextDecoder()));
    this.texts.set(id, text);
    return text;
  }
}

/** Whether a file's bytes read as text by their type: `text/*` (a PDF, an image, audio or an archive is not read). */
export const isTextType = (mimeType: string) => mimeType.startsWith('text/');

/**
 * Fills the text of every file part given by id that `bytesOf` reads (undefined: a file that is not
 * read as text); `bytesOf` throws the vendor's error for a file the request may not use.
 */
export async function readFileParts(messages: readonly Message[], bytesOf: (id: string) => Uint8Array | undefined): Promise<void> {
  const texts = new FileTexts();
  for (const m of messages)
    for (const part of m.parts) {
      if (part.type !== 'file' || part.fileId === undefined || part.text !== undefined) continue;
      const text = await texts.of(part.fileId, bytesOf);
      if (text !== undefined) part.text = text;
    }
}
