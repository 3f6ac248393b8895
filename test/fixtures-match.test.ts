// Fixture matching on its own (src/fixtures/match.ts): each condition, priority, sequences, `once`,
// scenarios, and the near-miss report; test/fixtures.test.ts proves the same through the SDKs.
import { describe, expect, it } from 'vitest';
import { FixtureSet, matchKey, STARTED, type MatchContext } from '../src/fixtures/match.ts';
import type { Fixture } from '../src/fixtures/types.ts';
import type { CanonicalRequest, Message } from '../src/core/request.ts';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });

function request(messages: Message[], fields: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { format: 'openai', operation: 'chat', model: 'gpt-4o-mini', messages, stop: [], n: 1, stream: false, tools: [], toolChoice: 'auto', parallelToolCalls: true, output: { type: 'text' }, ...fields };
}

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
    expect(answered(set, ctx(request([user('a'), { ...assistant(''), toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] }, toolTurn])))).toBe('tool result');
  });

  it('format, endpoint, model, system, hasTools, headers and requestKey', () => {
    const req = request([{ role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] }, user('hi')], { format: 'anthropic', model: 'claude-sonnet-4-5' });
    const c = ctx(req, '/v1/messages', { 'x-tenant': 'acme' });
    const one = (match: Fixture['match']) => answered(new FixtureSet([{ name: 'it', match }]), c);
    expect(one({ format: 'anthropic', endpoint: '/v1/messages', model: { regex: '^claude-' }, system: { contains: 'brief' }, hasTools: false })).toBe('it');
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
    expect(miss.conditions.filter((x) => !x.ok)).toEqual([{ field: 'scenario "s"', expected: '"later"', actual: `"${STARTED}"`, ok: false }]);
    set.remove(miss.id);
    expect(set.nearest(c)!.conditions.filter((x) => !x.ok)).toEqual([{ field: 'once', expected: 'unused', actual: 'already used', ok: false }]);
  });

  it('clips a long actual text to 80 characters', () => {
    const set = new FixtureSet([{ name: 'short', match: { userMessage: 'x' } }]);
    const [cond] = set.nearest(ctx(request([user('y'.repeat(200))])))!.conditions;
    expect(cond.actual).toBe(JSON.stringify(`${'y'.repeat(80)}…`));
  });
});
