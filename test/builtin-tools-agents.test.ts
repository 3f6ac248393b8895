// Issue 33: the agent frameworks' built-in tools against the emulator, in-process and over a socket:
// the OpenAI Agents SDK's hosted tools (webSearchTool, fileSearchTool, codeInterpreterTool,
// hostedMcpTool, with an approval), the AI SDK's openai.tools.* and anthropic.tools.* (server tools
// answered within the step, client tools executed and answered in the next), and LangChain's
// ChatOpenAI, which turns to the Responses API when a built-in tool is bound. Each plain and streamed.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  Agent,
  codeInterpreterTool,
  fileSearchTool,
  hostedMcpTool,
  OpenAIProvider,
  Runner,
  setTracingDisabled,
  type Tool,
  webSearchTool,
} from '@openai/agents';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs, streamText, type ToolSet } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import type { AIMessageChunk } from '@langchain/core/messages';
import { modes, withGateway } from './helpers/modes.ts';

// The Agents SDK posts traces to OpenAI unless told not to; tests reach 127.0.0.1 only.
setTracingDisabled(true);

const HOSTED: [string, Tool, string, string][] = [
  ['webSearchTool()', webSearchTool({ searchContextSize: 'low' }), 'Search the web for the best hiking trails', 'web_search_call'],
  [
    'fileSearchTool()',
    fileSearchTool(['vs_trails'], { maxNumResults: 2, includeSearchResults: true }),
    'What do my files say about hiking?',
    'file_search_call',
  ],
  ['codeInterpreterTool()', codeInterpreterTool(), 'Use code to calculate 12 * 12', 'code_interpreter_call'],
  [
    'hostedMcpTool()',
    hostedMcpTool({ serverLabel: 'trails', serverUrl: 'https://mcp.example.com/trails', requireApproval: 'never' }),
    'Ask the trails mcp server about Norway',
    'mcp_call',
  ],
];

