// Fixture matching on its own (src/fixtures/match.ts): each condition, priority, sequences, `once`,
// scenarios, and the near-miss report; test/fixtures.test.ts proves the same through the SDKs.
import { describe, expect, it } from 'vitest';
import { FixtureScope, FixtureSet, matchKey, RUNTIME_FIXTURES, STARTED, type MatchContext } from '../src/fixtures/match.ts';
import { FixtureLimitError } from '../src/fixtures/error.ts';
import type { Fixture } from '../src/types/fixtures.ts';
import type { CanonicalRequest, Message } from '../src/core/request.ts';
import { conversationOf, MAX_SEQUENCE_CONVERSATIONS } from '../src/fixtures/sequences.ts';
import { historyOf } from '../src/fixtures/history.ts';
import { validateFixtures } from '../src/fixtures/validate.ts';
import { MAX_MATCHED_CHARS, MAX_PATTERN_CHARS } from '../src/fixtures/regex.ts';
import { TestScopes } from '../src/scope.ts';
import { requestKey } from '../src/core/respond.ts';
import { hashString } from '../src/core/seed.ts';
import { canonicalRequest } from './helpers/canonical.ts';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });

const request = (messages: Message[], fields: Partial<CanonicalRequest> = {}): CanonicalRequest =>
  canonicalRequest({ messages, ...fields });

function ctx(req: CanonicalRequest, path = '/v1/chat/completions', headers: Record<string, string> = {}): MatchContext {
  return { request: req, path, header: (name) => headers[name] };
}

/** The name of the fixture that answers, or undefined; counts the use like a request does. */
const answered = (set: FixtureSet, c: MatchContext) => set.take(c)?.entry.fixture.name;

describe('conditions', () => {
  it('userMessage: a plain string equals, contains, regex, and all of them at once', () => {
    const set = new FixtureSet([
      { name: 'plain', match: { userMessage: 'hello' } },
      { name: 'contains', match: { userMessage: { contains: 'weather' } } },
      { name: 'regex', match: { userMessage: { regex: '^order #\\d+$' } } },
      { name: 'equals', match: { userMessage: { equals: 'exactly this' } } },
      { name: 'both', match: { userMessage: { contains: 'red', regex: 'blue$' } } },
    ]);
    expect(answered(set, ctx(request([user('hello')])))).toBe('plain');
    expect(answered(set, ctx(request([user('hello there')])))).toBeUndefined();
    expect(answered(set, ctx(request([user('the weather in Paris')])))).toBe('contains');
    expect(answered(set, ctx(request([user('order #42')])))).toBe('regex');
    expect(answered(set, ctx(request([user('order #42 please')])))).toBeUndefined();
    expect(answered(set, ctx(request([user('exactly this')])))).toBe('equals');
    expect(answered(set, ctx(request([user('red then blue')])))).toBe('both');
    expect(answered(set, ctx(request([user('red then green')])))).toBeUndefined();
  });

  it('userMessage is the last user turn, not an earlier one', () => {
    const set = new FixtureSet([{ name: 'first', match: { userMessage: 'first' } }]);
    expect(answered(set, ctx(request([user('first'), assistant('ok'), user('second')])))).toBeUndefined();
    expect(answered(set, ctx(request([user('second'), assistant('ok'), user('first')])))).toBe('first');
  });

  it('turn counts user messages; hasToolResult looks at the last turn', () => {
    const set = new FixtureSet([
      { name: 'tool result', match: { hasToolResult: true } },
      { name: 'second turn', match: { turn: 2 } },
    ]);
    expect(answered(set, ctx(request([user('a')])))).toBeUndefined();
    expect(answered(set, ctx(request([user('a'), assistant('b'), user('c')])))).toBe('second turn');
    const toolTurn: Message = { role: 'tool', parts: [{ type: 'text', text: '{"temp":20}' }], toolCallId: 'call_1' };
    expect(
      answered(set, ctx(request([user('a'), { ...assistant(''), toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] }, toolTurn]))),
    ).toBe('tool result');
  });

  it('format, endpoint, model, system, hasTools, headers and requestKey', () => {
    const req = request([{ role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] }, user('hi')], {
      format: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    const c = ctx(req, '/v1/messages', { 'x-tenant': 'acme' });
    const one = (match: Fixture['match']) => answered(new FixtureSet([{ name: 'it', match }]), c);
    expect(
      one({ format: 'anthropic', endpoint: '/v1/messages', model: { regex: '^claude-' }, system: { contains: 'brief' }, hasTools: false }),
    ).toBe('it');
    expect(one({ format: 'openai' })).toBeUndefined();
    expect(one({ hasTools: true })).toBeUndefined();
    expect(one({ headers: { 'X-Tenant': 'acme' } })).toBe('it');
    expect(one({ headers: { 'X-Tenant': 'other' } })).toBeUndefined();
    expect(one({ requestKey: matchKey(req) })).toBe('it');
    expect(one({ requestKey: matchKey({ ...req, stream: true }) })).toBeUndefined();
  });
});

