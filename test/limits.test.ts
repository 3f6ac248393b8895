// Rate limits as the services apply them, through the official SDKs, in-process and over a socket:
// the vendors' rate-limit headers on every reply (remaining going down), their 429 when a window's
// requests or tokens are spent (the SDKs' RateLimitError), apart from a spent quota, and the SDKs'
// retry loops honouring retry-after and getting through once the window has passed.
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retriesWork, socketSuites } from './helpers/modes.ts';
import { startMetered, type Metered, type MeteredMode } from './helpers/metered.ts';

const MODES: MeteredMode[] = socketSuites ? ['in-process', 'socket'] : ['in-process'];
const CLAUDE = 'claude-sonnet-5-5';
const ask = (content: string) => [{ role: 'user' as const, content }];

const openaiOf = (gw: Metered, apiKey: string, options: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
  new OpenAI({ apiKey, baseURL: `${gw.root}/v1`, maxRetries: 0, ...options });
const anthropicOf = (gw: Metered, apiKey: string, options: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
  new Anthropic({ apiKey, baseURL: gw.root, maxRetries: 0, ...options });

describe.each(MODES)('rate limits (%s)', (mode) => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered(mode, { tokens: ['sk-openai', 'sk-claude', 'sk-gemini'], rpm: 3, tpm: 100_000 });
  });
  afterAll(() => gw.stop());

  it('OpenAI: each reply carries x-ratelimit-*, remaining going down; past the limit a 429 rate_limit_exceeded of type requests', async () => {
    const client = openaiOf(gw, 'sk-openai');
    let tokens = 0;
    for (const left of [2, 1, 0]) {
      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages: ask(`hello ${left}`) }).withResponse();
      tokens += data.usage!.total_tokens;
      expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('x-ratelimit-')))).toEqual({
        'x-ratelimit-limit-requests': '3',
        'x-ratelimit-limit-tokens': '100000',
        'x-ratelimit-remaining-requests': String(left),
        'x-ratelimit-remaining-tokens': String(100_000 - tokens),
        // The fixed clock stands still: the window that opened with the first request has its whole minute left.
        'x-ratelimit-reset-requests': '1m0s',
        'x-ratelimit-reset-tokens': '1m0s',
      });
    }
    const error = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('one too many') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited.status).toBe(429);
    expect(limited.type).toBe('requests');
    expect(limited.code).toBe('rate_limit_exceeded');
    expect(limited.message).toContain('Limit 3, Used 3');
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(limited.headers.get('x-ratelimit-remaining-tokens')).toBe(String(100_000 - tokens));
  });

  it('Anthropic: each reply carries anthropic-ratelimit-* (requests, tokens, input and output tokens, RFC 3339 resets); then rate_limit_error', async () => {
    const client = anthropicOf(gw, 'sk-claude');
    let input = 0;
    let output = 0;
    for (const left of [2, 1, 0]) {
      const { data, response } = await client.messages
        .create({ model: CLAUDE, max_tokens: 50, messages: ask(`hello ${left}`) })
        .withResponse();
      input += data.usage.input_tokens;
      output += data.usage.output_tokens;
      const reset = '2026-01-01T00:01:00Z';
      expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('anthropic-ratelimit-')))).toEqual({
        'anthropic-ratelimit-requests-limit': '3',
        'anthropic-ratelimit-requests-remaining': String(left),
        'anthropic-ratelimit-requests-reset': reset,
        'anthropic-ratelimit-tokens-limit': '100000',
        'anthropic-ratelimit-tokens-remaining': String(100_000 - input - output),
        'anthropic-ratelimit-tokens-reset': reset,
        'anthropic-ratelimit-input-tokens-limit': '100000',
        'anthropic-ratelimit-input-tokens-remaining': String(100_000 - input),
        'anthropic-ratelimit-input-tokens-reset': reset,
        'anthropic-ratelimit-output-tokens-limit': '100000',
        'anthropic-ratelimit-output-tokens-remaining': String(100_000 - output),
        'anthropic-ratelimit-output-tokens-reset': reset,
      });
    }
    const error = await client.messages.create({ model: CLAUDE, max_tokens: 50, messages: ask('one too many') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const limited = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect((limited.error as { error: { type: string } }).error.type).toBe('rate_limit_error');
    expect(limited.headers?.get('retry-after')).toBe('60');
    expect(limited.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
  });

  it('Gemini: no rate-limit headers on success (Google sends none); its 429 is RESOURCE_EXHAUSTED with a RetryInfo of the window', async () => {
    const post = () =>
      fetch(`${gw.root}/v1beta/models/gemini-2.5-flash:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': 'sk-gemini', 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
      });
    for (let i = 0; i < 3; i++) {
      const res = await post();
      expect(res.status).toBe(200);
      expect([...res.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([]);
    }
    const res = await post();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    const body = (await res.json()) as { error: { code: number; status: string; details: unknown[] } };
    expect(body.error.code).toBe(429);
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '60s' }]);
    // Google's SDK throws its ApiError with the status.
    const ai = new GoogleGenAI({ apiKey: 'sk-gemini', httpOptions: { baseUrl: gw.root, apiVersion: 'v1beta' } });
    const error = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'again' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).message).toContain('RESOURCE_EXHAUSTED');
  });

  it("a token's own tpm: once its tokens are spent, a 429 of type tokens", async () => {
    const { token } = await gw.issue({ tpm: 10 });
    const client = openaiOf(gw, token);
    const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('spend it') }).withResponse();
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('10');
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    // The gateway-wide rpm still holds for this token.
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    const error = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: ask('again') })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.type).toBe('tokens');
    expect(error.message).toContain('tokens per min (TPM): Limit 10');
  });

  it("embeddings spend a token's tpm with their input tokens: the request that crosses it is answered, the next refused", async () => {
    const { token } = await gw.issue({ tpm: 10, rpm: 10 });
    const client = openaiOf(gw, token);
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'a sentence of well over ten tokens, to spend the whole window at once' })
      .withResponse();
    expect(data.usage.prompt_tokens).toBeGreaterThan(10);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('9');
    const error = (await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'again' })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.type).toBe('tokens');
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.message).toContain('tokens per min (TPM): Limit 10');
  });

  it('a spent quota is insufficient_quota, not a rate limit; a request refused by a rate limit spends no quota; advancing the clock opens a new window', async () => {
    const { token } = await gw.issue({ quota: 2, rpm: 1 });
    const client = openaiOf(gw, token);
    await client.chat.completions.create({ model: 'gpt-4o', messages: ask('one') });
    const limited = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: ask('two') })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited.type).toBe('requests');
    await gw.advanceClock(60);
    const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('three') }).withResponse();
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // A third window: the quota (2 requests, both answered) is what refuses now.
    await gw.advanceClock(60);
    const spent = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: ask('four') })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(spent.status).toBe(429);
    expect(spent.type).toBe('insufficient_quota');
    expect(spent.code).toBe('insufficient_quota');
  });
});

describe.runIf(socketSuites)('the control plane refuses limits it cannot apply', () => {
  let gw: Metered;
  beforeAll(async () => {
    gw = await startMetered('socket');
  });
  afterAll(() => gw.stop());

  it('says what to send for a bad rpm, tpm or clock advance', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${gw.root}/__admin${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, error: ((await res.json()) as { error: string }).error };
    };
    expect(await post('/tokens', { rpm: 0 })).toEqual({ status: 400, error: '"rpm" must be a whole number >= 1 (requests per minute).' });
    expect(await post('/tokens', { tpm: 1.5 })).toEqual({ status: 400, error: '"tpm" must be a whole number >= 1 (tokens per minute).' });
    expect((await post('/clock', { advance: -1 })).status).toBe(400);
    expect(await post('/clock', { advance: 30 })).toEqual({ status: 200, error: undefined });
    expect(await (await fetch(`${gw.root}/__admin/clock`)).json()).toEqual({ now: 1767225600 + 30 });
  });

  it('refuses an advance past 9999-12-31T23:59:59Z, which every format must still write as a date', async () => {
    const post = (advance: number) =>
      fetch(`${gw.root}/__admin/clock`, { method: 'POST', body: JSON.stringify({ advance }) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { now?: number; error?: string },
      }));
    const now = ((await (await fetch(`${gw.root}/__admin/clock`)).json()) as { now: number }).now;
    // 2^53 - 1 seconds passed the old check; the clock then read past JavaScript's dates.
    const refused = await post(Number.MAX_SAFE_INTEGER);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      `advanceClock: the clock may not pass 9999-12-31T23:59:59Z (253402300799 Unix seconds); it is at ${now}, so it may advance at most ${253402300799 - now} seconds`,
    );
    expect((await post(253402300799 - now)).body.now).toBe(253402300799);
    // At the last second the clock may show, an Anthropic reply still has its dates.
    const message = await fetch(`${gw.root}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(message.status).toBe(200);
    expect((await post(1)).status).toBe(400);
    await fetch(`${gw.root}/__admin/reset`, { method: 'POST' });
  });
});

