// Bedrock's response streams as bytes: every frame of a long stream decoded by the AWS SDK's own codec
// with both CRC32s checked, and a reader that falls behind holding back what is not yet written
// (playback waits for the carrier to drain; over HTTP/2 the client's flow control bounds it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect as http2Connect } from 'node:http2';
import { crc32 } from 'node:zlib';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { Fixture } from '../src/index.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { eventStream, framingOf } from '../src/pipeline/framing.ts';
import { socketSuites } from './helpers/modes.ts';

const MODEL = encodeURIComponent('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);
const long = (words: number) => Array.from({ length: words }, (_, i) => `word${i % 977}`).join(' ');
const fixtures: Fixture[] = [
  { name: 'long', match: { userMessage: 'a long story' }, reply: { text: long(3000) } },
  { name: 'very long', match: { userMessage: 'a very long story' }, reply: { text: long(40000) } },
];
const converse = (text: string) =>
  JSON.stringify({ messages: [{ role: 'user', content: [{ text }] }], inferenceConfig: { maxTokens: 100000 } });

interface Frame {
  headers: Record<string, string>;
  body: string;
}

/**
 * Every frame of an event-stream body, each prelude and message CRC32 recomputed and compared (a
 * mismatch throws, naming the frame), then decoded by AWS's codec (which checks them again).
 */
function framesOf(bytes: Uint8Array): Frame[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frames: Frame[] = [];
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.byteLength; ) {
    const total = view.getUint32(at);
    if (at + total > bytes.byteLength) throw new Error(`the frame at ${at} runs past the end`);
    if (view.getUint32(at + 8) !== crc32(bytes.subarray(at, at + 8))) throw new Error(`the frame at ${at} has a wrong prelude CRC`);
    if (view.getUint32(at + total - 4) !== crc32(bytes.subarray(at, at + total - 4)))
      throw new Error(`the frame at ${at} has a wrong message CRC`);
    const message = codec.decode(bytes.subarray(at, at + total));
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) headers[name] = String(header.value);
    frames.push({ headers, body: decoder.decode(message.body) });
    at += total;
  }
  return frames;
}

describe.runIf(socketSuites)('every frame of a long stream, decoded by the AWS codec', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, fixtures });
  });
  afterAll(() => server.close());
  const bytesOf = async (path: string, body: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    return new Uint8Array(await res.arrayBuffer());
  };

  it('ConverseStream: thousands of frames, each CRC right, typed headers, one JSON event each', async () => {
    const frames = framesOf(await bytesOf(`/model/${MODEL}/converse-stream`, converse('a long story')));
    expect(frames.length).toBeGreaterThan(3000);
    const shapes = new Set(
      frames.map((f) => `${Object.keys(f.headers).join(' ')} ${f.headers[':content-type']} ${f.headers[':message-type']}`),
    );
    expect([...shapes]).toEqual([':event-type :content-type :message-type application/json event']);
    for (const frame of frames) JSON.parse(frame.body);
    const text = frames
      .filter((f) => f.headers[':event-type'] === 'contentBlockDelta')
      .map((f) => JSON.parse(f.body).delta.text)
      .join('');
    expect(text).toBe(long(3000));
    expect(frames.map((f) => f.headers[':event-type']).slice(-3)).toEqual(['contentBlockStop', 'messageStop', 'metadata']);
  });

  it("InvokeModelWithResponseStream: each frame a chunk whose bytes are one of Anthropic's Messages events", async () => {
    const body = JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100000,
      messages: [{ role: 'user', content: 'a long story' }],
    });
    const frames = framesOf(await bytesOf(`/model/${MODEL}/invoke-with-response-stream`, body));
    const events = frames.map((f) => {
      expect(f.headers[':event-type']).toBe('chunk');
      return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(JSON.parse(f.body).bytes), (c) => c.charCodeAt(0))));
    });
    expect(events[0].type).toBe('message_start');
    expect(events.at(-1)).toMatchObject({
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { outputTokenCount: expect.any(Number) },
    });
    expect(
      events
        .filter((e) => e.type === 'content_block_delta')
        .map((e) => e.delta.text)
        .join(''),
    ).toBe(long(3000));
  });

  it('a frame with one byte changed fails its CRC (the check above is live)', async () => {
    const bytes = await bytesOf(`/model/${MODEL}/converse-stream`, converse('Hello'));
    bytes[20] ^= 1;
    expect(() => framesOf(bytes)).toThrow();
  });
});

