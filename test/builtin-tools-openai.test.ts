// Issue 33: OpenAI's built-in tools through the openai SDK, in-process and over a socket. Every tool
// type of the SDK's Tool union is accepted; each is used once plain and once streamed, the reply
// validating against OpenAI's published spec, the stream's events in OpenAI's order; calls the client
// runs round-trip; a fixture scripts a search's results and the answer that cites them; bad tool
// definitions get the 400 that names the field; chat completions' search models cite with url_citation.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { decode as decodePng } from 'fast-png';
import { modes, withGateway } from './helpers/modes.ts';
import { assertResponseEvents, assertSchema } from './helpers/openapi.ts';
import type { Fixture } from '../src/index.ts';
import { validateFixtures } from '../src/fixtures/validate.ts';

const MODEL = 'gpt-4.1';
type Body = Omit<ResponseCreateParamsNonStreaming, 'model' | 'stream'>;
type Item<T extends ResponseOutputItem['type']> = Extract<ResponseOutputItem, { type: T }>;

/** Items as the service sent them, without what the SDK's stream adds (parsed text, parsed arguments). */
const unparsed = (output: unknown) =>
  JSON.parse(JSON.stringify(output, (k, v) => (k === 'parsed' || k === 'parsed_arguments' ? undefined : v)));

/** Whether `expected` occurs in `types`, in this order (other events may come between). */
function inOrder(types: string[], expected: string[]): boolean {
  let at = 0;
  for (const t of types) if (t === expected[at]) at++;
  return at === expected.length;
}

