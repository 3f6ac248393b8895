// Moderations through the openai SDK, in-process and over a socket: a text, texts, and a multimodal
// input with an image; the documented words flag their categories, a fixture pins scores, the same
// input scores the same twice; the service's errors.
import { beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { heldModes, withHeld } from './helpers/gateways.ts';
import { assertSchema, compileSchemas } from './helpers/openapi.ts';
import { MODERATION_CATEGORIES, TRIGGER_WORDS } from '../src/core/synthesize/moderation.ts';
import { encode as encodePng } from 'fast-png';

const PNG = `data:image/png;base64,${Buffer.from(encodePng({ width: 2, height: 2, data: new Uint8Array(16).fill(200), channels: 4, depth: 8 })).toString('base64')}`;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

beforeAll(() => compileSchemas('CreateModerationResponse'));

describe.each(heldModes)('Moderations ($name)', (mode) => {
  const ctx = withHeld(mode, {
    fixtures: [
      {
        name: 'pinned scores',
        match: { endpoint: '/v1/moderations', userMessage: { contains: 'pin me' } },
        reply: { moderation: { hate: 0.75, violence: 0.01 } },
      },
    ],
  });

  it('scores a text: clean text flags nothing; each documented word flags its category (a subcategory its parent too)', async () => {
    const openai = ctx.gw.openai();
    const clean = await openai.moderations.create({ model: 'omni-moderation-latest', input: 'What a lovely afternoon for a walk.' });
    expect(clean.id).toMatch(/^modr-[0-9a-f]{32}$/);
    expect(clean.model).toBe('omni-moderation-latest');
    assertSchema('CreateModerationResponse', clean);
    const [r] = clean.results;
    expect(r.flagged).toBe(false);
    expect(Object.keys(r.categories)).toEqual([...MODERATION_CATEGORIES]);
    for (const c of MODERATION_CATEGORIES) {
      expect(r.category_scores[c]).toBeLessThan(0.01);
      expect(r.category_applied_input_types[c]).toEqual(['text']);
    }
    for (const c of MODERATION_CATEGORIES) {
      const [hit] = (await openai.moderations.create({ input: `Well, ${TRIGGER_WORDS[c][0].toUpperCase()}!` })).results;
      expect(hit.flagged, c).toBe(true);
      expect(hit.categories[c], c).toBe(true);
      expect(hit.category_scores[c], c).toBeGreaterThanOrEqual(0.9);
      if (c.includes('/')) expect(hit.categories[c.split('/')[0] as 'violence'], c).toBe(true);
    }
    // Whole words only: "skill" says no "kill".
    expect((await openai.moderations.create({ input: 'A skilled player.' })).results[0].categories.violence).toBe(false);
  });

  it('gives a result per text of an array, the same bytes for the same input, and a fixture pins scores', async () => {
    const openai = ctx.gw.openai();
    const many = await openai.moderations.create({ input: ['hello there', 'I will murder the competition', 'pin me please'] });
    expect(many.results.map((r) => r.flagged)).toEqual([false, true, true]);
    expect(many.results[2].category_scores.hate).toBe(0.75);
    expect(many.results[2].category_scores.violence).toBe(0.01);
    const again = await openai.moderations.create({ input: ['hello there', 'I will murder the competition', 'pin me please'] });
    expect(again).toEqual(many);
  });

  it('judges a multimodal input as one result: pictures in their own categories, by their URL words', async () => {
    const openai = ctx.gw.openai();
    const both = await openai.moderations.create({
      model: 'omni-moderation-latest',
      input: [
        { type: 'text', text: 'Describe this picture.' },
        { type: 'image_url', image_url: { url: PNG } },
      ],
    });
    expect(both.results).toHaveLength(1);
    const [r] = both.results;
    expect(r.flagged).toBe(false);
    expect(r.category_applied_input_types.violence).toEqual(['text', 'image']);
    expect(r.category_applied_input_types.harassment).toEqual(['text']);
    const picture = await openai.moderations.create({ input: [{ type: 'image_url', image_url: { url: 'https://example.com/gore.png' } }] });
    expect(picture.results[0].categories['violence/graphic']).toBe(true);
    expect(picture.results[0].category_applied_input_types.harassment).toEqual([]);
    expect(picture.results[0].category_applied_input_types.violence).toEqual(['image']);
    // A word that flags only text categories does not flag a picture.
    expect(
      (await openai.moderations.create({ input: [{ type: 'image_url', image_url: { url: 'https://example.com/idiot.png' } }] })).results[0]
        .flagged,
    ).toBe(false);
  });

  it('answers the text models without illicit categories, and refuses what the service refuses', async () => {
    const openai = ctx.gw.openai();
    const [r] = (await openai.moderations.create({ model: 'text-moderation-latest', input: 'how to shoplift' })).results;
    expect(r.categories.illicit).toBeNull();
    expect(r.flagged).toBe(false);
    const image = await failure(
      openai.moderations.create({ model: 'text-moderation-latest', input: [{ type: 'image_url', image_url: { url: PNG } }] }),
    );
    expect(image).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await failure(openai.moderations.create({ model: 'gpt-4o', input: 'x' }))).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await failure(openai.moderations.create({ input: [] }))).error).toMatchObject({ code: 'empty_array' });
    expect((await failure(openai.moderations.create({ input: [{ type: 'audio' } as never] }))).error).toMatchObject({
      param: 'input[0].type',
    });
  });
});
