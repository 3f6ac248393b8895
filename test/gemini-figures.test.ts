// Gemini's usage figures and reply fields against the real service's, for the prompts the @google/genai
// authors recorded against generativelanguage.googleapis.com (googleapis/js-genai test/system/recordings,
// 2025). The prompts are re-typed here; the real figures are the expected values, each of ours within
// the margin docs/usage.md states: each kind's median ratio (ours / real) within 0.5–2×, and every
// prompt and thoughts figure within 0.1–10× (the service itself spends 41 and 331 thinking tokens on
// one request); each field present exactly where the service sends it.
import { describe, expect, it } from 'vitest';
import { FunctionCallingConfigMode, GoogleGenAI, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import { heldModes, withHeld } from './helpers/gateways.ts';

const concat = {
  functionDeclarations: [
    {
      name: 'concatStringFunction',
      description: 'this is a concat string function',
      parametersJsonSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { firstString: { type: 'string' }, secondString: { type: 'string' } },
        required: ['firstString', 'secondString'],
        additionalProperties: false,
      },
    },
  ],
};
const print = {
  name: 'print',
  parametersJsonSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { text: { type: 'string' }, color: { type: 'string', pattern: 'red|blue|green|white' } },
    required: ['text', 'color'],
    additionalProperties: false,
  },
};
const beep = { name: 'beep', parametersJsonSchema: { type: 'object', properties: {} } };
const divide = {
  functionDeclarations: [
    {
      name: 'customDivide',
      description: 'Custom divide function',
      parametersJsonSchema: { type: 'object', properties: { numerator: { type: 'number' }, denominator: { type: 'number' } } },
    },
  ],
};

interface Recorded {
  name: string;
  request: GenerateContentParameters;
  /** The real service's figures: prompt, candidates (absent when it sent none), thoughts (2.5 only). */
  real: { prompt: number; candidates?: number; thoughts?: number; finish: string };
  /** Another finish ours may give (our synthesized answer is shorter than the real one). */
  alsoFinish?: string;
  /** Whether the reply had text (the small-maxOutputTokens thinking model's has none). */
  text: boolean;
}

const sky = 'why is the sky blue?';
const recorded: Recorded[] = [
  {
    name: '2.5 flash, maxOutputTokens 20: all spent thinking',
    request: { model: 'gemini-2.5-flash', contents: sky, config: { candidateCount: 1, maxOutputTokens: 20 } },
    real: { prompt: 7, thoughts: 19, finish: 'MAX_TOKENS' },
    text: false,
  },
  {
    name: '2.5 flash, maxOutputTokens 200, thinkingBudget 50',
    request: {
      model: 'gemini-2.5-flash',
      contents: sky,
      config: { candidateCount: 1, maxOutputTokens: 200, thinkingConfig: { thinkingBudget: 50 } },
    },
    real: { prompt: 7, candidates: 149, thoughts: 48, finish: 'MAX_TOKENS' },
    alsoFinish: 'STOP',
    text: true,
  },
  {
    name: '2.5 flash, system instruction',
    request: { model: 'gemini-2.5-flash', contents: 'high', config: { systemInstruction: 'I say high you say low' } },
    real: { prompt: 9, candidates: 1, thoughts: 20, finish: 'STOP' },
    text: true,
  },
  {
    name: '2.5 flash, longer system instruction',
    request: {
      model: 'gemini-2.5-flash',
      contents: 'high',
      config: { candidateCount: 1, systemInstruction: 'I say high you say low, and then tell me why is the sky blue.' },
    },
    real: { prompt: 20, candidates: 253, thoughts: 260, finish: 'STOP' },
    text: true,
  },
  {
    name: '2.5 flash, one function declaration, mode ANY',
    request: {
      model: 'gemini-2.5-flash',
      contents: 'put word: hello and word: world into a string',
      config: {
        tools: [concat],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['concatStringFunction'] } },
      },
    },
    real: { prompt: 65, candidates: 22, thoughts: 69, finish: 'STOP' },
    text: false,
  },
  {
    name: '2.5 flash, two function declarations',
    request: {
      model: 'gemini-2.5-flash',
      contents: 'Use the printer to print a simple word: hello in blue, and beep with the beeper',
      config: { tools: [{ functionDeclarations: [print, beep] }] },
    },
    real: { prompt: 80, candidates: 26, thoughts: 76, finish: 'STOP' },
    text: false,
  },
  {
    name: '2.5 pro, two tools of one declaration each',
    request: {
      model: 'gemini-2.5-pro',
      contents: 'Use the printer to print a simple word: hello in blue, and beep with the beeper, make sure you beep',
      config: { tools: [{ functionDeclarations: [print] }, { functionDeclarations: [beep] }] },
    },
    real: { prompt: 85, candidates: 26, thoughts: 155, finish: 'STOP' },
    text: false,
  },
  {
    name: '2.0 flash, plain question',
    request: { model: 'gemini-2.0-flash', contents: sky },
    real: { prompt: 6, candidates: 353, finish: 'STOP' },
    text: true,
  },
  {
    name: '2.0 flash, maxOutputTokens 20',
    request: { model: 'gemini-2.0-flash', contents: sky, config: { maxOutputTokens: 20, temperature: 0.5 } },
    real: { prompt: 6, candidates: 20, finish: 'MAX_TOKENS' },
    text: true,
  },
  {
    name: '2.0 flash, a 100-word story',
    request: { model: 'gemini-2.0-flash', contents: 'Tell me a story in 100 words?' },
    real: { prompt: 11, candidates: 126, finish: 'STOP' },
    text: true,
  },
  {
    name: '2.0 flash, two text parts',
    request: {
      model: 'gemini-2.0-flash',
      contents: [{ role: 'user', parts: [{ text: sky }, { text: 'Can the sky appear in other colors?' }] }],
    },
    real: { prompt: 14, candidates: 575, finish: 'STOP' },
    text: true,
  },
  {
    name: '2.0 flash, one function declaration',
    request: {
      model: 'gemini-2.0-flash',
      contents: 'Divide 10 by 2 using the customDivide function',
      config: { tools: [divide], automaticFunctionCalling: { disable: true } },
    },
    real: { prompt: 17, candidates: 6, finish: 'STOP' },
    text: false,
  },
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const kinds = ['prompt', 'candidates', 'thoughts'] as const;
type Kind = (typeof kinds)[number];