describe('which fixture wins', () => {
  it('the highest priority, then the most recently added (use() before configured)', () => {
    const set = new FixtureSet([
      { name: 'configured', match: { userMessage: { contains: 'x' } } },
      { name: 'configured, priority 1', match: { userMessage: { contains: 'x' } }, priority: 1 },
    ]);
    const c = ctx(request([user('x')]));
    expect(answered(set, c)).toBe('configured, priority 1');
    set.use({ name: 'runtime', match: { userMessage: { contains: 'x' } }, priority: 1 });
    expect(answered(set, c)).toBe('runtime');
    set.reset();
    expect(answered(set, c)).toBe('configured, priority 1');
  });

  it('a sequence answers step by step and repeats its last step; once answers once until reset', () => {
    const set = new FixtureSet([
      { name: 'steps', match: { userMessage: 'again' }, sequence: [{ reply: { text: 'one' } }, { reply: { text: 'two' } }] },
      { name: 'once', match: { userMessage: 'single' }, once: true, reply: { text: 'only' } },
    ]);
    const again = ctx(request([user('again')]));
    expect([1, 2, 3].map(() => set.take(again)?.answer.reply?.text)).toEqual(['one', 'two', 'two']);
    const single = ctx(request([user('single')]));
    expect(answered(set, single)).toBe('once');
    expect(answered(set, single)).toBeUndefined();
    set.reset();
    expect(set.take(again)?.answer.reply?.text).toBe('one');
    expect(answered(set, single)).toBe('once');
  });

  it('scenarios: a fixture answers only in its required state and moves the scenario on', () => {
    const set = new FixtureSet([
      { name: 'login', scenario: 'auth', requiredScenarioState: STARTED, newScenarioState: 'in', match: { userMessage: 'go' } },
      { name: 'inside', scenario: 'auth', requiredScenarioState: 'in', match: { userMessage: 'go' } },
    ]);
    const go = ctx(request([user('go')]));
    expect(set.scenarios()).toEqual([{ name: 'auth', state: STARTED, possibleStates: [STARTED, 'in'] }]);
    expect([answered(set, go), answered(set, go)]).toEqual(['login', 'inside']);
    expect(set.scenarios()[0].state).toBe('in');
    set.setScenario('auth', STARTED);
    expect(answered(set, go)).toBe('login');
    set.resetScenarios();
    expect(set.scenarios()[0].state).toBe(STARTED);
  });
});

