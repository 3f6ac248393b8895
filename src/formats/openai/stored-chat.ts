// Stored chat completions: a completion created with `store: true` is kept in the store of stored
// objects (the one stored responses use) and read back by id, listed with OpenAI's cursor pages,
// re-labelled by its metadata, deleted, and its request messages listed.
import { GatewayError } from '../../core/errors.ts';
import { defineStore } from '../../core/stores.ts';
import { choiceText, type CanonicalReply } from '../../core/reply.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { json } from '../../pipeline/exchange.ts';
import { openaiFormat } from './format.ts';
import { checkFields, checkMetadata } from './validate.ts';
import { cursorPage, readRoute } from './resource.ts';
import { heldFor } from '../../scope.ts';
import { fieldsOf, isJsonObject, type JsonObject } from '../fields.ts';

/** A stored completion as retrieve shows it: its metadata always an object (`{}` when none). */
type StoredCompletion = JsonObject & { metadata: JsonObject };

/**
 * What the store keeps of a chat completion: the object as retrieve shows it, and the request's
 * messages. A class, so that what the store of stored objects gives back narrows with instanceof (it
 * holds stored responses too).
 */
class StoredChat {
  completion: StoredCompletion;
  readonly messages: readonly unknown[];

  constructor(completion: StoredCompletion, messages: readonly unknown[]) {
    this.completion = completion;
    this.messages = messages;
  }
}

/**
 * Stored responses (`response:<id>`, responses.ts) and chat completions (`chat:<id>`), per test: 1000
 * objects and `storeBytes` at most, the oldest dropped first.
 */
export const STORED = defineStore<object>({
  name: 'openai.stored',
  title: 'Stored responses and chat completions',
  maxCount: 1000,
  maxBytes: (settings) => settings.storeBytes,
  whenFull: 'drop-oldest',
  describe(stored) {
    const shown = stored instanceof StoredChat ? stored.completion : (stored as { response?: JsonObject }).response;
    return { object: String(shown?.object ?? ''), model: String(shown?.model ?? '') };
  },
});

const KEY = 'chat:';

/** Metadata an update may grow to: 16 keys of 64 and values of 512 characters, two bytes each at most. */
const METADATA_BYTES = 16 * (64 + 512) * 2;

/**
 * A stored object's size, by estimate: the request it repeats and the reply's text, roughly twice over
 * (measuring it exactly would mean serializing it once more).
 */
export function storedBytes(call: Call, reply: CanonicalReply): number {
  const text = reply.choices.reduce((n, c) => n + choiceText(c).length, 0);
  return 2 * (call.entry.bodyBytes ?? 0) + 4 * text + 4096;
}

/**
 * Keeps the completion the request asked to store (`store: true`), as retrieve and list will show it.
 * The body has passed the chat checks: its messages are a list, its metadata an object or none.
 */
export function storeChat(call: Call<JsonObject>, reply: CanonicalReply, completion: JsonObject): void {
  const body = call.body;
  const stored = new StoredChat(
    {
      ...completion,
      request_id: call.requestId,
      metadata: fieldsOf(body.metadata),
      seed: body.seed ?? null,
      temperature: body.temperature ?? 1,
      top_p: body.top_p ?? 1,
      presence_penalty: body.presence_penalty ?? 0,
      frequency_penalty: body.frequency_penalty ?? 0,
      tool_choice: body.tool_choice ?? null,
      tools: body.tools ?? null,
      response_format: body.response_format ?? null,
      input_user: body.user ?? null,
    },
    Array.isArray(body.messages) ? body.messages : [],
  );
  heldFor(call, STORED).set(KEY + String(completion.id), stored, storedBytes(call, reply) + METADATA_BYTES);
}

/** A stored completion, or OpenAI's 404 for an id it does not hold. */
function found(call: Call): StoredChat {
  const id = String(call.params.id);
  const stored = heldFor(call, STORED).get(KEY + id);
  if (!(stored instanceof StoredChat))
    throw new GatewayError(
      'not_found',
      `No chat completion found with id '${id}'. Only completions created with 'store: true' are kept (until the gateway is reset, or newer stored objects push them out).`,
      { param: 'completion_id' },
    );
  return stored;
}

/** The query's `metadata[key]=value` filters. */
function metadataFilters(query: URLSearchParams): [string, string][] {
  return [...query].flatMap(([name, value]): [string, string][] => {
    const key = /^metadata\[(.*)\]$/.exec(name)?.[1];
    return key === undefined ? [] : [[key, value]];
  });
}

function list(call: Call) {
  const query = call.inbound.url.searchParams;
  const model = query.get('model');
  const filters = metadataFilters(query);
  // A request with a test id lists that test's completions (and the shared ones): tests sharing a
  // server never see each other's.
  const completions: JsonObject[] = [];
  for (const [, stored] of heldFor(call, STORED).entries(KEY)) {
    if (!(stored instanceof StoredChat)) continue;
    const { completion } = stored;
    const metadata = completion.metadata;
    if ((model === null || completion.model === model) && filters.every(([k, v]) => metadata[k] === v)) completions.push(completion);
  }
  return json(cursorPage(call, completions));
}

/** A request message as the store lists it: text in `content`, the parts (if it had any) in `content_parts`. */
function storeMessage(id: string, raw: unknown): JsonObject {
  const message = fieldsOf(raw);
  // A part that is not an object has no text and is not listed: it is left out from the start.
  const parts = Array.isArray(message.content) ? message.content.filter(isJsonObject) : undefined;
  const text = parts ? parts.flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('') : message.content;
  return {
    id,
    role: message.role,
    content: text || null,
    name: message.name ?? null,
    content_parts: parts ? parts.filter((p) => p.type === 'text' || p.type === 'image_url') : null,
    ...(message.tool_calls !== undefined && { tool_calls: message.tool_calls }),
    ...(message.tool_call_id !== undefined && { tool_call_id: message.tool_call_id }),
  };
}

function update(call: Call<JsonObject>) {
  const body = call.body;
  checkFields(body, { metadata: { types: ['object'], nullable: true, required: true } });
  checkMetadata(body.metadata);
  const stored = found(call);
  // Changed in place: the completion keeps its place in the list.
  stored.completion = { ...stored.completion, metadata: body.metadata ?? {} };
  return json(stored.completion);
}

export const storedChatEndpoints: EndpointSpec[] = [
  readRoute('GET', '/v1/chat/completions', list),
  readRoute('GET', '/v1/chat/completions/:id', (call) => json(found(call).completion)),
  { method: 'POST', path: '/v1/chat/completions/:id', format: openaiFormat, auth: ['bearer'], handle: update },
  readRoute('DELETE', '/v1/chat/completions/:id', (call) => {
    found(call);
    const id = String(call.params.id);
    heldFor(call, STORED).delete(KEY + id);
    return json({ id, object: 'chat.completion.deleted', deleted: true });
  }),
  readRoute('GET', '/v1/chat/completions/:id/messages', (call) => {
    const { completion, messages } = found(call);
    return json(
      cursorPage(
        call,
        messages.map((m, i) => storeMessage(`${String(completion.id)}-${i}`, m)),
      ),
    );
  }),
];
