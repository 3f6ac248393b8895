// Conversation compaction (POST /v1/responses/compact): the conversation (a stored response's, by
// previous_response_id, plus the input) comes back as its user messages followed by one compaction
// item, whose opaque content stands for the rest. The same conversation compacts to the same bytes.
import { plainRequest, type Message } from '../../core/request.ts';
import { deriveKey, hashValue, makeId } from '../../core/seed.ts';
import { countPromptTokensInSlices, countTokens } from '../../core/tokens.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { decide, isForward, type Forward, requireModel } from '../../pipeline/decide.ts';
import { decidedReply } from '../../pipeline/delivery.ts';
import type { Outbound } from '../../pipeline/exchange.ts';
import { type FieldRules, optional, type JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { parseInput, responseUsage, storedResponse } from './responses.ts';
import { checkFields, missing } from './validate.ts';

/** Every field of ResponseCompactParams. */
const COMPACT_FIELDS = {
  model: { types: ['string'], required: true },
  input: optional('string', 'array'),
  instructions: optional('string'),
  previous_response_id: optional('string'),
  prompt_cache_key: optional('string'),
  prompt_cache_options: optional('object'),
  prompt_cache_retention: optional('string'),
  service_tier: { types: ['string'], nullable: true, values: ['auto', 'default', 'fast', 'flex', 'priority'] },
  image: optional('object'),
} as const satisfies FieldRules;

/** A user message as an output item: its text parts (pictures and files are not kept by the canonical form). */
function userItem(message: Message, key: number, index: number): JsonObject {
  const content = message.parts.flatMap((p) => (p.type === 'text' ? [{ type: 'input_text', text: p.text }] : []));
  return { id: makeId('msg_', 40, deriveKey(key, `user:${index}`)), type: 'message', status: 'completed', role: 'user', content };
}

async function compact(call: Call<JsonObject>): Promise<Outbound | Forward> {
  const body = call.body;
  checkFields(body, COMPACT_FIELDS);
  const model = body.model;
  call.entry.model = model;
  const previous = typeof body.previous_response_id === 'string' ? storedResponse(call, body.previous_response_id) : undefined;
  if ((body.input === undefined || body.input === null) && !previous) throw missing('input');
  const { messages } = parseInput(body.input);
  requireModel(call, model, 'chat');
  // Instructions apply to this pass only, as on create; earlier turns come from the stored conversation.
  const history = (previous?.conversation ?? []).filter((m) => m.role !== 'system');
  const instructions: Message[] =
    typeof body.instructions === 'string' && body.instructions
      ? [{ role: 'system', parts: [{ type: 'text', text: body.instructions }] }]
      : [];
  const conversation = [...instructions, ...history, ...messages];
  const inputTokens = await countPromptTokensInSlices(conversation);
  const request = plainRequest('openai', 'chat', model, conversation);
  const decision = decide(call, request);
  if (isForward(decision)) return decision;
  const key = hashValue([model, conversation], decision.seed);
  // Opaque as the service's is (it is encrypted there); only its length and bytes are stable.
  const encrypted = `gAAAAA${makeId('', 344, deriveKey(key, 'compaction'))}`;
  const outputTokens = countTokens(encrypted);
  const output = [
    ...conversation.filter((m) => m.role === 'user').map((m, i) => userItem(m, key, i)),
    { id: makeId('cmp_', 40, key), type: 'compaction', encrypted_content: encrypted },
  ];
  return decidedReply(
    call,
    decision,
    key,
    () => ({
      id: makeId('resp_', 40, key),
      object: 'response.compaction',
      created_at: call.runtime.now(),
      output,
      usage: responseUsage(inputTokens, outputTokens),
    }),
    inputTokens,
    outputTokens,
  );
}

export const compactEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/responses/compact', format: openaiFormat, auth: ['bearer'], handle: compact },
];
