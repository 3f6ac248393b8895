// The image thread's script (see image-pool.ts): one job at a time, its input buffers moved in, the
// pixels' or file's buffer moved out, done by the same code the main thread runs when there are no threads.
import { parentPort } from 'node:worker_threads';
import type { ThreadAnswer, ThreadJob } from './image-pool.ts';
import { decodeWhole, editPicture, encodeWhole } from './image.ts';

/** A view's own buffer, to move; a view of a larger one is cut out first. */
const own = (data: Uint8Array | Uint8ClampedArray): ArrayBuffer =>
  data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? (data.buffer as ArrayBuffer) : (data.slice().buffer as ArrayBuffer);

const pixels = (data: Uint8ClampedArray | Uint8Array) => new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);

async function answer(job: ThreadJob): Promise<ThreadAnswer> {
  if (job.kind === 'encode')
    return { bytes: own(await encodeWhole({ ...job.image, data: pixels(job.image.data) }, job.format, job.quality)) };
  const image =
    job.kind === 'edit'
      ? editPicture(job.sources, job.prompt, job.width, job.height, job.key, job.mask, job.options)
      : await decodeWhole(job.format, job.bytes, job.into);
  return { width: image.width, height: image.height, data: own(image.data) };
}

parentPort!.on('message', async (job: ThreadJob) => {
  try {
    const result = await answer(job);
    parentPort!.postMessage(result, 'error' in result ? [] : ['bytes' in result ? result.bytes : result.data]);
  } catch (error) {
    parentPort!.postMessage({ error: (error as Error).message } satisfies ThreadAnswer);
  }
});
