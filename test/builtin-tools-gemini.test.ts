// Issue 33: Gemini's built-in tools through @google/genai, in-process and over a socket: Google Search
// grounding (chunks, supports over the text's bytes, the search entry point), code execution parts,
// URL context metadata, maps and file search grounding, computer use as the predefined functions;
// each used plain and streamed; a fixture scripts what the search found; bad tool fields get the 400.
import { describe, expect, it } from 'vitest';
import { ApiError, type Candidate, GoogleGenAI, type GenerateContentResponse, type Tool } from '@google/genai';
import { modes, withGateway } from './helpers/modes.ts';
import type { Fixture } from '../src/index.ts';

const MODEL = 'gemini-2.5-flash';
const bytes = (s: string) => new TextEncoder().encode(s).length;

interface Case {
  name: string;
  prompt: string;
  tools: Tool[];
  check(candidate: Candidate): void;
}

/** Each support's segment is the bytes of the text it names, and each names chunks that exist. */
function checkSupports(candidate: Candidate): void {
  const text = candidate.content!.parts!.map((p) => p.text ?? '').join('');
  const g = candidate.groundingMetadata!;
  expect(g.groundingSupports!.length).toBeGreaterThan(0);
  for (const s of g.groundingSupports!) {
    const { startIndex = 0, endIndex, text: said } = s.segment!;
    expect(Buffer.from(text).subarray(startIndex, endIndex).toString()).toBe(said);
    for (const i of s.groundingChunkIndices!) expect(g.groundingChunks![i]).toBeDefined();
  }
}

