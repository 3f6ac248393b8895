// One worker's test file, shared by worker-a.case.ts and worker-b.case.ts: the same request, answered by
// a fixture that conflicts with the other worker's, while the other worker's is in force on the server.
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import { setupGateway } from '../../../src/vitest.ts';

const url = process.env.SHARED_GATEWAY_URL!;

/** The server's whole journal (every test's requests), read past the helper. */
async function sharedJournal(): Promise<{ headers: Record<string, string>; body: unknown }[]> {
  return ((await (await fetch(`${url}/__admin/requests`)).json()) as { requests: { headers: Record<string, string>; body: unknown }[] })
    .requests;
}

/** This run's mark in what a worker asks (the server's journal outlives a run: a later run must not see an earlier one's requests). */
const run = process.env.CASE_RUN ?? '';

async function sharedFixtures(): Promise<{ test?: string; fixture: { name?: string } }[]> {
  return ((await (await fetch(`${url}/__admin/fixtures`)).json()) as { fixtures: { test?: string; fixture: { name?: string } }[] })
    .fixtures;
}

export function worker(me: string, other: string): void {
  const gateway = setupGateway({
    url,
    use: [{ name: `fixture of ${me}`, match: { userMessage: { contains: 'who' } }, reply: { text: `I am worker ${me}.` } }],
  });

  it(`worker ${me} gets its own reply and its own journal`, async () => {
    // Both fixtures are in force at once: the other worker's test has begun and not yet been reset.
    await expect
      .poll(async () => (await sharedFixtures()).some((f) => f.fixture.name === `fixture of ${other}`), { timeout: 60_000, interval: 20 })
      .toBe(true);
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `who are you? ${run}` }],
    });
    expect(reply.choices[0].message.content).toBe(`I am worker ${me}.`);
    // A stream passes through the helper's interception as a stream. (Not under msw 2: there the SDK's
    // read of a streamed reply from a real server stalls while msw listens, with or without this helper.)
    const streams = process.env.CASE_MSW !== '2';
    if (streams) {
      let streamed = '';
      for await (const chunk of await client.chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'who is streaming?' }],
      }))
        streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe(`I am worker ${me}.`);
    }
    const journal = await gateway.requests();
    expect(journal.map((e) => [e.path, e.stream, e.fixture, e.headers['x-mock-test-id']])).toEqual([
      ['/v1/chat/completions', false, `fixture of ${me}`, gateway.testId],
      ...(streams ? [['/v1/chat/completions', true, `fixture of ${me}`, gateway.testId]] : []),
    ]);
    expect(gateway.testId).toContain(`worker-${me}.case.ts > worker ${me} gets its own reply`);
    // Not reset (so its fixture stays) until the other worker has asked too, in this run: it asks only
    // once it has seen this fixture, so neither resets before the other has seen its fixture.
    await expect
      .poll(
        async () =>
          (await sharedJournal()).some(
            (e) => e.headers['x-mock-test-id']?.includes(`worker-${other}.case.ts`) && JSON.stringify(e.body).includes(run),
          ),
        { timeout: 60_000, interval: 20 },
      )
      .toBe(true);
  });
}
