// Costly schemas are bounded: schema-driven JSON synthesis counts its work (core/synthesize/budget.ts).
// Schemas whose $refs and combinators fan out, or whose pattern multiplies quantifiers, get the vendor's
// 400 naming the ceiling, while other clients keep being answered; huge size bounds give values of
// bounded size, and bounds that are not numbers are refused; ordinary schemas still give valid values.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import fc from 'fast-check';
import { GatewayError } from '../src/core/errors.ts';
import { costlySchema } from './helpers/fuzz/values.ts';
import { zodResponseFormat } from 'openai/helpers/zod';
import { Budget, synthesizeJson } from '../src/core/synthesize/json.ts';
import { MAX_SCHEMA_CHARS, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../src/core/synthesize/budget.ts';
import { chargeLogprobs, LogprobCount, MAX_LOGPROB_ENTRIES, synthesizeLogprobs } from '../src/core/synthesize/logprobs.ts';
import WebSocket from 'ws';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { HANG_MS } from './helpers/ordering.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** The issue's shape: each definition refers twice to the next, `levels` deep, the last a string. */
function fanOut(levels: number, via: '$defs' | 'definitions' = '$defs', combinator: 'allOf' | 'mixed' = 'allOf'): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) {
    const ref = { $ref: `#/${via}/d${i + 1}` };
    // anyOf/oneOf take one branch, so they fan out only under a combinator that takes all (allOf).
    defs[`d${i}`] = combinator === 'allOf' ? { allOf: [ref, ref] } : { allOf: [{ anyOf: [ref, ref] }, { oneOf: [ref, ref] }] };
  }
  defs[`d${levels}`] = { type: 'string' };
  return { type: 'object', [via]: defs, properties: { v: { $ref: `#/${via}/d0` } }, required: ['v'], additionalProperties: false };
}
/** The same written inline: one big body, no references. */
const inline = (levels: number): Record<string, unknown> =>
  levels === 0 ? { type: 'string' } : { allOf: [inline(levels - 1), inline(levels - 1)] };
/** A fan-out through properties: every level doubles the value itself. */
function propertyFan(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`p${levels}`]: { type: 'string' } };
  for (let i = 0; i < levels; i++)
    defs[`p${i}`] = {
      type: 'object',
      properties: { a: { $ref: `#/$defs/p${i + 1}` }, b: { $ref: `#/$defs/p${i + 1}` } },
      required: ['a', 'b'],
    };
  return { type: 'object', $defs: defs, properties: { v: { $ref: '#/$defs/p0' } }, required: ['v'] };
}
const nestedQuantifiers = { type: 'object', properties: { s: { type: 'string', pattern: '^((a{999}){999}){999}$' } }, required: ['s'] };
const ifThen = (levels: number): Record<string, unknown> =>
  levels === 0 ? { type: 'string' } : { if: inline(0), then: { allOf: [ifThen(levels - 1), ifThen(levels - 1)] } };

const NODES = new RegExp(`after visiting ${MAX_SCHEMA_NODES} schema nodes`);

