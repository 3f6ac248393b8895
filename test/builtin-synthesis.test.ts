// The built-in tools' synthesizer and tool rule, format-free: which tool a message names, the code it
// prints (exact arithmetic, bounded), text in a custom tool's grammar, the answer's citations, and that
// the same request gives the same uses.
import { describe, expect, it } from 'vitest';
import { searchCitations } from '../src/core/reply.ts';
import { respond } from '../src/core/respond.ts';
import { chooseTools } from '../src/core/tools.ts';
import type { CanonicalRequest, ToolSpec } from '../src/core/request.ts';
import type { BuiltinTool } from '../src/types/builtin.ts';
import { Budget } from '../src/core/synthesize/json.ts';
import { grammarText } from '../src/core/synthesize/grammar.ts';
import { canonicalRequest, userMessage } from './helpers/canonical.ts';

const tool = (name: string, builtin: BuiltinTool): ToolSpec => ({ name, parameters: { type: 'object', properties: {} }, builtin });
const SEARCH = tool('web_search', { kind: 'web_search', type: 'web_search' });
const CODE = tool('code_interpreter', { kind: 'code_execution', type: 'code_interpreter' });
const SHELL = tool('bash', { kind: 'shell', type: 'bash_20250124' });
const ask = (text: string, tools: ToolSpec[], over: Partial<CanonicalRequest> = {}) =>
  canonicalRequest({ messages: [userMessage(text)], tools, ...over });
const reply = (request: CanonicalRequest) => respond(request, { seed: 1, created: 0 });

describe('built-in tools: the tool rule', () => {
  it('uses a built-in tool when the message names what it does, and not otherwise', () => {
    expect(chooseTools(ask('Search the web for otters', [SEARCH, CODE, SHELL]))).toEqual([SEARCH]);
    expect(chooseTools(ask('Calculate 2 + 2 with python', [SEARCH, CODE, SHELL]))).toEqual([CODE]);
    expect(chooseTools(ask('Run it in the terminal', [SEARCH, CODE, SHELL]))).toEqual([SHELL]);
    expect(chooseTools(ask('Hello there', [SEARCH, CODE, SHELL]))).toEqual([]);
    // A fetch is named by a URL.
    const fetch = tool('web_fetch', { kind: 'web_fetch', type: 'web_fetch_20250910' });
    expect(chooseTools(ask('Summarize https://example.com/a', [fetch]))).toEqual([fetch]);
    // Never an inert tool, even forced.
    expect(chooseTools(ask('Hello', [tool('advisor', { kind: 'inert', type: 'advisor_20260301' })], { toolChoice: 'required' }))).toEqual(
      [],
    );
  });

  it('ends the loop after the client ran a built-in tool, and runs an MCP call once approved', () => {
    const mcp = tool('deepwiki', { kind: 'mcp', type: 'mcp', server: 'deepwiki', approval: 'always' });
    const asked = reply(ask('Ask the deepwiki mcp', [mcp])).choices[0];
    expect(asked.blocks.map((b) => b.type)).toEqual(['server_tool', 'tool_call']);
    const call = asked.blocks[1] as { id: string; name: string; arguments: string };
    const history = (approved: boolean) =>
      ask('Ask the deepwiki mcp', [mcp], {
        messages: [
          userMessage('Ask the deepwiki mcp'),
          { role: 'assistant', parts: [], toolCalls: [{ id: `mcpr_${call.id}`, name: call.name, arguments: call.arguments }] },
          { role: 'tool', toolCallId: `mcpr_${call.id}`, parts: [{ type: 'text', text: 'approved' }], approved },
        ],
      });
    const ran = reply(history(true)).choices[0];
    expect(ran.blocks.map((b) => b.type)).toEqual(['server_tool', 'text']);
    expect(ran.blocks[0]).toMatchObject({ use: { kind: 'mcp', tool: 'search', arguments: call.arguments, approvalId: `mcpr_${call.id}` } });
    expect(reply(history(false)).choices[0].blocks.map((b) => b.type)).toEqual(['text']);
  });
});

describe('built-in tools: what is synthesized', () => {
  const code = (text: string) => {
    const block = reply(ask(text, [CODE])).choices[0].blocks[0];
    if (block.type !== 'server_tool' || block.use.kind !== 'code_execution') throw new Error(block.type);
    return block.use;
  };

  it('prints what the code would print: integers exactly, division as a float', () => {
    expect(code('Use code to compute 2**100')).toMatchObject({
      code: 'result = 2**100\nprint(result)',
      stdout: '1267650600228229401496703205376\n',
    });
    expect(code('Calculate (7 + 3) * 12 - 4 in python').stdout).toBe('116\n');
    expect(code('Calculate 7 / 2 with code').stdout).toBe('3.5\n');
    expect(code('Calculate 6 / 2 with code').stdout).toBe('3.0\n');
    expect(code('Calculate 7 % 3 with code').stdout).toBe('1\n');
  });

  it('leaves arithmetic that would cost too much, or runs too long, for a small computation of its own', () => {
    for (const text of [
      `Compute ${'9'.repeat(300)} * 2 with code`,
      'Compute 10 ** 5000 with code',
      `Compute ${'('.repeat(5000)}1${')'.repeat(5000)} + 1 with code`,
    ]) {
      const use = code(text);
      expect(use.code).toMatch(/^values = \[/);
      const values = JSON.parse(/\[(.*)\]/.exec(use.code)![0]) as number[];
      expect(use.stdout).toContain(`sum=${values.reduce((a, b) => a + b, 0)}`);
    }
  });

  it('reads only the start of a long message, whatever is in the rest', () => {
    const call = reply(ask(`Run it in the shell ${'word '.repeat(200_000)} \`rm -rf /\``, [SHELL])).choices[0].blocks[0] as {
      arguments: string;
    };
    expect(JSON.parse(call.arguments).commands).not.toContain('rm -rf /');
  });

  it('writes text in a Lark grammar (recursion ends) and in a regex', () => {
    const lark = 'start: expr\nexpr: expr "+" term | term\nterm: "(" expr ")" | NUMBER\n%import common.NUMBER';
    for (let key = 0; key < 50; key++) expect(grammarText({ syntax: 'lark', definition: lark }, key, new Budget())).toMatch(/^[\d+()]+$/);
    expect(grammarText({ syntax: 'regex', definition: '^(GET|POST) /v[12]/[a-z]{3,5}$' }, 7, new Budget())).toMatch(
      /^(GET|POST) \/v[12]\/[a-z]{3,5}$/,
    );
    expect(() => grammarText({ syntax: 'lark', definition: 'start: missing' }, 1, new Budget())).toThrow(
      /the rule "missing" is not defined/,
    );
    expect(() => grammarText({ syntax: 'lark', definition: 'start: a\na: a' }, 1, new Budget())).toThrow(/levels of grammar rules/);
  });

  it('cites each page in the sentence that names it, the same for the same request', () => {
    const first = reply(ask('Search the web for otters', [SEARCH]));
    expect(reply(ask('Search the web for otters', [SEARCH]))).toEqual(first);
    const [search, text] = first.choices[0].blocks;
    if (search.type !== 'server_tool' || search.use.kind !== 'web_search' || text.type !== 'text') throw new Error('shape');
    const cited = searchCitations(text.citations);
    expect(cited.map((c) => c.result)).toEqual([0, 1, 2]);
    for (const c of cited) expect(text.text.slice(c.start, c.end)).toContain(search.use.results[c.result].title);
    expect(first.usage.serverToolUses).toEqual({ web_search: 1 });
  });
});
