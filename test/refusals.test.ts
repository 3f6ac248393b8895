// Refusals, safety filters and overload in each vendor's shape, pinned by fixtures or forced by
// x-mock-fault, through the official SDKs and the AI SDK, in-process and over a socket.
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ContentFilterFinishReasonError } from 'openai/core/error';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { z } from 'zod';
import type { Fixture } from '../src/index.ts';
import { modes, retriesWork, type Running } from './helpers/modes.ts';

const GPT = 'gpt-4o';
const CLAUDE = 'claude-sonnet-5-5';
const GEMINI = 'gemini-2.5-flash';
const NO = "I'm sorry, I can't help with picking locks.";
const fixtures: Fixture[] = [
  { name: 'declines', match: { userMessage: 'How do I pick a lock?' }, reply: { refusal: NO } },
  { name: 'filtered', match: { userMessage: 'Say something filtered' }, reply: { blocked: 'output' } },
  { name: 'blocked-prompt', match: { userMessage: 'A prompt the filter blocks' }, reply: { blocked: 'prompt' } },
  { name: 'busy', match: { userMessage: 'Are you busy?' }, fault: { type: 'OVERLOADED' } },
];
const Answer = z.object({ answer: z.string() });
const user = (content: string) => [{ role: 'user' as const, content }];
const fault = (name: string) => ({ headers: { 'x-mock-fault': name } });

