// OpenAI conversations (/v1/conversations): a conversation and its items (create with items, retrieve,
// update metadata, delete; items added, listed in pages, retrieved, deleted), and `conversation` on
// responses.create: the conversation's items come before the request's input, and the request's input
// and the response's output are added to it (`withConversation`). Held per test in one bounded store
// (core/stores.ts); a full store refuses with OpenAI's error, nothing lost.
import { GatewayError } from '../../core/errors.ts';
import type { Message } from '../../core/request.ts';
import { hashStrings, makeId } from '../../core/seed.ts';
import { defineStore, type StoreView } from '../../core/stores.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { heldFor } from '../../scope.ts';
import { fieldsOf, type JsonObject, optional } from '../fields.ts';
import { freshId } from './files.ts';
import { openaiFormat } from './format.ts';
import { cursorPage, readRoute } from './resource.ts';
import { parseInput } from './responses.ts';
import { checkField, checkFields, checkMetadata, invalid } from './validate.ts';

interface HeldConversation {
  id: string;
  createdAt: number;
  metadata: JsonObject | null;
  /** Its items as listed (each with its id), oldest first. */
  items: JsonObject[];
  /** Items made so far: the next item's id is drawn from it. */
  made: number;
}

/** Conversations one gateway holds, every test's together. */
const MAX_CONVERSATIONS = 10_000;
/** Bytes of their items (as JSON), every test's together. */
const CONVERSATIONS_BYTES = 64 * 1024 * 1024;
/** Items a create or an items.create takes at once (OpenAI: 20). */
const MAX_ADDED = 20;
const OVERHEAD = 256;

export const CONVERSATIONS = defineStore<HeldConversation>({
  name: 'openai.conversations',
  title: 'OpenAI conversations',
  maxCount: MAX_CONVERSATIONS,
  maxBytes: CONVERSATIONS_BYTES,
  whenFull: 'refuse',
  describe: (c) => ({ items: c.items.length }),
});

const sizeOf = (c: HeldConversation) => OVERHEAD + c.items.reduce((n, item) => n + 2 * JSON.stringify(item).length, 0);

const conversationObject = (c: HeldConversation): JsonObject => ({
  id: c.id,
  object: 'conversation',
  created_at: c.createdAt,
  metadata: c.metadata ?? {},
});

