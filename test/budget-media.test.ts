// Uploads decoded within their declared size, image work counted against ceilings with turns for
// other clients, and realtime's one-response-at-a-time rule (issue 28, part 3). Bounds are proved by
// counted work and by ordering, never by time.
// msw 2: not run again (its socket suites are not gated by socketSuites, and what it counts does not depend on msw's major).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { GoogleGenAI, Modality } from '@google/genai';
import WebSocket from 'ws';
import { deflateSync } from 'node:zlib';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { realtimeServer } from './helpers/realtime-server.ts';
import { startServer } from '../src/server.ts';
import { REALTIME_LIMITS } from '../src/formats/openai/realtime.ts';
import { setupServer } from 'msw/node';
import { createGateway, type Gateway } from '../src/index.ts';
import { SPEECH_SLICE_SAMPLES } from '../src/core/synthesize/audio.ts';
import { SPEECH_MAX_OUTPUT_TOKENS } from '../src/core/respond.ts';
import { decodeImage, encodeImage, jpegScans } from '../src/core/synthesize/image.ts';
import jpegJs from 'jpeg-js';
import { pngWith } from './helpers/png.ts';
import { inProcess } from './helpers/modes.ts';
import { DecodeAbandoned, imagePoolCounts, useImageThreads } from '../src/core/synthesize/image-pool.ts';
import { Gate, ImageQueueFull, ImageWork, ImageWorkExceeded, IMAGE_WORK_LIMITS } from '../src/core/synthesize/image-work.ts';

/** Rows of `width` RGBA pixels (filter byte 0 each), all zero: deflate packs them about 1000:1. */
const zeroRows = (width: number, rows: number) => deflateSync(Buffer.alloc(rows * (1 + width * 4)), { level: 9 });

const DECLARED_64 = 64 * (1 + 64 * 4);
/** A "zip bomb": the header says 64×64, the data inflates to 64 MiB. */
const bomb = () => pngWith(64, 64, deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 }));

