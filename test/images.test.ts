// Image generation and editing through the openai SDK, in both modes: decodable pictures of the
// requested size, url files fetched without a token, stream events, errors, fixtures, determinism.
import { describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { ApiError, GoogleGenAI, Modality } from '@google/genai';
import { decode as decodePng, encode as encodePng } from 'fast-png';
import jpeg from 'jpeg-js';
import decodeWebp, { init as initWebp } from '@jsquash/webp/decode.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { modes, withGateway } from './helpers/modes.ts';
import { decodeImage, drawPicture, encodeImage, imageSize, sniffImage } from '../src/core/synthesize/image.ts';
import { assertSchema } from './helpers/openapi.ts';

const bytesOf = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));

function png(bytes: Uint8Array) {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return decodePng(bytes);
}

/** Mean absolute difference per channel of two same-size RGBA pictures. */
function difference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/** A small PNG test upload: a solid colour, optionally with a transparent hole. */
function testPng(width: number, height: number, rgb: [number, number, number], hole = false): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    data.set([...rgb, hole && p % width < width / 2 ? 0 : 255], p * 4);
  }
  return encodePng({ width, height, data, channels: 4, depth: 8 });
}

let webpReady: Promise<unknown> | undefined;
async function webp(bytes: Uint8Array) {
  webpReady ??= initWebp(
    await WebAssembly.compile(readFileSync(createRequire(import.meta.url).resolve('@jsquash/webp/codec/dec/webp_dec.wasm'))),
  );
  await webpReady;
  return decodeWebp(bytes.slice().buffer);
}