describe('the work counter', () => {
  it('stops a fan-out at exactly the node ceiling, through $defs and definitions and every combinator', () => {
    for (const schema of [
      fanOut(18),
      fanOut(18, 'definitions'),
      fanOut(18, '$defs', 'mixed'),
      fanOut(18, 'definitions', 'mixed'),
      { type: 'object', properties: { v: inline(16) } },
      ifThen(16),
      propertyFan(18),
    ]) {
      const budget = new Budget();
      expect(() => synthesizeJson(schema, 1, 'the response schema', budget)).toThrow(NODES);
      expect(budget.nodes).toBe(MAX_SCHEMA_NODES + 1);
    }
  });

  it('stops nested quantifiers at the ceiling instead of building a gigabyte', () => {
    const budget = new Budget();
    expect(() => synthesizeJson(nestedQuantifiers, 1, 'x', budget)).toThrow(
      /model-gateway-mock stopped generating a value for x after visiting 50000 schema nodes/,
    );
    expect(budget.nodes).toBe(MAX_SCHEMA_NODES + 1);
    expect(budget.chars).toBeLessThan(MAX_SCHEMA_NODES);
  });

  it('stops at the character ceiling when values repeat a big const (which no estimate sees)', () => {
    const budget = new Budget();
    const schema = { type: 'array', minItems: 500, items: { const: 'x'.repeat(10_000) } };
    expect(() => synthesizeJson(schema, 1, 'x', budget)).toThrow(new RegExp(`after producing ${MAX_SCHEMA_CHARS} characters`));
    expect(budget.chars).toBeGreaterThan(MAX_SCHEMA_CHARS);
    expect(budget.chars).toBeLessThanOrEqual(MAX_SCHEMA_CHARS + 10_000);
  });

  it('stops a $ref that always recurses at the depth ceiling, and a $ref cycle', () => {
    const always = { $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } }, $ref: '#/$defs/n' };
    expect(() => synthesizeJson(always, 1)).toThrow(new RegExp(`at ${MAX_SCHEMA_DEPTH} levels of nesting`));
    const cycle = { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' };
    expect(() => synthesizeJson(cycle, 1)).toThrow(new RegExp(`at ${MAX_SCHEMA_DEPTH} levels of \\$refs and combinators`));
  });

  it('takes one branch of anyOf and oneOf, so their nesting costs its depth, not its width', () => {
    const budget = new Budget();
    const defs: Record<string, unknown> = { d18: { type: 'string' } };
    for (let i = 0; i < 18; i++)
      defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { oneOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }] };
    const schema = { $defs: defs, $ref: '#/$defs/d0' };
    expect(ajv.validate(schema, synthesizeJson(schema, 1, 'x', budget))).toBe(true);
    expect(budget.nodes).toBeLessThan(500);
  });

  it('counts keys copied when merging, so a heavy schema merged again and again stops too', () => {
    const leaf = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x${i}`, i]));
    for (const heavy of [
      leaf,
      { type: 'object', properties: Object.fromEntries(Object.keys(leaf).map((k) => [k, { type: 'integer' }])) },
      { enum: Object.keys(leaf) },
    ]) {
      const schema = fanOut(12);
      (schema.$defs as Record<string, unknown>).d12 = heavy;
      const budget = new Budget();
      expect(() => synthesizeJson(schema, 1, 'x', budget)).toThrow(NODES);
      expect(budget.nodes).toBeLessThan(MAX_SCHEMA_NODES + 25_000);
    }
  });

  it('names what is wrong with a schema it cannot use, briefly however big the value', () => {
    const refuse = (schema: object) => {
      try {
        synthesizeJson(schema, 1, 'the response schema "out"');
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        return (error as Error).message;
      }
      throw new Error('no error');
    };
    const bad = refuse({ type: 'string', pattern: `[${'a'.repeat(5000)}` });
    expect(bad).toMatch(
      /^model-gateway-mock could not produce a value for the response schema "out": the pattern "\[a+… is not a valid regular expression/,
    );
    expect(bad.length).toBeLessThan(500);
    expect(refuse({ $ref: 'https://example.com/s.json' })).toMatch(/is not a local reference/);
    expect(refuse({ $ref: '#/$defs/nope' })).toMatch(/points at nothing/);
    expect(refuse({ type: 'array', maxItems: 'Infinity' })).toMatch(/"maxItems" must be a non-negative integer, got "Infinity"/);
    expect(refuse({ type: 'strung' })).toMatch(/"type" "strung" is not one of/);
  });

  it('shares one ceiling across the values of a request', () => {
    const budget = new Budget();
    const half = { type: 'array', minItems: MAX_SCHEMA_NODES / 2 + 10, items: { type: 'integer' } };
    synthesizeJson(half, 1, 'one', budget);
    expect(() => synthesizeJson(half, 2, 'two', budget)).toThrow(/for two after visiting/);
  });
});

describe('log probabilities', () => {
  it('stop at the entry ceiling, counted over all choices', () => {
    const count = new LogprobCount();
    const text = 'word '.repeat(10_000);
    // 10 000 tokens × 21 = 210 000 entries a choice: the third choice passes 500 000.
    synthesizeLogprobs(text, 20, 1, count);
    synthesizeLogprobs(text, 20, 2, count);
    expect(() => synthesizeLogprobs(text, 20, 3, count)).toThrow(new RegExp(`after ${MAX_LOGPROB_ENTRIES} entries`));
    // Charged whole before any entry is made: a stream that makes them as it writes fails before its first byte.
    const one = new LogprobCount();
    chargeLogprobs(text, 20, one);
    expect(count.entries).toBe(3 * one.entries);
  });
});

describe('the fuzz generator of costly schemas', () => {
  it('gives a valid value or the 400 at the ceiling, never more work than the ceiling', () => {
    let refused = 0;
    fc.assert(
      fc.property(costlySchema, fc.nat(), (schema, key) => {
        const budget = new Budget();
        try {
          const value = synthesizeJson(schema, key, 'x', budget);
          // ajv takes seconds to compile the biggest inline shapes: check the others.
          if (JSON.stringify(schema).length < 20_000) expect(ajv.validate(schema, value)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayError);
          expect((error as GatewayError).status).toBe(400);
          expect((error as Error).message).toMatch(/after (visiting|producing) \d+|multiply out|levels of/);
          refused++;
        }
        // One step past the ceiling at most, and a step (keys copied, say) is no bigger than the schema.
        expect(budget.nodes).toBeLessThanOrEqual(MAX_SCHEMA_NODES + JSON.stringify(schema).length);
        expect(budget.chars).toBeLessThanOrEqual(MAX_SCHEMA_CHARS + 5000);
      }),
      { numRuns: 100, seed: 28 },
    );
    expect(refused).toBeGreaterThan(10);
  });
});

describe('ordinary schemas', () => {
  const cases: [string, Record<string, unknown>][] = [
    [
      'nested objects, arrays, enums',
      {
        type: 'object',
        properties: {
          user: {
            type: 'object',
            properties: { name: { type: 'string' }, email: { type: 'string' }, role: { enum: ['admin', 'user'] } },
            required: ['name', 'email', 'role'],
            additionalProperties: false,
          },
          tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 3, uniqueItems: true },
        },
        required: ['user', 'tags'],
        additionalProperties: false,
      },
    ],
    [
      'formats',
      {
        type: 'object',
        properties: Object.fromEntries(
          ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname', 'duration'].map((f) => [
            f,
            { type: 'string', format: f },
          ]),
        ),
        required: ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname', 'duration'],
      },
    ],
    [
      'patterns',
      {
        type: 'object',
        properties: {
          zip: { type: 'string', pattern: '^\\d{5}(-\\d{4})?$' },
          code: { type: 'string', pattern: '^[A-Z]{2,3}-[0-9a-f]{4}$' },
          word: { type: 'string', pattern: '^(?:foo|bar)+\\.(txt|md)$' },
          back: { type: 'string', pattern: '^(ab)c\\1$' },
          neg: { type: 'string', pattern: '^[^a-z\\s]{3}$' },
        },
        required: ['zip', 'code', 'word', 'back', 'neg'],
      },
    ],
    [
      'numbers',
      {
        type: 'object',
        properties: {
          a: { type: 'integer', minimum: 5, exclusiveMaximum: 7 },
          b: { type: 'number', multipleOf: 0.1, minimum: 0.2, maximum: 0.9 },
          c: { type: 'integer', multipleOf: 7, minimum: 100 },
          d: { type: 'number', exclusiveMinimum: 0, maximum: 0.05 },
        },
        required: ['a', 'b', 'c', 'd'],
      },
    ],
    [
      'refs through definitions, allOf, if/then',
      {
        definitions: { base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
        allOf: [{ $ref: '#/definitions/base' }, { properties: { kind: { const: 'x' } }, required: ['kind'] }],
        if: { properties: { kind: { const: 'x' } } },
        then: { required: ['extra'], properties: { extra: { type: 'boolean' } } },
      },
    ],
    [
      'recursion',
      {
        $defs: {
          node: {
            type: 'object',
            properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
            required: ['value', 'children'],
            additionalProperties: false,
          },
        },
        $ref: '#/$defs/node',
      },
    ],
    [
      'nullable recursion (structured outputs)',
      {
        $defs: {
          node: {
            type: 'object',
            properties: { name: { type: 'string' }, next: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] } },
            required: ['name', 'next'],
            additionalProperties: false,
          },
        },
        $ref: '#/$defs/node',
      },
    ],
    [
      'patternProperties, prefixItems, minProperties',
      {
        type: 'object',
        patternProperties: { '^x_[a-z]{3}$': { type: 'integer' } },
        additionalProperties: false,
        minProperties: 2,
        properties: { t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, minItems: 2 } },
        required: ['t'],
      },
    ],
    [
      'type arrays and contains',
      {
        type: 'object',
        properties: { a: { type: ['string', 'null'] }, b: { type: 'array', contains: { const: 3 }, items: { type: 'integer' } } },
        required: ['a', 'b'],
      },
    ],
  ];
  it.each(cases)('%s: valid under many keys, the same for the same key', (_name, schema) => {
    const validate = ajv.compile(schema);
    for (let key = 1; key <= 40; key++) {
      const value = synthesizeJson(schema, key);
      if (!validate(value)) throw new Error(`key ${key}: ${JSON.stringify(value)}\n${ajv.errorsText(validate.errors)}`);
      expect(synthesizeJson(schema, key)).toEqual(value);
    }
  });
});

const post = (url: string, path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const openai = { authorization: 'Bearer sk-test' };
const anthropic = { 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' };
const gemini = { 'x-goog-api-key': 'sk-test' };
const ask = [{ role: 'user', content: 'json please' }];

/** A request carrying `schema` where each vendor takes one, and what its error body looks like. */
const carriers: [
  string,
  (schema: Record<string, unknown>) => [string, Record<string, string>, unknown],
  (body: Record<string, any>) => string,
][] = [
  [
    'chat response_format',
    (schema) => [
      '/v1/chat/completions',
      openai,
      { model: 'gpt-4o', messages: ask, response_format: { type: 'json_schema', json_schema: { name: 'out', schema } } },
    ],
    (b) => b.error.type === 'invalid_request_error' && b.error.message,
  ],
  [
    'chat strict tool arguments',
    (schema) => [
      '/v1/chat/completions',
      openai,
      {
        model: 'gpt-4o',
        messages: ask,
        tools: [{ type: 'function', function: { name: 'f', parameters: schema, strict: true } }],
        tool_choice: 'required',
      },
    ],
    (b) => b.error.message,
  ],
  [
    'Responses text.format',
    (schema) => [
      '/v1/responses',
      openai,
      { model: 'gpt-4o', input: 'json please', text: { format: { type: 'json_schema', name: 'out', schema } } },
    ],
    (b) => b.error.message,
  ],
  [
    'Anthropic tool input_schema',
    (schema) => [
      '/v1/messages',
      anthropic,
      {
        model: 'claude-sonnet-5-5',
        max_tokens: 100,
        messages: ask,
        tools: [{ name: 'f', input_schema: schema }],
        tool_choice: { type: 'any' },
      },
    ],
    (b) => b.type === 'error' && b.error.type === 'invalid_request_error' && b.error.message,
  ],
  [
    'Gemini responseSchema',
    (schema) => [
      '/v1beta/models/gemini-2.5-flash:generateContent',
      gemini,
      { contents: [{ parts: [{ text: 'json' }] }], generationConfig: { responseMimeType: 'application/json', responseSchema: schema } },
    ],
    (b) => b.error.status === 'INVALID_ARGUMENT' && b.error.message,
  ],
  [
    'Gemini responseJsonSchema',
    (schema) => [
      '/v1beta/models/gemini-2.5-flash:generateContent',
      gemini,
      { contents: [{ parts: [{ text: 'json' }] }], generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } },
    ],
    (b) => b.error.status === 'INVALID_ARGUMENT' && b.error.message,
  ],
];
const shapes: [string, Record<string, unknown>][] = [
  ['an 18-level $defs allOf fan-out', fanOut(18)],
  ['an 18-level definitions allOf-of-anyOf/oneOf fan-out', fanOut(18, 'definitions', 'mixed')],
  ['an inline if/then fan-out', { type: 'object', properties: { v: ifThen(16) }, required: ['v'] }],
  ['a 16-level inline allOf fan-out', { type: 'object', properties: { v: inline(16) }, required: ['v'] }],
  ['a pattern of nested quantifiers', nestedQuantifiers],
];

describe.runIf(socketSuites)('over a socket: the vendor 400, while another client is answered', () => {
  let cli: Spawned;
  beforeAll(async () => {
    cli = await spawnCli();
  });
  afterAll(() => cli.stop());

  for (const [where, build, messageOf] of carriers) {
    it(`refuses each shape as ${where}`, async () => {
      for (const [shape, schema] of shapes) {
        const [path, headers, body] = build(schema);
        const res = await post(cli.url, path, headers, body);
        const text = await res.text();
        expect(res.status, `${shape}: ${text.slice(0, 300)}`).toBe(400);
        // Tools count toward the prompt: an inline shape (0.5–1.5 MB) may be refused for its size there first.
        const bigTool = shape.includes('inline') && /tool/.test(where);
        expect(messageOf(JSON.parse(text))).toMatch(bigTool ? new RegExp(`maximum context length|${NODES.source}`) : NODES);
      }
    }, 60_000);
  }

  it('answers a small client many times while the big requests are under way, then answers them', async () => {
    const order: string[] = [];
    const big = shapes.map(([shape, schema]) => {
      const [path, headers, body] = carriers[0][1](schema);
      return post(cli.url, path, headers, body).then(async (r) => {
        order.push(`big ${r.status}`);
        return r.text();
      });
    });
    // The other client starts after the big requests were sent and asks one thing at a time.
    for (let i = 0; i < 5; i++) {
      const r = await post(cli.url, '/v1/chat/completions', openai, {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
      expect(r.status).toBe(200);
      await r.text();
      order.push('small 200');
    }
    const texts = await Promise.all(big);
    for (const t of texts) expect(JSON.parse(t).error.message).toMatch(NODES);
    expect(order.filter((o) => o === 'small 200')).toHaveLength(5);
    expect(order.filter((o) => o === 'big 400')).toHaveLength(shapes.length);
    // And the server is still well: an ordinary structured request after all of it.
    const after = await post(cli.url, '/v1/chat/completions', openai, {
      model: 'gpt-4o',
      messages: ask,
      response_format: { type: 'json_schema', json_schema: { name: 'o', schema: fanOut(4) } },
    });
    expect(ajv.validate(fanOut(4), JSON.parse((await after.json()).choices[0].message.content))).toBe(true);
  }, 60_000);

  it('refuses n × length past the character ceiling, and logprobs of a huge JSON reply past theirs', async () => {
    const schema = { type: 'string', minLength: 10_000 };
    const many = await post(cli.url, '/v1/chat/completions', openai, {
      model: 'gpt-4o',
      messages: ask,
      n: 128,
      response_format: { type: 'json_schema', json_schema: { name: 'o', schema } },
    });
    expect(many.status).toBe(400);
    expect((await many.json()).error.message).toMatch(new RegExp(`after producing ${MAX_SCHEMA_CHARS} characters`));
    const huge = { type: 'string', minLength: 900_000 };
    const lp = await post(cli.url, '/v1/chat/completions', openai, {
      model: 'gpt-4o',
      messages: ask,
      logprobs: true,
      top_logprobs: 20,
      response_format: { type: 'json_schema', json_schema: { name: 'o', schema: huge } },
    });
    expect(lp.status).toBe(400);
    expect((await lp.json()).error.message).toMatch(new RegExp(`after ${MAX_LOGPROB_ENTRIES} entries`));
    // Without logprobs the same reply is fine.
    const plain = await post(cli.url, '/v1/chat/completions', openai, {
      model: 'gpt-4o',
      messages: ask,
      response_format: { type: 'json_schema', json_schema: { name: 'o', schema: huge } },
    });
    expect(plain.status).toBe(200);
    expect(JSON.parse((await plain.json()).choices[0].message.content).length).toBeGreaterThanOrEqual(900_000);
  }, 60_000);

  it('fails a realtime response whose tool parameters fan out, and the session goes on', async () => {
    const socket = new WebSocket(`${cli.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    const events: Record<string, any>[] = [];
    const next = (type: string, count = 1) =>
      new Promise<Record<string, any>>((resolve) => {
        const check = () => {
          const found = events.filter((e) => e.type === type);
          if (found.length >= count) resolve(found[count - 1]);
          else socket.once('message', check);
        };
        check();
      });
    socket.on('message', (d) => events.push(JSON.parse(String(d))));
    await next('session.created');
    const send = (e: unknown) => socket.send(JSON.stringify(e));
    send({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['text'],
        tools: [{ type: 'function', name: 'lookup_inventory', parameters: fanOut(18) }],
      },
    });
    send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'lookup the inventory please' }] },
    });
    send({ type: 'response.create' });
    const done = await next('response.done');
    expect(done.response.status).toBe('failed');
    expect(done.response.status_details.error.message).toMatch(NODES);
    // The same session answers the next response (no tools asked for this time).
    send({ type: 'session.update', session: { type: 'realtime', tools: [] } });
    send({ type: 'response.create' });
    expect((await next('response.done', 2)).response.status).toBe('completed');
    socket.close();
  });

  it('keeps huge schema bounds cheap: maxLength 1e8 answers with a valid value of bounded size', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const r = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'json please' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'big',
          schema: {
            type: 'object',
            properties: {
              s: { type: 'string', maxLength: 100_000_000 },
              a: { type: 'array', maxItems: 100_000_000, items: { type: 'integer' } },
            },
            required: ['s', 'a'],
          },
        },
      },
    });
    const value = JSON.parse(r.choices[0].message.content!);
    expect(typeof value.s).toBe('string');
    expect(Array.isArray(value.a)).toBe(true);
    // Sizes, not time: the synthesized value stays far below the bounds it was allowed.
    expect(value.s.length).toBeLessThan(100_000);
    expect(value.a.length).toBeLessThan(100_000);
    const pattern = await client.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'p',
            schema: { type: 'object', properties: { s: { type: 'string', pattern: 'a{50000000}' } }, required: ['s'] },
          },
        },
      })
      .catch((e) => e);
    expect(pattern).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('parses structured output through the openai SDK (zod), deterministically', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${cli.url}/v1` });
    const Item = z.object({
      sku: z.string().regex(/^[A-Z]{3}-\d{4}$/),
      qty: z.number().int().min(1).max(9),
      tags: z.array(z.enum(['new', 'sale'])),
    });
    const Order = z.object({
      id: z.string().uuid(),
      email: z.string().email(),
      placed: z.string().datetime(),
      items: z.array(Item),
      note: z.string().nullable(),
    });
    const ask1 = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'an order' }],
      response_format: zodResponseFormat(Order, 'order'),
    };
    const a = await client.chat.completions.parse(ask1);
    const b = await client.chat.completions.parse(ask1);
    const parsed = a.choices[0].message.parsed!;
    expect(Order.parse(parsed)).toEqual(parsed);
    expect(b.choices[0].message.content).toBe(a.choices[0].message.content);
  });

  it('gives Anthropic tool input valid against a schema with refs, recursion, formats and patterns', async () => {
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: cli.url });
    const input_schema = {
      type: 'object' as const,
      $defs: {
        folder: {
          type: 'object',
          properties: {
            name: { type: 'string', pattern: '^[a-z]{3,8}$' },
            created: { type: 'string', format: 'date' },
            sub: { type: 'array', items: { $ref: '#/$defs/folder' }, maxItems: 2 },
          },
          required: ['name', 'sub'],
        },
      },
      properties: { root: { $ref: '#/$defs/folder' }, owner: { type: 'string', format: 'email' } },
      required: ['root', 'owner'],
    };
    const r = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'list' }],
      tools: [{ name: 'list_folders', input_schema }],
      tool_choice: { type: 'any' },
    });
    const use = r.content.find((c) => c.type === 'tool_use')!;
    expect(use.type).toBe('tool_use');
    if (use.type === 'tool_use' && !ajv.validate(input_schema, use.input))
      throw new Error(`${JSON.stringify(use.input)}\n${ajv.errorsText()}`);
  });
});

// Found by bench:fuzz (seed 1036113013): a schema whose size bound is a string ("maxItems":
// "Infinity", "maxLength": "1e9") escaped the cap on synthesized values (core/synthesize/json.ts
// capped only numeric bounds), so json-schema-faker ran until the heap was exhausted (4 GB) and the
// server died. Such a bound is now refused with a 400. Each case has its own server, killed after it,
// so one that runs away cannot spoil the next.
describe.runIf(socketSuites)('schema bounds given as strings (socket)', () => {
  let cli: Spawned | undefined;
  afterEach(() => {
    cli?.child.kill('SIGKILL');
    cli = undefined;
  });
  const cases: [string, string, Record<string, string>, unknown][] = [
    [
      'an OpenAI json_schema with maxItems "Infinity"',
      '/v1/chat/completions',
      openai,
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'json' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', schema: { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 'Infinity' } },
        },
      },
    ],
    [
      'an Anthropic tool with maxLength "1e9"',
      '/v1/messages',
      anthropic,
      {
        model: 'claude-sonnet-5-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          {
            name: 'get_weather',
            input_schema: { type: 'object', properties: { s: { type: 'string', minLength: 5, maxLength: '1e9' } }, required: ['s'] },
          },
        ],
        tool_choice: { type: 'any' },
      },
    ],
  ];
  for (const [name, path, headers, body] of cases) {
    it(
      `answers ${name} (a 400, or a value within bounds), and keeps running`,
      async () => {
        cli = await spawnCli();
        const res = await fetch(`${cli.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(HANG_MS),
        });
        expect([200, 400]).toContain(res.status);
        expect((await fetch(`${cli.url}/__admin/health`)).status).toBe(200);
        expect(cli.child.exitCode).toBeNull();
      },
      HANG_MS * 2,
    );
  }
});