describe.each(heldModes)('Gemini figures against the recorded service ($name)', (mode) => {
  const ctx = withHeld(mode);
  const client = () => new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root } });
  const ratios: Record<Kind, number[]> = { prompt: [], candidates: [], thoughts: [] };

  it.each(recorded)('$name', async ({ request, real, alsoFinish, text }) => {
    const reply = await client().models.generateContent(request);
    const usage = reply.usageMetadata!;
    const cand = reply.candidates![0];
    const v20 = request.model.startsWith('gemini-2.0');
    expect([real.finish, alsoFinish]).toContain(cand.finishReason);
    expect(Boolean(cand.content?.parts?.some((p) => p.text))).toBe(text);
    expect(usage.candidatesTokenCount !== undefined).toBe(real.candidates !== undefined);
    expect(usage.thoughtsTokenCount !== undefined).toBe(real.thoughts !== undefined);
    const ours: Record<Kind, number | undefined> = {
      prompt: usage.promptTokenCount,
      candidates: usage.candidatesTokenCount,
      thoughts: usage.thoughtsTokenCount,
    };
    for (const kind of kinds) {
      const realFigure = real[kind];
      if (realFigure === undefined) continue;
      const ratio = ours[kind]! / realFigure;
      ratios[kind].push(ratio);
      if (kind === 'candidates') continue;
      expect(ratio, kind).toBeGreaterThanOrEqual(0.1);
      expect(ratio, kind).toBeLessThanOrEqual(10);
    }
    // Fields as the service has them: no safety ratings on an unblocked reply; per-modality candidate
    // counts and the mean log-probability on 2.0 only.
    expect(cand.safetyRatings).toBeUndefined();
    expect(usage.candidatesTokensDetails !== undefined).toBe(v20 && real.candidates !== undefined);
    expect(typeof cand.avgLogprobs === 'number').toBe(v20);
  });

  it.each(kinds)('the median %s ratio is within 0.5–2×', (kind) => {
    expect(ratios[kind].length).toBeGreaterThanOrEqual(kind === 'thoughts' ? 6 : 10);
    expect(median(ratios[kind])).toBeGreaterThanOrEqual(0.5);
    expect(median(ratios[kind])).toBeLessThanOrEqual(2);
  });

  // @google/genai drops finishMessage from its parsed candidate, so this reads the wire.
  it.each([
    ['gemini-2.5-flash', 'Model generated function call(s).'],
    ['gemini-2.0-flash', undefined],
  ])('%s says finishMessage %s on function calls', async (model, message) => {
    const res = await fetch(`${ctx.gw.root}/v1beta/models/${model}:generateContent?key=sk-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'put word: hello and word: world into a string' }] }],
        tools: [concat],
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      }),
    });
    const body = (await res.json()) as { candidates: { finishMessage?: string; content: { parts: { functionCall?: unknown }[] } }[] };
    expect(body.candidates[0].content.parts[0].functionCall).toBeDefined();
    expect(body.candidates[0].finishMessage).toBe(message);
  });

  it('a follow-up turn reports its thoughts, of the size the recorded follow-ups show (91 and 194)', async () => {
    const reply = await client().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Tell me a story in 100 words?' }] },
        { role: 'model', parts: [{ text: 'Once upon a time a lighthouse keeper found a message in a bottle.' }] },
        { role: 'user', parts: [{ text: 'What happened next?' }] },
      ],
    });
    const thoughts = reply.usageMetadata!.thoughtsTokenCount!;
    expect(thoughts / 91).toBeGreaterThanOrEqual(0.1);
    expect(thoughts / 194).toBeLessThanOrEqual(10);
  });

  it('streamed, a 2.0 reply has no avgLogprobs and a 2.5 reply its thoughts on the last chunk only', async () => {
    const chunks = [];
    for await (const c of await client().models.generateContentStream({ model: 'gemini-2.5-flash', contents: sky })) chunks.push(c);
    expect(chunks.at(-1)!.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usageMetadata?.thoughtsTokenCount === undefined)).toBe(true);
    const old = [];
    for await (const c of await client().models.generateContentStream({ model: 'gemini-2.0-flash', contents: sky })) old.push(c);
    expect(old.every((c) => c.candidates![0].avgLogprobs === undefined && c.candidates![0].safetyRatings === undefined)).toBe(true);
  });
});