describe('the event-stream framing (pipeline/framing.ts)', () => {
  it('writes each event as one message the AWS codec reads back, an exception as an exception message, and decodes its own bytes', async () => {
    await eventStream.ready();
    const events = [
      { due: 0, event: 'messageStart', data: '{"role":"assistant"}' },
      { due: 0, event: 'throttlingException', data: '{"message":"slow down"}' },
    ];
    const bytes = eventStream.encode(events, 0);
    expect(framesOf(bytes)).toEqual([
      {
        headers: { ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' },
        body: '{"role":"assistant"}',
      },
      {
        headers: { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
        body: '{"message":"slow down"}',
      },
    ]);
    expect(eventStream.decode!(bytes)).toEqual(events.map(({ event, data }) => ({ event, data })));
    // The journal keeps text, not the binary frames.
    expect(eventStream.journalText!(events, 0)).toBe(
      'event: messageStart\ndata: {"role":"assistant"}\n\nevent: throttlingException\ndata: {"message":"slow down"}\n\n',
    );
    expect(framingOf('application/vnd.amazon.eventstream')).toBe(eventStream);
  });
});

describe.runIf(socketSuites)('a slow reader of an event stream over HTTP/2', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, fixtures });
  });
  afterAll(() => server.close());

  it('holds the server to what the stream’s flow-control window takes, then gets every frame', async () => {
    const session = http2Connect(server.url);
    const stream = session.request({
      ':method': 'POST',
      ':path': `/model/${MODEL}/converse-stream`,
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
    });
    stream.end(converse('a very long story'));
    const received: Buffer[] = [await new Promise<Buffer>((resolve) => stream.once('data', resolve))];
    stream.pause();
    const sent = () => server.gateway.requests({ fixture: 'very long' }).at(-1)!.eventsSent;
    // The server writes until the window and its buffers are full, then waits: its count stops moving.
    let held = -1;
    for (let same = 0; same < 10; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = sent();
      same = now === held ? same + 1 : 0;
      held = now;
    }
    stream.on('data', (chunk: Buffer) => received.push(chunk));
    stream.resume();
    await new Promise((resolve) => stream.on('end', resolve));
    session.close();
    const bytes = Buffer.concat(received);
    const frames = framesOf(bytes);
    const perFrame = bytes.byteLength / frames.length;
    // 40 000 words are ~80 000 frames and ~12 MB; a paused reader held the server to well under 1 MiB of them.
    expect(frames.length).toBe(sent());
    expect(bytes.byteLength).toBeGreaterThan(8 * 1024 * 1024);
    expect(held * perFrame).toBeLessThan(1024 * 1024);
  });

  it('drops an HTTP/2 stream whose reader takes nothing for the reader timeout (the stream, not the session), journaled aborted', async () => {
    const strict = await startServer({ port: 0, fixtures, readerTimeoutMs: 200 });
    const session = http2Connect(strict.url);
    try {
      const request = (paused: boolean) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': `/model/${MODEL}/converse-stream`,
          authorization: 'Bearer sk-test',
          'content-type': 'application/json',
        });
        stream.end(converse(paused ? 'a very long story' : 'Hello'));
        return stream;
      };
      const stalled = request(true);
      // A reset stream errs (NGHTTP2_INTERNAL_ERROR) and closes, even while paused.
      let ended = false;
      stalled.on('error', () => {});
      stalled.on('end', () => void (ended = true));
      const closed = new Promise<number>((resolve) => stalled.once('close', () => resolve(stalled.rstCode ?? 0)));
      await new Promise((resolve) => stalled.once('data', resolve));
      stalled.pause();
      // The server's window stays full past the timeout: it resets the stream, with an error code and no clean end.
      expect(await closed).not.toBe(0);
      expect(ended).toBe(false);
      const entry = strict.gateway.requests({ fixture: 'very long' }).at(-1)!;
      expect(entry.outcome).toBe('aborted');
      expect(entry.eventsSent).toBeLessThan(80_000);
      // The session goes on: another stream on it is answered whole.
      const next = request(false);
      const chunks: Buffer[] = [];
      next.on('data', (chunk: Buffer) => chunks.push(chunk));
      await new Promise((resolve) => next.on('end', resolve));
      expect(framesOf(Buffer.concat(chunks)).at(-1)!.headers[':event-type']).toBe('metadata');
    } finally {
      session.close();
      await strict.close();
    }
  });
});
