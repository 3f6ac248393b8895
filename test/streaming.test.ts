// Stream timing and client disconnects. No clock is read: in-process the emulated delays are shown in
// virtual time (vitest's fake timers: nothing before its instant, then the event); over a real socket,
// where the node adapter does the waiting, by order (held while another request is answered).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { inProcess, socketSuites, type Running } from './helpers/modes.ts';
import { advance, heldWhileAnother, inVirtualTime, until, watch } from './helpers/virtual-time.ts';
import type { JournalEntry } from '../src/index.ts';

const TTFT = 400;
const TPS = 25;
/** 10 tokens at 25/s: the last token comes 9 gaps (360 ms) after the first. */
const LAST_TOKEN = TTFT + (9 * 1000) / TPS;
/** A pace no test run outlasts: the first token at once, the next one 1000 s later. */
const CRAWL = { 'x-mock-latency': 'ttft=0,tps=0.001' };

function post(url: string, body: object, signal?: AbortSignal, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

async function journal(url: string): Promise<{ requests: JournalEntry[]; meta: { activeStreams: number } }> {
  return (await fetch(`${url}/__admin/requests`)).json();
}

describe('stream timing in virtual time (in-process)', () => {
  let gw: Running;
  /** A request sent later and answered in full: what was due by now has been delivered by then. */
  const another = async () =>
    void (await (
      await post(gw.root, { model: 'gpt-4o', messages: [{ role: 'user', content: 'meanwhile' }], max_tokens: 1 }, undefined, {
        'x-mock-latency': 'instant',
      })
    ).text());
  beforeAll(async () => {
    gw = await inProcess.start({ latency: `ttft=${TTFT},tps=${TPS}` });
    // The tokenizer loads on a timer at the first request: in real time, before any test fakes time.
    await another();
  });
  afterAll(() => gw.stop());

  it('sends the first event after the time to first token, and later events spread out', () =>
    inVirtualTime(async () => {
      let events = 0;
      let text = '';
      const decoder = new TextDecoder();
      // Not awaited before time moves: msw 3 resolves the fetch with the first body chunk, not before.
      const whole = watch(
        (async () => {
          const res = await post(gw.root, {
            model: 'gpt-4o',
            messages: [{ role: 'user', content: 'pace me' }],
            max_tokens: 10,
            stream: true,
          });
          expect(res.headers.get('content-type')).toContain('text/event-stream');
          for await (const chunk of res.body!) {
            const piece = decoder.decode(chunk, { stream: true });
            text += piece;
            events += piece.split('data: ').length - 1;
          }
          return text;
        })(),
      );
      // Answered in full: by then the stream's playback has started, at virtual time 0.
      await another();
      await advance(TTFT - 1);
      await another();
      expect(events).toBe(0);
      await advance(1);
      await until(() => (events > 0 ? events : undefined));
      // The last token is not out before its time, 9 gaps after the first.
      await advance(LAST_TOKEN - TTFT - 1);
      await another();
      expect(whole.settled).toBe(false);
      await advance(1);
      expect((await whole.promise).trim().endsWith('data: [DONE]')).toBe(true);
      expect(events).toBeGreaterThan(10);
    }));

  it('delays a non-streamed reply until it would be fully generated', () =>
    inVirtualTime(async () => {
      const reply = watch(
        post(gw.root, { model: 'gpt-4o', messages: [{ role: 'user', content: 'pace me' }], max_tokens: 10 }).then((r) => r.json()),
      );
      await another();
      await advance(LAST_TOKEN - 1);
      await another();
      expect(reply.settled).toBe(false);
      await advance(1);
      expect((await reply.promise).usage.completion_tokens).toBe(10);
    }));
});

describe.runIf(socketSuites)('stream timing over a real socket', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli(['--latency', `ttft=${TTFT},tps=${TPS}`]);
    // The first API request loads the tokenizer (start-up stays fast); these tests time the stream, not that.
    await (await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'warm up' }], max_tokens: 1 })).text();
  });
  afterAll(() => cli.stop());

  it('sends the headers before the first token is due', async () => {
    // A time to first token no test run reaches: the headers arrive while no event has been sent.
    const controller = new AbortController();
    const res = await post(
      cli.url,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'headers first' }], max_tokens: 10, stream: true },
      controller.signal,
      { 'x-mock-latency': 'ttft=3600000' },
    );
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const during = await journal(cli.url);
    expect(during.meta.activeStreams).toBe(1);
    expect(during.requests.at(-1)!.eventsSent ?? 0).toBe(0);
    controller.abort();
    await res.body?.cancel().catch(() => {});
  });

  it('holds each later event until its own time, while other requests are answered', async () => {
    const controller = new AbortController();
    const res = await post(
      cli.url,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'pace me' }], max_tokens: 10, stream: true },
      controller.signal,
      CRAWL,
    );
    const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
    await (await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'meanwhile' }], max_tokens: 1 })).text();
    const [paced, other] = (await journal(cli.url)).requests.slice(-2);
    expect(other.status).toBe(200);
    // The events due at once went out; the second token's are still to come.
    expect(paced).toMatchObject({ outcome: 'streaming', eventsSent: first.split('data: ').length - 1 });
    expect(first).not.toContain('[DONE]');
    controller.abort();
  });

  it('delays a non-streamed reply until it would be fully generated', async () => {
    // The first token at once: only the pace of the later ones holds the reply.
    const { entry, answered } = await heldWhileAnother(
      async () => (await journal(cli.url)).requests,
      (signal) =>
        post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'pace me' }], max_tokens: 10 }, signal, {
          ...CRAWL,
          'x-test': 'held',
        }).then((r) => r.json()),
      async () => (await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'meanwhile' }], max_tokens: 1 })).text(),
    );
    expect(entry.status).toBe(0);
    expect(answered).toBe(false);
  });

  it('stops producing when the client goes away mid-stream', async () => {
    const controller = new AbortController();
    const res = await post(
      cli.url,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'a long one, then I leave' }], stream: true },
      controller.signal,
    );
    const reader = res.body!.getReader();
    await reader.read();
    let during = await journal(cli.url);
    expect(during.meta.activeStreams).toBe(1);
    controller.abort();
    // Polls until the abort is seen; the test's own timeout is the hang detector.
    let entry: JournalEntry | undefined;
    do {
      await new Promise((r) => setTimeout(r, 50));
      during = await journal(cli.url);
      entry = during.requests.at(-1);
    } while (entry?.outcome !== 'aborted');
    expect(entry?.outcome).toBe('aborted');
    expect(during.meta.activeStreams).toBe(0);
    const sentAtAbort = entry!.eventsSent;
    // Nothing more is written after the abort.
    await new Promise((r) => setTimeout(r, 300));
    const later = (await journal(cli.url)).requests.at(-1)!;
    expect(later.eventsSent).toBe(sentAtAbort);
    expect(sentAtAbort).toBeLessThan(10);
  });
});
