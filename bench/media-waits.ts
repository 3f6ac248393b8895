// How long a parallel client waits while the biggest legal media requests run, and the server's peak
// memory (issue 28). Run by hand: `npm run build && node bench/media-waits.ts [bin]` (default: this
// checkout's bin/). Prints one line per case: the worst and median wait of a /__admin/health probe sent
// back to back while the request runs (PNG, JPEG and WebP edits, speech), and the server's peak RSS (VmHWM) after it.
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { start } from './spawn.ts';
import { pngWith } from '../test/helpers/png.ts';
import jpegJs from 'jpeg-js';
import { encodeImage } from '../src/core/synthesize/image.ts';

const bin = process.argv[2] ?? fileURLToPath(new URL('../bin/model-gateway-mock.js', import.meta.url));
const peakMiB = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const auth = { authorization: 'Bearer sk-test' };
function edit(url: string, files: Buffer[], type = 'image/png'): Promise<Response> {
  const form = new FormData();
  form.set('model', 'gpt-image-1');
  form.set('prompt', 'a mosaic');
  form.set('size', '1024x1024');
  form.set('quality', 'low');
  for (const [i, f] of files.entries())
    form.append(files.length > 1 ? 'image[]' : 'image', new Blob([new Uint8Array(f)], { type }), `p${i}.${type.slice(6)}`);
  return fetch(`${url}/v1/images/edits`, { method: 'POST', headers: auth, body: form });
}
const speech = (
  url: string,
  input = 'the quick brown fox jumps over a lazy dog while seven wizards quietly hum. '.repeat(60).slice(0, 4096),
) =>
  fetch(`${url}/v1/audio/speech`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini-tts', voice: 'alloy', speed: 0.25, response_format: 'flac', input }),
  });

async function measure(name: string, send: (url: string) => Promise<Response>, warm: (url: string) => Promise<Response>): Promise<void> {
  const server = await start([bin, '--port', '0']);
  try {
    // A small request of the same kind first, so the figures are not those of loading the codecs.
    await (await warm(server.url)).arrayBuffer();
    const waits: number[] = [];
    let done = false;
    const big = send(server.url)
      .then(async (r) => (await r.arrayBuffer(), r.status))
      .finally(() => (done = true));
    while (!done) {
      const t = performance.now();
      await (await fetch(`${server.url}/__admin/health`)).arrayBuffer();
      waits.push(performance.now() - t);
    }
    const status = await big;
    // The first probe also waits for the server to load what the request needs (codecs): shown apart.
    const first = waits[0] ?? 0;
    const later = Math.max(0, ...waits.slice(1));
    waits.sort((a, b) => a - b);
    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(
      `${name}: status ${status}, ${waits.length} probes, worst wait ${ms(waits.at(-1) ?? 0)} (first probe ${ms(first)}, worst of the rest ${ms(later)}), median ${ms(waits[waits.length >> 1] ?? 0)}, peak RSS ${Math.round(peakMiB(server.child.pid!))} MiB`,
    );
  } catch (error) {
    await new Promise((r) => setTimeout(r, 200));
    console.log(
      `${name}: failed (${(error as Error).message}); server exit code ${server.child.exitCode}, signal ${server.child.signalCode}`,
    );
  } finally {
    server.child.kill();
  }
}

const big = pngWith(4096, 4096, deflateSync(Buffer.alloc(4096 * (1 + 4096 * 4)), { level: 9 }));
const bomb = pngWith(64, 64, deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 }));
const small = pngWith(8, 8, deflateSync(Buffer.alloc(8 * (1 + 8 * 4))));
const warmEdit = (url: string) => edit(url, [small]);
await measure('PNG bomb (64x64 declared, 64 MiB inflated)', (url) => edit(url, [bomb]), warmEdit);
await measure(
  'sixteen 4096x4096 PNGs',
  (url) =>
    edit(
      url,
      Array.from({ length: 16 }, () => big),
    ),
  warmEdit,
);
// A 4096x4096 gradient (not flat: the codecs' work is that of a real photo's size).
const gradient = new Uint8ClampedArray(4096 * 4096 * 4);
for (let i = 0; i < gradient.length; i += 4) gradient.set([(i >> 4) & 255, 90, (i >> 12) & 255, 255], i);
const jpeg = Buffer.from(jpegJs.encode({ width: 4096, height: 4096, data: gradient }, 50).data);
const webp = Buffer.from(await encodeImage({ width: 4096, height: 4096, data: gradient }, 'webp', 80));
const smallJpeg = Buffer.from(jpegJs.encode({ width: 8, height: 8, data: new Uint8Array(256) }, 50).data);
const smallWebp = Buffer.from(await encodeImage({ width: 8, height: 8, data: new Uint8ClampedArray(256) }, 'webp', 80));
await measure(
  'two 4096x4096 JPEGs',
  (url) => edit(url, [jpeg, jpeg], 'image/jpeg'),
  (url) => edit(url, [smallJpeg], 'image/jpeg'),
);
await measure(
  'two 4096x4096 WebPs',
  (url) => edit(url, [webp, webp], 'image/webp'),
  (url) => edit(url, [smallWebp], 'image/webp'),
);
await measure(
  '4096-character flac speech at speed 0.25',
  (url) => speech(url),
  (url) => speech(url, 'Hello there.'),
);