const weatherFn = {
  type: 'function' as const,
  name: 'get_weather',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

interface Case {
  name: string;
  body: Body;
  item: ResponseOutputItem['type'];
  /** Events this tool's item streams, in order. */
  events: string[];
  check(item: ResponseOutputItem, response: Response): void;
}

/** One use of every built-in tool type: what is asked, and what its item must hold. */
const CASES: Case[] = [
  {
    name: 'web_search',
    body: {
      input: 'Search the web for the weather in Paris',
      tools: [{ type: 'web_search', search_context_size: 'low' }],
      include: ['web_search_call.action.sources'],
    },
    item: 'web_search_call',
    events: [
      'response.web_search_call.in_progress',
      'response.web_search_call.searching',
      'response.web_search_call.completed',
      'response.output_text.annotation.added',
      'response.output_text.done',
    ],
    check(item, r) {
      const call = item as Item<'web_search_call'>;
      expect(call.status).toBe('completed');
      expect(call.action.type).toBe('search');
      const action = call.action as Extract<Item<'web_search_call'>['action'], { type: 'search' }>;
      expect(action.query).toBe('weather in paris');
      expect(action.sources!.length).toBe(3);
      const message = r.output.find((o) => o.type === 'message') as Item<'message'>;
      const text = message.content[0] as Extract<Item<'message'>['content'][number], { type: 'output_text' }>;
      expect(text.annotations.length).toBe(3);
      for (const a of text.annotations) {
        if (a.type !== 'url_citation') throw new Error(a.type);
        expect(action.sources!.map((s) => s.url)).toContain(a.url);
        expect(text.text.slice(a.start_index, a.end_index)).toContain(a.title);
      }
      expect(r.tool_usage?.web_search.num_requests).toBe(1);
    },
  },
  {
    name: 'web_search_preview',
    body: {
      input: 'Look up online: the tallest building in Oslo',
      tools: [
        { type: 'web_search_preview', user_location: { type: 'approximate', city: 'Oslo', country: 'NO' }, search_content_types: ['text'] },
      ],
    },
    item: 'web_search_call',
    events: ['response.web_search_call.in_progress', 'response.web_search_call.completed'],
    check(item) {
      expect((item as Item<'web_search_call'>).action).toMatchObject({ type: 'search', query: 'tallest building in oslo' });
    },
  },
  {
    name: 'file_search',
    body: {
      input: 'What do my files say about the budget?',
      tools: [{ type: 'file_search', vector_store_ids: ['vs_budget'], max_num_results: 2 }],
      include: ['file_search_call.results'],
    },
    item: 'file_search_call',
    events: ['response.file_search_call.in_progress', 'response.file_search_call.searching', 'response.file_search_call.completed'],
    check(item, r) {
      const call = item as Item<'file_search_call'>;
      expect(call.queries.length).toBe(1);
      expect(call.results).toHaveLength(2);
      expect(call.results![0]).toMatchObject({
        file_id: expect.stringMatching(/^file-/),
        filename: expect.any(String),
        score: expect.any(Number),
      });
      const text = (r.output.at(-1) as Item<'message'>).content[0] as Extract<Item<'message'>['content'][number], { type: 'output_text' }>;
      expect(text.annotations.map((a) => a.type)).toEqual(['file_citation', 'file_citation']);
    },
  },
  {
    name: 'code_interpreter',
    body: {
      input: 'Use code to calculate 1234 * 5678',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
      include: ['code_interpreter_call.outputs'],
    },
    item: 'code_interpreter_call',
    events: [
      'response.code_interpreter_call.in_progress',
      'response.code_interpreter_call_code.delta',
      'response.code_interpreter_call_code.done',
      'response.code_interpreter_call.interpreting',
      'response.code_interpreter_call.completed',
    ],
    check(item, r) {
      const call = item as Item<'code_interpreter_call'>;
      expect(call.code).toBe('result = 1234 * 5678\nprint(result)');
      expect(call.container_id).toMatch(/^cntr_/);
      expect(call.outputs).toEqual([{ type: 'logs', logs: '7006652\n' }]);
      expect(r.output_text).toContain('7006652');
    },
  },
  {
    name: 'image_generation',
    body: {
      input: 'Draw an image of a red fox in the snow',
      tools: [{ type: 'image_generation', size: '1024x1536', quality: 'low', partial_images: 2 }],
    },
    item: 'image_generation_call',
    events: [
      'response.image_generation_call.in_progress',
      'response.image_generation_call.generating',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.completed',
    ],
    check(item, r) {
      const call = item as Item<'image_generation_call'>;
      const png = decodePng(Buffer.from(call.result!, 'base64'));
      expect([png.width, png.height]).toEqual([1024, 1536]);
      expect(r.tool_usage?.image_gen.output_tokens).toBe(408);
    },
  },
  {
    name: 'mcp (waits for approval)',
    body: {
      input: 'Ask the deepwiki mcp server about React hooks',
      tools: [{ type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp' }],
    },
    item: 'mcp_approval_request',
    events: ['response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed'],
    check(item, r) {
      expect(r.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
      const list = r.output[0] as Item<'mcp_list_tools'>;
      expect(list.tools.map((t) => t.name)).toEqual(['search', 'fetch']);
      const ask = item as Item<'mcp_approval_request'>;
      expect(ask).toMatchObject({ server_label: 'deepwiki', name: 'search' });
      expect(JSON.parse(ask.arguments)).toEqual({ query: 'ask the deepwiki mcp server react hooks' });
    },
  },
  {
    name: 'mcp (no approval needed)',
    body: {
      input: 'Ask the docs mcp to lookup the changelog',
      tools: [
        { type: 'mcp', server_label: 'docs', server_url: 'https://example.com/mcp', allowed_tools: ['lookup'], require_approval: 'never' },
      ],
    },
    item: 'mcp_call',
    events: [
      'response.mcp_list_tools.completed',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
    ],
    check(item, r) {
      const call = item as Item<'mcp_call'>;
      expect(call).toMatchObject({ server_label: 'docs', name: 'lookup', error: null, approval_request_id: null });
      expect(call.output).toMatch(/^Lookup result: /);
      expect(r.output_text).toContain(call.output!);
    },
  },
  {
    name: 'computer_use_preview',
    body: {
      input: 'Take a screenshot of the screen',
      tools: [{ type: 'computer_use_preview', display_width: 1280, display_height: 800, environment: 'browser' }],
    },
    item: 'computer_call',
    events: ['response.output_item.done'],
    check(item) {
      const call = item as Item<'computer_call'>;
      expect(call.action).toEqual({ type: 'screenshot' });
      expect(call.pending_safety_checks).toEqual([]);
      expect(call.call_id).toMatch(/^call_/);
    },
  },
  {
    name: 'computer',
    body: { input: 'Click the middle of the screen', tools: [{ type: 'computer' }] },
    item: 'computer_call',
    events: ['response.output_item.done'],
    check(item) {
      expect((item as Item<'computer_call'>).actions).toEqual([{ type: 'click', button: 'left', x: 512, y: 384 }]);
    },
  },
  {
    name: 'local_shell',
    body: { input: 'Run `git log -1` in the shell', tools: [{ type: 'local_shell' }] },
    item: 'local_shell_call',
    events: ['response.output_item.done'],
    check(item) {
      expect((item as Item<'local_shell_call'>).action).toMatchObject({ type: 'exec', command: ['bash', '-lc', 'git log -1'], env: {} });
    },
  },
  {
    name: 'shell',
    body: { input: 'Run the tests in the terminal', tools: [{ type: 'shell', environment: { type: 'local' } }] },
    item: 'shell_call',
    events: ['response.shell_call_command.added', 'response.shell_call_command.delta', 'response.shell_call_command.done'],
    check(item) {
      expect((item as Item<'shell_call'>).action.commands).toEqual(['npm test']);
    },
  },
  {
    name: 'apply_patch',
    body: { input: 'Patch src/app.ts: replace "foo" with "bar"', tools: [{ type: 'apply_patch' }] },
    item: 'apply_patch_call',
    events: ['response.output_item.done'],
    check(item) {
      expect((item as Item<'apply_patch_call'>).operation).toEqual({ type: 'update_file', path: 'src/app.ts', diff: '@@\n-foo\n+bar\n' });
    },
  },
  {
    name: 'custom (Lark grammar)',
    body: {
      input: 'Use the math_expression tool',
      tools: [
        {
          type: 'custom',
          name: 'math_expression',
          format: {
            type: 'grammar',
            syntax: 'lark',
            definition: 'start: expr\nexpr: NUMBER (SP OP SP NUMBER)*\nOP: "+" | "-" | "*"\nSP: " "\n%import common.NUMBER',
          },
        },
      ],
    },
    item: 'custom_tool_call',
    events: ['response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done'],
    check(item) {
      const call = item as Item<'custom_tool_call'>;
      expect(call.name).toBe('math_expression');
      expect(call.input).toMatch(/^\d+( [-+*] \d+)*$/);
    },
  },
  {
    name: 'custom (regex grammar)',
    body: {
      input: 'Call the ticket tool',
      tools: [{ type: 'custom', name: 'ticket', format: { type: 'grammar', syntax: 'regex', definition: '^[A-Z]{3}-\\d{4}$' } }],
    },
    item: 'custom_tool_call',
    events: ['response.custom_tool_call_input.done'],
    check(item) {
      expect((item as Item<'custom_tool_call'>).input).toMatch(/^[A-Z]{3}-\d{4}$/);
    },
  },
  {
    name: 'tool_search (a deferred function found, then called)',
    body: { input: 'What is the weather in Paris?', tools: [{ type: 'tool_search' }, { ...weatherFn, defer_loading: true }] },
    item: 'tool_search_call',
    events: ['response.output_item.added', 'response.output_item.done', 'response.function_call_arguments.done'],
    check(item, r) {
      expect(r.output.map((o) => o.type)).toEqual(['tool_search_call', 'tool_search_output', 'function_call']);
      const found = r.output[1] as Item<'tool_search_output'>;
      expect(found.tools.map((t) => (t as { name?: string }).name)).toEqual(['get_weather']);
      expect((item as Item<'tool_search_call'>).execution).toBe('server');
    },
  },
  {
    name: 'namespace',
    body: {
      input: 'Look up the customer Ada',
      tools: [
        {
          type: 'namespace',
          name: 'crm',
          description: 'Customer records',
          tools: [{ type: 'function', name: 'lookup_customer', parameters: { type: 'object', properties: { name: { type: 'string' } } } }],
        },
      ],
    },
    item: 'function_call',
    events: ['response.function_call_arguments.done'],
    check(item) {
      expect((item as Item<'function_call'>).name).toBe('lookup_customer');
    },
  },
];

/** A fixture that scripts a web search: what it found, and the answer that cites it. */
const NEWS: Fixture = {
  name: 'news search',
  match: { userMessage: { contains: 'rocket launch' } },
  reply: {
    builtinCalls: [
      {
        tool: 'web_search',
        query: 'rocket launch today',
        results: [
          { title: 'Launch schedule', url: 'https://space.example/launches', snippet: 'The next launch is at 14:00 UTC.' },
          { title: 'Weather at the pad', url: 'https://weather.example/pad', snippet: 'Clear skies are forecast.' },
        ],
      },
    ],
    text: 'The rocket lifts off at 14:00 UTC (Launch schedule). The sky will be clear.',
    citations: [
      { text: 'The rocket lifts off at 14:00 UTC (Launch schedule).', result: 1 },
      { text: 'The sky will be clear.', result: 2 },
    ],
  },
};

/** Fixtures that script what code printed, which command the model runs, and a computer action with its safety check. */
const SCRIPTED: Fixture[] = [
  {
    name: 'the sum',
    match: { userMessage: { contains: 'the total' } },
    reply: { builtinCalls: [{ tool: 'code_execution', code: 'print(sum([1, 2, 3]))', output: '6\n' }], text: 'The total is 6.' },
  },
  {
    name: 'the tests',
    match: { userMessage: { contains: 'run the suite' } },
    reply: { builtinCalls: [{ tool: 'shell', commands: ['npm ci', 'npm test -- --run'] }] },
  },
  {
    name: 'the login',
    match: { userMessage: { contains: 'log in' } },
    reply: {
      builtinCalls: [
        {
          tool: 'computer',
          action: { type: 'type', text: 'hunter2' },
          safetyChecks: [{ code: 'malicious_instructions', message: 'The page asks for a password.' }],
        },
      ],
    },
  },
];

describe.each(modes)('OpenAI built-in tools ($name)', (mode) => {
  const ctx = withGateway(mode, { fixtures: [NEWS, ...SCRIPTED] });

  async function streamed(body: Body): Promise<{ events: ResponseStreamEvent[]; final: Response }> {
    const stream = ctx.client.responses.stream({ model: MODEL, ...body });
    const events: ResponseStreamEvent[] = [];
    stream.on('event', (e) => events.push(e));
    return { final: await stream.finalResponse(), events };
  }

  it.each(CASES)(
    '$name: used once plain and once streamed, in its typed item, valid against the spec',
    async ({ body, item, events: expected, check }) => {
      const plain = await ctx.client.responses.create({ model: MODEL, ...body });
      assertSchema('Response', plain);
      const found = plain.output.find((o) => o.type === item);
      expect(found, `no ${item} in ${plain.output.map((o) => o.type)}`).toBeDefined();
      check(found!, plain);
      const { events, final } = await streamed(body);
      assertResponseEvents(events);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const types = events.map((e) => e.type);
      expect(inOrder(types, ['response.created', 'response.output_item.added', ...expected, 'response.completed']), types.join(' ')).toBe(
        true,
      );
      expect(unparsed(final.output)).toEqual(plain.output);
      check(final.output.find((o) => o.type === item)!, final);
    },
  );

  it('accepts the built-in tools it never uses (programmatic tool calling) and shows every tool back with its defaults', async () => {
    const r = await ctx.client.responses.create({
      model: MODEL,
      input: 'Hello there',
      tools: [{ type: 'programmatic_tool_calling' }, { type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }],
    });
    assertSchema('Response', r);
    expect(r.output.map((o) => o.type)).toEqual(['message']);
    expect(r.tools).toEqual([
      { type: 'programmatic_tool_calling' },
      { type: 'web_search', filters: null, search_context_size: 'medium', user_location: null },
      { type: 'file_search', vector_store_ids: ['vs_1'], filters: null, max_num_results: 20 },
    ]);
    expect(r.tool_usage).toBeUndefined();
    // An MCP server's secrets are not shown back.
    const mcp = await ctx.client.responses.create({
      model: MODEL,
      input: 'Hello there',
      tools: [
        { type: 'mcp', server_label: 'crm', server_url: 'https://crm.example/mcp', authorization: 'tok_secret', headers: { 'X-Key': 'k' } },
      ],
    });
    expect(JSON.stringify(mcp.tools)).not.toMatch(/tok_secret|X-Key/);
    expect(mcp.tools[0]).toMatchObject({ type: 'mcp', server_label: 'crm', headers: null, require_approval: 'always' });
  });

  it('forces a built-in tool with tool_choice, and refuses a choice of a tool not offered', async () => {
    const r = await ctx.client.responses.create({
      model: MODEL,
      input: 'Hello there',
      tools: [{ type: 'image_generation' }, { type: 'code_interpreter', container: 'cntr_mine' }],
      tool_choice: { type: 'code_interpreter' },
    });
    const call = r.output[0] as Item<'code_interpreter_call'>;
    expect(call).toMatchObject({ type: 'code_interpreter_call', container_id: 'cntr_mine', outputs: null });
    const refused = await ctx.client.responses
      .create({ model: MODEL, input: 'Hi', tools: [{ type: 'web_search' }], tool_choice: { type: 'image_generation' } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.param).toBe('tool_choice');
  });

  it('runs an approved MCP call in the next response, and says so when it is refused', async () => {
    const tools: Body['tools'] = [
      { type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp', require_approval: 'always' },
    ];
    const first = await ctx.client.responses.create({ model: MODEL, input: 'Ask deepwiki about React', tools });
    const ask = first.output.find((o) => o.type === 'mcp_approval_request') as Item<'mcp_approval_request'>;
    const approved = await ctx.client.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: ask.id, approve: true }],
      tools,
    });
    assertSchema('Response', approved);
    expect(approved.output.map((o) => o.type)).toEqual(['mcp_call', 'message']);
    expect(approved.output[0]).toMatchObject({
      name: 'search',
      arguments: ask.arguments,
      approval_request_id: ask.id,
      status: 'completed',
    });
    // The whole conversation sent again instead: the same, and a refusal runs nothing.
    const refused = await ctx.client.responses.create({
      model: MODEL,
      input: [
        { role: 'user', content: 'Ask deepwiki about React' },
        ...first.output.map((o) => o as never),
        { type: 'mcp_approval_response', approval_request_id: ask.id, approve: false, reason: 'not now' },
      ],
      tools,
    });
    expect(refused.output.map((o) => o.type)).toEqual(['message']);
  });

  it('takes the output of each call the client ran and answers from it, ending the agent loop', async () => {
    const rounds: [Body['tools'], string, (call: ResponseOutputItem) => Record<string, unknown>][] = [
      [
        [{ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'mac' }],
        'Take a screenshot',
        (c) => ({
          type: 'computer_call_output',
          call_id: (c as Item<'computer_call'>).call_id,
          output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,AAAA' },
        }),
      ],
      [
        [{ type: 'local_shell' }],
        'Run `ls` in the shell',
        (c) => ({ type: 'local_shell_call_output', id: (c as Item<'local_shell_call'>).id, output: 'README.md\n' }),
      ],
      [
        [{ type: 'shell' }],
        'Run `ls` in the shell',
        (c) => ({
          type: 'shell_call_output',
          call_id: (c as Item<'shell_call'>).call_id,
          output: [{ stdout: 'README.md\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
        }),
      ],
      [
        [{ type: 'apply_patch' }],
        'Patch notes.md',
        (c) => ({
          type: 'apply_patch_call_output',
          call_id: (c as Item<'apply_patch_call'>).call_id,
          status: 'completed',
          output: 'patched README.md',
        }),
      ],
      [
        [{ type: 'custom', name: 'query_database' }],
        'Query the database: "select 1"',
        (c) => ({ type: 'custom_tool_call_output', call_id: (c as Item<'custom_tool_call'>).call_id, output: 'README.md' }),
      ],
    ];
    for (const [tools, input, answer] of rounds) {
      const first = await ctx.client.responses.create({ model: MODEL, input, tools });
      const call = first.output[0];
      const second = await ctx.client.responses.create({
        model: MODEL,
        previous_response_id: first.id,
        input: [answer(call) as never],
        tools,
      });
      assertSchema('Response', second);
      expect(
        second.output.map((o) => o.type),
        call.type,
      ).toEqual(['message']);
      expect(second.output_text, call.type).toMatch(/README\.md|\[object|According to/);
    }
  });

  it('answers as a fixture scripts it: what the search found, and the answer citing it', async () => {
    const r = await ctx.client.responses.create({
      model: MODEL,
      input: 'When is the rocket launch today?',
      tools: [{ type: 'web_search' }],
      include: ['web_search_call.action.sources'],
    });
    assertSchema('Response', r);
    const call = r.output[0] as Item<'web_search_call'>;
    expect(call.action).toEqual({
      type: 'search',
      query: 'rocket launch today',
      queries: ['rocket launch today'],
      sources: [
        { type: 'url', url: 'https://space.example/launches' },
        { type: 'url', url: 'https://weather.example/pad' },
      ],
    });
    expect(r.output_text).toBe('The rocket lifts off at 14:00 UTC (Launch schedule). The sky will be clear.');
    const text = (r.output[1] as Item<'message'>).content[0] as Extract<Item<'message'>['content'][number], { type: 'output_text' }>;
    const first = 'The rocket lifts off at 14:00 UTC (Launch schedule).';
    expect(text.annotations).toEqual([
      { type: 'url_citation', start_index: 0, end_index: first.length, url: 'https://space.example/launches', title: 'Launch schedule' },
      {
        type: 'url_citation',
        start_index: first.length + 1,
        end_index: text.text.length,
        url: 'https://weather.example/pad',
        title: 'Weather at the pad',
      },
    ]);
  });

  it('answers as fixtures script them: what the code printed, which commands run, a computer action and its safety check', async () => {
    const code = await ctx.client.responses.create({
      model: MODEL,
      input: 'What is the total?',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
      include: ['code_interpreter_call.outputs'],
    });
    expect(code.output[0]).toMatchObject({
      type: 'code_interpreter_call',
      code: 'print(sum([1, 2, 3]))',
      outputs: [{ type: 'logs', logs: '6\n' }],
    });
    expect(code.output_text).toBe('The total is 6.');
    const shell = await ctx.client.responses.create({ model: MODEL, input: 'Please run the suite', tools: [{ type: 'shell' }] });
    expect((shell.output[0] as Item<'shell_call'>).action.commands).toEqual(['npm ci', 'npm test -- --run']);
    const local = await ctx.client.responses.create({ model: MODEL, input: 'Please run the suite', tools: [{ type: 'local_shell' }] });
    expect((local.output[0] as Item<'local_shell_call'>).action.command).toEqual(['bash', '-lc', 'npm ci && npm test -- --run']);
    const computer = await ctx.client.responses.create({
      model: MODEL,
      input: 'Please log in for me',
      tools: [{ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'browser' }],
    });
    assertSchema('Response', computer);
    const call = computer.output[0] as Item<'computer_call'>;
    expect(call.action).toEqual({ type: 'type', text: 'hunter2' });
    expect(call.pending_safety_checks).toEqual([
      { id: expect.stringMatching(/^cu_sc_/), code: 'malicious_instructions', message: 'The page asks for a password.' },
    ]);
  });

  it('refuses a fixture whose builtinCalls break the schema, naming the place and the rule', () => {
    expect(() => validateFixtures([{ name: 'bad', reply: { builtinCalls: [{ tool: 'shell', command: 'ls' }] } }], 'test')).toThrow(
      /fixture 0 \("bad"\), at \/reply\/builtinCalls\/0: must match exactly one schema/,
    );
    expect(() => validateFixtures([{ reply: { citations: [{ text: 'x', result: 0 }] } }], 'test')).toThrow(
      /\/reply\/citations\/0\/result: must be >= 1/,
    );
  });

  it.each([
    [
      { type: 'web_search', search_context_size: 'huge' },
      'tools[0].search_context_size',
      /Supported values are: 'low', 'medium', and 'high'/,
    ],
    [{ type: 'web_search', allowed_domains: ['a.com'] }, 'tools[0].allowed_domains', /allowed_domains/],
    [{ type: 'web_search_preview', user_location: { city: 'Oslo' } }, 'tools[0].user_location.type', /Missing required parameter/],
    [{ type: 'file_search' }, 'tools[0].vector_store_ids', /Missing required parameter/],
    [{ type: 'file_search', vector_store_ids: ['vs_1'], max_num_results: 51 }, 'tools[0].max_num_results', /<= 50/],
    [{ type: 'computer_use_preview', display_width: 1024, display_height: 768 }, 'tools[0].environment', /Missing required parameter/],
    [{ type: 'mcp', server_label: 'x' }, 'tools[0].server_url', /Missing required parameter/],
    [{ type: 'mcp', server_label: 'x', server_url: 'not a url' }, 'tools[0].server_url', /expected a URL/],
    [
      { type: 'mcp', server_label: 'x', server_url: 'https://x.example', require_approval: 'sometimes' },
      'tools[0].require_approval',
      /'always' and 'never'/,
    ],
    [{ type: 'code_interpreter' }, 'tools[0].container', /Missing required parameter/],
    [
      { type: 'code_interpreter', container: { type: 'auto', memory_limit: '2g' } },
      'tools[0].container.memory_limit',
      /'1g', '4g', '16g', and '64g'/,
    ],
    [{ type: 'image_generation', quality: 'ultra' }, 'tools[0].quality', /Supported values/],
    [{ type: 'image_generation', size: '4096x4096' }, 'tools[0].size', /'auto', '1024x1024', '1536x1024', and '1024x1536'/],
    [{ type: 'image_generation', output_format: 'jpeg', background: 'transparent' }, 'tools[0].background', /Transparent background/],
    [{ type: 'custom' }, 'tools[0].name', /Missing required parameter/],
    [
      { type: 'custom', name: 'x', format: { type: 'grammar', syntax: 'ebnf', definition: 'a' } },
      'tools[0].format.syntax',
      /'lark' and 'regex'/,
    ],
    [
      { type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'web_search' }] },
      'tools[0].tools[0].type',
      /'function' and 'custom'/,
    ],
    [{ type: 'warp_drive' }, 'tools[0].type', /Supported values are: 'function', 'file_search'/],
  ] as const)('refuses the tool %j with a 400 naming %s', async (tool, param, message) => {
    const error = await ctx.client.responses.create({ model: MODEL, input: 'Hi', tools: [tool as never] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe(param);
    expect(error.message).toMatch(message);
  });

  it('calls a custom tool from chat completions with free-form input in its grammar, plain and streamed, and takes its output back', async () => {
    const tools = [
      {
        type: 'custom' as const,
        custom: {
          name: 'ticket_lookup',
          description: 'Finds a ticket',
          format: { type: 'grammar' as const, grammar: { syntax: 'regex' as const, definition: '^[A-Z]{3}-\\d{4}$' } },
        },
      },
    ];
    const messages = [{ role: 'user' as const, content: 'Find the ticket for me' }];
    const plain = await ctx.client.chat.completions.create({ model: MODEL, messages, tools });
    assertSchema('CreateChatCompletionResponse', plain);
    const call = plain.choices[0].message.tool_calls![0];
    if (call.type !== 'custom') throw new Error(call.type);
    expect(call.custom.name).toBe('ticket_lookup');
    expect(call.custom.input).toMatch(/^[A-Z]{3}-\d{4}$/);
    expect(plain.choices[0].finish_reason).toBe('tool_calls');
    // The SDK's stream helper puts the call together from its deltas.
    const streamed = await ctx.client.chat.completions.stream({ model: MODEL, messages, tools }).finalChatCompletion();
    expect(streamed.choices[0].message.tool_calls).toEqual(plain.choices[0].message.tool_calls);
    const answered = await ctx.client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [...messages, plain.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'Ticket is open.' }],
    });
    expect(answered.choices[0].message.content).toContain('Ticket is open.');
    const refused = await ctx.client.chat.completions
      .create({
        model: MODEL,
        messages,
        tools: [
          { type: 'custom', custom: { name: 'x', format: { type: 'grammar', grammar: { syntax: 'ebnf', definition: 'a' } } } } as never,
        ],
      })
      .catch((e) => e);
    expect(refused.param).toBe('tools[0].custom.format.grammar.syntax');
  });

  it("answers a search model's chat completion with url_citation annotations, plain and streamed", async () => {
    const body = {
      model: 'gpt-4o-search-preview',
      messages: [{ role: 'user' as const, content: 'What happened in Oslo today?' }],
      web_search_options: {
        search_context_size: 'low' as const,
        user_location: { type: 'approximate' as const, approximate: { city: 'Oslo' } },
      },
    };
    const plain = await ctx.client.chat.completions.create(body);
    assertSchema('CreateChatCompletionResponse', plain);
    const message = plain.choices[0].message;
    expect(message.annotations!.length).toBe(3);
    for (const a of message.annotations!)
      expect(message.content!.slice(a.url_citation.start_index, a.url_citation.end_index)).toContain(a.url_citation.title);
    const chunks = await ctx.client.chat.completions.create({ ...body, stream: true });
    const got: unknown[] = [];
    let text = '';
    for await (const chunk of chunks) {
      assertSchema('CreateChatCompletionStreamResponse', chunk);
      text += chunk.choices[0]?.delta.content ?? '';
      const cited = (chunk.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations;
      if (cited) got.push(...cited);
    }
    expect(text).toBe(message.content);
    expect(got).toEqual(message.annotations);
    const refused = await ctx.client.chat.completions
      .create({ ...body, web_search_options: { search_context_size: 'tiny' as never } })
      .catch((e) => e);
    expect(refused.param).toBe('web_search_options.search_context_size');
  });
});
