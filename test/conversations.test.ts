// OpenAI conversations through the openai SDK, in-process and over a socket: a conversation made with
// items, its items added, paged, retrieved and deleted; a conversation continued across responses.create
// calls (its items read before the input, the turn added after); the OpenAI Agents SDK keeping its
// state in one (conversationId on run, and OpenAIConversationsSession); tests kept apart.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { Agent, OpenAIConversationsSession, OpenAIProvider, Runner } from '@openai/agents';
import { createGateway } from '../src/index.ts';
import { heldModes, withHeld } from './helpers/gateways.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

const fixtures = [
  { match: { userMessage: 'My name is Ada.' }, reply: { text: 'Nice to meet you, Ada.' } },
  // The second user turn: only when the earlier turn is in the conversation the model is given.
  { match: { userMessage: 'What is my name?', turn: 2 }, reply: { text: 'Your name is Ada.' } },
  { match: { userMessage: 'What is my name?', turn: 1 }, reply: { text: 'I do not know your name.' } },
];

describe.each(heldModes)('Conversations ($name)', (mode) => {
  const ctx = withHeld(mode, { fixtures });

  it('makes a conversation with items, adds, pages, retrieves and deletes items, updates and deletes it', async () => {
    const openai = ctx.gw.openai('conv-items');
    const conv = await openai.conversations.create({
      items: [{ type: 'message', role: 'user', content: 'First.' }],
      metadata: { topic: 'demo' },
    });
    expect(conv).toMatchObject({ object: 'conversation', metadata: { topic: 'demo' } });
    expect(conv.id).toMatch(/^conv_/);
    const added = await openai.conversations.items.create(conv.id, {
      items: [
        { type: 'message', role: 'assistant', content: 'Second.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Third.' }] },
      ],
    });
    expect(added.data.map((i) => i.type)).toEqual(['message', 'message']);
    const newestFirst = [];
    for await (const item of openai.conversations.items.list(conv.id, { limit: 2 })) newestFirst.push(item);
    expect(newestFirst.map((i) => (i.type === 'message' ? (i.content[0] as { text: string }).text : ''))).toEqual([
      'Third.',
      'Second.',
      'First.',
    ]);
    const one = await openai.conversations.items.retrieve(added.data[0].id!, { conversation_id: conv.id });
    expect(one).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Second.' }] });
    expect((await openai.conversations.items.delete(added.data[0].id!, { conversation_id: conv.id })).id).toBe(conv.id);
    expect((await openai.conversations.items.list(conv.id)).data).toHaveLength(2);
    expect((await openai.conversations.update(conv.id, { metadata: { topic: 'other' } })).metadata).toEqual({ topic: 'other' });
    expect(await openai.conversations.delete(conv.id)).toMatchObject({ id: conv.id, object: 'conversation.deleted', deleted: true });
    expect(await failure(openai.conversations.retrieve(conv.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('continues a conversation across responses.create calls: earlier turns read, each turn added', async () => {
    const openai = ctx.gw.openai('conv-responses');
    const conv = await openai.conversations.create();
    const first = await openai.responses.create({ model: 'gpt-4.1-mini', input: 'My name is Ada.', conversation: conv.id });
    expect(first.output_text).toBe('Nice to meet you, Ada.');
    expect(first.conversation).toEqual({ id: conv.id });
    const second = await openai.responses.create({ model: 'gpt-4.1-mini', input: 'What is my name?', conversation: { id: conv.id } });
    expect(second.output_text).toBe('Your name is Ada.');
    const items = (await openai.conversations.items.list(conv.id, { order: 'asc' })).data;
    expect(items.map((i) => (i.type === 'message' ? `${i.role}: ${(i.content[0] as { text: string }).text}` : i.type))).toEqual([
      'user: My name is Ada.',
      'assistant: Nice to meet you, Ada.',
      'user: What is my name?',
      'assistant: Your name is Ada.',
    ]);
    // Without the conversation, the model does not know.
    expect((await openai.responses.create({ model: 'gpt-4.1-mini', input: 'What is my name?' })).output_text).toBe(
      'I do not know your name.',
    );
    const both = await failure(
      openai.responses.create({ model: 'gpt-4.1-mini', input: 'x', conversation: conv.id, previous_response_id: first.id }),
    );
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    expect(both.message).toContain('Mutually exclusive');
    expect(await failure(openai.responses.create({ model: 'gpt-4.1-mini', input: 'x', conversation: 'conv_nope' }))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });

  it('adds no turn a fault failed: the SDK retries it, and the conversation holds it once', async () => {
    const openai = ctx.gw.openai('conv-fault');
    const conv = await openai.conversations.create();
    const failed = await failure(
      openai.responses.create(
        { model: 'gpt-4.1-mini', input: 'My name is Ada.', conversation: conv.id },
        { headers: { 'x-mock-fault': 'STREAM_ERROR,status=500' }, maxRetries: 0 },
      ),
    );
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect((await openai.conversations.items.list(conv.id)).data).toEqual([]);
    await openai.responses.create({ model: 'gpt-4.1-mini', input: 'My name is Ada.', conversation: conv.id });
    expect((await openai.conversations.items.list(conv.id)).data).toHaveLength(2);
  });

  it("keeps two tests' conversations apart on one server; a test's reset drops its own", async () => {
    const a = ctx.gw.openai('conv-a');
    const b = ctx.gw.openai('conv-b');
    const ofA = await a.conversations.create();
    const ofB = await b.conversations.create();
    expect(await failure(b.conversations.retrieve(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failure(b.responses.create({ model: 'gpt-4.1-mini', input: 'x', conversation: ofA.id }))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    ctx.gw.gateway.forTest('conv-a').reset();
    expect(await failure(a.conversations.retrieve(ofA.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await b.conversations.retrieve(ofB.id)).id).toBe(ofB.id);
  });

  it('keeps an OpenAI Agents SDK run’s state in a conversation: conversationId on run(), and OpenAIConversationsSession', async () => {
    const openAIClient = ctx.gw.openai('conv-agents');
    const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }), tracingDisabled: true });
    const agent = new Agent({ name: 'Assistant', instructions: 'Be brief.', model: 'gpt-4.1-mini' });

    const conv = await openAIClient.conversations.create();
    await runner.run(agent, 'My name is Ada.', { conversationId: conv.id });
    const again = await runner.run(agent, 'What is my name?', { conversationId: conv.id });
    expect(again.finalOutput).toBe('Your name is Ada.');
    expect((await openAIClient.conversations.items.list(conv.id)).data).toHaveLength(4);

    const session = new OpenAIConversationsSession({ client: openAIClient });
    await runner.run(agent, 'My name is Ada.', { session });
    const remembered = await runner.run(agent, 'What is my name?', { session });
    expect(remembered.finalOutput).toBe('Your name is Ada.');
    const id = await session.getSessionId();
    expect((await openAIClient.conversations.items.list(id, { order: 'asc' })).data.length).toBeGreaterThanOrEqual(4);
  });
});

describe('Conversations: the store full', () => {
  it("answers OpenAI's 400 when the store is full, keeping what it holds, and serves others meanwhile", async () => {
    const { setupServer } = await import('msw/node');
    const { runtimeOf } = await import('../src/gateway.ts');
    const { CONVERSATIONS } = await import('../src/formats/openai/conversations.ts');
    const gateway = createGateway();
    const server = setupServer(...gateway.handlers);
    server.listen();
    try {
      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2/v1', maxRetries: 0 });
      const kept = await openai.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Kept.' }] });
      const runtime = runtimeOf(gateway);
      const store = runtime.stores.of(CONVERSATIONS);
      const filler = { id: 'conv_filler', createdAt: 0, metadata: null, items: [], made: 0 };
      expect(store.set('conv_filler', filler, store.maxBytes - store.bytes - 100, runtime.stores.owner(''))).toBe(true);
      const fullError = await failure(openai.conversations.create());
      expect(fullError).toBeInstanceOf(OpenAI.BadRequestError);
      expect(fullError.message).toContain('Your conversation storage is full');
      expect((await openai.conversations.items.list(kept.id)).data).toHaveLength(1);
      expect(
        (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices,
      ).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});