describe('the near-miss report', () => {
  it('names the fixture that missed by the fewest conditions, with each condition checked', () => {
    const set = new FixtureSet([
      { name: 'far', match: { model: 'gpt-5', userMessage: 'nope', hasTools: true } },
      { name: 'near', match: { model: 'gpt-4o-mini', userMessage: { contains: 'weather' } } },
    ]);
    const c = ctx(request([user('what is the time')]));
    expect(set.find(c)).toBeUndefined();
    expect(set.nearest(c)).toEqual({
      id: 'fx_2',
      name: 'near',
      conditions: [
        { field: 'model', expected: 'equals "gpt-4o-mini"', actual: '"gpt-4o-mini"', ok: true },
        { field: 'userMessage', expected: 'contains "weather"', actual: '"what is the time"', ok: false },
      ],
    });
  });

  it('counts a scenario in the wrong state and a spent once fixture as missed conditions', () => {
    const set = new FixtureSet([
      { name: 'later', scenario: 's', requiredScenarioState: 'later', match: { userMessage: 'q' } },
      { name: 'spent', once: true, match: { userMessage: 'q' } },
    ]);
    const c = ctx(request([user('q')]));
    expect(answered(set, c)).toBe('spent');
    const miss = set.nearest(c)!;
    expect(miss.name).toBe('later');
    expect(miss.conditions.filter((x) => !x.ok)).toEqual([
      { field: 'scenario "s"', expected: '"later"', actual: `"${STARTED}"`, ok: false },
    ]);
    set.remove(miss.id);
    expect(set.nearest(c)!.conditions.filter((x) => !x.ok)).toEqual([
      { field: 'once', expected: 'unused', actual: 'already used', ok: false },
    ]);
  });

  it('clips a long actual text to 80 characters', () => {
    const set = new FixtureSet([{ name: 'short', match: { userMessage: 'x' } }]);
    const [cond] = set.nearest(ctx(request([user('y'.repeat(200))])))!.conditions;
    expect(cond.actual).toBe(JSON.stringify(`${'y'.repeat(80)}…`));
  });
});

// Issue 27: agent runs. Conditions on the tool calls made so far, the last tool result and the
// agent's instructions; sequences per conversation; a key that ignores made-up call ids.
const system = (text: string): Message => ({ role: 'system', parts: [{ type: 'text', text }] });
const calling = (...calls: [string, string, Record<string, unknown>][]): Message => ({
  role: 'assistant',
  parts: [],
  toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args) })),
});
const result = (id: string, text: string): Message => ({ role: 'tool', toolCallId: id, parts: [{ type: 'text', text }] });

/** A weather agent's third request: two tool calls made, both answered. */
function agentRun(ids = ['call_a', 'call_b'], city = 'Paris'): Message[] {
  return [
    system('You are the triage agent.'),
    user('Weather and time in Paris?'),
    calling([ids[0], 'get_weather', { city, units: { temp: 'C', wind: 'kmh' } }]),
    result(ids[0], '{"temp":21,"sky":"clear"}'),
    calling([ids[1], 'get_time', { city }]),
    result(ids[1], '14:05 CET'),
  ];
}

