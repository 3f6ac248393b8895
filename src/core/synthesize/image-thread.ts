// The decoding thread's script (see image-pool.ts): one job at a time, the file's buffer moved in, the
// pixels' buffer moved out, decoded by the same code the main thread runs when there are no threads.
import { parentPort } from 'node:worker_threads';
import type { DecodeAnswer, DecodeJob } from './image-pool.ts';
import { decodeWhole } from './image.ts';

parentPort!.on('message', async (job: DecodeJob) => {
  let answer: DecodeAnswer;
  try {
    const image = await decodeWhole(job.format, job.bytes, job.into);
    const { data } = image;
    // Move the pixels' own buffer; a view of a larger one is cut out first.
    const buffer = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? (data.buffer as ArrayBuffer) : data.slice().buffer;
    answer = { width: image.width, height: image.height, data: buffer };
    parentPort!.postMessage(answer, [buffer]);
  } catch (error) {
    answer = { error: (error as Error).message };
    parentPort!.postMessage(answer);
  }
});
