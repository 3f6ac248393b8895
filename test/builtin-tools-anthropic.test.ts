// Issue 33: Anthropic's server and client tools through @anthropic-ai/sdk, in-process and over a
// socket. Every member of the SDK's ToolUnion (and the beta tools and MCP connector) is accepted
// without an input_schema; each is used once plain and once streamed: server tools as server_tool_use
// and their result blocks, with citations and usage.server_tool_use; client tools as tool_use with the
// inputs their schemas define. A fixture scripts what a search found; bad definitions get the
// pydantic-style 400 naming the field.
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, RawMessageStreamEvent, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { modes, withGateway } from './helpers/modes.ts';
import type { Fixture } from '../src/index.ts';

const MODEL = 'claude-opus-4-6';

type Body = { prompt: string; tools: unknown[]; mcp_servers?: unknown[]; betas?: string[] };

interface Case {
  name: string;
  body: Body;
  check(content: ContentBlock[], message: Message): void;
  /** The stream's content block events, in order (a subsequence). */
  events?: string[];
}

const byType = <T extends ContentBlock['type']>(content: ContentBlock[], type: T) =>
  content.filter((b): b is Extract<ContentBlock, { type: T }> => b.type === type);

const SERVER_EVENTS = [
  'content_block_start:server_tool_use',
  'content_block_delta:input_json_delta',
  'content_block_stop',
  'content_block_start:',
  'content_block_stop',
];

const webSearch = (type: string): Case => ({
  name: type,
  body: {
    prompt: 'Search the web for the tallest tree in the world',
    tools: [{ type, name: 'web_search', max_uses: 2, allowed_domains: ['trees.example'] }],
  },
  events: [...SERVER_EVENTS, 'content_block_start:text', 'content_block_delta:citations_delta', 'content_block_delta:text_delta'],
  check(content, message) {
    const [use] = byType(content, 'server_tool_use');
    expect(use).toMatchObject({
      name: 'web_search',
      input: { query: 'tallest tree in the world' },
      id: expect.stringMatching(/^srvtoolu_01/),
    });
    const [result] = byType(content, 'web_search_tool_result');
    expect(result.tool_use_id).toBe(use.id);
    const pages = result.content as Anthropic.Messages.WebSearchResultBlock[];
    expect(pages).toHaveLength(3);
    for (const p of pages) expect(new URL(p.url).hostname).toBe('trees.example');
    const cited = byType(content, 'text').filter((t) => t.citations?.length);
    expect(cited).toHaveLength(3);
    for (const t of cited) {
      const c = t.citations![0] as Anthropic.Messages.CitationsWebSearchResultLocation;
      expect(c.type).toBe('web_search_result_location');
      expect(pages.map((p) => p.url)).toContain(c.url);
      expect(t.text).toContain(c.title);
    }
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
  },
});

const webFetch = (type: string): Case => ({
  name: type,
  body: {
    prompt: 'Summarize https://docs.example.com/guide/getting-started',
    tools: [{ type, name: 'web_fetch', citations: { enabled: true } }],
  },
  events: SERVER_EVENTS,
  check(content, message) {
    const [use] = byType(content, 'server_tool_use');
    expect(use).toMatchObject({ name: 'web_fetch', input: { url: 'https://docs.example.com/guide/getting-started' } });
    const [result] = byType(content, 'web_fetch_tool_result');
    const page = result.content as Anthropic.Messages.WebFetchBlock;
    expect(page).toMatchObject({ type: 'web_fetch_result', url: 'https://docs.example.com/guide/getting-started' });
    expect(page.content.title).toBe('Getting Started');
    expect((page.content.source as Anthropic.Messages.PlainTextSource).data.length).toBeGreaterThan(20);
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 0, web_fetch_requests: 1 });
  },
});

const codeExecution = (type: string): Case => ({
  name: type,
  body: { prompt: 'Use code to calculate 2**64', tools: [{ type, name: 'code_execution' }] },
  events: SERVER_EVENTS,
  check(content, message) {
    const [use] = byType(content, 'server_tool_use');
    if (type === 'code_execution_20250522') {
      expect(use).toMatchObject({ name: 'code_execution', input: { code: 'result = 2**64\nprint(result)' } });
      const [result] = byType(content, 'code_execution_tool_result');
      expect(result.content).toEqual({
        type: 'code_execution_result',
        stdout: '18446744073709551616\n',
        stderr: '',
        return_code: 0,
        content: [],
      });
    } else {
      // The script is written with the container's text editor, then run with bash.
      const [write, run] = byType(content, 'server_tool_use');
      expect(write).toMatchObject({
        name: 'text_editor_code_execution',
        input: { command: 'create', path: '/tmp/script.py', file_text: 'result = 2**64\nprint(result)\n' },
      });
      const [written] = byType(content, 'text_editor_code_execution_tool_result');
      expect(written).toMatchObject({
        tool_use_id: write.id,
        content: { type: 'text_editor_code_execution_create_result', is_file_update: false },
      });
      expect(run).toMatchObject({ name: 'bash_code_execution', input: { command: 'python3 /tmp/script.py' } });
      const [result] = byType(content, 'bash_code_execution_tool_result');
      expect(result.tool_use_id).toBe(run.id);
      expect(result.content).toMatchObject({ type: 'bash_code_execution_result', stdout: '18446744073709551616\n', return_code: 0 });
    }
    expect(message.container?.id).toMatch(/^container_/);
    expect(byType(content, 'text')[0].text).toContain('18446744073709551616');
  },
});