describe('agent conditions', () => {
  const one = (match: Fixture['match'], messages: Message[]) => answered(new FixtureSet([{ name: 'it', match }]), ctx(request(messages)));

  it('toolCalls: by name, by partial arguments (nested too), in order; [] only before any call', () => {
    const run = agentRun();
    expect(one({ toolCalls: ['get_weather'] }, run)).toBe('it');
    expect(one({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, run)).toBe('it');
    expect(one({ toolCalls: [{ name: 'get_weather', arguments: { units: { temp: 'C' } } }] }, run)).toBe('it');
    expect(one({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, run)).toBeUndefined();
    expect(one({ toolCalls: [{ name: 'get_weather', arguments: { units: { temp: 'F' } } }] }, run)).toBeUndefined();
    expect(one({ toolCalls: [{ name: 'get_weather', arguments: { missing: null } }] }, run)).toBeUndefined();
    expect(one({ toolCalls: ['get_weather', { name: 'get_time', arguments: { city: 'Paris' } }] }, run)).toBe('it');
    expect(one({ toolCalls: ['get_time', 'get_weather'] }, run)).toBeUndefined();
    expect(one({ toolCalls: ['get_weather', 'get_weather'] }, run)).toBeUndefined();
    expect(one({ toolCalls: ['book_table'] }, run)).toBeUndefined();
    expect(one({ toolCalls: [] }, run)).toBeUndefined();
    expect(one({ toolCalls: [] }, run.slice(0, 2))).toBe('it');
  });

  it('toolResult: the last tool result in the conversation, as a text match', () => {
    const run = agentRun();
    expect(one({ toolResult: { contains: 'CET' } }, run)).toBe('it');
    expect(one({ toolResult: { regex: '^\\d\\d:\\d\\d' } }, run)).toBe('it');
    expect(one({ toolResult: { contains: 'clear' } }, run)).toBeUndefined();
    expect(one({ toolResult: { contains: 'clear' } }, run.slice(0, 4))).toBe('it');
    // Still the last result after the model answered and the user spoke again.
    expect(one({ toolResult: '14:05 CET' }, [...run, assistant('It is sunny.'), user('Thanks')])).toBe('it');
    expect(one({ toolResult: '' }, run.slice(0, 2))).toBe('it');
  });

  it('system: an agent’s instructions, so one fixture set drives several agents', () => {
    const set = new FixtureSet([
      { name: 'triage', match: { system: { contains: 'triage' } } },
      { name: 'booking', match: { system: { regex: '^You are the booking' } } },
    ]);
    expect(answered(set, ctx(request(agentRun())))).toBe('triage');
    expect(answered(set, ctx(request([system('You are the booking agent.'), ...agentRun().slice(1)])))).toBe('booking');
  });

  it('the near-miss report shows the tool calls and the tool result it looked at', () => {
    const set = new FixtureSet([
      { name: 'rome', match: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }], toolResult: { contains: 'rain' } } },
    ]);
    expect(set.nearest(ctx(request(agentRun())))!.conditions).toEqual([
      {
        field: 'toolCalls',
        expected: 'get_weather {"city":"Rome"}',
        actual: JSON.stringify('get_weather {"city":"Paris","units":{"temp":"C","wind":"kmh"}}, get_time {"city"…'),
        ok: false,
      },
      { field: 'toolResult', expected: 'contains "rain"', actual: '"14:05 CET"', ok: false },
    ]);
  });
});