const CASES: Case[] = [
  {
    name: 'googleSearch',
    prompt: 'Search the web: who designed the Eiffel Tower?',
    tools: [{ googleSearch: {} }],
    check(c) {
      const g = c.groundingMetadata!;
      expect(g.webSearchQueries).toEqual(['designed the eiffel tower']);
      expect(g.searchEntryPoint!.renderedContent).toContain('designed the eiffel tower');
      expect(g.groundingChunks).toHaveLength(3);
      for (const chunk of g.groundingChunks!)
        expect(chunk.web).toMatchObject({ uri: expect.stringMatching(/^https:\/\//), title: expect.any(String) });
      checkSupports(c);
    },
  },
  {
    name: 'googleSearchRetrieval',
    prompt: 'Look it up online: the capital of Australia',
    tools: [{ googleSearchRetrieval: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC' as never, dynamicThreshold: 0.3 } } }],
    check(c) {
      expect(c.groundingMetadata!.webSearchQueries).toEqual(['capital of australia']);
      checkSupports(c);
    },
  },
  {
    name: 'codeExecution',
    prompt: 'Use code to compute 17 * 23',
    tools: [{ codeExecution: {} }],
    check(c) {
      const parts = c.content!.parts!;
      expect(parts[0].executableCode).toEqual({ language: 'PYTHON', code: 'result = 17 * 23\nprint(result)' });
      expect(parts[1].codeExecutionResult).toEqual({ outcome: 'OUTCOME_OK', output: '391\n' });
      expect(parts.at(-1)!.text).toContain('391');
    },
  },
  {
    name: 'urlContext',
    prompt: 'Summarize https://blog.example.com/posts/hello-world',
    tools: [{ urlContext: {} }],
    check(c) {
      expect(c.urlContextMetadata).toEqual({
        urlMetadata: [{ retrievedUrl: 'https://blog.example.com/posts/hello-world', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS' }],
      });
      expect(c.content!.parts![0].text).toMatch(/^According to Hello World, /);
    },
  },
  {
    name: 'googleMaps',
    prompt: 'Find a restaurant nearby',
    tools: [{ googleMaps: { enableWidget: false } }],
    check(c) {
      const chunks = c.groundingMetadata!.groundingChunks!;
      expect(chunks).toHaveLength(3);
      for (const chunk of chunks)
        expect(chunk.maps).toMatchObject({ title: expect.any(String), placeId: expect.stringMatching(/^places\//) });
      checkSupports(c);
    },
  },
  {
    name: 'fileSearch',
    prompt: 'What do my documents say about onboarding?',
    tools: [{ fileSearch: { fileSearchStoreNames: ['fileSearchStores/handbook'], topK: 2 } }],
    check(c) {
      const chunks = c.groundingMetadata!.groundingChunks!;
      expect(chunks).toHaveLength(2);
      for (const chunk of chunks) expect(chunk.retrievedContext).toMatchObject({ title: expect.any(String), text: expect.any(String) });
      checkSupports(c);
    },
  },
  {
    name: 'computerUse',
    prompt: 'Click the button on the screen',
    tools: [{ computerUse: { environment: 'ENVIRONMENT_BROWSER' as never } }],
    check(c) {
      expect(c.content!.parts![0].functionCall).toEqual({ name: 'click_at', args: { x: 500, y: 500 } });
      expect(c.finishReason).toBe('STOP');
    },
  },
];

const FOUND: Fixture = {
  name: 'tower',
  match: { format: 'gemini', userMessage: { contains: 'tower height' } },
  reply: {
    builtinCalls: [
      {
        tool: 'web_search',
        query: 'eiffel tower height',
        results: [{ title: 'Tour Eiffel', url: 'https://tower.example/facts', snippet: 'The tower is 330 metres tall.' }],
      },
    ],
    text: 'Ça fait 330 mètres: see Tour Eiffel.',
  },
};

describe.each(modes)('Gemini built-in tools ($name)', (mode) => {
  const ctx = withGateway(mode, { fixtures: [FOUND] });
  const ai = () => new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root, apiVersion: 'v1beta' } });

  it.each(CASES)('$name: used once plain and once streamed', async ({ prompt, tools, check }) => {
    const plain = await ai().models.generateContent({ model: MODEL, contents: prompt, config: { tools } });
    check(plain.candidates![0]);
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai().models.generateContentStream({ model: MODEL, contents: prompt, config: { tools } }))
      chunks.push(chunk);
    const last = chunks.at(-1)!.candidates![0];
    // The streamed parts, put together, are the plain reply's; its metadata comes on the last chunk.
    const parts = chunks.flatMap((c) => c.candidates?.[0].content?.parts ?? []);
    const joined = parts
      .filter((p) => p.text !== undefined)
      .map((p) => p.text)
      .join('');
    expect(joined).toBe(
      plain
        .candidates![0].content!.parts!.filter((p) => p.text !== undefined)
        .map((p) => p.text)
        .join(''),
    );
    expect(parts.filter((p) => p.text === undefined)).toEqual(plain.candidates![0].content!.parts!.filter((p) => p.text === undefined));
    expect(last.groundingMetadata).toEqual(plain.candidates![0].groundingMetadata);
    expect(last.urlContextMetadata).toEqual(plain.candidates![0].urlContextMetadata);
  });

  it('takes the snake_case names the API also reads (google_search, code_execution)', async () => {
    const r = await fetch(`${ctx.gw.root}/v1beta/models/${MODEL}:generateContent?key=sk-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ parts: [{ text: 'Search the web for otters' }] }],
        tools: [{ google_search: {} }, { code_execution: {} }],
      }),
    });
    const body = (await r.json()) as { candidates: Candidate[] };
    expect(body.candidates[0].groundingMetadata!.webSearchQueries).toEqual(['otters']);
  });

  it('grounds a scripted answer on what the fixture says the search found, over UTF-8 byte offsets', async () => {
    const r = await ai().models.generateContent({
      model: MODEL,
      contents: 'What is the tower height?',
      config: { tools: [{ googleSearch: {} }] },
    });
    const c = r.candidates![0];
    expect(c.content!.parts![0].text).toBe('Ça fait 330 mètres: see Tour Eiffel.');
    expect(c.groundingMetadata!.webSearchQueries).toEqual(['eiffel tower height']);
    expect(c.groundingMetadata!.groundingChunks).toEqual([
      { web: { uri: 'https://tower.example/facts', title: 'Tour Eiffel', domain: 'tower.example' } },
    ]);
    const text = 'Ça fait 330 mètres: see Tour Eiffel.';
    expect(c.groundingMetadata!.groundingSupports).toEqual([
      { segment: { startIndex: 0, endIndex: bytes(text), text }, groundingChunkIndices: [0], confidenceScores: [0.9] },
    ]);
  });

  it.each([
    [{ googleSearch: { excludeDomains: 'a.com' } }, "Invalid value at 'tools[0].googleSearch.excludeDomains' (TYPE_REPEATED)"],
    [{ googleSearch: { blockingConfidence: 'MAYBE' } }, 'Invalid value at \'tools[0].googleSearch.blockingConfidence\', "MAYBE"'],
    [{ codeExecution: { language: 'PYTHON' } }, 'Unknown name "language" at \'tools[0].codeExecution\''],
    [{ fileSearch: { topK: 0 } }, "Invalid value at 'tools[0].fileSearch.topK': 0 is out of range"],
    [{ computerUse: { environment: 'ENVIRONMENT_TV' } }, "Invalid value at 'tools[0].computerUse.environment'"],
    [{ warpDrive: {} }, 'Unknown name "warpDrive" at \'tools[0]\''],
  ])('refuses the tool %j with the 400 naming the field', async (tool, message) => {
    // Sent as curl would: the SDK drops names it does not know and refuses some fields itself.
    const r = await fetch(`${ctx.gw.root}/v1beta/models/${MODEL}:generateContent?key=sk-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }], tools: [tool] }),
    });
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: { status: string; message: string } };
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(message);
  });

  it('refuses through the SDK too, as an ApiError', async () => {
    const error = await ai()
      .models.generateContent({ model: MODEL, contents: 'Hi', config: { tools: [{ fileSearch: { topK: 0 } }] } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
  });
});
