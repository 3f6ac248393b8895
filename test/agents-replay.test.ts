// Issue 27: agent runs record and replay. A first emulator stands in for the real service, driven by
// fixtures on the agent's instructions, the tool calls made so far and the last tool result; a second
// records in front of it; the recording then replays strictly, with no upstream, over a socket and
// in-process: the same turns in the same order, the same final output, and nothing left unrecorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { ChatOpenAI } from '@langchain/openai';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatAnthropic } from '@langchain/anthropic';
import { tool as lcTool } from '@langchain/core/tools';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { setupServer } from 'msw/node';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites, strictListen } from './helpers/modes.ts';
import { createGateway, type Fixture, type JournalEntry } from '../src/index.ts';
import { loadFixtureDir } from '../src/fixtures/load.ts';

const TOKEN = 'sk-agents-replay-4242';
const TRIAGE = 'You are the triage agent: look up the weather and the time, then hand off to the planner.';
const PLANNER = 'You are the planner agent: answer with the plan.';

/**
 * The upstream's script for the triage agent, stateless: what it does next follows from the tool
 * calls already made and what the last one returned. The planner is left to synthesis (its JSON
 * follows the output schema).
 */
const UPSTREAM: Fixture[] = [
  {
    name: 'triage: weather first',
    match: { system: { contains: 'triage agent' }, toolCalls: [] },
    reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
  },
  {
    name: 'triage: then the time',
    match: {
      system: { contains: 'triage agent' },
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      toolResult: { contains: 'sunny' },
    },
    priority: 1,
    reply: { text: 'Sunny; now the time.', toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }] },
  },
  {
    name: 'triage: hand off',
    match: { system: { contains: 'triage agent' }, toolCalls: ['get_weather', 'get_time'] },
    priority: 2,
    reply: { toolCalls: [{ name: 'transfer_to_Planner', arguments: {} }] },
  },
  // The LangChain loops: a weather lookup, then an answer from its result.
  {
    name: 'loop: look up',
    match: { userMessage: { contains: 'umbrella' }, toolCalls: [] },
    reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  },
  {
    name: 'loop: answer',
    match: { userMessage: { contains: 'umbrella' }, toolResult: { contains: 'rain' } },
    reply: { text: 'Take an umbrella: rain in Oslo.' },
  },
];

const Plan = z.object({ city: z.string(), summary: z.string(), bookTable: z.boolean() });

/** Every tool run, so a replay shows the agent did the same work, in order. */
const toolRuns: string[] = [];

function agents() {
  const weather = tool({
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => (toolRuns.push(`get_weather ${city}`), `sunny, 21 C in ${city}`),
  });
  const time = tool({
    name: 'get_time',
    description: 'Local time in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => (toolRuns.push(`get_time ${city}`), `14:05 in ${city}`),
  });
  const planner = new Agent({ name: 'Planner', instructions: PLANNER, model: 'gpt-4o-mini', outputType: Plan });
  return Agent.create({ name: 'Triage', instructions: TRIAGE, model: 'gpt-4o-mini', tools: [weather, time], handoffs: [planner] });
}

/** An agent run as its caller sees it: each item (type, agent, raw item), the last agent and the final output; plus the tools it ran. */
async function agentRun(baseURL: string, input: string, stream: boolean) {
  const openAIClient = new OpenAI({ apiKey: TOKEN, baseURL, maxRetries: 0 });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }), tracingDisabled: true });
  toolRuns.length = 0;
  const result = stream ? await runner.run(agents(), input, { stream: true }) : await runner.run(agents(), input);
  const text: string[] = [];
  if (stream && 'toTextStream' in result) {
    for await (const piece of result.toTextStream()) text.push(piece);
    await result.completed;
  }
  return {
    // A hand-off's output item names the agent handed to instead of its own.
    items: result.newItems.map((item) => ({
      type: item.type,
      agent: 'targetAgent' in item ? item.targetAgent.name : item.agent.name,
      raw: item.rawItem,
    })),
    lastAgent: result.lastAgent?.name,
    finalOutput: result.finalOutput,
    streamedText: text.join(''),
    tools: [...toolRuns],
  };
}

/** A LangChain tool loop: call the model, run the tools it asks for, until it answers in text. */
async function langchainLoop(model: ChatOpenAI | ChatGoogleGenerativeAI | ChatAnthropic) {
  const weather = lcTool(async ({ city }: { city: string }) => `rain, 9 C in ${city}`, {
    name: 'get_weather',
    description: 'Weather for a city',
    schema: z.object({ city: z.string() }),
  });
  const bound = model.bindTools([weather]);
  const messages: BaseMessage[] = [new HumanMessage('Do I need an umbrella in Oslo today?')];
  for (let step = 0; step < 5; step++) {
    const reply = await bound.invoke(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) break;
    for (const call of reply.tool_calls) messages.push(await weather.invoke(call));
  }
  // What the loop saw, without the ids a client may draw at random.
  return messages.map((m) => ({
    type: m.getType(),
    text: m.text,
    calls: 'tool_calls' in m ? (m.tool_calls as { name: string; args: unknown }[]).map((c) => [c.name, c.args]) : undefined,
  }));
}