describe.each(modes)('agent frameworks with built-in tools ($name)', (mode) => {
  const ctx = withGateway(mode);
  const runner = () =>
    new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: new OpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1`, maxRetries: 0 }) }),
    });

  it.each(HOSTED)("the Agents SDK's %s: the hosted call and the answer, plain and streamed", async (_name, tool, prompt, callType) => {
    const agent = new Agent({ name: 'Guide', instructions: 'You help hikers.', model: 'gpt-4.1', tools: [tool] });
    const result = await runner().run(agent, prompt);
    const calls = result.newItems
      .filter((i) => i.type === 'tool_call_item')
      .map((i) => (i.rawItem as { providerData?: { type?: string } }).providerData?.type);
    expect(calls).toContain(callType);
    expect(result.newItems.at(-1)!.type).toBe('message_output_item');
    expect(String(result.finalOutput).length).toBeGreaterThan(10);
    const streamed = await runner().run(agent, prompt, { stream: true });
    const events: string[] = [];
    for await (const e of streamed) if (e.type === 'run_item_stream_event') events.push(e.name);
    await streamed.completed;
    expect(streamed.finalOutput).toBe(result.finalOutput);
    expect(events).toContain('tool_called');
  });

  it("the Agents SDK's hostedMcpTool asks for approval, and the run goes on once it is given", async () => {
    const approvals: string[] = [];
    const tool = hostedMcpTool({
      serverLabel: 'trails',
      serverUrl: 'https://mcp.example.com/trails',
      requireApproval: 'always',
      onApproval: async (_context, item) => {
        approvals.push((item.rawItem as { name: string }).name);
        return { approve: true };
      },
    });
    const agent = new Agent({ name: 'Guide', instructions: 'You help hikers.', model: 'gpt-4.1', tools: [tool] });
    const result = await runner().run(agent, 'Ask the trails mcp server about Norway');
    expect(approvals).toEqual(['search']);
    // The SDK answered the approval request in its next turn, and that turn ran the call.
    const sent = (await ctx.gw.requests()).filter((r) => r.path === '/v1/responses').slice(-2);
    const input = (sent[1].body as { input: { type?: string; approve?: boolean }[] }).input;
    expect(input).toContainEqual(expect.objectContaining({ type: 'mcp_approval_response', approve: true }));
    expect(String(result.finalOutput)).toMatch(/^The search tool of trails answered: /);
  });

  it("the AI SDK's openai.tools: server tools answered in one step, with sources; a client tool's call executed", async () => {
    const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1` });
    const cases: [ToolSet, string][] = [
      [{ web_search: openai.tools.webSearch({ searchContextSize: 'low' }) }, 'Search the web for otters'],
      [{ file_search: openai.tools.fileSearch({ vectorStoreIds: ['vs_otters'] }) }, 'What do my files say about otters?'],
      [{ code_interpreter: openai.tools.codeInterpreter({}) }, 'Use code to calculate 6 * 7'],
      [{ image_generation: openai.tools.imageGeneration({ size: '1024x1024', quality: 'low' }) }, 'Draw an image of an otter'],
    ];
    for (const [tools, prompt] of cases) {
      const r = await generateText({ model: openai('gpt-4.1'), prompt, tools });
      const name = Object.keys(tools)[0];
      expect(
        r.toolCalls.map((c) => c.toolName),
        name,
      ).toEqual([name]);
      expect(
        r.toolResults.map((t) => t.toolName),
        name,
      ).toEqual([name]);
      expect(r.text.length, name).toBeGreaterThan(10);
      if (name === 'web_search') expect(r.sources.map((s) => s.sourceType)).toEqual(['url', 'url', 'url']);
      const s = streamText({ model: openai('gpt-4.1'), prompt, tools });
      expect(await s.text, name).toBe(r.text);
    }
    let ran = '';
    const shell = await generateText({
      model: openai('gpt-4.1'),
      prompt: 'Run `ls -la` in the shell',
      tools: {
        shell: openai.tools.shell({
          execute: async ({ action }) => {
            ran = action.commands.join(';');
            return { output: [{ stdout: 'README.md\n', stderr: '', outcome: { type: 'exit' as const, exitCode: 0 } }] };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(ran).toBe('ls -la');
    expect(shell.steps).toHaveLength(2);
    expect(shell.text).toContain('README.md');
  });

  it("the AI SDK's anthropic.tools: server tools with sources and results, client tools executed with their schemas' inputs", async () => {
    const anthropic = createAnthropic({ apiKey: 'sk-test', baseURL: `${ctx.gw.root}/v1` });
    const model = anthropic('claude-opus-4-6');
    const server: [ToolSet, string][] = [
      [{ web_search: anthropic.tools.webSearch_20250305({ maxUses: 2 }) }, 'Search the web for otters'],
      [{ web_fetch: anthropic.tools.webFetch_20250910({ maxUses: 1 }) }, 'Read https://otters.example/facts'],
      [{ code_execution: anthropic.tools.codeExecution_20250825() }, 'Use code to calculate 6 * 7'],
    ];
    for (const [tools, prompt] of server) {
      const r = await generateText({ model, prompt, tools });
      const name = Object.keys(tools)[0];
      expect(r.toolResults.length, name).toBeGreaterThan(0);
      expect(r.finishReason, name).toBe('stop');
      if (name === 'web_search') expect(r.sources).toHaveLength(3);
      const s = streamText({ model, prompt, tools });
      expect(await s.text, name).toBe(r.text);
    }
    const inputs: unknown[] = [];
    const execute = async (input: unknown) => {
      inputs.push(input);
      return 'done: README.md';
    };
    const client: [ToolSet, string][] = [
      [{ bash: anthropic.tools.bash_20250124({ execute }) }, 'Run `pwd` in bash'],
      [{ str_replace_based_edit_tool: anthropic.tools.textEditor_20250728({ execute }) }, 'Edit notes.md'],
      [{ memory: anthropic.tools.memory_20250818({ execute }) }, 'Remember this'],
      [
        { computer: anthropic.tools.computer_20250124({ displayWidthPx: 1024, displayHeightPx: 768, execute }) },
        'Take a screenshot of the computer',
      ],
    ];
    for (const [tools, prompt] of client) {
      const r = await generateText({ model, prompt, tools, stopWhen: stepCountIs(3) });
      expect(r.steps, Object.keys(tools)[0]).toHaveLength(2);
      expect(r.text).toContain('done: README.md');
    }
    expect(inputs).toEqual([
      { command: 'pwd' },
      { command: 'view', path: 'notes.md' },
      { command: 'view', path: '/memories' },
      { action: 'screenshot' },
    ]);
  });

  it("LangChain's ChatOpenAI with a built-in tool: the Responses API, the search's citations, plain and streamed", async () => {
    const model = new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'sk-test', configuration: { baseURL: `${ctx.gw.root}/v1` }, maxRetries: 0 });
    const bound = model.bindTools([{ type: 'web_search' }]);
    const m = await bound.invoke('Search the web for otters');
    const blocks = m.content as { type: string; text?: string; annotations?: { type: string; url: string }[] }[];
    const text = blocks.find((b) => b.type === 'text')!;
    expect(text.text).toMatch(/^Here is what I found about otters\./);
    // LangChain turns url_citation annotations into its standard citations.
    expect(text.annotations).toHaveLength(3);
    for (const a of text.annotations!) expect(a.url).toMatch(/^https:\/\//);
    const requests = await ctx.gw.requests();
    expect(requests.at(-1)!.path).toBe('/v1/responses');
    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await bound.stream('Search the web for otters')) streamed = streamed ? streamed.concat(chunk) : chunk;
    expect(streamed!.text).toBe(m.text);
  });
});
