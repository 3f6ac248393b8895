// The AWS event-stream framing (`application/vnd.amazon.eventstream`): frames in, bytes out. Each
// message is a prelude (total length, headers length, the prelude's CRC32), typed headers, the
// payload and the message's CRC32, written by the AWS SDK's own codec (@smithy/eventstream-codec,
// pinned), loaded with the first stream that needs it, so nothing else pays for it.
import { concat } from '../../core/bytes.ts';

/** One message: string headers (`:event-type`, `:content-type`, `:message-type`…) in order, and its payload. */
interface EventStreamFrame {
  headers: Readonly<Record<string, string>>;
  payload: string | Uint8Array;
}

interface Codec {
  encode(message: { headers: Record<string, { type: 'string'; value: string }>; body: Uint8Array }): Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let loading: Promise<Codec> | undefined;
let codec: Codec | undefined;

/** Loads the codec (once); writeFrames works from then on. */
export function eventStreamReady(): Promise<void> {
  loading ??= import('@smithy/eventstream-codec').then(({ EventStreamCodec }) => {
    codec = new EventStreamCodec(
      (bytes) => decoder.decode(bytes),
      (text) => encoder.encode(text),
    );
    return codec;
  });
  return loading.then(() => undefined);
}

/** Frames, encoded one after another as the bytes of an event stream. Call after eventStreamReady(). */
export function writeFrames(frames: readonly EventStreamFrame[]): Uint8Array {
  if (!codec) throw new Error('the event-stream codec is used before eventStreamReady() has loaded it');
  const encoded = frames.map(({ headers, payload }) =>
    codec!.encode({
      headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }])),
      body: typeof payload === 'string' ? encoder.encode(payload) : payload,
    }),
  );
  return encoded.length === 1 ? encoded[0] : concat(encoded);
}

/** An event of an AWS response stream: the JSON payload (text) of the union member `type`. */
export const eventFrame = (type: string, json: string): EventStreamFrame => ({
  headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
  payload: json,
});

/** A modeled exception in an AWS response stream: the union member `type` (`throttlingException`…) and its fields as JSON text. */
export const exceptionFrame = (type: string, json: string): EventStreamFrame => ({
  headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
  payload: json,
});
