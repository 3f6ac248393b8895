// Failures of the connection or the stream, as data. Each transport breaks its connection its own
// way and each format renders its own in-stream error; what happens, and when, is decided here.
// Reply faults (a refusal, a safety filter) change what the model says instead; each format renders
// them in its own shape.
import { GatewayError } from './errors.ts';
import type { PinnedReply } from './respond.ts';
import { Rng } from './seed.ts';
import { MAX_WAIT_MS } from './timing.ts';
import type { ConnectionFault, ErrorFault, FaultSpec, ReplyFault, StreamFault } from '../types/faults.ts';
export type { ConnectionFault, FaultSpec } from '../types/faults.ts';

const CONNECTION_FAULTS = [
  'CONNECTION_RESET_BY_PEER',
  'EMPTY_RESPONSE',
  'MALFORMED_RESPONSE_CHUNK',
  'RANDOM_DATA_THEN_CLOSE',
] as const satisfies readonly ConnectionFault[];
const STREAM_FAULTS = ['STREAM_CUT', 'STREAM_ERROR', 'STALL'] as const satisfies readonly StreamFault[];
const REPLY_FAULTS = ['REFUSAL', 'CONTENT_FILTER', 'PROMPT_BLOCKED'] as const satisfies readonly ReplyFault[];
const ERROR_FAULTS = ['OVERLOADED'] as const satisfies readonly ErrorFault[];
const ALL_FAULTS: readonly string[] = [...CONNECTION_FAULTS, ...STREAM_FAULTS, ...REPLY_FAULTS, ...ERROR_FAULTS];

// The lists and the public types (types/faults.ts) name the same faults: `satisfies` refuses a name
// the types lack, and this a name the lists lack.
type Listed = (typeof CONNECTION_FAULTS | typeof STREAM_FAULTS | typeof REPLY_FAULTS | typeof ERROR_FAULTS)[number];
const _unlisted: Record<Exclude<FaultSpec['type'], Listed>, never> = {};

export function isConnectionFault(fault: FaultSpec): fault is FaultSpec & { type: ConnectionFault } {
  return (CONNECTION_FAULTS as readonly string[]).includes(fault.type);
}

export function isReplyFault(fault: FaultSpec): fault is FaultSpec & { type: ReplyFault } {
  return (REPLY_FAULTS as readonly string[]).includes(fault.type);
}

/** What a refusal says when nothing pins its words. */
const DEFAULT_REFUSAL = "I'm sorry, but I can't help with that.";

/** A reply fault as the fixture reply fields that pin the same thing. */
export function pinnedBy(fault: FaultSpec & { type: ReplyFault }): Pick<PinnedReply, 'refusal' | 'blocked'> {
  if (fault.type === 'REFUSAL') return { refusal: fault.message ?? DEFAULT_REFUSAL };
  return { blocked: fault.type === 'PROMPT_BLOCKED' ? 'prompt' : 'output' };
}

/** OVERLOADED as an error; each format gives it its vendor's status and body. */
export function overloaded(fault: FaultSpec): GatewayError {
  return new GatewayError('overloaded', fault.message ?? 'The model is overloaded. Please try again later.');
}

/** Whether a fault with this probability strikes, for this request key. */
export function faultStrikes(fault: FaultSpec, key: number): boolean {
  const p = fault.probability ?? 1;
  return p >= 1 || new Rng(key).next() < p;
}

/**
 * Parses the `x-mock-fault` header: a fault name, then optional comma-separated `key=value`
 * settings, e.g. `STREAM_ERROR,after=3,status=529` or `STALL,after=2,ms=1500`.
 */
export function parseFault(text: string): FaultSpec {
  const [name, ...pairs] = text.split(',').map((s) => s.trim());
  const type = name.toUpperCase() as FaultSpec['type'];
  if (!ALL_FAULTS.includes(type)) throw new Error(`unknown fault "${name}": use one of ${ALL_FAULTS.join(', ')}`);
  const fault: FaultSpec = { type };
  for (const pair of pairs) {
    const [k, v = ''] = pair.split('=').map((s) => s.trim());
    // Plain decimals only: Number() would also read '' as 0, and '0x1f4' or '5e2' as 500.
    const whole = /^\d+$/.test(v);
    const n = Number(v);
    const ok =
      (k === 'after' && whole) ||
      (k === 'ms' && whole && n <= MAX_WAIT_MS) ||
      (k === 'status' && whole && n >= 400 && n <= 599) ||
      (k === 'probability' && /^(\d+\.?\d*|\.\d+)$/.test(v) && n <= 1);
    if (!ok) {
      throw new Error(`bad fault setting "${pair}": use after=<events>, ms=<0..${MAX_WAIT_MS}>, status=<400..599> or probability=<0..1>`);
    }
    (fault as unknown as Record<string, number>)[k] = n;
  }
  return fault;
}

/** Random bytes for RANDOM_DATA_THEN_CLOSE, the same for the same key. */
export function garbage(key: number, length = 64): Uint8Array {
  const rng = new Rng(key);
  return Uint8Array.from({ length }, () => rng.int(0, 255));
}