describe('image decoding within the declared size (unit)', () => {
  it('stops inflating a PNG bomb right after what its header declares, and says so', async () => {
    const work = new ImageWork();
    const error = await decodeImage(bomb(), { work }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(String(error)).toMatch(`more than the ${DECLARED_64} bytes its header's dimensions allow`);
    // One fed chunk (4 KiB compressed) inflates to at most about 4 MiB: nowhere near the 64 MiB.
    expect(work.done.bytes).toBeGreaterThan(DECLARED_64);
    expect(work.done.bytes).toBeLessThan(4096 * 1100 + DECLARED_64);
  });

  it('counts pixels and bytes as it decodes, and stops at the ceiling', async () => {
    const file = pngWith(256, 256, zeroRows(256, 256));
    const counted = new ImageWork();
    const image = await decodeImage(file, { work: counted, into: { width: 16, height: 16 } });
    expect(image.width * image.height).toBe(256);
    expect(counted.done).toEqual({ pixels: 256 * 256, bytes: 256 * (1 + 256 * 4) });
    // A ceiling of three pictures' pixels: the fourth decode stops at it, the count never passes it.
    const work = new ImageWork({ pixels: 3 * 256 * 256 + 1000, bytes: Infinity });
    for (let i = 0; i < 3; i++) await decodeImage(file, { work, into: { width: 8, height: 8 } });
    const error = await decodeImage(file, { work, into: { width: 8, height: 8 } }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ImageWorkExceeded);
    expect(work.done.pixels).toBeLessThanOrEqual(work.limits.pixels);
    expect(work.done.pixels).toBeGreaterThan(3 * 256 * 256);
  });

  it('refuses a data stream shorter than its header declares', async () => {
    const error = await decodeImage(pngWith(64, 64, zeroRows(64, 10))).catch((e: Error) => e);
    expect(String(error)).toMatch(/ends after \d+ of the 16448 bytes/);
  });

  it('lets a few holders through a gate at once, queues the rest in order and refuses past the queue', async () => {
    const gate = new Gate(2, 2);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const hold = (i: number) => gate.run(() => new Promise<void>((resolve) => releases.push(() => (order.push(i), resolve()))));
    const held = [hold(1), hold(2), hold(3), hold(4)];
    await expect(hold(5)).rejects.toBeInstanceOf(ImageQueueFull);
    expect(gate.busy).toEqual({ running: 2, waiting: 2 });
    expect(releases).toHaveLength(2);
    releases[0]();
    releases[1]();
    await held[0];
    await held[1];
    await new Promise((r) => setTimeout(r, 0));
    expect(releases).toHaveLength(4);
    releases[2]();
    releases[3]();
    await Promise.all(held);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(gate.busy).toEqual({ running: 0, waiting: 0 });
  });
});

/**
 * Small requests from another client (its own connections), one after another, until `big` settles
 * (for a reply, when its headers arrive); how many were answered meanwhile.
 */
async function servedDuring(url: string, big: Promise<unknown>): Promise<number> {
  let finished = false;
  void big.finally(() => (finished = true)).catch(() => {});
  let served = 0;
  while (!finished) {
    // The health probe: not journaled, so the big request's entry stays among the journal's last 1000.
    const res = await fetch(`${url}/__admin/health`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    if (!finished) served++;
  }
  return served;
}

/** The CLI spawned before the suite (stopped after) and an openai client of it, read inside tests. */
function cliWithClient(): { readonly cli: Spawned; readonly client: OpenAI } {
  const state = {} as { cli: Spawned; client: OpenAI };
  beforeAll(async () => {
    state.cli = await spawnCli();
    state.client = new OpenAI({ apiKey: 'sk-test', baseURL: `${state.cli.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => state.cli?.stop());
  return state;
}

describe('image uploads over a real socket, through the openai SDK', () => {
  const live = cliWithClient();

  it('refuses a PNG bomb with the 400 that names the upload and the declared limit', async () => {
    const error = await live.client.images
      .edit({ model: 'gpt-image-1', image: await toFile(bomb(), 'bomb.png', { type: 'image/png' }), prompt: 'a hat' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('image');
    expect(error.message).toMatch(`more than the ${DECLARED_64} bytes its header's dimensions allow`);
    // The server is still there and answers.
    expect((await live.client.models.list()).data.length).toBeGreaterThan(0);
  });

  it('answers sixteen 4096×4096 PNGs while another client keeps being served between slices', async () => {
    const big = pngWith(4096, 4096, zeroRows(4096, 4096));
    const images = await Promise.all(Array.from({ length: 16 }, (_, i) => toFile(big, `big${i}.png`, { type: 'image/png' })));
    let finished = false;
    const edit = live.client.images
      .edit({ model: 'gpt-image-1', image: images, prompt: 'a mosaic', size: '1024x1024', quality: 'low' })
      .finally(() => (finished = true));
    // The other client's small requests, one after another, until the big one is answered.
    let servedDuring = 0;
    while (!finished) {
      const res = await fetch(`${live.cli.url}/v1/models`, { headers: { authorization: 'Bearer sk-test' } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      if (!finished) servedDuring++;
    }
    const reply = await edit;
    expect(reply.data?.[0].b64_json).toBeTruthy();
    // Sixteen pictures of 16.7 Mpx each take many slices; a server that decoded them in one go would
    // serve the other client only before and after (one or two requests while the upload is sent).
    expect(servedDuring).toBeGreaterThan(10);
  }, 120_000);

  it(`keeps a request within ${IMAGE_WORK_LIMITS.pixels} pixels: a seventeenth picture is refused before anything is decoded`, async () => {
    const tiny = await toFile(pngWith(8, 8, zeroRows(8, 8)), 'tiny.png', { type: 'image/png' });
    const error = await live.client.images
      .edit({ model: 'gpt-image-1', image: Array.from({ length: 17 }, () => tiny), prompt: 'x' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe('array_above_max_length');
  });
});

type Ev = Record<string, any>;

/** A raw `ws` client on the realtime endpoint that keeps every event it gets. */
async function realtimeClient(url: string) {
  const socket = new WebSocket(url, { headers: { Authorization: 'Bearer sk-test' } });
  const events: Ev[] = [];
  const listeners: (() => void)[] = [];
  socket.on('message', (d) => {
    events.push(JSON.parse(String(d)));
    for (const l of [...listeners]) l();
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => (socket.once('open', () => resolve()), socket.once('error', reject)));
  /** Resolves once `test(events)` holds. */
  const until = (test: (events: Ev[]) => boolean) =>
    new Promise<Ev[]>((resolve) => {
      const check = () => test(events) && (listeners.splice(listeners.indexOf(check), 1), resolve(events));
      listeners.push(check);
      check();
    });
  const send = (e: Ev) => socket.send(JSON.stringify(e));
  return { socket, events, until, send, closed };
}

const ofType = (events: Ev[], type: string) => events.filter((e) => e.type === type);
const audioCreate = (id: string) => ({
  type: 'response.create',
  event_id: id,
  response: { output_modalities: ['audio'], instructions: 'Tell a long story.' },
});

describe('realtime: one response at a time, other events held in order', () => {
  const live = realtimeServer();

  it("answers two response.create sent at once with one response and the service's error event", async () => {
    const c = await realtimeClient(live.wsUrl);
    c.send(audioCreate('first'));
    c.send(audioCreate('second'));
    const events = await c.until((e) => ofType(e, 'response.done').length === 1 && ofType(e, 'error').length === 1);
    const error = ofType(events, 'error')[0];
    expect(error).toMatchObject({
      type: 'error',
      event_id: expect.any(String),
      error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', event_id: 'second' },
    });
    expect(error.error.message).toMatch(/^Conversation already has an active response in progress: resp_/);
    expect(ofType(events, 'response.created')).toHaveLength(1);
    expect(ofType(events, 'response.done')[0].response.status).toBe('completed');
    c.socket.close();
  });

  it('refuses every response.create of a burst while one is being made, each with the error', async () => {
    const c = await realtimeClient(live.wsUrl);
    for (let i = 0; i < 500; i++) c.send(audioCreate(`burst-${i}`));
    const events = await c.until((e) => ofType(e, 'response.done').length + ofType(e, 'error').length >= 500);
    const refused = ofType(events, 'error').filter((e) => e.error.code === 'conversation_already_has_active_response');
    expect(ofType(events, 'response.done').length + refused.length).toBe(500);
    // The burst arrives while the first response's speech is made: most of it is refused, not queued.
    expect(refused.length).toBeGreaterThan(ofType(events, 'response.done').length);
    c.socket.close();
  });

  it('holds other events while a response is made and handles them in order after its events', async () => {
    const c = await realtimeClient(live.wsUrl);
    c.send(audioCreate('create'));
    c.send({ type: 'input_audio_buffer.clear', event_id: 'held' });
    const held = await c.until((e) => ofType(e, 'input_audio_buffer.cleared').length === 1);
    // Held events are handled after the response's events are stamped, in the order they came.
    expect(held.findIndex((e) => e.type === 'input_audio_buffer.cleared')).toBeGreaterThan(
      held.findIndex((e) => e.type === 'response.created'),
    );
    c.socket.close();
  });
});

describe('realtime: a burst of events is handled in order', () => {
  const live = realtimeServer();

  // Whether other clients get turns in the middle of a burst is not asserted here: over TCP the burst
  // arrives in several reads, which gave turns before the inbox existed too. What can fail is order.
  it('answers 2,000 response.create sent at once, every one, in the order sent', async () => {
    const burst = await realtimeClient(live.wsUrl);
    for (let i = 0; i < 2000; i++) burst.send({ type: 'response.create', event_id: `b${i}`, response: { output_modalities: ['text'] } });
    const events = await burst.until((e: Ev[]) => ofType(e, 'response.done').length + ofType(e, 'error').length >= 2000);
    // Every create answered, in the order sent: the refusals name their events in ascending order.
    const refused = ofType(events, 'error').map((e) => Number(e.error.event_id.slice(1)));
    expect(refused.length + ofType(events, 'response.created').length).toBe(2000);
    expect(refused).toEqual([...refused].sort((x, y) => x - y));
    burst.socket.close();
  }, 60_000);
});

/** A reply of 400 words: about two minutes of speech, a hundred-odd slices of synthesis. */
const LONG_STORY = Array.from({ length: 400 }, (_, i) => `word${i % 7 ? '' : '.'}`).join(' ');
/** The samples of LONG_STORY's speech (voice alloy): what a whole response makes. */
const LONG_STORY_SAMPLES = 3181280;
const storyAsk = {
  type: 'conversation.item.create',
  item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Tell the long story.' }] },
};
const storyCreate = { type: 'response.create', event_id: 'story', response: { output_modalities: ['audio'] } };

/** The realtime session's journal entry (the newest) and the gateway's running streams. */
const sessionOf = (gateway: Gateway) => gateway.requests({ path: '/v1/realtime' }).at(-1)!;

/**
 * Proves a closed socket stops its response's synthesis: the full response's samples are counted
 * first, then a socket that sends the same response.create and closes at once. Once the gateway has
 * no running stream (the synthesis loop has returned), the aborted session's count is short of it.
 */
async function closedMidResponse(gateway: Gateway, open: () => Promise<{ send(e: Ev): void; close(): void; done(): Promise<unknown> }>) {
  gateway.use({ match: { userMessage: { contains: 'long story' } }, reply: { text: LONG_STORY } });
  const whole = await open();
  whole.send(storyAsk);
  whole.send(storyCreate);
  await whole.done();
  whole.close();
  const full = sessionOf(gateway).speechSamples!;
  expect(full).toBe(LONG_STORY_SAMPLES);
  // The whole response is many slices, so stopping after one or two shows.
  expect(full).toBeGreaterThan(50 * SPEECH_SLICE_SAMPLES);

  const left = await open();
  left.send(storyAsk);
  left.send(storyCreate);
  left.close();
  await vi.waitFor(() => expect(sessionOf(gateway).outcome).toBe('aborted'), { timeout: 30_000, interval: 5 });
  await vi.waitFor(() => expect(gateway.activeStreams).toBe(0), { timeout: 30_000, interval: 5 });
  const made = sessionOf(gateway).speechSamples ?? 0;
  expect(made).toBeLessThan(full / 2);
  return { full, made };
}

describe('realtime: a socket closed mid-response stops its synthesis (counted samples)', () => {
  it('over a real socket', async () => {
    const server = await startServer({ port: 0, seed: 3 });
    try {
      const url = `${server.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`;
      await closedMidResponse(server.gateway, async () => {
        const c = await realtimeClient(url);
        return { send: c.send, close: () => c.socket.close(), done: () => c.until((e) => ofType(e, 'response.done').length === 1) };
      });
      // The journal over HTTP says the same.
      const listed = (await (await fetch(`${server.url}/__admin/requests`)).json()) as {
        requests: { path: string; speechSamples?: number }[];
      };
      expect(listed.requests.find((r) => r.path === '/v1/realtime')?.speechSamples).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('in-process, through msw and the global WebSocket', async () => {
    const gateway = createGateway({ seed: 3 });
    const mock = setupServer(...gateway.handlers);
    mock.listen();
    try {
      await closedMidResponse(gateway, async () => {
        const socket = new globalThis.WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', [
          'realtime',
          'openai-insecure-api-key.sk-test',
        ]);
        const events: Ev[] = [];
        let onEvent = () => {};
        socket.addEventListener('message', (e) => (events.push(JSON.parse(String(e.data))), onEvent()));
        await new Promise((r) => socket.addEventListener('open', r, { once: true }));
        const done = () => new Promise<void>((resolve) => (onEvent = () => ofType(events, 'response.done').length && resolve()));
        return { send: (e: Ev) => socket.send(JSON.stringify(e)), close: () => socket.close(), done };
      });
    } finally {
      mock.close();
    }
  }, 60_000);
});

describe(`realtime: at most ${REALTIME_LIMITS.waitingEvents} events held while a response is made`, () => {
  const live = realtimeServer();
  /** A session asked for the long story, then sent `count` other events in the same burst. */
  async function burst(count: number) {
    live.server.gateway.use({ match: { userMessage: { contains: 'long story' } }, reply: { text: LONG_STORY } });
    const c = await realtimeClient(live.wsUrl);
    c.send(storyAsk);
    c.send(storyCreate);
    // The burst is on the wire before the response's first slice of speech is made: all of it is held.
    for (let i = 0; i < count; i++) c.send({ type: 'input_audio_buffer.clear', event_id: `held-${i}` });
    return c;
  }

  it(`handles ${REALTIME_LIMITS.waitingEvents} held events, in order, after the response's events`, async () => {
    const c = await burst(REALTIME_LIMITS.waitingEvents);
    const events = await c.until((e) => ofType(e, 'input_audio_buffer.cleared').length === REALTIME_LIMITS.waitingEvents);
    expect(ofType(events, 'error')).toEqual([]);
    expect(events.findIndex((e) => e.type === 'input_audio_buffer.cleared')).toBeGreaterThan(
      events.findIndex((e) => e.type === 'response.created'),
    );
    c.socket.close();
  }, 60_000);

  it('closes the session (event_queue_full, 1008) at one event more, having made only part of the speech', async () => {
    const c = await burst(REALTIME_LIMITS.waitingEvents + 1);
    // Closed before anything of the response was sent (a session that kept every event would answer).
    expect(await Promise.race([c.closed, c.until((e) => ofType(e, 'response.created').length > 0).then(() => 'answered')])).toBe(1008);
    const error = ofType(c.events, 'error')[0];
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'event_queue_full' });
    expect(error.error.message).toContain(`more than ${REALTIME_LIMITS.waitingEvents} events`);
    // Nothing of the response was sent, and its synthesis stopped with the session.
    expect(ofType(c.events, 'response.created')).toEqual([]);
    await vi.waitFor(() => expect(live.server.gateway.activeStreams).toBe(0), { timeout: 30_000, interval: 5 });
    const session = sessionOf(live.server.gateway);
    expect(session.outcome).toBe('aborted');
    expect(session.speechSamples ?? 0).toBeLessThan(LONG_STORY_SAMPLES / 2);
  }, 60_000);
});

/** A JPEG (jpeg-js, baseline: one scan) of a width × height gradient. */
function jpegOf(width: number, height: number): Buffer {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([(i >> 4) & 255, 90, (i >> 12) & 255, 255], i);
  return Buffer.from(jpegJs.encode({ width, height, data }, 50).data);
}

/** The JPEG with its one scan (SOS segment and data) repeated `times`: the declared size stays, the decoding work multiplies. */
function repeatScan(jpeg: Buffer, times: number): Buffer {
  const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
  const eoi = jpeg.length - 2;
  return Buffer.concat([jpeg.subarray(0, sos), ...Array.from({ length: times }, () => jpeg.subarray(sos, eoi)), jpeg.subarray(eoi)]);
}

/** The JPEG with a second frame header (SOF0) declaring width × height before its scan. */
function secondFrame(jpeg: Buffer, width: number, height: number): Buffer {
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  const frame = Buffer.from(jpeg.subarray(sof, sof + 2 + jpeg.readUInt16BE(sof + 2)));
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
  return Buffer.concat([jpeg.subarray(0, sos), frame, jpeg.subarray(sos)]);
}

/** A WebP whose VP8X header declares a canvas of width × height around `file`'s own (other-sized) bitstream. */
function webpDeclaring(file: Uint8Array, width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'latin1');
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), vp8x, Buffer.from(file.subarray(12))]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe('JPEG and WebP uploads: decoded in one step each, their work counted before it is done', () => {
  it("counts a JPEG's scans", () => {
    const jpeg = jpegOf(64, 64);
    expect(jpegScans(jpeg)).toBe(1);
    expect(jpegScans(repeatScan(jpeg, 40))).toBe(40);
  });

  it("counts a JPEG's pixels once per scan, and refuses past the request's ceiling before decoding", async () => {
    const work = new ImageWork();
    await decodeImage(repeatScan(jpegOf(256, 256), 3), { work });
    expect(work.done.pixels).toBe(3 * 256 * 256);
    const bomb = new ImageWork({ pixels: 999 * 64 * 64, bytes: Infinity });
    const error = await decodeImage(repeatScan(jpegOf(64, 64), 1000), { work: bomb }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ImageWorkExceeded);
    expect(String(error)).toContain('this one has 1000 scans of 64x64');
    expect(bomb.done.pixels).toBe(0);
  });

  describe('over a real socket, through the openai SDK', () => {
    // The big uploads are encoded before the first request: encoding one takes seconds on a busy machine,
    // and a request sent after such a pause can meet a kept-alive socket the server has meanwhile closed
    // (after 5 s idle), which the SDK reports as a connection error.
    const uploads = {} as { scans: Buffer; lie: Buffer; big: Buffer };
    beforeAll(async () => {
      uploads.scans = repeatScan(jpegOf(1024, 1024), 300);
      const webp = await encodeImage({ width: 4096, height: 4096, data: new Uint8ClampedArray(4096 * 4096 * 4).fill(200) }, 'webp', 100);
      uploads.lie = webpDeclaring(webp, 64, 64);
      uploads.big = jpegOf(4096, 4096);
    }, 120_000);
    const live = cliWithClient();
    const edit = async (bytes: Buffer, name: string, type: string) =>
      live.client.images
        .edit({ model: 'gpt-image-1', image: await toFile(bytes, name, { type }), prompt: 'a hat', size: '1024x1024', quality: 'low' })
        .catch((e) => e);

    it(`refuses a JPEG of 1024x1024 whose scan repeats 300 times (300 decodes' work) with the 400 naming the ceiling`, async () => {
      const error = await edit(uploads.scans, 'scans.jpg', 'image/jpeg');
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe('image');
      expect(error.code).toBe('image_too_large');
      expect(error.message).toContain(`more than ${IMAGE_WORK_LIMITS.pixels} pixels`);
      expect(error.message).toContain('300 scans of 1024x1024');
    }, 60_000);

    it('refuses a JPEG declaring 64x64 whose second frame header says 4096x4096', async () => {
      const error = await edit(secondFrame(jpegOf(64, 64), 4096, 4096), 'frames.jpg', 'image/jpeg');
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe('image');
      expect(error.message).toContain('maxResolutionInMP');
    });

    it('refuses a WebP whose header declares 64x64 around a 4096x4096 bitstream', async () => {
      const error = await edit(uploads.lie, 'lie.webp', 'image/webp');
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe('image');
    }, 60_000);

    it('edits a legal 4096x4096 JPEG (its memory ceiling follows its declared size)', async () => {
      const reply = await edit(uploads.big, 'big.jpg', 'image/jpeg');
      expect(reply, String(reply)).not.toBeInstanceOf(Error);
      expect(reply.data?.[0].b64_json).toBeTruthy();
    }, 60_000);
  });
});

describe('large JPEG and WebP uploads are decoded on worker threads (at most two at once)', () => {
  it('never runs more than two decodes at once, and gives the pixels the main thread gives', async () => {
    const jpeg = jpegOf(1024, 1024);
    useImageThreads(false);
    const here = await decodeImage(jpeg, { into: { width: 300, height: 200 } });
    useImageThreads(true);
    const started = imagePoolCounts.started;
    imagePoolCounts.peak = 0;
    // Five at once, past any gate: the pool itself holds them to two threads.
    const decoded = await Promise.all(Array.from({ length: 5 }, () => decodeImage(jpeg, { into: { width: 300, height: 200 } })));
    expect(imagePoolCounts.peak).toBe(2);
    expect(imagePoolCounts.running).toBe(0);
    expect(imagePoolCounts.started - started).toBeLessThanOrEqual(2);
    for (const image of decoded) expect(Buffer.from(image.data).equals(Buffer.from(here.data))).toBe(true);
  }, 60_000);

  it('ends the thread of a decode whose client left, and starts none for one that left before its turn', async () => {
    const jpeg = jpegOf(2048, 2048);
    const controller = new AbortController();
    const ended = imagePoolCounts.ended;
    const decode = decodeImage(jpeg, { signal: controller.signal });
    await vi.waitFor(() => expect(imagePoolCounts.running).toBe(1), { timeout: 30_000, interval: 1 });
    controller.abort();
    await expect(decode).rejects.toBeInstanceOf(DecodeAbandoned);
    // The thread was terminated mid-decode, not left to finish.
    await vi.waitFor(() => expect(imagePoolCounts.ended).toBe(ended + 1), { timeout: 30_000, interval: 5 });
    const work = new ImageWork();
    await expect(decodeImage(jpeg, { signal: controller.signal, work })).rejects.toBeInstanceOf(DecodeAbandoned);
    expect(imagePoolCounts.running).toBe(0);
  }, 60_000);

  describe('over a real socket, through the openai SDK', () => {
    const live = cliWithClient();

    it('edits three 4096x4096 JPEGs while another client is answered in between, with the bytes of a main-thread run', async () => {
      const jpeg = jpegOf(4096, 4096);
      const edit = async (client: OpenAI) =>
        client.images
          .edit({
            model: 'gpt-image-1',
            image: await Promise.all([0, 1, 2].map((i) => toFile(jpeg, `big${i}.jpg`, { type: 'image/jpeg' }))),
            prompt: 'a mosaic',
            size: '1024x1024',
            quality: 'low',
          })
          .asResponse();
      // Counted until the big reply's headers arrive (asResponse): the uploads are all decoded by then.
      const big = edit(live.client);
      const served = await servedDuring(live.cli.url, big);
      const overSocket = await (await big).text();
      expect(JSON.parse(overSocket).data[0].b64_json).toBeTruthy();
      // Three one-step decodes of 16.7 Mpx on the main thread would serve the other client only
      // between them (a few requests); on a thread it is served all along.
      expect(served).toBeGreaterThan(10);

      // The same request in-process with threads off (the main-thread path): the same bytes.
      useImageThreads(false);
      const started = imagePoolCounts.started;
      const gw = await inProcess.start();
      try {
        const here = await (await edit(new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 }))).text();
        expect(imagePoolCounts.started).toBe(started);
        expect(here).toBe(overSocket);
      } finally {
        useImageThreads(true);
        await gw.stop();
      }
    }, 240_000);

    it('draws and encodes a 1024x1024 edit on a thread, to the bytes of a main-thread run and of a socket', async () => {
      const small = pngWith(256, 256, zeroRows(256, 256));
      const edit = async (client: OpenAI) =>
        (
          await client.images
            .edit({
              model: 'gpt-image-1',
              image: await Promise.all([0, 1].map((i) => toFile(small, `s${i}.png`, { type: 'image/png' }))),
              prompt: 'a red kite',
              size: '1024x1024',
              quality: 'low',
            })
            .asResponse()
        ).text();
      const overSocket = await edit(live.client);
      const run = async (threads: boolean) => {
        useImageThreads(threads);
        const gw = await inProcess.start();
        try {
          const before = { ...imagePoolCounts };
          const text = await edit(new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 }));
          return { text, drawn: imagePoolCounts.edit - before.edit, encoded: imagePoolCounts.encode - before.encode };
        } finally {
          useImageThreads(true);
          await gw.stop();
        }
      };
      const threaded = await run(true);
      // The picture was drawn and encoded on a thread, not here.
      expect(threaded).toMatchObject({ drawn: 1, encoded: 1 });
      const here = await run(false);
      expect(here).toMatchObject({ drawn: 0, encoded: 0 });
      expect(JSON.parse(overSocket).data[0].b64_json).toBeTruthy();
      expect(here.text).toBe(overSocket);
      expect(threaded.text).toBe(overSocket);
    }, 120_000);
  });
});

/** 4096 characters (OpenAI's cap on speech input) of ordinary words. */
const LONGEST_INPUT = 'the quick brown fox jumps over a lazy dog while seven wizards quietly hum. '.repeat(60).slice(0, 4096);

describe('speech: the longest legal request is made in slices, other clients served between them', () => {
  const live = cliWithClient();

  it.each(['flac', 'wav', 'pcm'] as const)(
    '%s: 4096 characters at speed 0.25 (21 minutes of audio)',
    async (format) => {
      // Counted until the reply's headers arrive: the audio is made and encoded by then, not yet sent.
      const speech = live.client.audio.speech.create({
        model: 'gpt-4o-mini-tts',
        voice: 'alloy',
        input: LONGEST_INPUT,
        speed: 0.25,
        response_format: format,
      });
      const served = await servedDuring(live.cli.url, speech);
      const bytes = (await (await speech).arrayBuffer()).byteLength;
      // 21 minutes of 24 kHz 16-bit audio.
      expect(bytes).toBeGreaterThan(60_000_000);
      // Synthesis (a second of audio a slice) and encoding (two seconds a slice) take over a thousand
      // turns; a server that did either in one go would serve the other client only before and after.
      expect(served).toBeGreaterThan(10);
      const listed = (await (await fetch(`${live.cli.url}/__admin/requests?path=/v1/audio/speech`)).json()) as {
        requests: { speechSamples?: number }[];
      };
      // Every sample counted where it was made: 21 minutes at 24 kHz.
      expect(listed.requests.at(-1)?.speechSamples).toBe(30426792);
    },
    120_000,
  );
});

describe('Gemini speech: a prompt longer than the output limit is spoken up to it', () => {
  const live = cliWithClient();
  it(`stops at ${SPEECH_MAX_OUTPUT_TOKENS} output tokens of audio with MAX_TOKENS when the request sets no limit`, async () => {
    const google = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: live.cli.url } });
    // Within the model's 8192-token context, yet over half an hour of speech were it all spoken.
    const r = await google.models.generateContent({
      model: 'gemini-2.5-flash-preview-tts',
      contents: 'Read this. '.repeat(2700),
      config: { responseModalities: [Modality.AUDIO] },
    });
    const candidate = r.candidates![0];
    expect(candidate.finishReason).toBe('MAX_TOKENS');
    const seconds = Buffer.from(candidate.content!.parts![0].inlineData!.data!, 'base64').length / 2 / 24000;
    expect(seconds).toBeLessThanOrEqual(SPEECH_MAX_OUTPUT_TOKENS / 25);
    expect(seconds).toBeGreaterThan(SPEECH_MAX_OUTPUT_TOKENS / 25 - 5);
  }, 60_000);
});