function full(): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Your conversation storage is full: model-gateway-mock holds at most ${MAX_CONVERSATIONS} conversations and ${CONVERSATIONS_BYTES / 1024 / 1024} MiB of their items, every test together. Delete conversations you no longer need, or reset.`,
  );
}

function found(call: Call, id: string, param = 'conversation_id'): HeldConversation {
  const c = heldFor(call, CONVERSATIONS).get(id);
  if (!c) throw new GatewayError('not_found', `Conversation with id '${id}' not found.`, { param });
  return c;
}

/** The prefix of an item's id, by its type, as the service draws them. */
const PREFIX: Record<string, string> = { message: 'msg_', function_call: 'fc_', function_call_output: 'fco_', reasoning: 'rs_' };

/** An item as the conversation lists it: with an id (its own, or drawn from the conversation's), a message's content as parts. */
function listed(c: HeldConversation, item: JsonObject): JsonObject {
  const type = String(item.type ?? 'message');
  const id = item.id ?? makeId(PREFIX[type] ?? 'item_', 40, hashStrings([c.id, String(c.made)]));
  c.made++;
  if (type !== 'message') return { id, ...item, status: item.status ?? 'completed' };
  const content =
    typeof item.content === 'string'
      ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }]
      : item.content;
  return { id, type: 'message', status: item.status ?? 'completed', role: item.role, content };
}

/** Adds items to `c`, counted at their size; the store full: nothing added, OpenAI's 400. */
function add(view: StoreView<HeldConversation>, c: HeldConversation, items: JsonObject[]): JsonObject[] {
  const before = { items: c.items, made: c.made };
  const added = items.map((item) => listed(c, item));
  c.items = [...c.items, ...added];
  if (!view.resize(c.id, sizeOf(c))) {
    Object.assign(c, before);
    throw full();
  }
  return added;
}

/** Checks items as responses.create checks its input (the same parser), at most MAX_ADDED. */
function checkItems(value: unknown): JsonObject[] {
  checkField('items', value, { types: ['array'], max: MAX_ADDED });
  const items = (value ?? []) as JsonObject[];
  parseInput(items);
  return items;
}

function create(call: Call<JsonObject>) {
  const body = call.body;
  checkFields(body, { items: optional('array'), metadata: optional('object') });
  checkMetadata(body.metadata);
  const items = checkItems(body.items ?? undefined);
  const view = heldFor(call, CONVERSATIONS);
  const c: HeldConversation = {
    id: freshId(
      call,
      (id) => view.get(id),
      (key) => makeId('conv_', 48, key),
    ),
    createdAt: call.runtime.now(),
    metadata: body.metadata ?? null,
    items: [],
    made: 0,
  };
  if (!view.store.fits(OVERHEAD) || !view.set(c.id, c, OVERHEAD)) throw full();
  try {
    add(view, c, items);
  } catch (e) {
    view.delete(c.id);
    throw e;
  }
  return json(conversationObject(c));
}

function foundItem(c: HeldConversation, id: string): JsonObject {
  const item = c.items.find((i) => i.id === id);
  if (!item) throw new GatewayError('not_found', `Item with id '${id}' not found in conversation '${c.id}'.`, { param: 'item_id' });
  return item;
}

export const conversationEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/conversations', format: openaiFormat, auth: ['bearer'], handle: create },
  readRoute('GET', '/v1/conversations/:id', (call) => json(conversationObject(found(call, String(call.params.id))))),
  {
    method: 'POST',
    path: '/v1/conversations/:id',
    format: openaiFormat,
    auth: ['bearer'],
    handle(call) {
      const c = found(call, String(call.params.id));
      checkFields(call.body, { metadata: { types: ['object'], required: true, nullable: true } });
      checkMetadata(call.body.metadata);
      c.metadata = call.body.metadata ?? null;
      return json(conversationObject(c));
    },
  },
  readRoute('DELETE', '/v1/conversations/:id', (call) => {
    const c = found(call, String(call.params.id));
    heldFor(call, CONVERSATIONS).delete(c.id);
    return json({ id: c.id, object: 'conversation.deleted', deleted: true });
  }),
  {
    method: 'POST',
    path: '/v1/conversations/:id/items',
    format: openaiFormat,
    auth: ['bearer'],
    handle(call) {
      const c = found(call, String(call.params.id));
      checkFields(call.body, { items: { types: ['array'], required: true }, include: optional('array') });
      const added = add(heldFor(call, CONVERSATIONS), c, checkItems(call.body.items));
      return json({ object: 'list', data: added, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false });
    },
  },
  readRoute('GET', '/v1/conversations/:id/items', (call) =>
    // Newest first unless `order=asc`, 20 a page (1 to 100).
    json(cursorPage(call, found(call, String(call.params.id)).items, { order: 'desc' })),
  ),
  readRoute('GET', '/v1/conversations/:id/items/:item', (call) =>
    json(foundItem(found(call, String(call.params.id)), String(call.params.item))),
  ),
  readRoute('DELETE', '/v1/conversations/:id/items/:item', (call) => {
    const view = heldFor(call, CONVERSATIONS);
    const c = found(call, String(call.params.id));
    const item = foundItem(c, String(call.params.item));
    c.items = c.items.filter((i) => i !== item);
    view.resize(c.id, sizeOf(c));
    return json(conversationObject(c));
  }),
];

/** A conversation in use by a responses.create: what comes before the input, and how the turn is added. */
interface ConversationTurn {
  id: string;
  /** The conversation so far, as messages. */
  history: Message[];
  /** Adds the request's input items and the response's output items (OpenAI's 400 when the store is full). */
  append(input: JsonObject[], output: JsonObject[]): void;
}

/**
 * The conversation a responses.create names (`conversation`: its id, or `{id}`), or undefined. With
 * `previous_response_id` too: OpenAI's 400, the two being exclusive.
 */
export function withConversation(call: Call<JsonObject>): ConversationTurn | undefined {
  const named = call.body.conversation;
  if (named === undefined || named === null) return undefined;
  if (call.body.previous_response_id)
    throw invalid(
      'conversation',
      "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      'mutually_exclusive_parameters',
    );
  const id = typeof named === 'string' ? named : fieldsOf(named).id;
  checkField('conversation.id', id, { types: ['string'], required: true });
  const c = found(call, id, 'conversation');
  const view = heldFor(call, CONVERSATIONS);
  return {
    id: c.id,
    history: parseInput(c.items).messages,
    append: (input, output) => {
      add(view, c, [...input, ...output]);
    },
  };
}