describe('sequences per conversation', () => {
  const steps: Fixture = {
    name: 'agent',
    match: { model: 'gpt-4o-mini' },
    sequence: [{ reply: { text: 'one' } }, { reply: { text: 'two' } }, { reply: { text: 'three' } }],
  };
  const say = (set: FixtureSet, messages: Message[]) => set.take(ctx(request(messages)))?.answer.reply?.text;

  it('each conversation (its first user message) advances on its own, interleaved or not', () => {
    const set = new FixtureSet([steps]);
    const a = [user('plan a trip')];
    const b = [user('book a table')];
    expect(say(set, a)).toBe('one');
    expect(say(set, b)).toBe('one');
    expect(say(set, [...a, assistant('one'), user('go on')])).toBe('two');
    expect(say(set, [...b, assistant('one'), user('go on')])).toBe('two');
    expect(say(set, [...a, assistant('one'), user('go on'), assistant('two'), user('and?')])).toBe('three');
    expect(say(set, [...a, assistant('one'), user('more')])).toBe('three');
    // A hand-off changes the instructions, not the conversation.
    expect(say(set, [system('You are the booking agent.'), ...b, assistant('one'), user('go on'), assistant('two')])).toBe('three');
    expect(say(set, [user('something else')])).toBe('one');
    set.reset();
    expect(say(set, a)).toBe('one');
  });

  it(`remembers at most ${MAX_SEQUENCE_CONVERSATIONS} conversations, forgetting the least recently advanced`, () => {
    const set = new FixtureSet([steps]);
    expect(say(set, [user('first')])).toBe('one');
    expect(say(set, [user('kept')])).toBe('one');
    for (let i = 0; i < MAX_SEQUENCE_CONVERSATIONS - 2; i++) say(set, [user(`conversation ${i}`)]);
    // Full: advancing 'kept' makes it the most recent, so the next new conversation evicts 'first'.
    expect(say(set, [user('kept')])).toBe('two');
    expect(say(set, [user('one more')])).toBe('one');
    expect(say(set, [user('kept')])).toBe('three');
    expect(say(set, [user('first')])).toBe('one');
  });

  it(`one bound for the shared requests and every test's: ${MAX_SEQUENCE_CONVERSATIONS} places in all, however many tests`, () => {
    const set = new FixtureSet([steps]);
    const scopes = new TestScopes();
    const sayIn = (test: string, text: string) => set.take(ctx(request([user(text)])), scopes.get(test).fixtures)?.answer.reply?.text;
    expect(sayIn('first test', 'hello')).toBe('one');
    expect(say(set, [user('hello')])).toBe('one');
    // Every live test (and more) fills the store: the first test's place is the least recently advanced.
    const perTest = Math.ceil(MAX_SEQUENCE_CONVERSATIONS / scopes.capacity) + 1;
    for (let t = 0; t <= scopes.capacity; t++) for (let i = 0; i < perTest; i++) sayIn(`test ${t}`, `conversation ${i}`);
    expect(set.sequencePlaces).toBe(MAX_SEQUENCE_CONVERSATIONS);
    // Forgotten under the shared bound (a store per test would have kept it: its test advanced one pair).
    expect(sayIn('first test', 'hello')).toBe('one');
    expect(set.sequencePlaces).toBe(MAX_SEQUENCE_CONVERSATIONS);
  });

  it("a reset test starts its sequences at the first step; other tests' and the shared places stay", () => {
    const set = new FixtureSet([steps]);
    const scopes = new TestScopes();
    const sayIn = (test: string, text: string) => set.take(ctx(request([user(text)])), scopes.get(test).fixtures)?.answer.reply?.text;
    expect(sayIn('a', 'hello')).toBe('one');
    expect(sayIn('a', 'hello')).toBe('two');
    expect(sayIn('b', 'hello')).toBe('one');
    expect(say(set, [user('hello')])).toBe('one');
    scopes.drop('a');
    expect(sayIn('a', 'hello')).toBe('one');
    expect(sayIn('b', 'hello')).toBe('two');
    expect(say(set, [user('hello')])).toBe('two');
    // The reset test's old place ages out under the bound; removing the fixture forgets its places in every scope.
    expect(set.sequencePlaces).toBe(4);
    set.remove(set.list()[0].id);
    expect(set.sequencePlaces).toBe(0);
  });

  it('conversationOf is the first user message, not the system prompt or what follows', () => {
    expect(conversationOf(request([system('a'), user('q'), assistant('x')]))).toBe(conversationOf(request([system('b'), user('q')])));
    expect(conversationOf(request([user('q')]))).not.toBe(conversationOf(request([user('r')])));
  });
});