const openaiChat = (baseURL: string) => new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: TOKEN, configuration: { baseURL }, maxRetries: 0 });
const gemini = (baseUrl: string) => new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', apiKey: TOKEN, baseUrl, maxRetries: 0 });
const claude = (anthropicApiUrl: string) =>
  new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: TOKEN, anthropicApiUrl, maxRetries: 0 });

/** Everything under test, against the gateway at `root`. */
async function traffic(root: string) {
  return {
    plain: await agentRun(`${root}/v1`, 'Plan an evening in Paris.', false),
    streamed: await agentRun(`${root}/v1`, 'Plan a streamed evening in Paris.', true),
    chat: await langchainLoop(openaiChat(`${root}/v1`)),
    gemini: await langchainLoop(gemini(root)),
    claude: await langchainLoop(claude(root)),
  };
}

async function journal(root: string): Promise<JournalEntry[]> {
  return ((await (await fetch(`${root}/__admin/requests`)).json()) as { requests: JournalEntry[] }).requests;
}

/** An upstream emulator at `seed` running the script (left running), and a recorder in front of it writing to `dir`: what the traffic saw through the recorder, and its journal. */
async function recordThrough(seed: number, dir: string) {
  const script = mkdtempSync(join(tmpdir(), 'mgm-agents-upstream-'));
  writeFileSync(join(script, 'script.json'), JSON.stringify(UPSTREAM));
  const upstream = await spawnCli(['--seed', String(seed), '--token', TOKEN, '--fixtures', script]);
  const recorder = await spawnCli(['--token', TOKEN, '--record', dir, '--upstream', upstream.url]);
  try {
    return { upstream, seen: await traffic(recorder.url), requests: await journal(recorder.url) };
  } finally {
    await recorder.stop();
  }
}