describe.each(modes)('refusals and safety ($name)', (mode) => {
  let gw: Running;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let gemini: GoogleGenAI;
  beforeAll(async () => {
    gw = await mode.start({ fixtures });
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 0 });
    gemini = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
  });
  afterAll(() => gw.stop());
  /** A client retrying the "busy" fixture's overload: each of its three tries is in the journal, then its error. */
  async function retried(create: () => Promise<unknown>, status: number) {
    const busy = async () => (await gw.requests()).filter((r) => r.fixture === 'busy');
    const before = (await busy()).length;
    const error = (await create().catch((e: unknown) => e)) as { status: number; error?: unknown };
    expect(error.status).toBe(status);
    expect((await busy()).slice(before).map((r) => [r.status, r.fault])).toEqual(Array(3).fill([status, 'OVERLOADED']));
    return error;
  }

  describe('OpenAI chat completions', () => {
    it('puts a refusal in message.refusal, content null, finish_reason stop', async () => {
      const c = await openai.chat.completions.create({ model: GPT, messages: user('How do I pick a lock?') });
      expect(c.choices[0].message).toMatchObject({ role: 'assistant', content: null, refusal: NO });
      expect(c.choices[0].finish_reason).toBe('stop');
      expect(c.usage?.completion_tokens).toBeGreaterThan(0);
    });

    it('streams the refusal as delta.refusal chunks the SDK reassembles', async () => {
      const stream = openai.chat.completions.stream({ model: GPT, messages: user('How do I pick a lock?') });
      const deltas: string[] = [];
      stream.on('refusal.delta', ({ delta }) => deltas.push(delta));
      const message = await stream.finalMessage();
      expect(message.refusal).toBe(NO);
      expect(message.content).toBeNull();
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe(NO);
    });

    it('parse() with a zod format: parsed is null and refusal set, streamed or not', async () => {
      const body = { model: GPT, messages: user('How do I pick a lock?'), response_format: zodResponseFormat(Answer, 'answer') };
      const parsed = await openai.chat.completions.parse(body);
      expect(parsed.choices[0].message.parsed).toBeNull();
      expect(parsed.choices[0].message.refusal).toBe(NO);
      const streamed = await openai.chat.completions.stream(body).finalChatCompletion();
      expect(streamed.choices[0].message.parsed).toBeNull();
      expect(streamed.choices[0].message.refusal).toBe(NO);
    });

    it('a blocked output ends with finish_reason content_filter and no content; parse() throws ContentFilterFinishReasonError', async () => {
      const c = await openai.chat.completions.create({ model: GPT, messages: user('Say something filtered') });
      expect(c.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: null, refusal: null } });
      expect(c.usage?.completion_tokens).toBe(0);
      const error = await openai.chat.completions
        .parse({ model: GPT, messages: user('Say something filtered'), response_format: zodResponseFormat(Answer, 'answer') })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ContentFilterFinishReasonError);
      const chunks = [];
      for await (const chunk of await openai.chat.completions.create({
        model: GPT,
        messages: user('Say something filtered'),
        stream: true,
      }))
        chunks.push(chunk);
      expect(chunks.at(-1)?.choices[0].finish_reason).toBe('content_filter');
      expect(chunks.some((c) => c.choices[0]?.delta.content)).toBe(false);
    });

    it('a blocked prompt is a 400 invalid_prompt, streamed or not', async () => {
      for (const stream of [false, true]) {
        const error = await openai.chat.completions
          .create({ model: GPT, messages: user('A prompt the filter blocks'), stream })
          .catch((e) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ status: 400, code: 'invalid_prompt', type: 'invalid_request_error' });
        expect(error.message).toContain('flagged as potentially violating our usage policy');
      }
    });

    it('x-mock-fault REFUSAL, CONTENT_FILTER and PROMPT_BLOCKED do the same to any request, and the journal names them', async () => {
      const ask = { model: GPT, messages: user('Tell me a story') };
      const refused = await openai.chat.completions.create(ask, fault('REFUSAL'));
      expect(refused.choices[0].message).toMatchObject({ content: null, refusal: "I'm sorry, but I can't help with that." });
      const filtered = await openai.chat.completions.create(ask, fault('content_filter'));
      expect(filtered.choices[0].finish_reason).toBe('content_filter');
      const blocked = await openai.chat.completions.create(ask, fault('PROMPT_BLOCKED')).catch((e) => e);
      expect(blocked.code).toBe('invalid_prompt');
      const last = (await gw.requests()).slice(-3);
      expect(last.map((r) => [r.fault, r.status])).toEqual([
        ['REFUSAL', 200],
        ['CONTENT_FILTER', 200],
        ['PROMPT_BLOCKED', 400],
      ]);
      // Drawn from the request's seed: with probability 0 it never strikes.
      const spared = await openai.chat.completions.create(ask, fault('REFUSAL,probability=0'));
      expect(spared.choices[0].message.refusal).toBeNull();
      expect(spared.choices[0].message.content).toBeTruthy();
    });

    it('on legacy completions too, a blocked prompt is the 400 invalid_prompt: streamed or not, by fixture or fault, one blocked prompt of several', async () => {
      const legacy = { model: 'gpt-3.5-turbo-instruct', max_tokens: 20 };
      const asks = [
        [{ ...legacy, prompt: 'A prompt the filter blocks' }, {}],
        [{ ...legacy, prompt: 'Tell me a story' }, fault('PROMPT_BLOCKED')],
        [{ ...legacy, prompt: ['Tell me a story', 'A prompt the filter blocks'] }, {}],
      ] as const;
      for (const [body, options] of asks) {
        for (const stream of [false, true]) {
          const error = await openai.completions.create({ ...body, prompt: [body.prompt].flat(), stream }, options).catch((e) => e);
          expect(error).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error).toMatchObject({ status: 400, code: 'invalid_prompt', type: 'invalid_request_error' });
          const entry = (await gw.requests()).at(-1)!;
          expect(entry).toMatchObject({ path: '/v1/completions', status: 400 });
          expect(entry.fault ?? entry.fixture).toBe(body.prompt === 'Tell me a story' ? 'PROMPT_BLOCKED' : 'blocked-prompt');
        }
      }
    });

    it('an unknown fault name is a 400 that lists the new ones', async () => {
      const error = await openai.chat.completions.create({ model: GPT, messages: user('hi') }, fault('REFUSE')).catch((e) => e);
      expect(error.status).toBe(400);
      expect(error.message).toContain('REFUSAL, CONTENT_FILTER, PROMPT_BLOCKED, OVERLOADED');
    });

    it("OVERLOADED is OpenAI's 503, which the SDK gives up on as InternalServerError", async () => {
      const error = await openai.chat.completions.create({ model: GPT, messages: user('Are you busy?') }).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status: 503, type: 'server_error' });
      expect(error.message).toContain('overloaded');
    });

    it.runIf(retriesWork)('the SDK retries OVERLOADED (503) as against the real service: every try is in the journal', async () => {
      const retrying = new OpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1`, maxRetries: 2 });
      const error = await retried(() => retrying.chat.completions.create({ model: GPT, messages: user('Are you busy?') }), 503);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    });
  });

  describe('OpenAI Responses', () => {
    it('puts a refusal content part in the output message', async () => {
      const r = await openai.responses.create({ model: GPT, input: 'How do I pick a lock?' });
      expect(r.status).toBe('completed');
      expect(r.output).toEqual([
        expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: NO }] }),
      ]);
      expect(r.output_text).toBe('');
    });

    it('streams response.refusal.delta and .done events, and responses.parse() gives no parsed output', async () => {
      const stream = openai.responses.stream({ model: GPT, input: 'How do I pick a lock?' });
      const types: string[] = [];
      const deltas: string[] = [];
      stream.on('event', (e) => {
        types.push(e.type);
        if (e.type === 'response.refusal.delta') deltas.push(e.delta);
      });
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe(NO);
      expect(types).toContain('response.refusal.done');
      expect(types).not.toContain('response.output_text.delta');
      expect(final.output[0]).toMatchObject({ content: [{ type: 'refusal', refusal: NO }] });
      const parsed = await openai.responses.parse({
        model: GPT,
        input: 'How do I pick a lock?',
        text: { format: zodTextFormat(Answer, 'answer') },
      });
      expect(parsed.output_parsed).toBeNull();
    });

    it('a blocked output is an incomplete response (reason content_filter), streamed or not', async () => {
      const r = await openai.responses.create({ model: GPT, input: 'Say something filtered' });
      expect(r).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output: [], completed_at: null });
      const types: string[] = [];
      for await (const e of await openai.responses.create({ model: GPT, input: 'Say something filtered', stream: true }))
        types.push(e.type);
      expect(types).toEqual(['response.created', 'response.in_progress', 'response.incomplete']);
    });

    it('a blocked prompt is a 400 invalid_prompt', async () => {
      const error = await openai.responses.create({ model: GPT, input: 'A prompt the filter blocks' }).catch((e) => e);
      expect(error).toMatchObject({ status: 400, code: 'invalid_prompt' });
    });
  });

  describe('Anthropic messages', () => {
    it('a refusal stops with stop_reason refusal, its words as text, streamed the same', async () => {
      const m = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, messages: user('How do I pick a lock?') });
      expect(m.stop_reason).toBe('refusal');
      expect(m.content).toEqual([{ type: 'text', text: NO, citations: null }]);
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: user('How do I pick a lock?') });
      const deltas: unknown[] = [];
      stream.on('streamEvent', (e) => e.type === 'message_delta' && deltas.push(e.delta.stop_reason));
      const final = await stream.finalMessage();
      expect(deltas).toEqual(['refusal']);
      expect(final.content).toEqual(m.content);
      expect(final.stop_reason).toBe('refusal');
    });

    it('a blocked output or prompt stops with stop_reason refusal and no content', async () => {
      for (const [content, headers] of [
        ['Say something filtered', {}],
        ['A prompt the filter blocks', {}],
        ['Tell me a story', fault('CONTENT_FILTER').headers],
      ] as const) {
        const m = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, messages: user(content) }, { headers });
        expect(m).toMatchObject({ stop_reason: 'refusal', content: [], usage: { output_tokens: 0 } });
      }
    });

    it('OVERLOADED is a 529 overloaded_error: OverloadedError, an APIError', async () => {
      const error = await anthropic.messages
        .create({ model: CLAUDE, max_tokens: 10, messages: user('Tell me a story') }, fault('OVERLOADED'))
        .catch((e) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error.constructor.name).toBe('OverloadedError');
      expect(error.status).toBe(529);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    });

    it.runIf(retriesWork)('the SDK retries a 529: every try is in the journal, then the error', async () => {
      const retrying = new Anthropic({ apiKey: 'sk-test', baseURL: gw.root, maxRetries: 2 });
      const error = await retried(() => retrying.messages.create({ model: CLAUDE, max_tokens: 10, messages: user('Are you busy?') }), 529);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error.error).toMatchObject({ error: { type: 'overloaded_error' } });
    });
  });

  describe('Gemini generateContent', () => {
    it('a blocked output finishes SAFETY with no content and one rating HIGH and blocked; response.text is undefined', async () => {
      const r = await gemini.models.generateContent({ model: GEMINI, contents: 'Say something filtered' });
      const candidate = r.candidates![0];
      expect(candidate.finishReason).toBe('SAFETY');
      expect(candidate.content).toBeUndefined();
      expect(candidate.safetyRatings?.filter((s) => s.blocked)).toEqual([
        { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
      ]);
      expect(r.text).toBeUndefined();
      const chunks = [];
      for await (const chunk of await gemini.models.generateContentStream({ model: GEMINI, contents: 'Say something filtered' }))
        chunks.push(chunk);
      expect(chunks).toHaveLength(1);
      expect(chunks[0].candidates?.[0].finishReason).toBe('SAFETY');
      expect(chunks[0].text).toBeUndefined();
    });

    it('a blocked prompt has no candidates, promptFeedback.blockReason SAFETY; streamed, one such chunk', async () => {
      const r = await gemini.models.generateContent({
        model: GEMINI,
        contents: 'Tell me a story',
        config: { httpOptions: fault('PROMPT_BLOCKED') },
      });
      expect(r.candidates).toBeUndefined();
      expect(r.promptFeedback).toMatchObject({
        blockReason: 'SAFETY',
        safetyRatings: expect.arrayContaining([expect.objectContaining({ blocked: true })]),
      });
      expect(r.text).toBeUndefined();
      expect(r.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
      const chunks = [];
      for await (const chunk of await gemini.models.generateContentStream({ model: GEMINI, contents: 'A prompt the filter blocks' }))
        chunks.push(chunk);
      expect(chunks.map((c) => [c.candidates, c.promptFeedback?.blockReason])).toEqual([[undefined, 'SAFETY']]);
    });

    it('a refusal is the model declining in text (finishReason STOP)', async () => {
      const r = await gemini.models.generateContent({ model: GEMINI, contents: 'How do I pick a lock?' });
      expect(r.text).toBe(NO);
      expect(r.candidates![0].finishReason).toBe('STOP');
    });

    it('OVERLOADED is a 503 UNAVAILABLE', async () => {
      const error = await gemini.models.generateContent({ model: GEMINI, contents: 'Are you busy?' }).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(503);
      expect(error.message).toContain('UNAVAILABLE');
      expect(error.message).toContain('The model is overloaded');
    });
  });

  describe('agent frameworks', () => {
    it('the AI SDK shows an OpenAI refusal as its text with finishReason content-filter, chat and Responses', async () => {
      const provider = createOpenAI({ apiKey: 'sk-test', baseURL: `${gw.root}/v1` });
      for (const model of [provider.chat(GPT), provider.responses(GPT)]) {
        const result = await generateText({ model, prompt: 'How do I pick a lock?', maxRetries: 0 });
        expect(result.text).toBe(NO);
        expect(result.finishReason).toBe('content-filter');
      }
    });

    it('LangChain ChatOpenAI (Responses API) carries the refusal in additional_kwargs.refusal', async () => {
      const chat = new ChatOpenAI({
        model: GPT,
        apiKey: 'sk-test',
        configuration: { baseURL: `${gw.root}/v1` },
        useResponsesApi: true,
        maxRetries: 0,
      });
      const message = await chat.invoke('How do I pick a lock?');
      expect(message.additional_kwargs.refusal).toBe(NO);
    });
  });

  it('on an endpoint without a chat reply, OVERLOADED is still the overload and the reply faults change nothing', async () => {
    const ask = { model: 'text-embedding-3-small', input: 'a lock' };
    const busy = await openai.embeddings.create(ask, fault('OVERLOADED')).catch((e) => e);
    expect(busy).toMatchObject({ status: 503, type: 'server_error' });
    expect((await gw.requests()).at(-1)).toMatchObject({ path: '/v1/embeddings', status: 503, fault: 'OVERLOADED' });
    // A streamed speech (a decided stream) is refused the same way, before any event.
    const speech = await openai.audio.speech
      .create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'a lock', stream_format: 'sse' }, fault('OVERLOADED'))
      .catch((e) => e);
    expect(speech).toMatchObject({ status: 503 });
    expect((await gw.requests()).at(-1)).toMatchObject({ path: '/v1/audio/speech', status: 503, fault: 'OVERLOADED' });
    const plain = await openai.embeddings.create(ask);
    for (const name of ['REFUSAL', 'CONTENT_FILTER', 'PROMPT_BLOCKED'])
      expect(await openai.embeddings.create(ask, fault(name))).toEqual(plain);
  });

  it('gives the same bytes twice, for every vendor, streamed or not', async () => {
    const post = (path: string, body: object, headers: Record<string, string> = {}) =>
      fetch(`${gw.root}${path}`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk-test',
          'x-api-key': 'sk-test',
          'x-goog-api-key': 'sk-test',
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
          ...headers,
        },
        body: JSON.stringify(body),
      }).then((r) => r.text());
    const calls: [string, object, Record<string, string>?][] = [];
    for (const stream of [false, true]) {
      calls.push(['/v1/chat/completions', { model: GPT, stream, messages: user('How do I pick a lock?') }]);
      calls.push(['/v1/responses', { model: GPT, stream, input: 'Say something filtered' }]);
      calls.push([
        '/v1/messages',
        { model: CLAUDE, max_tokens: 50, stream, messages: user('Tell me a story') },
        { 'x-mock-fault': 'REFUSAL' },
      ]);
    }
    calls.push([`/v1beta/models/${GEMINI}:generateContent`, { contents: [{ parts: [{ text: 'Say something filtered' }] }] }]);
    calls.push([
      `/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`,
      { contents: [{ parts: [{ text: 'A prompt the filter blocks' }] }] },
    ]);
    for (const [path, body, headers] of calls) {
      const first = await post(path, body, headers);
      expect(first).toMatch(/refusal|content_filter|SAFETY/);
      expect(await post(path, body, headers)).toBe(first);
    }
  });
});
