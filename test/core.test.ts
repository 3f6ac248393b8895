// Core units: hashing, seeded generators, tokens, latency grammar, stream plans, reply shaping.
import { describe, expect, it } from 'vitest';
import { hashValue, makeId, Mersenne, Rng, stableStringify } from '../src/core/seed.ts';
import { generateMersenne53Randomizer } from '@faker-js/faker';
import { countEach, countTokens, EXACT_CHARS, MAX_RUN, splitTokens, truncateTokens } from '../src/core/tokens.ts';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { synthesizeSpeech, toBase64, wavBytes, SPEECH_SAMPLE_RATE } from '../src/core/synthesize/audio.ts';
import { ConversationItems, ITEM_LIMITS, type Item } from '../src/formats/openai/realtime-items.ts';
import { SharedBytes } from '../src/core/stores.ts';
import { MAX_WAIT_MS, parseLatency, pieceTimes, toLatency, type LatencyProfile } from '../src/core/timing.ts';
import { planStream } from '../src/core/plan.ts';
import { respond } from '../src/core/respond.ts';
import type { CanonicalRequest } from '../src/core/request.ts';
import { canonicalRequest } from './helpers/canonical.ts';

const request = (over: Partial<CanonicalRequest> = {}): CanonicalRequest => canonicalRequest({ format: 'openai', model: 'm', ...over });