describe.runIf(socketSuites)('agent runs record and replay', () => {
  let upstream: Spawned;
  const dir = mkdtempSync(join(tmpdir(), 'mgm-agents-'));
  let direct: Awaited<ReturnType<typeof traffic>>;
  let recorded: Awaited<ReturnType<typeof traffic>>;
  let recordedRequests: JournalEntry[];

  beforeAll(async () => {
    let requests: JournalEntry[];
    ({ upstream, seen: recorded, requests } = await recordThrough(11, dir));
    recordedRequests = requests;
    direct = await traffic(upstream.url);
  }, 120_000);
  afterAll(() => upstream?.stop());

  it('the upstream drives the run: two tools, a hand-off, structured output, streaming', () => {
    expect(direct.plain.tools).toEqual(['get_weather Paris', 'get_time Paris']);
    expect(direct.plain.items.map((i) => `${i.agent}:${i.type}`)).toEqual([
      'Triage:tool_call_item',
      'Triage:tool_call_output_item',
      'Triage:message_output_item',
      'Triage:tool_call_item',
      'Triage:tool_call_output_item',
      'Triage:handoff_call_item',
      'Planner:handoff_output_item',
      'Planner:message_output_item',
    ]);
    expect(direct.plain.lastAgent).toBe('Planner');
    expect(Plan.parse(direct.plain.finalOutput)).toEqual(direct.plain.finalOutput);
    expect(direct.streamed.lastAgent).toBe('Planner');
    expect(direct.streamed.streamedText).toBe(`Sunny; now the time.${JSON.stringify(direct.streamed.finalOutput)}`);
    expect(direct.chat.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(direct.chat.at(-1)!.text).toBe('Take an umbrella: rain in Oslo.');
    expect(direct.gemini.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(direct.claude.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(direct.claude.at(-1)!.text).toBe('Take an umbrella: rain in Oslo.');
    expect(recorded).toEqual(direct);
  });

  it('records one fixture per model call, each with its history digest', () => {
    expect(recordedRequests.every((e) => e.fixture === 'recording')).toBe(true);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(recordedRequests.length);
    for (const file of files) {
      const fixture = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      expect(fixture.recorded.history.length).toBeGreaterThan(0);
      expect(JSON.stringify(fixture.recorded.history)).not.toContain('Paris');
    }
  });

  it('replays strictly with no upstream over a socket: the same turns, in order, and nothing more', async () => {
    const replay = await spawnCli(['--token', TOKEN, '--fixtures', dir, '--strict']);
    try {
      expect(await traffic(replay.url)).toEqual(direct);
      const seen = await journal(replay.url);
      expect(seen.map((e) => e.status)).toEqual(recordedRequests.map(() => 200));
      expect(seen.map((e) => e.path)).toEqual(recordedRequests.map((e) => e.path));
      expect(seen.every((e) => e.fixture?.startsWith('recorded '))).toBe(true);
    } finally {
      await replay.stop();
    }
  }, 60_000);

  it('re-recording the same run from an upstream that draws other ids writes the same files', async () => {
    // Another seed: every call id, response id and the planner's synthesized plan change; the script's pinned turns do not.
    const again = mkdtempSync(join(tmpdir(), 'mgm-agents-again-'));
    const { upstream: other, seen: second } = await recordThrough(12, again);
    await other.stop();
    expect(second.plain.items.map((i) => i.type)).toEqual(direct.plain.items.map((i) => i.type));
    expect(JSON.stringify(second.plain.items)).not.toBe(JSON.stringify(direct.plain.items));
    const names = (d: string) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.json'))
        .sort();
    expect(names(again)).toEqual(names(dir));
    expect(names(again).filter((f) => readFileSync(join(again, f), 'utf8') !== readFileSync(join(dir, f), 'utf8')).length).toBeGreaterThan(
      0,
    );
  }, 120_000);

  it('a turn whose history differs gets the near-miss report naming the message and the part', async () => {
    const replay = await spawnCli(['--token', TOKEN, '--fixtures', dir, '--strict']);
    try {
      // LangChain's second turn as recorded, re-sent with another call id, then with another tool result.
      const body = readdirSync(dir)
        .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
        .find((f) => f.match.endpoint === '/v1/chat/completions' && f.recorded.request.messages.length === 3).recorded.request;
      const turn = async (id: string, result: string) => {
        const [question, asked, answered] = body.messages;
        const messages = [
          question,
          { ...asked, tool_calls: [{ ...asked.tool_calls[0], id }] },
          { ...answered, tool_call_id: id, content: result },
        ];
        const res = await fetch(`${replay.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...body, messages }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { choices: { message: { content: string } }[]; error: { message: string } },
        };
      };
      // The recorded second turn answers whatever the client calls its tool call.
      const same = await turn('call_made_up_by_a_client', body.messages[2].content);
      expect(same.status).toBe(200);
      expect(same.body.choices[0].message.content).toBe('Take an umbrella: rain in Oslo.');
      const miss = await turn(body.messages[2].tool_call_id, 'snow, -3 C in Oslo');
      expect(miss.status).toBe(404);
      expect(miss.body.error.message).toMatch(
        /✗ history: expected message 3 \(user turn 1\), tool result: tool answering call #0, text digest [0-9a-f]+, got tool answering call #0, text "snow, -3 C in Oslo"/,
      );
    } finally {
      await replay.stop();
    }
  }, 60_000);

  it('replays strictly in-process (msw)', async () => {
    const gateway = createGateway({ origin: 'https://agents.test', tokens: [TOKEN], fixtures: loadFixtureDir(dir), strict: true });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      expect(await traffic('https://agents.test')).toEqual(direct);
      expect(gateway.requests().map((e) => e.status)).toEqual(recordedRequests.map(() => 200));
    } finally {
      server.close();
    }
  }, 60_000);
});

describe('the script drives every format, in-process', () => {
  it('an Anthropic tool loop follows toolCalls and toolResult like the others', async () => {
    const gateway = createGateway({ origin: 'https://script.test', tokens: [TOKEN], fixtures: UPSTREAM, strict: true });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const anthropic = new Anthropic({ apiKey: TOKEN, baseURL: 'https://script.test', maxRetries: 0 });
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
        },
      ];
      const question = { role: 'user' as const, content: 'Do I need an umbrella in Oslo today?' };
      const first = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 200, tools, messages: [question] });
      const use = first.content.find((b) => b.type === 'tool_use')!;
      expect([use.name, use.input]).toEqual(['get_weather', { city: 'Oslo' }]);
      const second = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 200,
        tools,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'rain, 9 C in Oslo' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'Take an umbrella: rain in Oslo.', citations: null }]);
      expect(gateway.requests().map((e) => e.fixture)).toEqual(['loop: look up', 'loop: answer']);
    } finally {
      server.close();
    }
  });

  it('a sequence answers each conversation turn by turn, interleaved', async () => {
    const steps: Fixture = {
      name: 'steps',
      match: { model: 'gpt-4o-mini' },
      sequence: [{ reply: { text: 'first' } }, { reply: { text: 'second' } }],
    };
    const gateway = createGateway({ origin: 'https://script.test', tokens: [TOKEN], fixtures: [steps] });
    const server = setupServer(...gateway.handlers);
    strictListen(server);
    try {
      const openai = new OpenAI({ apiKey: TOKEN, baseURL: 'https://script.test/v1', maxRetries: 0 });
      const say = async (...turns: string[]) => {
        const messages = turns.map((content, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content }));
        return (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0].message.content;
      };
      expect(await say('plan a trip')).toBe('first');
      expect(await say('book a table')).toBe('first');
      expect(await say('plan a trip', 'first', 'go on')).toBe('second');
      expect(await say('book a table', 'first', 'go on')).toBe('second');
    } finally {
      server.close();
    }
  });
});
