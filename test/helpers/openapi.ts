// Validates replies against OpenAI's published OpenAPI spec (test/specs/openai-openapi.yaml, MIT; see its README).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const SPEC = fileURLToPath(new URL('../specs/openai-openapi.yaml', import.meta.url));

let ajv: Ajv2020 | undefined;
let spec: { components: { schemas: Record<string, any> } } | undefined;
const readSpec = () => (spec ??= parse(readFileSync(SPEC, 'utf8')) as { components: { schemas: Record<string, any> } });
const compiled = new Map<string, ValidateFunction>();

// A few schemas still use OpenAPI 3.0's `nullable`; say it in JSON Schema instead.
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = normalize(v);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (typeof out.type === 'string' || Array.isArray(out.type)) {
    out.type = [...new Set([...[out.type].flat(), 'null'])];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function instance(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addSchema({ $id: 'openai.json', components: normalize(readSpec().components) });
  return ajv;
}

function validatorOf(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = instance().compile({ $ref: `openai.json#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate;
}

/**
 * Compiles the named schemas now: reading the spec takes seconds of the event loop, which a suite that
 * runs a server in its own process does before it starts (an idle keep-alive connection would otherwise
 * time out under it, while the client still counts on it).
 */
export function compileSchemas(...names: string[]): void {
  for (const name of names) validatorOf(name);
}

/** Throws with ajv's errors unless `value` validates against components.schemas[name]. */
export function assertSchema(name: string, value: unknown): void {
  const validate = validatorOf(name);
  if (!validate(value)) {
    throw new Error(`${name} does not validate:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}`);
  }
}

let eventSchemas: Record<string, string> | undefined;

/** Throws unless each realtime server event (GA) has a schema in the spec (RealtimeServerEvent…, by its type) and validates against it. */
export function assertRealtimeEvents(events: readonly Record<string, unknown>[]): void {
  if (!eventSchemas) {
    eventSchemas = {};
    for (const [name, schema] of Object.entries(readSpec().components.schemas)) {
      const type = schema?.properties?.type?.enum?.[0] ?? schema?.properties?.type?.const;
      if (/^RealtimeServerEvent./.test(name) && typeof type === 'string') eventSchemas[type] = name;
    }
  }
  for (const e of events) {
    const name = eventSchemas[String(e.type)];
    if (!name) throw new Error(`no realtime server event ${e.type} in the spec`);
    assertSchema(name, e);
  }
}

let responseEventSchemas: Record<string, string> | undefined;

/** Throws unless each Responses stream event has a schema in the spec (Response…Event, by its type) and validates against it. */
export function assertResponseEvents(events: readonly { type: string }[]): void {
  if (!responseEventSchemas) {
    responseEventSchemas = {};
    for (const [name, schema] of Object.entries(readSpec().components.schemas)) {
      const type = schema?.properties?.type?.enum?.[0];
      if (/^Response\w*(?:Streaming)?Event$/.test(name) && typeof type === 'string' && type.startsWith('response.'))
        responseEventSchemas[type] = name;
    }
  }
  for (const e of events) {
    const name = responseEventSchemas[e.type];
    if (!name) throw new Error(`no Responses stream event ${e.type} in the spec`);
    assertSchema(name, e);
  }
}
