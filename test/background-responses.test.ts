// Background responses through the openai SDK, in-process and over a socket: queued, in progress and
// completed on the gateway's clock (a client's polls, or advanceClock), `background: true` shown back,
// the stream read from a cursor (retrieve with stream and starting_after, and responses.stream with a
// response_id), cancelled while running, kept per test and dropped by reset. No test waits on wall
// time: a slow run's latency is on the gateway's clock, which the tests move.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { heldModes, withHeld, type Held } from './helpers/gateways.ts';
import { assertSchema } from './helpers/openapi.ts';

const MODEL = 'gpt-4o-mini';
/** A run of 30 seconds or so on the clock (a second before the first token, then 2 tokens a second). */
const SLOW = { 'x-mock-latency': 'ttft=1000,tps=2' };

const client = (gw: Held, test: string, headers: Record<string, string> = {}) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': test, ...headers } });

async function eventsOf(stream: AsyncIterable<{ type: string; sequence_number: number }>) {
  const events: { type: string; sequence_number: number }[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe.each(heldModes)('background responses ($name)', (mode) => {
  const ctx = withHeld(mode);

  it('is answered queued, then polled through in_progress to completed, each poll a second on the fixed clock', async () => {
    const openai = ctx.gw.openai('bg-poll');
    const foreground = await openai.responses.create({ model: MODEL, input: 'Write it in the background' });
    const created = await openai.responses.create({ model: MODEL, input: 'Write it in the background', background: true });
    assertSchema('Response', created);
    expect(created).toMatchObject({ status: 'queued', background: true, output: [] });
    const seen: string[] = [];
    let r = created;
    while (r.status === 'queued' || r.status === 'in_progress') {
      r = await openai.responses.retrieve(created.id);
      seen.push(r.status!);
      if (seen.length > 10) throw new Error('never completed');
    }
    expect(seen).toEqual(['queued', 'in_progress', 'completed']);
    expect(r).toMatchObject({ id: created.id, background: true, status: 'completed' });
    // The same answer a foreground request gets.
    expect(r.output_text).toBe(foreground.output_text);
    expect(r.usage).toEqual(foreground.usage);
    ctx.gw.gateway.reset();
  });

  it("follows the gateway's clock: advanceClock moves a slow run on", async () => {
    const openai = client(ctx.gw, 'bg-clock', SLOW);
    const created = await openai.responses.create({ model: MODEL, input: 'A slow one', background: true });
    expect(created.status).toBe('queued');
    ctx.gw.gateway.advanceClock(2);
    expect((await openai.responses.retrieve(created.id)).status).toBe('in_progress');
    ctx.gw.gateway.advanceClock(3600);
    const done = await openai.responses.retrieve(created.id);
    expect(done.status).toBe('completed');
    expect(done.output_text.length).toBeGreaterThan(0);
    ctx.gw.gateway.reset();
  });

  it('streams from any sequence number: retrieve with stream and starting_after, and responses.stream with a response_id', async () => {
    const openai = ctx.gw.openai('bg-stream');
    const created = await openai.responses.create({ model: MODEL, input: 'Stream me later', background: true });
    const all = await eventsOf(await openai.responses.retrieve(created.id, { stream: true }));
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(all.slice(0, 3).map((e) => e.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expect(all.at(-1)!.type).toBe('response.completed');
    // Read to its end, the response has completed.
    expect((await openai.responses.retrieve(created.id)).status).toBe('completed');

    const rest = await eventsOf(await openai.responses.retrieve(created.id, { stream: true, starting_after: 4 }));
    expect(rest).toEqual(all.slice(5));
    const stream = openai.responses.stream({ response_id: created.id, starting_after: 4 });
    const streamed: number[] = [];
    stream.on('event', (e) => streamed.push(e.sequence_number));
    const final = await stream.finalResponse();
    expect(streamed).toEqual(all.slice(5).map((e) => e.sequence_number));
    expect(final).toMatchObject({ id: created.id, status: 'completed', background: true });

    // Created streamed: the same events, from the first.
    const live = await eventsOf(await openai.responses.create({ model: MODEL, input: 'Stream me now', background: true, stream: true }));
    expect(live.slice(0, 3).map((e) => e.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expect(live.at(-1)).toMatchObject({ type: 'response.completed', response: { background: true, status: 'completed' } });

    const bad = await openai.responses.retrieve(created.id, { stream: true, starting_after: -1 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    const plain = await openai.responses.create({ model: MODEL, input: 'Not in the background' });
    const refused = await openai.responses.retrieve(plain.id, { stream: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/background=true/);
    ctx.gw.gateway.reset();
  });

  it('is cancelled while it runs, and its stream stops where the cancel came', async () => {
    const openai = client(ctx.gw, 'bg-cancel', SLOW);
    const created = await openai.responses.create({ model: MODEL, input: 'Cancel me half-way through', background: true });
    ctx.gw.gateway.advanceClock(3);
    expect((await openai.responses.retrieve(created.id)).status).toBe('in_progress');
    const cancelled = await openai.responses.cancel(created.id);
    expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled', background: true, output: [] });
    ctx.gw.gateway.advanceClock(3600);
    expect((await openai.responses.retrieve(created.id)).status).toBe('cancelled');
    expect((await openai.responses.cancel(created.id)).status).toBe('cancelled');
    const events = await eventsOf(await openai.responses.retrieve(created.id, { stream: true }));
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    expect(events.map((e) => e.type)).not.toContain('response.completed');

    // Finished, it is returned as it stands; created in the foreground, it cannot be cancelled.
    const quick = await ctx.gw.openai('bg-cancel').responses.create({ model: MODEL, input: 'Quick', background: true });
    ctx.gw.gateway.advanceClock(10);
    expect((await ctx.gw.openai('bg-cancel').responses.cancel(quick.id)).status).toBe('completed');
    const plain = await ctx.gw.openai('bg-cancel').responses.create({ model: MODEL, input: 'Foreground' });
    const refused = await openai.responses.cancel(plain.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    ctx.gw.gateway.reset();
  });

  it("is its test's own, dropped by the test's reset; background_options checked", async () => {
    const mine = ctx.gw.openai('bg-mine');
    const created = await mine.responses.create({
      model: MODEL,
      input: 'Mine alone',
      background: true,
      background_options: { completion_window: '2h', continuation_id: 'c-1' },
    });
    const other = await ctx.gw
      .openai('bg-other')
      .responses.retrieve(created.id)
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(OpenAI.NotFoundError);
    ctx.gw.gateway.forTest('bg-mine').reset();
    expect(await mine.responses.retrieve(created.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);

    const window = await mine.responses
      .create({ model: MODEL, input: 'x', background: true, background_options: { completion_window: '1h' as '2h' } })
      .catch((e: unknown) => e);
    expect(window).toBeInstanceOf(OpenAI.BadRequestError);
    expect((window as InstanceType<typeof OpenAI.APIError>).param).toBe('background_options.completion_window');
    const unstored = await mine.responses.create({ model: MODEL, input: 'x', background: true, store: false }).catch((e: unknown) => e);
    expect(unstored).toBeInstanceOf(OpenAI.BadRequestError);
    expect((unstored as InstanceType<typeof OpenAI.APIError>).param).toBe('store');
    ctx.gw.gateway.reset();
  });
});