describe('the match key of an agent run', () => {
  it('ignores the tool call ids the upstream or the client made up, and the key order of arguments', () => {
    const recorded = request(agentRun(['call_abc', 'call_def']));
    expect(matchKey(request(agentRun(['toolu_01X', 'toolu_02Y'])))).toBe(matchKey(recorded));
    const reordered = agentRun();
    reordered[2] = calling(['call_a', 'get_weather', { units: { wind: 'kmh', temp: 'C' }, city: 'Paris' }]);
    expect(matchKey(request(reordered))).toBe(matchKey(recorded));
    expect(matchKey(request(agentRun(undefined, 'Rome')))).not.toBe(matchKey(recorded));
    // Which call a result answers still counts.
    const swapped = agentRun();
    swapped[3] = result('call_b', '{"temp":21,"sky":"clear"}');
    expect(matchKey(request(swapped))).not.toBe(matchKey(recorded));
    // Without tool calls the key is what it always was.
    const plain = request([user('hi')]);
    expect(matchKey(plain)).toBe(
      hashString(`openai ${requestKey(plain, 0)} false`, 0)
        .toString(16)
        .padStart(8, '0'),
    );
  });

  it('still matches a recording keyed before ids were normalised', () => {
    const req = request(agentRun());
    const former = hashString(`openai ${requestKey(req, 0)} false`, 0)
      .toString(16)
      .padStart(8, '0');
    expect(former).not.toBe(matchKey(req));
    expect(answered(new FixtureSet([{ name: 'old', match: { requestKey: former } }]), ctx(req))).toBe('old');
  });

  it('a near miss names the recording whose history agrees longest, and the first message and part that differ', () => {
    const recording = (name: string, messages: Message[]): Fixture => {
      const req = request(messages);
      return { name, match: { requestKey: matchKey(req) }, recorded: { history: historyOf(req) } };
    };
    const full = agentRun();
    const set = new FixtureSet([recording('turn 1', full.slice(0, 2)), recording('turn 3', full), recording('turn 2', full.slice(0, 4))]);
    // The agent asked for Rome's time instead: message 5 (the second tool call) differs.
    const rome = [...full.slice(0, 4), calling(['call_b', 'get_time', { city: 'Rome' }]), result('call_b', '14:05 CET')];
    const miss = set.nearest(ctx(request(rome)))!;
    expect(miss.name).toBe('turn 3');
    const history = miss.conditions.find((c) => c.field === 'history')!;
    expect(history.ok).toBe(false);
    expect(history.expected).toMatch(/^message 5 \(user turn 1\), tool calls: assistant calling get_time, text digest [0-9a-f]+$/);
    expect(history.actual).toContain('get_time "{\\"city\\":\\"Rome\\"}"');
    // A different tool result: the part named is the tool result.
    const other = [...full.slice(0, 3), result('call_a', '{"temp":5}')];
    expect(set.nearest(ctx(request(other)))!.conditions.find((c) => c.field === 'history')!.expected).toMatch(
      /^message 4 \(user turn 1\), tool result: tool answering call #0/,
    );
    // A longer history than any recording: the one that agrees longest says where it ended.
    const longer = set.nearest(ctx(request([...full, assistant('Sunny, 14:05.'), user('thanks')])))!;
    expect(longer.name).toBe('turn 3');
    expect(longer.conditions.find((c) => c.field === 'history')).toMatchObject({
      expected: 'the history to end after 6 messages',
      actual: expect.stringMatching(/^message 7 \(user turn 1\): assistant, text "Sunny, 14:05."/),
    });
  });
});

describe('the near-miss ranking among fixtures that miss alike', () => {
  const recording = (name: string, text: string): Fixture => {
    const req = request([user(text)]);
    return {
      name,
      match: { requestKey: matchKey(req) },
      recorded: { request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }, history: historyOf(req) },
    };
  };

  it('names the recording a word away, not an unrelated one before it (both part at the first message)', () => {
    const set = new FixtureSet([
      recording('invoice', 'Summarise the attached invoice for the accounts team'),
      recording('paris', "What's the weather in Paris today?"),
      recording('poem', 'Write a poem about the sea'),
    ]);
    const miss = set.nearest(ctx(request([user("What's the weather in Rome today?")])))!;
    expect(miss.name).toBe('paris');
    expect(miss.conditions.find((c) => c.field === 'history')!.expected).toMatch(/^message 1 \(user turn 1\), text:/);
  });

  it('weighs the text conditions of hand-written fixtures the same way', () => {
    const set = new FixtureSet([
      { name: 'refund', match: { userMessage: { contains: 'refund my order' } } },
      { name: 'weather', match: { userMessage: 'weather in Paris' } },
    ]);
    expect(set.nearest(ctx(request([user('weather in Rome')])))!.name).toBe('weather');
    expect(set.nearest(ctx(request([user('refund my parcel')])))!.name).toBe('refund');
  });
});