describe.each(MODES)("the SDKs' retry loops (%s)", (mode) => {
  let gw: Metered;
  // A one-second window: the SDKs wait what retry-after says (1 s), and honour it up to a minute.
  beforeAll(async () => {
    gw = await startMetered(mode, { rpm: 1, windowSeconds: 1 });
  });
  afterAll(() => gw.stop());

  /**
   * The SDK's fetch, with time passing while it waits: on a 429 the gateway's clock moves on by the
   * retry-after it sent, as the real clock would during the SDK's wait.
   */
  const waitingFetch = (seen: string[]) => async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    if (res.status === 429) {
      const after = res.headers.get('retry-after')!;
      seen.push(after);
      await gw.advanceClock(Number(after));
    }
    return res;
  };

  const statuses = async () => (await gw.requests()).map((e) => e.status);

  it.runIf(retriesWork || mode === 'socket')(
    'openai: the retry loop reads retry-after, waits, and succeeds once the window has passed',
    async () => {
      await gw.reset();
      const seen: string[] = [];
      const client = openaiOf(gw, 'sk-test', { maxRetries: 2, fetch: waitingFetch(seen) });
      await client.chat.completions.create({ model: 'gpt-4o', messages: ask('fill the window') });
      const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('then wait') });
      expect(reply.choices[0].message.content).toBeTruthy();
      expect(seen).toEqual(['1']);
      expect(await statuses()).toEqual([200, 429, 200]);
    },
  );

  it.runIf(retriesWork || mode === 'socket')(
    'anthropic: the retry loop reads retry-after, waits, and succeeds once the window has passed',
    async () => {
      await gw.reset();
      const seen: string[] = [];
      const client = anthropicOf(gw, 'sk-test', { maxRetries: 2, fetch: waitingFetch(seen) });
      await client.messages.create({ model: CLAUDE, max_tokens: 20, messages: ask('fill the window') });
      const reply = await client.messages.create({ model: CLAUDE, max_tokens: 20, messages: ask('then wait') });
      expect(reply.content.length).toBeGreaterThan(0);
      expect(seen).toEqual(['1']);
      expect(await statuses()).toEqual([200, 429, 200]);
    },
  );

  it('without time passing, the SDK gives up after its retries, each refused with the same window', async () => {
    await gw.reset();
    const client = openaiOf(gw, 'sk-test', { maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: ask('fill the window') });
    for (let i = 0; i < 2; i++) {
      const error = (await client.chat.completions
        .create({ model: 'gpt-4o', messages: ask('refused') })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error.headers.get('retry-after')).toBe('1');
    }
    expect(await statuses()).toEqual([200, 429, 429]);
  });
});
