// Gemini's Batch API through @google/genai, in-process and over a socket: a batch of inline requests
// and one from an uploaded JSONL file, each completed on the gateway's clock, its answers those of the
// synchronous generate-content calls; list, cancel, delete; tests kept apart.
import { describe, expect, it } from 'vitest';
import { type ApiError, GoogleGenAI, JobState } from '@google/genai';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ApiError,
  );

const MODEL = 'gemini-2.5-flash';
const ask = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }] });

describe.each(heldModes)('Gemini batches ($name)', (mode) => {
  const ctx = withHeld(mode, { fixtures: [{ match: { userMessage: 'Name a colour.' }, reply: { text: 'Teal.' } }] });
  const client = (test: string) =>
    new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, headers: { 'x-mock-test-id': test } } });

  it('runs inline requests: pending, running, succeeded on the clock, each answer the synchronous one', async () => {
    const ai = client('gemini-batches');
    const job = await ai.batches.create({
      model: MODEL,
      src: [ask('Name a colour.'), ask('Say something else.')],
      config: { displayName: 'two' },
    });
    expect(job.name).toMatch(/^batches\/[a-z0-9]{16}$/);
    expect(job).toMatchObject({ displayName: 'two', state: JobState.JOB_STATE_PENDING, model: `models/${MODEL}` });
    const states = [];
    let got = job;
    while (got.state !== JobState.JOB_STATE_SUCCEEDED && states.length < 10) {
      got = await ai.batches.get({ name: job.name! });
      states.push(got.state);
    }
    expect(states).toEqual([JobState.JOB_STATE_PENDING, JobState.JOB_STATE_RUNNING, JobState.JOB_STATE_SUCCEEDED]);
    expect(states.at(-1)).toBe(JobState.JOB_STATE_SUCCEEDED);
    const answers = got.dest!.inlinedResponses!;
    expect(answers).toHaveLength(2);
    // The SDK hands inline answers over as plain objects (no `text` getter).
    const text = (i: number) => answers[i].response?.candidates?.[0].content?.parts?.[0].text;
    expect(text(0)).toBe('Teal.');
    const sync = await ai.models.generateContent({ model: MODEL, ...ask('Say something else.') });
    expect(text(1)).toBe(sync.text);
    expect(answers[1].response?.usageMetadata).toEqual(sync.usageMetadata);
    // The batch's journal entry lists its lines' outcomes, as the requests page shows them.
    const entry = ctx.gw.gateway
      .forTest('gemini-batches')
      .requests()
      .find((e) => e.path.endsWith(':batchGenerateContent'));
    expect(entry?.batch).toEqual({
      requests: [
        { custom_id: 'request-1', status: 'succeeded', model: MODEL, fixture: expect.any(String) },
        { custom_id: 'request-2', status: 'succeeded', model: MODEL },
      ],
      more: 0,
    });

    const names = [];
    for await (const b of await ai.batches.list({ config: { pageSize: 1 } })) names.push(b.name);
    expect(names).toEqual([job.name]);
    await ai.batches.delete({ name: job.name! });
    expect((await failure(ai.batches.get({ name: job.name! }))).status).toBe(404);
  });

  it('runs the requests of an uploaded JSONL file, its results a file to download, keyed as the lines were', async () => {
    const ai = client('gemini-batches-file');
    const lines = [
      { key: 'a', request: ask('Name a colour.') },
      { key: 'b', request: ask('Another question.') },
    ];
    const input = await ai.files.upload({
      file: new Blob([lines.map((l) => JSON.stringify(l)).join('\n')], { type: 'application/jsonl' }),
    });
    const job = await ai.batches.create({ model: MODEL, src: input.name! });
    ctx.gw.gateway.advanceClock(10);
    const done = await ai.batches.get({ name: job.name! });
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const file = done.dest!.fileName!;
    expect(file).toMatch(/^files\//);
    const res = await fetch(`${ctx.gw.root}/v1beta/${file}:download?alt=media`, {
      headers: { 'x-goog-api-key': 'sk-test', 'x-mock-test-id': 'gemini-batches-file' },
    });
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.key)).toEqual(['a', 'b']);
    const sync = await ai.models.generateContent({ model: MODEL, ...ask('Another question.') });
    expect(rows[0].response.candidates[0].content.parts[0].text).toBe('Teal.');
    expect(rows[1].response.candidates[0].content.parts[0].text).toBe(sync.text);
  });

  it("cancels a batch before it ends; keeps two tests' batches apart", async () => {
    const a = client('gemini-batches-a');
    const b = client('gemini-batches-b');
    const job = await a.batches.create({ model: MODEL, src: [ask('Name a colour.')] });
    await a.batches.cancel({ name: job.name! });
    ctx.gw.gateway.advanceClock(10);
    expect((await a.batches.get({ name: job.name! })).state).toBe(JobState.JOB_STATE_CANCELLED);
    expect((await failure(b.batches.get({ name: job.name! }))).status).toBe(404);
    expect([...(await b.batches.list()).page]).toEqual([]);
  });

  it('takes a Google client on /v1/batches by its ?key= as by its header (OpenAI keeps its own clients there)', async () => {
    const test = { 'x-mock-test-id': 'gemini-batches-v1' };
    const a = client('gemini-batches-v1');
    const job = await a.batches.create({ model: MODEL, src: [ask('Name a shape.')] });
    const byKey = await fetch(`${ctx.gw.root}/v1/${job.name}?key=sk-test`, { headers: test });
    expect(byKey.status).toBe(200);
    expect(await byKey.json()).toMatchObject({ name: job.name });
    const listed = await (await fetch(`${ctx.gw.root}/v1/batches?key=sk-test`, { headers: test })).json();
    expect(listed.operations.map((o: { name: string }) => o.name)).toEqual([job.name]);
    // An OpenAI client there is OpenAI's.
    const openai = await (await fetch(`${ctx.gw.root}/v1/batches`, { headers: { ...test, authorization: 'Bearer sk-test' } })).json();
    expect(openai).toMatchObject({ object: 'list' });
  });
});

describe('Gemini batches: the ceilings', () => {
  const ctx = withHeld(heldModes[0]);
  const ai = () => new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, headers: { 'x-mock-test-id': 'ceilings' } } });

  it('refuses a batch past 10,000 requests, and a file line that is not JSON, with Google 400s, holding nothing', async () => {
    const many = Array.from({ length: 10_001 }, () => ({ contents: 'x' }));
    const tooMany = await failure(ai().batches.create({ model: MODEL, src: many }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.message).toContain('at most 10000 a batch');
    const input = await ai().files.upload({
      file: new Blob(['{"key":"a","request":{"contents":[]}}\nnot json'], { type: 'application/jsonl' }),
    });
    const bad = await failure(ai().batches.create({ model: MODEL, src: input.name! }));
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('Line 2');
    expect([...(await ai().batches.list()).page]).toEqual([]);
    expect((await ai().models.generateContent({ model: MODEL, contents: 'still served' })).text).toBeTruthy();
  });
});
