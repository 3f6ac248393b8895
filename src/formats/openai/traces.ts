// The Agents SDK's trace export (POST /v1/traces/ingest, `OpenAI-Beta: traces=v1`), which it posts to
// unless tracing is off: accepted and dropped, answered 204 as the service answers it, so an agent run
// against the gateway logs no export errors. Its journal entry says how many items it dropped.
import type { Call, EndpointSpec } from '../../pipeline/call.ts';
import type { Outbound } from '../../pipeline/exchange.ts';
import type { JsonObject } from '../fields.ts';
import { openaiFormat } from './format.ts';
import { checkFields } from './validate.ts';

function ingest(call: Call<JsonObject>): Outbound {
  checkFields(call.body, { data: { types: ['array'], required: true } });
  call.entry.dropped = call.body.data.length;
  return { status: 204, headers: {}, body: null };
}

export const traceEndpoints: EndpointSpec[] = [
  { method: 'POST', path: '/v1/traces/ingest', format: openaiFormat, auth: ['bearer'], handle: ingest },
];