describe.each(modes)('image generation ($name)', (mode) => {
  const ctx = withGateway(mode, {
    fixtures: [
      {
        name: 'pinned-picture',
        match: { endpoint: '/v1/images/generations', userMessage: 'pin this picture' },
        reply: { image: Buffer.from(testPng(8, 4, [10, 200, 30])).toString('base64') },
      },
      { name: 'image-fails', match: { userMessage: 'fail this picture' }, error: { status: 429, message: 'slow down' } },
    ],
  });

  it('answers dall-e-2 with urls by default, fetchable without a token, of the asked size', async () => {
    const reply = await ctx.client.images.generate({ model: 'dall-e-2', prompt: 'A lighthouse on a cliff at dusk', size: '256x256', n: 2 });
    assertSchema('ImagesResponse', reply);
    expect(reply.data).toHaveLength(2);
    expect(reply.usage).toBeUndefined();
    const pictures = [];
    for (const item of reply.data!) {
      expect(item.url).toMatch(/\/v1\/images\/files\/img-\w+\.png$/);
      const res = await fetch(item.url!);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const picture = png(new Uint8Array(await res.arrayBuffer()));
      expect([picture.width, picture.height]).toEqual([256, 256]);
      pictures.push(picture);
    }
    // Two pictures of one prompt share its colours and shapes but are placed differently.
    expect(difference(pictures[0].data, pictures[1].data)).toBeGreaterThan(1);
    if (mode.name === 'socket') expect(new URL(reply.data![0].url!).origin).toBe(ctx.gw.root);
  });

  it('answers b64_json and revised_prompt for dall-e-3; two prompts give visibly different pictures', async () => {
    const otter = await ctx.client.images.generate({
      model: 'dall-e-3',
      prompt: 'A cute baby sea otter',
      response_format: 'b64_json',
      size: '1792x1024',
      style: 'natural',
    });
    assertSchema('ImagesResponse', otter);
    expect(otter.data![0].revised_prompt).toContain('A cute baby sea otter');
    const a = png(bytesOf(otter.data![0].b64_json!));
    expect([a.width, a.height]).toEqual([1792, 1024]);
    // Small pictures keep the suite light: two prompts differ at any size.
    const small = (prompt: string) =>
      ctx.client.images
        .generate({ model: 'dall-e-2', prompt, response_format: 'b64_json', size: '256x256' })
        .then((r) => png(bytesOf(r.data![0].b64_json!)));
    expect(
      difference((await small('A cute baby sea otter')).data, (await small('A red sports car racing through a desert canyon')).data),
    ).toBeGreaterThan(15);
  });

  it('answers the GPT image models in base64 with usage, in PNG, JPEG and WebP', async () => {
    const reply = await ctx.client.images.generate({ model: 'gpt-image-1', prompt: 'A bowl of ramen', size: '1536x1024', quality: 'low' });
    assertSchema('ImagesResponse', reply);
    expect(reply).toMatchObject({ background: 'opaque', output_format: 'png', quality: 'low', size: '1536x1024' });
    expect(reply.usage).toMatchObject({ output_tokens: 400, input_tokens_details: { image_tokens: 0 } });
    expect(reply.usage!.input_tokens).toBeGreaterThan(0);
    expect(reply.usage!.total_tokens).toBe(reply.usage!.input_tokens + reply.usage!.output_tokens);
    expect([png(bytesOf(reply.data![0].b64_json!)).width]).toEqual([1536]);

    const asJpeg = await ctx.client.images.generate({
      model: 'gpt-image-1-mini',
      prompt: 'A bowl of ramen',
      output_format: 'jpeg',
      output_compression: 70,
    });
    assertSchema('ImagesResponse', asJpeg);
    const j = jpeg.decode(bytesOf(asJpeg.data![0].b64_json!), { useTArray: true });
    expect([j.width, j.height]).toEqual([1024, 1024]);

    const asWebp = await ctx.client.images.generate({
      model: 'gpt-image-1.5',
      prompt: 'A bowl of ramen',
      output_format: 'webp',
      background: 'transparent',
    });
    const w = await webp(bytesOf(asWebp.data![0].b64_json!));
    expect([w.width, w.height]).toEqual([1024, 1024]);
    expect(asWebp.background).toBe('transparent');
    expect(w.data.some((_, i) => i % 4 === 3 && w.data[i] === 0)).toBe(true);
  });

  it('streams partial images, then the completed image, as the SDK types them', async () => {
    const stream = await ctx.client.images.generate({
      model: 'gpt-image-1',
      prompt: 'Three green apples on a wooden table',
      stream: true,
      partial_images: 2,
      quality: 'medium',
    });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    for (const e of events)
      assertSchema(e.type === 'image_generation.completed' ? 'ImageGenCompletedEvent' : 'ImageGenPartialImageEvent', e);
    const [p0, p1, done] = events.map((e) => png(bytesOf(e.b64_json)));
    expect(done.width).toBe(1024);
    expect(difference(p0.data, done.data)).toBeGreaterThan(difference(p1.data, done.data));
    const plain = await ctx.client.images.generate({
      model: 'gpt-image-1',
      prompt: 'Three green apples on a wooden table',
      quality: 'medium',
    });
    expect(plain.data![0].b64_json).toBe(events[2].b64_json);
  });

  it('gives identical bytes for the same request, others under another seed', async () => {
    const ask = { model: 'dall-e-2', prompt: 'A paper boat', size: '256x256' as const, response_format: 'b64_json' as const };
    const one = await ctx.client.images.generate(ask);
    const two = await ctx.client.images.generate(ask);
    expect(two.data![0].b64_json).toBe(one.data![0].b64_json);
    const other = await ctx.client.images.generate(ask, { headers: { 'x-mock-seed': '7' } });
    expect(other.data![0].b64_json).not.toBe(one.data![0].b64_json);
  });

  it("refuses what the model does not take, with OpenAI's 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'dall-e-2', prompt: 'x', size: '1536x1024' }, 'size'],
      [{ model: 'dall-e-3', prompt: 'x', n: 2 }, 'n'],
      [{ model: 'dall-e-3', prompt: 'x', quality: 'low' }, 'quality'],
      [{ model: 'dall-e-2', prompt: 'x', style: 'vivid' }, 'style'],
      [{ model: 'dall-e-2', prompt: 'x', output_format: 'webp' }, 'output_format'],
      [{ model: 'gpt-image-1', prompt: 'x', response_format: 'url' }, 'response_format'],
      [{ model: 'gpt-image-1', prompt: 'x', background: 'transparent', output_format: 'jpeg' }, 'background'],
      [{ model: 'gpt-image-1', prompt: 'x', output_compression: 50 }, 'output_compression'],
      [{ model: 'gpt-image-1', prompt: 'x', partial_images: 4, stream: true }, 'partial_images'],
      [{ model: 'dall-e-2', prompt: 'x'.repeat(1001) }, 'prompt'],
      [{ model: 'dall-e-2' }, 'prompt'],
    ];
    for (const [body, param] of cases) {
      const error = await ctx.client.images.generate(body as never).catch((e) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe(param);
    }
    const chatModel = await ctx.client.images.generate({ model: 'gpt-4o', prompt: 'x' }).catch((e) => e);
    expect(chatModel).toBeInstanceOf(OpenAI.NotFoundError);
    const missing = await fetch(`${ctx.gw.root}/v1/images/files/img-nope.png`);
    expect(missing.status).toBe(404);
  });

  it('lets fixtures pin the picture, fail the request or break it', async () => {
    const pinned = await ctx.client.images.generate({ model: 'dall-e-2', prompt: 'pin this picture', response_format: 'b64_json' });
    const picture = png(bytesOf(pinned.data![0].b64_json!));
    expect([picture.width, picture.height, ...picture.data.subarray(0, 3)]).toEqual([8, 4, 10, 200, 30]);
    const failed = await ctx.client.images.generate({ model: 'dall-e-2', prompt: 'fail this picture' }).catch((e) => e);
    expect(failed).toBeInstanceOf(OpenAI.RateLimitError);
    const forced = await ctx.client.images
      .generate({ model: 'dall-e-2', prompt: 'x' }, { headers: { 'x-mock-status': '503' } })
      .catch((e) => e);
    expect(forced.status).toBe(503);
    const reset = await ctx.client.images
      .generate({ model: 'dall-e-2', prompt: 'x' }, { headers: { 'x-mock-fault': 'CONNECTION_RESET_BY_PEER' } })
      .catch((e) => e);
    expect(reset).toBeInstanceOf(OpenAI.APIConnectionError);
    const cut = await ctx.client.images.generate(
      { model: 'gpt-image-1', prompt: 'x', stream: true, partial_images: 1 },
      { headers: { 'x-mock-fault': 'STREAM_ERROR,after=1,status=500' } },
    );
    const seen: string[] = [];
    const streamError = await (async () => {
      for await (const e of cut) seen.push(e.type);
    })().catch((e) => e);
    expect(seen).toEqual(['image_generation.partial_image']);
    expect(streamError).toBeInstanceOf(OpenAI.APIError);
    const journal = await ctx.gw.requests();
    expect(journal.find((e) => e.fixture === 'pinned-picture')?.model).toBe('dall-e-2');
  });
});

