// Gemini's decisions route (POST /{version}/decisions) through @google/genai's ai.decisions.create, in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleGenAI } from '@google/genai';
import { modes, type Running } from './helpers/modes.ts';
import { seenMeanwhile, type Entry } from './helpers/ordering.ts';
import { startServer } from '../src/server.ts';

const questions = {
  complaint: { type: 'noul' as const, instructions: 'Is this a complaint?' },
  topic: {
    type: 'choice' as const,
    instructions: 'What is it about?',
    criteria: { delivery: 'shipping and parcels', billing: 'money', other: '' },
  },
  anger: {
    type: 'score' as const,
    instructions: [{ type: 'text' as const, text: 'How angry is the customer?' }],
    criteria: ['calm', 'annoyed', 'furious'],
  },
};
const request = { model: 'models/gemini-2.5-flash', input: 'The customer wrote: the parcel arrived broken.', questions };
const sum = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0);

describe.each(modes)('Gemini decisions ($name)', (mode) => {
  let gw: Running;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    gw = await mode.start();
    ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root } });
  });
  afterAll(() => gw.stop());

  it('answers each question in its own shape, calibrated, the same every time', async () => {
    const r = await ai.decisions.create(request);
    const { complaint, topic, anger } = r.answers!;
    expect(complaint.type).toBe('noul');
    if (complaint.type === 'noul') {
      expect(complaint.noul).toBeGreaterThanOrEqual(0.01);
      expect(complaint.noul).toBeLessThanOrEqual(0.99);
      expect(complaint.confidence).toBeCloseTo(Math.max(complaint.noul, 1 - complaint.noul), 4);
    }
    expect(topic.type).toBe('choice');
    if (topic.type === 'choice') {
      expect(Object.keys(topic.probabilities)).toEqual(['delivery', 'billing', 'other']);
      expect(sum(topic.probabilities)).toBeCloseTo(1, 6);
      expect(topic.confidence).toBe(Math.max(...Object.values(topic.probabilities)));
      expect(topic.probabilities[topic.choice]).toBe(topic.confidence);
    }
    expect(anger.type).toBe('score');
    if (anger.type === 'score') {
      expect(anger.legend).toEqual({ 0: 'calm', 1: 'annoyed', 2: 'furious' });
      expect(sum(anger.probabilities)).toBeCloseTo(1, 6);
      expect(anger.score).toBeCloseTo(sum(Object.fromEntries(Object.entries(anger.probabilities).map(([k, p]) => [k, Number(k) * p]))), 3);
    }
    expect(r.usage).toMatchObject({ total_output_tokens: 3 });
    expect(r.usage!.total_tokens).toBe(r.usage!.total_input_tokens! + r.usage!.total_output_tokens!);
    const again = await ai.decisions.create(request);
    expect(again.answers).toEqual(r.answers);
    const other = await ai.decisions.create({ ...request, input: 'The customer wrote: thanks, all good.' });
    expect(other.answers).not.toEqual(r.answers);
  });

  it("refuses what the service refuses, naming the field, with Google's status", async () => {
    const one = await ai.decisions
      .create({ ...request, questions: { topic: { type: 'choice', instructions: 'What?', criteria: { only: '' } } } })
      .catch((e: { statusCode?: number; body?: string }) => e);
    expect(one).toMatchObject({ statusCode: 400 });
    expect(JSON.parse((one as { body: string }).body).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining('questions.topic.criteria'),
    });
    const none = await ai.decisions.create({ ...request, questions: {} }).catch((e: { statusCode?: number }) => e);
    expect(none).toMatchObject({ statusCode: 400 });
    const unknown = await ai.decisions.create({ ...request, model: 'models/not-a-model' }).catch((e: { statusCode?: number }) => e);
    expect(unknown).toMatchObject({ statusCode: 404 });
  });
});

// The most a request may ask, over a long input: counted and hashed in slices, so other clients are
// served while it is worked on (proved by order: the other client sees it in progress, never by time).
describe('Gemini decisions: a big request', () => {
  it('serves other clients while 1,000 questions over a 2 MB input are answered', async () => {
    const server = await startServer({ port: 0 });
    try {
      const input = 'The customer wrote about the parcel, the refund and the courier. '.repeat(32_000);
      const many = Object.fromEntries(
        Array.from({ length: 1000 }, (_, i) => [
          `q${i}`,
          { type: 'noul', instructions: `Question ${i}: ${'is it about the refund? '.repeat(20)}` },
        ]),
      );
      const body = JSON.stringify({ model: 'models/gemini-2.5-flash', input, questions: many });
      // In progress: its questions read (the model is named) and its answer not made.
      const answering = (e: Entry) => (e as Entry & { model?: string }).model !== undefined && e.status === 0;
      const result = await seenMeanwhile(server.url, '/v1beta/decisions', { 'x-goog-api-key': 'sk-test' }, body, 3, answering);
      if (result.big instanceof Error) throw result.big;
      expect(result.big.status).toBe(200);
      expect(Object.keys(JSON.parse(result.big.text).answers)).toHaveLength(1000);
      expect(result.witnessed).toBeGreaterThan(0);
      expect(result.statuses.every((s) => s === 200)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