describe('the schema of the agent conditions', () => {
  it('accepts names and partial arguments (a `regex` key among them is data), refuses anything else with the place', () => {
    const ok = [
      { name: 'ok', match: { toolCalls: ['get_time', { name: 'search', arguments: { regex: '(' } }], toolResult: { contains: 'x' } } },
    ];
    expect(validateFixtures(ok, 'test')).toEqual(ok);
    expect(() => validateFixtures([{ name: 'typo', match: { toolCalls: [{ name: 'get_time', args: {} }] } }], 'test')).toThrow(
      /fixture 0 \("typo"\), at \/match\/toolCalls\/0: must NOT have additional properties \(args\)/,
    );
    expect(() => validateFixtures([{ name: 'bad', match: { toolResult: { regex: '(' } } }], 'test')).toThrow(
      /at \/match\/toolResult\/regex: not a valid RE2 regular expression/,
    );
    expect(() => validateFixtures([{ name: 'empty', match: { toolCalls: [''] } }], 'test')).toThrow(/at \/match\/toolCalls\/0/);
  });
});

describe('fixture patterns (RE2: linear in the text, whatever the pattern)', () => {
  it('match as before: anywhere in the text, anchors, classes, alternation, inline flags', () => {
    const set = new FixtureSet([
      { name: 'nested', match: { userMessage: { regex: '^(\\w+\\s?)*$' } } },
      { name: 'case', match: { userMessage: { regex: '(?i)^ORDER #\\d+' } } },
    ]);
    expect(answered(set, ctx(request([user('just some words')])))).toBe('nested');
    expect(answered(set, ctx(request([user('order #42, please')])))).toBe('case');
    expect(answered(set, ctx(request([user('no match here!')])))).toBeUndefined();
  });

  it("answers the issue's nested quantifier on 45 letters and a `!` (V8's backtracking never returned)", () => {
    const set = new FixtureSet([{ name: 'nested', match: { userMessage: { regex: '^(\\w+\\s?)*$' } } }]);
    expect(answered(set, ctx(request([user(`${'a'.repeat(45)}!`)])))).toBeUndefined();
    // A megabyte of it: the pattern sees the first 64 Ki characters, cut there.
    expect(answered(set, ctx(request([user(`${'word '.repeat(200_000)}!`)])))).toBe('nested');
  });

  it('run on the first MAX_MATCHED_CHARS characters of a text', () => {
    const set = new FixtureSet([{ name: 'tail', match: { userMessage: { regex: 'needle' } } }]);
    expect(answered(set, ctx(request([user(`${'x'.repeat(MAX_MATCHED_CHARS - 6)}needle`)])))).toBe('tail');
    expect(answered(set, ctx(request([user(`${'x'.repeat(MAX_MATCHED_CHARS)}needle`)])))).toBeUndefined();
  });

  it('are refused when loaded in a dialect RE2 lacks, or longer than MAX_PATTERN_CHARS, naming the place and the dialect', () => {
    for (const regex of ['(a)\\1', '(?=a)b', '(?<!a)b', '(']) {
      expect(() => validateFixtures([{ name: 'js', match: { userMessage: { regex } } }], 'test')).toThrow(
        /fixture 0 \("js"\), at \/match\/userMessage\/regex: not a valid RE2 regular expression \(.+\); fixture patterns are RE2: no backreferences or lookaround/,
      );
    }
    expect(() => validateFixtures([{ match: { headers: { 'x-a': { regex: 'a'.repeat(MAX_PATTERN_CHARS + 1) } } } }], 'test')).toThrow(
      `at /match/headers/x-a/regex: a pattern is at most ${MAX_PATTERN_CHARS} characters, this one ${MAX_PATTERN_CHARS + 1}`,
    );
    expect(validateFixtures([{ match: { model: { regex: 'a'.repeat(MAX_PATTERN_CHARS) } } }], 'test')).toHaveLength(1);
  });
});

