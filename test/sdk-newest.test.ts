// This month's SDK values, through the SDKs that send them: @anthropic-ai/sdk 1.x raises its typed
// errors by `error.details.error_code` (one the gateway raises itself, one a fixture scripts),
// @google/genai's newest thinking level (XHIGH, with every other member of its enum), and model ids of
// the next releases (served by their nearest family; refused under strictModels), in both modes.
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { ToolNameConflictError } from '@anthropic-ai/sdk/resources/messages';
import { ClaudeCodeVersionTooOldError } from '@anthropic-ai/sdk/resources/shared';
import { GoogleGenAI, ThinkingLevel } from '@google/genai';
import OpenAI from 'openai';
import { setupServer } from 'msw/node';
import { modes, strictListen, withGateway } from './helpers/modes.ts';
import { spawnCli } from './helpers/cli.ts';
import { createGateway } from '../src/index.ts';

const fixtures = [
  {
    name: 'too-old',
    match: { format: 'anthropic' as const, userMessage: 'from an old Claude Code' },
    error: { status: 400, message: 'Please update Claude Code.', details: { error_code: 'claude_code_version_too_old' } },
  },
];
const tool = (name: string) => ({ name, input_schema: { type: 'object' as const, properties: {} } });

describe.each(modes)('newest SDK values ($name)', (mode) => {
  const ctx = withGateway(mode, { fixtures });
  const anthropic = () => new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0 });

  it('gives Anthropic errors their error.details.error_code, so @anthropic-ai/sdk raises its typed error', async () => {
    const conflict = await anthropic()
      .messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [tool('a'), tool('a')],
      })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ToolNameConflictError);
    expect(conflict).toMatchObject({ status: 400, errorCode: 'tool_name_conflict', type: 'invalid_request_error' });
    const scripted = await anthropic()
      .messages.create({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'from an old Claude Code' }] })
      .catch((e: unknown) => e);
    expect(scripted).toBeInstanceOf(ClaudeCodeVersionTooOldError);
    expect((scripted as ClaudeCodeVersionTooOldError).details).toEqual({ error_code: 'claude_code_version_too_old' });
    // An error with no code of the service's has no details, as the service sends none.
    const plain = await anthropic()
      .messages.create({ model: 'claude-sonnet-4-5', max_tokens: -1, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(Anthropic.BadRequestError);
    expect(plain).toMatchObject({ errorCode: null, details: null });
  });

  it('takes every ThinkingLevel of @google/genai, XHIGH included', async () => {
    const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, apiVersion: 'v1beta' } });
    for (const thinkingLevel of Object.values(ThinkingLevel)) {
      const r = await ai.models.generateContent({
        model: 'gemini-3-pro-preview',
        contents: 'Think hard about it.',
        config: { thinkingConfig: { thinkingLevel } },
      });
      expect(r.text, thinkingLevel).toBeTruthy();
    }
  });

  it("serves ids of the vendors' next releases by their nearest family, through each SDK", async () => {
    const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, apiVersion: 'v1beta' } });
    for (const model of ['gemini-4-argon', 'gemini-4-hydrogen-preview', 'gemini-4.5-flash']) {
      const r = await ai.models.generateContent({
        model,
        contents: 'Hello',
        config: { thinkingConfig: { thinkingLevel: ThinkingLevel.XHIGH } },
      });
      expect(r.text, model).toBeTruthy();
      expect(r.modelVersion).toBe(model);
    }
    const message = await anthropic().messages.create({
      model: 'claude-nova-5-1-20270101',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.model).toBe('claude-nova-5-1-20270101');
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1`, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: 'gpt-6.3-nova', messages: [{ role: 'user', content: 'Hi' }] });
    expect(chat.model).toBe('gpt-6.3-nova');
    expect(await openai.models.retrieve('gemini-4-argon')).toMatchObject({ resolved_by: 'family', resolved_to: 'gemini-next' });
  });
});

describe('strictModels: the exact catalogue', () => {
  it('refuses every name the catalogue does not list, in-process (strictModels) and standalone (--strict-models)', async () => {
    const gateway = createGateway({ strictModels: true, models: ['mine=gpt-4o-mini'] });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    const cli = await spawnCli(['--strict-models']);
    try {
      for (const root of ['http://127.0.0.1:2', cli.url]) {
        const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${root}/v1`, maxRetries: 0 });
        const ask = (model: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
        expect((await ask('gpt-4o-mini')).model).toBe('gpt-4o-mini');
        for (const model of ['gpt-6.3-nova', 'gpt-4o-2024-08-06'])
          await expect(ask(model), model).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
        const ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: root, apiVersion: 'v1beta' } });
        await expect(ai.models.generateContent({ model: 'gemini-4-argon', contents: 'Hi' })).rejects.toMatchObject({ status: 404 });
      }
      expect((await new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1' }).models.retrieve('mine')).id).toBe('mine');
    } finally {
      server.close();
      await cli.stop();
    }
  });
});