describe.each(modes)('Gemini image output ($name)', (mode) => {
  const ctx = withGateway(mode, {
    fixtures: [
      {
        name: 'gemini-pinned',
        match: { format: 'gemini', userMessage: 'pinned gemini picture' },
        reply: { image: Buffer.from(testPng(6, 6, [200, 10, 10])).toString('base64'), text: 'As pinned.' },
      },
    ],
  });
  const ai = () => new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: ctx.gw.root } });

  it('answers TEXT and IMAGE modalities with a text part and an inline PNG of the aspect ratio', async () => {
    const ask = (contents: string) =>
      ai().models.generateContent({
        model: 'gemini-2.5-flash-image',
        contents,
        config: { responseModalities: [Modality.TEXT, Modality.IMAGE], imageConfig: { aspectRatio: '16:9' } },
      });
    const reply = await ask('A watercolour fox in the snow');
    const parts = reply.candidates![0].content!.parts!;
    expect(parts[0].text).toContain('watercolour fox');
    expect(parts[1].inlineData!.mimeType).toBe('image/png');
    const fox = png(bytesOf(parts[1].inlineData!.data!));
    expect([fox.width, fox.height]).toEqual([1344, 768]);
    expect(reply.usageMetadata!.candidatesTokensDetails).toContainEqual({ modality: 'IMAGE', tokenCount: 1290 });
    const again = await ask('A watercolour fox in the snow');
    expect(again.candidates![0].content!.parts![1].inlineData!.data).toBe(parts[1].inlineData!.data);
    const boat = png(bytesOf((await ask('A yellow submarine under the sea')).candidates![0].content!.parts![1].inlineData!.data!));
    expect(difference(fox.data, boat.data)).toBeGreaterThan(15);
  });

  it('streams the picture whole, pins it from a fixture, and refuses IMAGE on a text-only model', async () => {
    const chunks = [];
    for await (const chunk of await ai().models.generateContentStream({
      model: 'gemini-2.5-flash-image',
      contents: 'A lemon',
      config: { responseModalities: [Modality.IMAGE] },
    }))
      chunks.push(chunk);
    const inline = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).filter((p) => p.inlineData);
    expect(inline).toHaveLength(1);
    expect(png(bytesOf(inline[0].inlineData!.data!)).width).toBe(1024);
    const pinned = await ai().models.generateContent({
      model: 'gemini-2.5-flash-image',
      contents: 'pinned gemini picture',
      config: { responseModalities: [Modality.TEXT, Modality.IMAGE] },
    });
    const parts = pinned.candidates![0].content!.parts!;
    expect(parts[0].text).toBe('As pinned.');
    expect(png(bytesOf(parts[1].inlineData!.data!)).width).toBe(6);
    const refused = await ai()
      .models.generateContent({ model: 'gemini-2.5-flash', contents: 'x', config: { responseModalities: [Modality.TEXT, Modality.IMAGE] } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(400);
  });
});

