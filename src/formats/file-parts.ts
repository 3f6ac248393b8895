// Files a request gives by id, read as the model reads them: each format's parser marks such a part
// (`{type: 'file', fileId}`), and before the request is answered its text is filled in from the
// format's own store, decoded in slices (a file may be tens of MB).
import type { Message } from '../core/request.ts';
import { decodeInSlices } from '../pipeline/pieces.ts';

/**
 * Fills the text of every file part given by id that `bytesOf` reads (undefined: a file that is not
 * read as text, a PDF); `bytesOf` throws the vendor's error for a file the request may not use.
 */
export async function readFileParts(messages: readonly Message[], bytesOf: (id: string) => Uint8Array | undefined): Promise<void> {
  for (const m of messages)
    for (const part of m.parts) {
      if (part.type !== 'file' || part.fileId === undefined || part.text !== undefined) continue;
      const bytes = bytesOf(part.fileId);
      if (bytes) part.text = await decodeInSlices(bytes, new TextDecoder());
    }
}
