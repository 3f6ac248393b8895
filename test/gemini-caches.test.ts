// Gemini's cached contents through @google/genai, in-process and over a socket: a cache made, got,
// listed in pages, updated and deleted; a prompt naming it is answered as if its contents came first,
// with its tokens reported in cachedContentTokenCount (streamed too); too small a cache, a request that
// sets what the cache holds, and an expired cache get the service's errors; tests kept apart.
import { describe, expect, it } from 'vitest';
import { ApiError, GoogleGenAI } from '@google/genai';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ApiError,
  );

/** A document long enough to cache (over the 1024-token minimum). */
const DOCUMENT = Array.from({ length: 400 }, (_, i) => `Clause ${i}: the tenant keeps the garden tidy.`).join(' ');
const MODEL = 'gemini-2.5-flash';

describe.each(heldModes)('Gemini cached contents ($name)', (mode) => {
  const ctx = withHeld(mode, {
    fixtures: [{ match: { userMessage: 'What does clause 7 say?' }, reply: { text: 'The garden stays tidy.' } }],
  });
  const client = (test: string) =>
    new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, headers: { 'x-mock-test-id': test } } });
  const cacheConfig = {
    contents: [{ role: 'user', parts: [{ text: DOCUMENT }] }],
    systemInstruction: 'You answer questions about the lease.',
    displayName: 'lease',
  };

  it('makes a cache, answers a prompt naming it as if its contents came first, reports its tokens as cached', async () => {
    const ai = client('gemini-caches');
    const cache = await ai.caches.create({ model: MODEL, config: { ...cacheConfig, ttl: '600s' } });
    expect(cache.name).toMatch(/^cachedContents\/[a-z0-9]{16}$/);
    expect(cache).toMatchObject({ displayName: 'lease', model: `models/${MODEL}` });
    const tokens = cache.usageMetadata!.totalTokenCount!;
    expect(tokens).toBeGreaterThanOrEqual(1024);
    expect(Date.parse(cache.expireTime!) - Date.parse(cache.createTime!)).toBe(600_000);
    expect(await ai.caches.get({ name: cache.name! })).toEqual(cache);

    const question = [{ role: 'user', parts: [{ text: 'What does clause 7 say?' }] }];
    const answer = await ai.models.generateContent({ model: MODEL, contents: question, config: { cachedContent: cache.name } });
    expect(answer.text).toBe('The garden stays tidy.');
    expect(answer.usageMetadata?.cachedContentTokenCount).toBe(tokens);
    // The same prompt given whole is the same answer of the same tokens: the cache's contents came first.
    const whole = await ai.models.generateContent({
      model: MODEL,
      contents: [...cacheConfig.contents, ...question],
      config: { systemInstruction: cacheConfig.systemInstruction },
    });
    expect(whole.text).toBe(answer.text);
    expect(answer.usageMetadata?.promptTokenCount).toBe(whole.usageMetadata?.promptTokenCount);
    expect(whole.usageMetadata?.cachedContentTokenCount ?? 0).toBeLessThan(tokens);
    // Priced at the cached rate: the cached call costs less than the same prompt sent whole.
    const [cached, sent] = ctx.gw.gateway
      .requests()
      .filter((e) => e.path.endsWith(`${MODEL}:generateContent`))
      .slice(-2);
    expect(cached.usage?.cachedInputTokens).toBe(tokens);
    expect(cached.costUsd).toBeLessThan(sent.costUsd!);

    let streamed: number | undefined;
    for await (const chunk of await ai.models.generateContentStream({
      model: MODEL,
      contents: question,
      config: { cachedContent: cache.name },
    }))
      streamed = chunk.usageMetadata?.cachedContentTokenCount ?? streamed;
    expect(streamed).toBe(tokens);

    const updated = await ai.caches.update({ name: cache.name!, config: { ttl: '7200s' } });
    expect(Date.parse(updated.expireTime!) - Date.parse(updated.updateTime!)).toBe(7_200_000);
    await ai.caches.create({ model: MODEL, config: cacheConfig });
    const names = [];
    for await (const c of await ai.caches.list({ config: { pageSize: 1 } })) names.push(c.name);
    expect(names).toHaveLength(2);
    expect(names).toContain(cache.name);

    await ai.caches.delete({ name: cache.name! });
    expect((await failure(ai.caches.get({ name: cache.name! }))).status).toBe(403);
    const gone = await failure(ai.models.generateContent({ model: MODEL, contents: question, config: { cachedContent: cache.name } }));
    expect(gone.status).toBe(403);
    expect(gone.message).toContain('CachedContent not found');
  });

  it("refuses a cache under the model's minimum, a request setting what its cache holds, and another model", async () => {
    const ai = client('gemini-caches-errors');
    const small = await failure(ai.caches.create({ model: MODEL, config: { contents: [{ role: 'user', parts: [{ text: 'short' }] }] } }));
    expect(small.status).toBe(400);
    expect(small.message).toMatch(/Cached content is too small. total_token_count=\d+, min_total_token_count=1024/);
    const cache = await ai.caches.create({ model: MODEL, config: cacheConfig });
    const withSystem = await failure(
      ai.models.generateContent({ model: MODEL, contents: 'x', config: { cachedContent: cache.name, systemInstruction: 'other' } }),
    );
    expect(withSystem.status).toBe(400);
    expect(withSystem.message).toContain('CachedContent can not be used with GenerateContent request setting system_instruction');
    const other = await failure(
      ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'x', config: { cachedContent: cache.name } }),
    );
    expect(other.status).toBe(400);
    expect(other.message).toContain('has to be the same');
    // A ttl past the last time a Timestamp holds is Google's 400, and nothing is kept: the list still answers.
    const forever = await failure(ai.caches.create({ model: MODEL, config: { ...cacheConfig, ttl: '99999999999999s' } }));
    expect(forever.status).toBe(400);
    expect(forever.message).toContain('9999-12-31T23:59:59Z');
    const stretched = await failure(ai.caches.update({ name: cache.name!, config: { ttl: '99999999999999s' } }));
    expect(stretched.status).toBe(400);
    const names: string[] = [];
    for await (const c of await ai.caches.list()) names.push(c.name!);
    expect(names).toEqual([cache.name]);
  });

  it("keeps two tests' caches apart; a test's reset drops its own; a cache expires at its TTL on the clock", async () => {
    const a = client('gemini-caches-a');
    const b = client('gemini-caches-b');
    const ofA = await a.caches.create({ model: MODEL, config: cacheConfig });
    expect((await failure(b.caches.get({ name: ofA.name! }))).status).toBe(403);
    expect([...(await b.caches.list()).page]).toEqual([]);
    ctx.gw.gateway.forTest('gemini-caches-a').reset();
    expect((await failure(a.caches.get({ name: ofA.name! }))).status).toBe(403);
    const ofB = await b.caches.create({ model: MODEL, config: { ...cacheConfig, ttl: '60s' } });
    ctx.gw.gateway.advanceClock(59);
    expect((await b.caches.get({ name: ofB.name! })).name).toBe(ofB.name);
    ctx.gw.gateway.advanceClock(1);
    const expired = await failure(b.models.generateContent({ model: MODEL, contents: 'x', config: { cachedContent: ofB.name } }));
    expect(expired.status).toBe(403);
  });
});