describe("run-time fixtures, bounded in count and bytes, the shared ones and every test's together", () => {
  it(`refuses the fixture past ${RUNTIME_FIXTURES.count}, counting each test's, and takes more once some are removed`, () => {
    const set = new FixtureSet([{ name: 'configured' }]);
    const test = new FixtureScope('t1', 1);
    const shared = set.useIn(
      undefined,
      Array.from({ length: RUNTIME_FIXTURES.count - 10 }, () => ({ reply: { text: 'x' } })),
      [test],
    );
    set.useIn(
      test,
      Array.from({ length: 10 }, () => ({ reply: { text: 'y' } })),
      [test],
    );
    expect(() => set.useIn(undefined, [{ reply: { text: 'one more' } }], [test])).toThrow(FixtureLimitError);
    expect(() => set.useIn(test, [{ reply: { text: 'one more' } }], [test])).toThrow(
      new RegExp(`at most ${RUNTIME_FIXTURES.count} fixtures added at run time .* it holds ${RUNTIME_FIXTURES.count} \\(`),
    );
    // Nothing of a refused batch is added; a removed fixture makes room; the configured one never counted.
    expect(set.list()).toHaveLength(RUNTIME_FIXTURES.count - 10 + 1);
    expect(set.remove(shared[0].id)).toBe(true);
    expect(set.useIn(undefined, [{ reply: { text: 'room again' } }], [test])).toHaveLength(1);
    set.reset();
    expect(
      set.useIn(
        undefined,
        Array.from({ length: 100 }, () => ({})),
        [test],
      ),
    ).toHaveLength(100);
  });

  it(`refuses fixtures past ${RUNTIME_FIXTURES.bytes / 1024 / 1024} MiB (as JSON), and a reset frees their room`, () => {
    const set = new FixtureSet([]);
    const big = (mib: number) => ({ reply: { text: 'z'.repeat(mib * 1024 * 1024) } });
    set.useIn(undefined, [big(40)]);
    expect(() => set.useIn(undefined, [big(30)])).toThrow(
      /and 64\.0 MiB of them \(as JSON\).* it holds 1 \(40\.0 MiB\), and these 1 weigh 30\.0 MiB/,
    );
    set.useIn(undefined, [big(20)]);
    set.reset();
    expect(set.useIn(undefined, [big(30)])).toHaveLength(1);
  });
});

describe("an error fixture's headers", () => {
  const withHeaders = (headers: Record<string, string>, inSequence = false) => {
    const error = { status: 429, headers };
    return [inSequence ? { name: 'h', sequence: [{ reply: { text: 'ok' } }, { error }] } : { name: 'h', error }];
  };

  it('are refused when loaded with a line break or control character in a value, naming the header', () => {
    for (const value of ['1\r\nset-cookie: stolen=1', 'a\nb', 'nul\u0000', 'bell\u0007']) {
      expect(() => validateFixtures(withHeaders({ 'retry-after': value }), 'test')).toThrow(
        /fixture 0 \("h"\), at \/error\/headers\/retry-after: the value holds a line break or another control character/,
      );
    }
    expect(() => validateFixtures(withHeaders({ 'retry-after': 'x\r\ny' }, true), 'test')).toThrow(
      /at \/sequence\/1\/error\/headers\/retry-after:/,
    );
    expect(() => validateFixtures(withHeaders({ 'bad name': '1' }), 'test')).toThrow(/"bad name" is not a header name/);
  });

  it('may not set the headers that frame the message or the connection', () => {
    for (const name of ['Transfer-Encoding', 'content-length', 'Connection', 'keep-alive', 'upgrade']) {
      expect(() => validateFixtures(withHeaders({ [name]: '1' }), 'test'), name).toThrow(
        new RegExp(`at /error/headers/${name}: ${name} frames the message or the connection`),
      );
    }
    expect(
      validateFixtures(withHeaders({ 'retry-after-ms': '150', 'x-should-retry': 'true', 'x-note': 'tab\there é' }), 'test'),
    ).toHaveLength(1);
  });
});