describe.each(modes)('image edits ($name)', (mode) => {
  const ctx = withGateway(mode);
  const red = () => toFile(Buffer.from(testPng(64, 64, [220, 30, 30])), 'red.png', { type: 'image/png' });
  const blue = () => toFile(Buffer.from(testPng(96, 48, [30, 30, 220])), 'blue.png', { type: 'image/png' });

  it('edits one image: the picture keeps the upload where the mask is opaque and follows the prompt', async () => {
    const mask = await toFile(Buffer.from(testPng(64, 64, [0, 0, 0], true)), 'mask.png', { type: 'image/png' });
    const reply = await ctx.client.images.edit({
      model: 'gpt-image-1',
      image: await red(),
      mask,
      prompt: 'Add a golden crown and a green hat',
      size: '1024x1024',
      quality: 'low',
    });
    assertSchema('ImagesResponse', reply);
    expect(reply.usage!.input_tokens_details.image_tokens).toBeGreaterThan(0);
    const picture = png(bytesOf(reply.data![0].b64_json!));
    expect([picture.width, picture.height]).toEqual([1024, 1024]);
    // The right half of the mask is opaque: the red upload is kept there, untouched.
    const at = (x: number, y: number) => [...picture.data.subarray((y * 1024 + x) * 4, (y * 1024 + x) * 4 + 3)];
    expect(at(1000, 10)).toEqual([220, 30, 30]);
    expect(at(10, 10)).not.toEqual([220, 30, 30]);
    const again = await ctx.client.images.edit({
      model: 'gpt-image-1',
      image: await red(),
      mask: await toFile(Buffer.from(testPng(64, 64, [0, 0, 0], true)), 'mask.png'),
      prompt: 'Add a golden crown and a green hat',
      size: '1024x1024',
      quality: 'low',
    });
    expect(again.data![0].b64_json).toBe(reply.data![0].b64_json);
  });

  it('edits two images (image[]) into one picture, sized auto from the first, streamed as edit events', async () => {
    const reply = await ctx.client.images.edit({
      model: 'gpt-image-1.5',
      image: [await blue(), await red()],
      prompt: 'A gift basket with both items',
    });
    const picture = png(bytesOf(reply.data![0].b64_json!));
    expect([picture.width, picture.height]).toEqual([1536, 1024]);
    expect(reply.size).toBe('1536x1024');
    const onlyBlue = await ctx.client.images.edit({ model: 'gpt-image-1.5', image: await blue(), prompt: 'A gift basket with both items' });
    expect(difference(picture.data, png(bytesOf(onlyBlue.data![0].b64_json!)).data)).toBeGreaterThan(5);
    const stream = await ctx.client.images.edit({
      model: 'gpt-image-1',
      image: [await blue(), await red()],
      prompt: 'A gift basket',
      stream: true,
      partial_images: 1,
    });
    const events = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['image_edit.partial_image', 'image_edit.completed']);
    assertSchema('ImageEditPartialImageEvent', events[0]);
    assertSchema('ImageEditCompletedEvent', events[1]);
    const journal = await ctx.gw.requests();
    const entry = journal.findLast((e) => e.path === '/v1/images/edits')!;
    expect((entry.body as { image: unknown[] }).image).toEqual([
      expect.objectContaining({ filename: 'blue.png', bytes: expect.any(Number) }),
      expect.objectContaining({ filename: 'red.png' }),
    ]);
  });

  it('answers dall-e-2 edits with a url, and refuses bad uploads with BadRequestError', async () => {
    const reply = await ctx.client.images.edit({ model: 'dall-e-2', image: await red(), prompt: 'A blue sky', size: '256x256' });
    const res = await fetch(reply.data![0].url!);
    expect(png(new Uint8Array(await res.arrayBuffer())).width).toBe(256);
    const cases: [Parameters<typeof ctx.client.images.edit>[0], string][] = [
      [
        { model: 'gpt-image-1', image: await toFile(Buffer.from('just some text'), 'notes.png', { type: 'image/png' }), prompt: 'x' },
        'image',
      ],
      [
        { model: 'gpt-image-1', image: await toFile(Buffer.from(testPng(8, 8, [1, 2, 3]).subarray(0, 40)), 'cut.png'), prompt: 'x' },
        'image',
      ],
      [
        {
          model: 'gpt-image-1',
          image: await red(),
          mask: await toFile(Buffer.from(testPng(32, 32, [0, 0, 0], true)), 'mask.png'),
          prompt: 'x',
        },
        'mask',
      ],
      [{ model: 'dall-e-2', image: await blue(), prompt: 'x' }, 'image'],
      [{ model: 'dall-e-2', image: [await red(), await red()], prompt: 'x' }, 'image'],
      [{ model: 'gpt-image-1', image: await red(), prompt: 'x', response_format: 'url' }, 'response_format'],
      [{ model: 'gpt-image-1', image: await red() } as never, 'prompt'],
    ];
    for (const [body, param] of cases) {
      const error = await ctx.client.images.edit(body).catch((e) => e);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe(param);
    }
    const noImage = await fetch(`${ctx.gw.root}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test' },
      body: (() => {
        const f = new FormData();
        f.set('prompt', 'x');
        return f;
      })(),
    });
    expect(noImage.status).toBe(400);
    expect((await noImage.json()).error.param).toBe('image');
  });
});

describe('image synthesizer and codecs', () => {
  it('draws exactly the asked size, and round-trips through every codec', async () => {
    const picture = drawPicture('an odd little picture', 7, 3, 1);
    expect([picture.width, picture.height, picture.data.length]).toEqual([7, 3, 84]);
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const file = await encodeImage(picture, format, 90);
      expect(sniffImage(file)).toBe(format);
      expect(imageSize(file)).toEqual({ width: 7, height: 3 });
      const back = await decodeImage(file);
      expect([back.width, back.height]).toEqual([7, 3]);
    }
    expect(() => drawPicture('x', 5000, 5000, 1)).toThrow(RangeError);
  });

  it('decodes low bit depths and palettes, and refuses what is not an image before decoding it', async () => {
    const palette = encodePng({
      width: 4,
      height: 2,
      data: new Uint8Array([0b00011011, 0b11100100]),
      channels: 1,
      depth: 2,
      palette: [
        [255, 0, 0],
        [0, 255, 0],
        [0, 0, 255],
        [9, 9, 9],
      ],
    });
    const pixels = await decodeImage(palette);
    expect([...pixels.data.subarray(0, 8), ...pixels.data.subarray(16, 20)]).toEqual([255, 0, 0, 255, 0, 255, 0, 255, 9, 9, 9, 255]);
    const bits = await decodeImage(encodePng({ width: 8, height: 1, data: new Uint8Array([0b10100000]), channels: 1, depth: 1 }));
    expect([0, 1, 2, 3].map((p) => bits.data[p * 4])).toEqual([255, 0, 255, 0]);
    await expect(decodeImage(new TextEncoder().encode('GIF89a...'))).rejects.toThrow(RangeError);
    // A PNG header claiming 100000×100000 pixels is refused from its header alone.
    const huge = encodePng({ width: 1, height: 1, data: new Uint8Array(4), channels: 4, depth: 8 });
    new DataView(huge.buffer, huge.byteOffset).setUint32(16, 100000);
    new DataView(huge.buffer, huge.byteOffset).setUint32(20, 100000);
    await expect(decodeImage(huge)).rejects.toThrow(/over the limit/);
  });
});