const toolUse = (name: string, tools: unknown[], prompt: string, input: unknown, betas?: string[], toolset?: string): Case => ({
  name,
  body: { prompt, tools, ...(betas ? { betas } : {}) },
  events: ['content_block_start:tool_use', 'content_block_delta:input_json_delta', 'content_block_stop'],
  check(content, message) {
    expect(message.stop_reason).toBe('tool_use');
    const [call] = byType(content, 'tool_use');
    expect(call.input).toEqual(input);
    expect(call.id).toMatch(/^toolu_01/);
    if (toolset) expect(call).toMatchObject({ toolset_name: toolset });
  },
});

const CASES: Case[] = [
  webSearch('web_search_20250305'),
  webSearch('web_search_20260209'),
  webSearch('web_search_20260318'),
  webFetch('web_fetch_20250910'),
  webFetch('web_fetch_20260209'),
  webFetch('web_fetch_20260309'),
  webFetch('web_fetch_20260318'),
  codeExecution('code_execution_20250522'),
  codeExecution('code_execution_20250825'),
  codeExecution('code_execution_20260120'),
  codeExecution('code_execution_20260521'),
  ...['tool_search_tool_regex_20251119', 'tool_search_tool_bm25_20251119', 'tool_search_tool_bm25'].map(
    (type): Case => ({
      name: type,
      body: {
        prompt: 'What is the weather in Paris?',
        tools: [
          { type, name: type.startsWith('tool_search_tool_regex') ? 'tool_search_tool_regex' : 'tool_search_tool_bm25' },
          {
            name: 'get_weather',
            description: 'Weather',
            input_schema: { type: 'object', properties: { city: { type: 'string' } } },
            defer_loading: true,
          },
        ],
      },
      events: SERVER_EVENTS,
      check(content) {
        expect(content.map((b) => b.type)).toEqual(['server_tool_use', 'tool_search_tool_result', 'tool_use']);
        const [result] = byType(content, 'tool_search_tool_result');
        expect(result.content).toEqual({
          type: 'tool_search_tool_search_result',
          tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }],
        });
        expect(byType(content, 'tool_use')[0].name).toBe('get_weather');
      },
    }),
  ),
  toolUse('bash_20250124', [{ type: 'bash_20250124', name: 'bash' }], 'Run the bash command `ls -la /tmp`', { command: 'ls -la /tmp' }),
  toolUse('text_editor_20250124', [{ type: 'text_editor_20250124', name: 'str_replace_editor' }], 'Edit main.py', {
    command: 'view',
    path: 'main.py',
  }),
  toolUse(
    'text_editor_20250429',
    [{ type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' }],
    "Edit src/app.ts: replace 'let x' with 'const x'",
    { command: 'str_replace', path: 'src/app.ts', old_str: 'let x', new_str: 'const x' },
  ),
  toolUse(
    'text_editor_20250728',
    [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10000 }],
    'Edit README.md',
    { command: 'view', path: 'README.md' },
  ),
  toolUse('memory_20250818', [{ type: 'memory_20250818', name: 'memory' }], 'Remember that I like tea', {
    command: 'view',
    path: '/memories',
  }),
  toolUse(
    'computer_20250124 (beta)',
    [{ type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 800 }],
    'Click the screen',
    { action: 'left_click', coordinate: [640, 400] },
    ['computer-use-2025-01-24'],
  ),
  toolUse(
    'computer_20251124 (beta)',
    [{ type: 'computer_20251124', name: 'computer', display_width_px: 1024, display_height_px: 768, enable_zoom: true }],
    'Take a screenshot of the computer',
    { action: 'screenshot' },
    ['computer-use-2025-11-24'],
  ),
  toolUse(
    'computer_20241022 (beta)',
    [{ type: 'computer_20241022', name: 'computer', display_width_px: 1024, display_height_px: 768 }],
    'Type "hello" on the computer',
    { action: 'type', text: 'hello' },
    ['computer-use-2024-10-22'],
  ),
  toolUse('bash_20241022 (beta)', [{ type: 'bash_20241022', name: 'bash' }], 'Run `pwd` in bash', { command: 'pwd' }, [
    'computer-use-2024-10-22',
  ]),
  toolUse(
    'text_editor_20241022 (beta)',
    [{ type: 'text_editor_20241022', name: 'str_replace_editor' }],
    'Edit notes.txt',
    { command: 'view', path: 'notes.txt' },
    ['computer-use-2024-10-22'],
  ),
  toolUse(
    'computer_toolset_20260801',
    [{ type: 'computer_toolset_20260801' }],
    'Take a screenshot of the computer',
    {},
    undefined,
    'computer',
  ),
  toolUse(
    'browser_toolset_20260801',
    [{ type: 'browser_toolset_20260801', configs: { zoom: { enabled: false } } }],
    'Click in the browser',
    { coordinate: [640, 400] },
    undefined,
    'browser',
  ),
  {
    name: 'MCP connector (beta: mcp_servers and mcp_toolset)',
    body: {
      prompt: 'Ask the docs mcp server to lookup the changelog',
      mcp_servers: [
        {
          type: 'url',
          url: 'https://mcp.example.com/sse',
          name: 'docs',
          authorization_token: 'secret',
          tool_configuration: { allowed_tools: ['lookup'] },
        },
      ],
      tools: [{ type: 'mcp_toolset', mcp_server_name: 'docs' }],
      betas: ['mcp-client-2025-11-20'],
    },
    events: [
      'content_block_start:mcp_tool_use',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'content_block_start:mcp_tool_result',
    ],
    check(content) {
      const blocks = content as unknown as { type: string; [k: string]: unknown }[];
      expect(blocks.map((b) => b.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
      expect(blocks[0]).toMatchObject({
        name: 'lookup',
        server_name: 'docs',
        input: { query: 'ask the docs mcp server to lookup the changelog' },
      });
      expect(blocks[1]).toMatchObject({
        tool_use_id: blocks[0].id,
        is_error: false,
        content: [{ type: 'text', text: expect.stringMatching(/^Lookup result: /) }],
      });
    },
  },
];

/** A fixture that scripts what a search found and the answer that cites it. */
const TREES: Fixture = {
  name: 'trees',
  match: { format: 'anthropic', userMessage: { contains: 'oldest tree' } },
  reply: {
    builtinCalls: [
      {
        tool: 'web_search',
        query: 'oldest tree',
        results: [
          {
            title: 'Methuselah',
            url: 'https://trees.example/methuselah',
            snippet: 'Methuselah is about 4,850 years old.',
            pageAge: 'March 3, 2026',
          },
        ],
      },
    ],
    text: 'The oldest known tree is Methuselah, about 4,850 years old.',
  },
};

describe.each(modes)('Anthropic built-in tools ($name)', (mode) => {
  const ctx = withGateway(mode, { fixtures: [TREES] });
  const client = () => new Anthropic({ apiKey: 'sk-test', baseURL: ctx.gw.root, maxRetries: 0 });
  const params = (body: Body) => ({
    model: MODEL,
    max_tokens: 2048,
    messages: [{ role: 'user' as const, content: body.prompt }],
    tools: body.tools as never,
    ...(body.mcp_servers ? { mcp_servers: body.mcp_servers as never } : {}),
    ...(body.betas ? { betas: body.betas as never } : {}),
  });
  // Beta tools go through the beta client, as users call them.
  const create = (body: Body) =>
    (body.betas
      ? client().beta.messages.create(params(body) as never)
      : client().messages.create(params(body) as never)) as Promise<Message>;
  // Both streams emit the same events; the beta's are typed as its own.
  const stream = (body: Body) =>
    (body.betas ? client().beta.messages.stream(params(body) as never) : client().messages.stream(params(body) as never)) as ReturnType<
      Anthropic['messages']['stream']
    >;

  it.each(CASES)('$name: used once plain and once streamed, as the SDK types it', async ({ body, check, events }) => {
    const plain = await create(body);
    check(plain.content, plain);
    const s = stream(body);
    const seen: string[] = [];
    s.on('streamEvent', (e: RawMessageStreamEvent) => {
      if (e.type === 'content_block_start') seen.push(`content_block_start:${e.content_block.type}`);
      else if (e.type === 'content_block_delta') seen.push(`content_block_delta:${e.delta.type}`);
      else seen.push(e.type);
    });
    const final = (await s.finalMessage()) as Message;
    expect(final.content).toEqual(plain.content);
    expect(final.usage).toEqual(plain.usage);
    if (events) {
      let at = 0;
      for (const t of seen) if (events[at] !== undefined && t.startsWith(events[at])) at++;
      expect(at, seen.join(' ')).toBe(events.length);
    }
    expect(seen.at(-1)).toBe('message_stop');
  });

  it('accepts the advisor tool (beta) and answers without consulting it', async () => {
    const m = (await client().beta.messages.create({
      model: MODEL,
      max_tokens: 256,
      betas: ['advisor-tool-2026-03-01' as never],
      messages: [{ role: 'user', content: 'Hello there' }],
      tools: [{ type: 'advisor_20260301', name: 'advisor', model: 'claude-opus-4-6', max_uses: 1 }],
    })) as unknown as Message;
    expect(m.content.map((b) => b.type)).toEqual(['text']);
    expect(m.usage.server_tool_use).toBeNull();
  });

  it('takes a client tool result and answers from it, ending the loop; server tool runs in history are context', async () => {
    const tools = [{ type: 'bash_20250124' as const, name: 'bash' as const }];
    const first = await client().messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Run `ls` in bash' }],
      tools,
    });
    const call = byType(first.content, 'tool_use')[0];
    const second = await client().messages.create({
      model: MODEL,
      max_tokens: 1024,
      tools,
      messages: [
        { role: 'user', content: 'Run `ls` in bash' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'README.md' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(byType(second.content, 'text')[0].text).toContain('README.md');
    const searched = await client().messages.create(params(CASES[0].body) as never);
    const again = await client().messages.create({
      model: MODEL,
      max_tokens: 1024,
      tools: CASES[0].body.tools as never,
      messages: [
        { role: 'user', content: CASES[0].body.prompt },
        { role: 'assistant', content: searched.content as never },
        { role: 'user', content: 'Thanks! And hello.' },
      ],
    });
    expect(again.content.map((b) => b.type)).toEqual(['text']);
  });

  it('answers as a fixture scripts it: the search results, and the answer citing the result it names', async () => {
    const m = await client().messages.create(
      params({ prompt: 'Which is the oldest tree?', tools: [{ type: 'web_search_20250305', name: 'web_search' }] }) as never,
    );
    expect(m.content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(byType(m.content, 'server_tool_use')[0].input).toEqual({ query: 'oldest tree' });
    expect(byType(m.content, 'web_search_tool_result')[0].content).toEqual([
      {
        type: 'web_search_result',
        url: 'https://trees.example/methuselah',
        title: 'Methuselah',
        encrypted_content: expect.any(String),
        page_age: 'March 3, 2026',
      },
    ]);
    const [text] = byType(m.content, 'text');
    expect(text.text).toBe('The oldest known tree is Methuselah, about 4,850 years old.');
    expect(text.citations).toEqual([
      {
        type: 'web_search_result_location',
        url: 'https://trees.example/methuselah',
        title: 'Methuselah',
        cited_text: 'Methuselah is about 4,850 years old.',
        encrypted_index: expect.any(String),
      },
    ]);
  });

  it.each([
    [{ type: 'web_search_20250305', name: 'search' }, "tools.0.web_search_20250305.name: Input should be 'web_search'"],
    [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 0 },
      'tools.0.web_search_20250305.max_uses: Input should be greater than or equal to 1',
    ],
    [
      { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.example'], blocked_domains: ['b.example'] },
      'tools.0.web_search_20250305: Cannot specify both allowed_domains and blocked_domains',
    ],
    [
      { type: 'web_search_20250305', name: 'web_search', user_location: { city: 'Oslo' } },
      'tools.0.web_search_20250305.user_location.type: Field required',
    ],
    [{ type: 'bash_20250124', name: 'bash', timeout: 5 }, 'tools.0.bash_20250124.timeout: Extra inputs are not permitted'],
    [
      { type: 'computer_20250124', name: 'computer', display_width_px: 1024 },
      'tools.0.computer_20250124.display_height_px: Field required',
    ],
    [
      { type: 'text_editor_20250728', name: 'str_replace_editor' },
      "tools.0.text_editor_20250728.name: Input should be 'str_replace_based_edit_tool'",
    ],
    [
      { type: 'code_execution_20250825', name: 'code_execution', memory: '1g' },
      'tools.0.code_execution_20250825.memory: Extra inputs are not permitted',
    ],
    [
      { type: 'laser_20990101', name: 'laser' },
      "tools.0: Input tag 'laser_20990101' found using 'type' does not match any of the expected tags: 'custom', 'bash_20241022'",
    ],
    [{ name: 'get_weather' }, 'tools.0.custom.input_schema: Field required'],
    [
      { type: 'mcp_toolset', mcp_server_name: 'nowhere' },
      "tools.0.mcp_toolset.mcp_server_name: MCP server 'nowhere' is not among the request's mcp_servers.",
    ],
  ])('refuses the tool %j: %s', async (tool, message) => {
    const error = await client()
      .messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], tools: [tool as ToolUnion] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.error.error.message).toContain(message);
  });
});
