// Stream timing and client disconnects, over a real socket. Only lower bounds on the emulated delays
// are timed (a busy machine can only lengthen them); that something happens at once is shown by order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import type { JournalEntry } from '../src/index.ts';

const TTFT = 400;
const TPS = 25;

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

describe('stream timing over a real socket', () => {
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
    const res = await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'headers first' }], max_tokens: 10, stream: true }, controller.signal, { 'x-mock-latency': 'ttft=3600000' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const during = await journal(cli.url);
    expect(during.meta.activeStreams).toBe(1);
    expect(during.requests.at(-1)!.eventsSent ?? 0).toBe(0);
    controller.abort();
    await res.body?.cancel().catch(() => {});
  });

  it('sends the first event after the time to first token, and later events spread out', async () => {
    const start = performance.now();
    const res = await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'pace me' }], max_tokens: 10, stream: true });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const arrivals: number[] = [];
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body!) {
      const piece = decoder.decode(chunk, { stream: true });
      text += piece;
      for (let i = 0; i < piece.split('data: ').length - 1; i++) arrivals.push(performance.now() - start);
    }
    expect(arrivals[0]).toBeGreaterThanOrEqual(TTFT * 0.9);
    // 10 tokens at 25/s: the last token comes about 9 gaps (360 ms) after the first.
    const spread = arrivals.at(-1)! - arrivals[0];
    expect(spread).toBeGreaterThanOrEqual((9 * 1000) / TPS * 0.8);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('delays a non-streamed reply until it would be fully generated', async () => {
    const start = performance.now();
    const res = await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'pace me' }], max_tokens: 10 });
    await res.json();
    expect(performance.now() - start).toBeGreaterThanOrEqual((TTFT + (9 * 1000) / TPS) * 0.9);
  });

  it('stops producing when the client goes away mid-stream', async () => {
    const controller = new AbortController();
    const res = await post(cli.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'a long one, then I leave' }], stream: true }, controller.signal);
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
