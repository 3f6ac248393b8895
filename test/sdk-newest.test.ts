// This month's SDK values, through the SDKs that send them: @anthropic-ai/sdk 1.x raises its typed
// errors by `error.details.error_code` (one the gateway raises itself, one a fixture scripts), and
// @google/genai's newest thinking level (XHIGH, with every other member of its enum), in both modes.
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { ToolNameConflictError } from '@anthropic-ai/sdk/resources/messages';
import { ClaudeCodeVersionTooOldError } from '@anthropic-ai/sdk/resources/shared';
import { GoogleGenAI, ThinkingLevel } from '@google/genai';
import { modes, withGateway } from './helpers/modes.ts';

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
});
