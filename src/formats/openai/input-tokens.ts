// Token counting for the Responses API (POST /v1/responses/input_tokens): what a create request with the
// same input, instructions, tools and earlier turns would be charged as input, counted as the other
// vendors' count routes count it (core/tokens.ts), with no reply made.
import { readOpenAIFileParts } from './files.ts';
import { countPromptTokensInSlices } from '../../core/tokens.ts';
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import { requireModel } from '../../pipeline/decide.ts';
import { json, type Outbound } from '../../pipeline/exchange.ts';
import { type FieldRules, type JsonObject, optional } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { parseResponsesRequest, storedResponse } from './responses.ts';
import { checkFields } from './validate.ts';

/** Every field of InputTokenCountParams. */
const COUNT_FIELDS = {
  conversation: optional('string', 'object'),
  input: optional('string', 'array'),
  instructions: optional('string'),
  model: optional('string'),
  parallel_tool_calls: optional('boolean'),
  personality: optional('string'),
  previous_response_id: optional('string'),
  reasoning: optional('object'),
  text: optional('object'),
  tool_choice: optional('string', 'object'),
  tools: optional('array'),
  truncation: { types: ['string'], values: ['auto', 'disabled'] },
} as const satisfies FieldRules;

/** The model counted for when the request names none (every current OpenAI model counts with o200k). */
const DEFAULT_MODEL = 'gpt-4o';

async function count(call: Call<JsonObject>): Promise<Outbound> {
  const body = call.body;
  checkFields(body, COUNT_FIELDS);
  const { personality: _, conversation: __, ...create } = body;
  const model = typeof body.model === 'string' ? body.model : DEFAULT_MODEL;
  const previous = typeof body.previous_response_id === 'string' ? storedResponse(call, body.previous_response_id) : undefined;
  // Read as a create request is (the same checks, the same messages and tools), with nothing to answer.
  const { request } = parseResponsesRequest({ ...create, model, input: create.input ?? [] }, previous);
  if (typeof body.model === 'string') requireModel(call, model, 'chat');
  call.entry.model = model;
  await readOpenAIFileParts(call, request.messages);
  const inputTokens = await countPromptTokensInSlices(request.messages, request.tools);
  return json({ object: 'response.input_tokens', input_tokens: inputTokens });
}

export const inputTokenEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/responses/input_tokens', format: openaiFormat, auth: ['bearer'], handle: count },
];