describe('seed', () => {
  it('hashes equal values alike whatever their key order, and different values apart', () => {
    expect(stableStringify({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    expect(hashValue({ a: 1, b: 2 }, 0)).toBe(hashValue({ b: 2, a: 1 }, 0));
    expect(hashValue({ a: 1 }, 0)).not.toBe(hashValue({ a: 1 }, 1));
    expect(hashValue({ a: 1 }, 0)).not.toBe(hashValue({ a: 2 }, 0));
  });

  it('draws the same sequence from the same key', () => {
    const draw = (k: number) =>
      Array.from(
        { length: 5 },
        (
          (r) => () =>
            r.next()
        )(new Rng(k)),
      );
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(makeId('chatcmpl-', 29, 1)).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
  });

  it("draws exactly faker's own Mersenne Twister sequence, past the first twist", () => {
    const ours = new Mersenne();
    const faker = generateMersenne53Randomizer();
    for (const seed of [0, 1, 42, 2147483646]) {
      ours.seed(seed);
      faker.seed(seed);
      const draws = 1500; // two words each: past four twists of the 624-word state
      expect(Array.from({ length: draws }, ours.next)).toEqual(Array.from({ length: draws }, () => faker.next()));
    }
  });

  it('synthesizes the same text, counts and cut as every earlier version (replies users have pinned)', () => {
    const plain = respond(request(), { seed: 0, created: 0 });
    expect(plain.choices[0].blocks).toEqual([
      {
        type: 'text',
        text: 'Sure. Use the open-source USB driver, then you can index the optical sensor! The cautious hippodrome neatens the equal arrogantly. The grown finding accentuates the thongs mysteriously.',
      },
    ]);
    expect(plain.usage).toMatchObject({ inputTokens: 8, outputTokens: 41 });
    const schema = {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, n: { type: 'integer' } },
      required: ['email', 'n'],
    };
    const cut = respond(request({ maxTokens: 7, output: { type: 'json_schema', schema } }), { seed: 1, created: 0 });
    // Since schema synthesis is our own counted walker (issue 28), JSON values differ from json-schema-faker's.
    expect(cut.choices[0]).toMatchObject({
      blocks: [{ type: 'text', text: '{"email":"Mervin_S' }],
      finishReason: 'length',
      outputTokens: 7,
    });
  });
});

describe('tokens', () => {
  it('counts with the o200k tokenizer, not by characters', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('splits into pieces that join back exactly, even across multi-byte characters', () => {
    for (const text of ['Hello, world!', 'naïve café 東京 🙂🙂 done', 'a\n\nb']) {
      const pieces = splitTokens(text);
      expect(pieces.join('')).toBe(text);
      expect(pieces.every((p) => p.length > 0)).toBe(true);
    }
    expect(countTokens(truncateTokens('one two three four five', 3))).toBe(3);
  });

  it('cuts the same text at each limit asked, whatever was asked before', () => {
    const text = 'one two three four five six seven';
    expect([3, 5, 3, 5, 2, 10].map((max) => truncateTokens(text, max))).toEqual([
      'one two three',
      'one two three four five',
      'one two three',
      'one two three four five',
      'one two',
      text,
    ]);
  });
});

describe('tokens: linear and bounded', () => {
  const exact = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;
  const base64 = btoa(Array.from({ length: 12_000 }, (_, i) => String.fromCharCode((i * 7919 + (i >> 7)) % 256)).join(''));

  it('counts text without long runs exactly, as the tokenizer does', () => {
    const prose = 'The quick brown fox jumps over the lazy dog, twice. '.repeat(200);
    expect(countTokens(prose)).toBe(exact(prose));
  });

  it('cuts runs longer than MAX_RUN before BPE, changing the count by at most a token a cut', () => {
    const text = `start ${base64} end`;
    const cuts = Math.ceil(base64.length / MAX_RUN);
    expect(Math.abs(countTokens(text) - exact(text))).toBeLessThanOrEqual(cuts);
    const cjk = '我们今天去公园散步天气很好'.repeat(100);
    expect(Math.abs(countTokens(cjk) - exact(cjk))).toBeLessThanOrEqual(Math.ceil(cjk.length / MAX_RUN));
  });

  it('estimates texts past EXACT_CHARS from samples, within 3 % of the exact count, the same every time', () => {
    const words = Array.from({ length: 12_000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join(' ');
    expect(words.length).toBeGreaterThan(EXACT_CHARS);
    const n = countTokens(words);
    expect(Math.abs(n - exact(words)) / exact(words)).toBeLessThan(0.03);
    expect(countTokens(words)).toBe(n);
  });

  it('shares the budget among many texts: long ones sampled, short ones scaled, all close in sum', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `message ${i}: ${'lorem ipsum dolor '.repeat(i % 7)}`);
    const counts = countEach(texts);
    const truth = texts.reduce((n, t) => n + exact(t), 0);
    expect(Math.abs(counts.reduce((a, b) => a + b, 0) - truth) / truth).toBeLessThan(0.05);
    expect(counts.every((c, i) => c >= (texts[i] ? 1 : 0))).toBe(true);
  });

  it('splits a huge text into pieces that join back exactly, and truncates it', () => {
    const huge = `${'x'.repeat(300_000)} ${base64}${'🙂'.repeat(20_000)}`;
    expect(splitTokens(huge).join('')).toBe(huge);
    const head = truncateTokens(huge, 100);
    expect(huge.startsWith(head)).toBe(true);
    expect(splitTokens(head)).toHaveLength(100);
  });
});

describe('latency', () => {
  it('parses the shared grammar and rejects nonsense', () => {
    expect(parseLatency('ttft=250,tps=40,jitter=0.2')).toEqual({ ttftMs: 250, tokensPerSecond: 40, jitter: 0.2 });
    expect(parseLatency('ttft=100ms')).toEqual({ ttftMs: 100, tokensPerSecond: 0, jitter: 0 });
    expect(() => parseLatency('ttft=-1')).toThrow(/invalid latency/);
    expect(() => parseLatency('speed=9')).toThrow(/invalid latency/);
    expect(() => parseLatency('jitter=2')).toThrow(/jitter is from 0 to 1/);
    expect(parseLatency('realistic')).toEqual({ ttftMs: 450, tokensPerSecond: 60, jitter: 0.25 });
    expect(parseLatency('realistic,jitter=0')).toEqual({ ttftMs: 450, tokensPerSecond: 60, jitter: 0 });
    expect(parseLatency('instant')).toEqual({ ttftMs: 0, tokensPerSecond: 0, jitter: 0 });
  });

  it('checks a profile given as an object as it checks a spec', () => {
    expect(toLatency({ ttftMs: 5, jitter: undefined })).toEqual({ ttftMs: 5, tokensPerSecond: 0, jitter: 0 });
    expect(() => toLatency({ jitter: 2 })).toThrow('invalid latency: jitter 2: jitter is from 0 to 1 (a share of each gap)');
    expect(() => toLatency({ ttftMs: -1 })).toThrow('invalid latency: ttftMs -1: ttftMs is from 0 to 86400000 (ms)');
    expect(() => toLatency({ tokensPerSecond: Number.NaN })).toThrow('invalid latency: tokensPerSecond NaN: expected a number');
    expect(() => toLatency({ ttftMs: '5' } as never)).toThrow('invalid latency: ttftMs "5"');
    expect(() => toLatency({ ttftMs: [5] } as never)).toThrow('invalid latency: ttftMs [5]');
    expect(() => toLatency({ ttftMs: 5n } as never)).toThrow('invalid latency: ttftMs 5n');
    expect(() => toLatency({ ttft: 5 } as never)).toThrow(/unknown field "ttft"; expected .*ttftMs: 250/);
    expect(() => toLatency(5 as never)).toThrow(/invalid latency 5: expected a spec/);
  });

  it('bounds every field in one range table, the same for a spec and an object: no wait past a day, no timer past its range', () => {
    const cases: [string, Partial<LatencyProfile>, string][] = [
      ['tps=0.0000001', { tokensPerSecond: 0.0000001 }, 'is 0 (every token at once) or from 0.001 to 1000000 (tokens per second)'],
      ['tps=2000000', { tokensPerSecond: 2_000_000 }, 'is 0 (every token at once) or from 0.001 to 1000000 (tokens per second)'],
      ['ttft=86400001', { ttftMs: 86_400_001 }, 'is from 0 to 86400000 (ms)'],
      ['jitter=1.5', { jitter: 1.5 }, 'is from 0 to 1 (a share of each gap)'],
    ];
    for (const [spec, object, range] of cases) {
      const [name] = spec.split('=');
      expect(() => parseLatency(spec)).toThrow(`invalid latency "${spec}": ${name} ${range}`);
      const [field, value] = Object.entries(object)[0];
      expect(() => toLatency(object)).toThrow(`invalid latency: ${field} ${value}: ${field} ${range}`);
    }
    expect(parseLatency('ttft=86400000,tps=0.001,jitter=1')).toEqual({ ttftMs: MAX_WAIT_MS, tokensPerSecond: 0.001, jitter: 1 });
    expect(parseLatency('tps=0')).toEqual({ ttftMs: 0, tokensPerSecond: 0, jitter: 0 });
    // The longest gap a profile allows, doubled by jitter, is far inside what a timer waits.
    const [first, second] = pieceTimes({ ttftMs: MAX_WAIT_MS, tokensPerSecond: 0.001, jitter: 1 }, 2, 3);
    expect(Math.max(first, second - first)).toBeLessThan(2 ** 31 - 1);
  });

  it('schedules the first piece at ttft and the rest at the token rate, with replayable jitter', () => {
    expect(pieceTimes({ ttftMs: 100, tokensPerSecond: 10, jitter: 0 }, 3, 1)).toEqual([100, 200, 300]);
    const jittered = pieceTimes({ ttftMs: 100, tokensPerSecond: 10, jitter: 0.5 }, 20, 7);
    expect(jittered).toEqual(pieceTimes({ ttftMs: 100, tokensPerSecond: 10, jitter: 0.5 }, 20, 7));
    expect(jittered).not.toEqual(pieceTimes({ ttftMs: 100, tokensPerSecond: 10, jitter: 0.5 }, 20, 8));
    for (let i = 1; i < jittered.length; i++) expect(jittered[i]).toBeGreaterThanOrEqual(jittered[i - 1]);
  });
});

describe('respond and plan', () => {
  it('gives the same text whatever the limits, and cuts it by stop strings and max tokens', () => {
    const full = respond(request(), { seed: 0, created: 0 });
    const text = (full.choices[0].blocks[0] as { text: string }).text;
    const limited = respond(request({ maxTokens: 4, stream: true }), { seed: 0, created: 0 });
    expect((limited.choices[0].blocks[0] as { text: string }).text).toBe(truncateTokens(text, 4));
    expect(limited.choices[0].finishReason).toBe('length');
    const stop = text.split(' ')[2];
    const stopped = respond(request({ stop: [stop] }), { seed: 0, created: 0 });
    expect(stopped.choices[0]).toMatchObject({ finishReason: 'stop_sequence', stopSequence: stop });
    expect(full.usage.outputTokens).toBe(countTokens(text));
  });

  it('interleaves choices piece by piece and marks each first and last piece', () => {
    const reply = respond(request({ n: 2 }), { seed: 0, created: 0 });
    const steps = planStream(reply, { ttftMs: 0, tokensPerSecond: 0, jitter: 0 });
    expect(steps.slice(0, 4).map((s) => s.choice)).toEqual([0, 1, 0, 1]);
    for (const c of [0, 1]) {
      const own = steps.filter((s) => s.choice === c);
      expect(own.filter((s) => s.first)).toHaveLength(1);
      expect(own.at(-1)!.last).toBe(true);
    }
  });
});

describe('base64', () => {
  it('encodes every length and byte as Node does, padding included', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100, 1001, 65537]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

describe('speech', () => {
  it('writes a playable 16-bit mono 24 kHz WAV of the same samples', () => {
    const samples = synthesizeSpeech([{ text: 'Hello there, world.', voice: 'Kore' }], 1);
    const wav = wavBytes(samples);
    const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
    const ascii = (at: number) => String.fromCharCode(...wav.subarray(at, at + 4));
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint16(22, true)).toBe(1);
    expect(view.getUint32(24, true)).toBe(SPEECH_SAMPLE_RATE);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(samples.length * 2);
    expect(Math.abs(view.getInt16(44 + 2 * 5000, true) - samples[5000])).toBeLessThanOrEqual(1);
  });
});

describe('realtime conversation items across sessions (one byte pool)', () => {
  const item = (id: string, chars: number): Item => ({
    raw: {
      id,
      object: 'realtime.item',
      status: 'completed',
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'w'.repeat(chars) }],
    },
  });
  const size = (i: Item) => JSON.stringify(i.raw).length;

  it('lets sessions fill the pool, a full one drop its own oldest first, and refuses what nothing can make room for', () => {
    const pool = new SharedBytes(10_000);
    const a = new ConversationItems(pool);
    const b = new ConversationItems(pool);
    const one = size(item('a0', 3000));
    a.insert(item('a0', 3000), 0);
    a.insert(item('a1', 3000), 1);
    b.insert(item('b0', 3000), 0);
    expect(pool.held).toBe(3 * one);
    // b needs room: the pool gives none, so b drops its own oldest (a's stay).
    b.insert(item('b1', 3000), 1);
    expect(b.all.map((i) => i.raw.id)).toEqual(['b1']);
    expect(a.all.map((i) => i.raw.id)).toEqual(['a0', 'a1']);
    expect(pool.held).toBe(3 * one);
    // A new session holds nothing it could drop.
    const c = new ConversationItems(pool);
    expect(() => c.insert(item('c0', 3000), 0)).toThrow(/at most 0\.0095\d* MiB of conversation items across all realtime sessions/);
    expect(pool.held).toBe(3 * one);
    // Deleting and closing give the bytes back.
    a.remove(a.all[0]);
    expect(pool.held).toBe(2 * one);
    a.release();
    b.release();
    expect(pool.held).toBe(0);
    expect(c.insert(item('c0', 3000), 0)).toBe(0);
  });

  it(`drops a session's oldest past ${ITEM_LIMITS.count} items or ${ITEM_LIMITS.sessionBytes} bytes, and refuses one item over the bytes`, () => {
    const pool = new SharedBytes(1024 * 1024 * 1024);
    const items = new ConversationItems(pool);
    for (let i = 0; i <= ITEM_LIMITS.count; i++) items.insert(item(`i${i}`, 1), i);
    expect(items.all).toHaveLength(ITEM_LIMITS.count);
    expect(items.all[0].raw.id).toBe('i1');
    items.release();
    for (let i = 0; i < 5; i++) items.insert(item(`m${i}`, 2_000_000), i);
    expect(items.all.map((i) => i.raw.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(pool.held).toBeLessThanOrEqual(ITEM_LIMITS.sessionBytes);
    expect(() => items.insert(item('huge', ITEM_LIMITS.sessionBytes), 0)).toThrow(/keeps at most 8 MiB of conversation items per session/);
  });
});

describe('the clock', () => {
  it('may not be set past 9999-12-31T23:59:59Z', async () => {
    const { createGateway } = await import('../src/index.ts');
    expect(() => createGateway({ clock: 253_402_300_800 })).toThrow(
      'model-gateway-mock options, clock: the clock may not pass 9999-12-31T23:59:59Z (253402300799 Unix seconds), got 253402300800',
    );
    expect(createGateway({ clock: 253_402_300_799 }).advanceClock(0)).toBe(253_402_300_799);
    expect(() => createGateway({ clock: 253_402_300_799 }).advanceClock(1)).toThrow(/may advance at most 0 seconds/);
  });
});
