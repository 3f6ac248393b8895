// What loads on first use instead of at start-up must give the same values as loading it eagerly, and
// what only some requests need stays unloaded by the import and the first replies.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fakerEN } from '@faker-js/faker';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { faker as fakerEnOnly } from '@faker-js/faker/locale/en';
import { countTokens, splitTokens, tokenizerReady } from '../src/core/tokens.ts';
import { withFaker } from '../src/core/seed.ts';

describe('lazy loading', () => {
  it('draws the same values from the English-only faker as from the full package, for many seeds', () => {
    const draw = (f: typeof fakerEN) =>
      [
        f.hacker.phrase(),
        f.word.adjective(),
        f.word.noun(),
        f.word.verb(),
        f.word.adverb(),
        f.company.catchPhrase(),
        f.person.firstName(),
        f.person.fullName(),
        f.location.city(),
        f.internet.email(),
        f.number.int({ min: 0, max: 99 }),
      ].join('|');
    for (let key = 0; key < 500; key++) {
      fakerEN.seed(key * 7919);
      const full = draw(fakerEN);
      fakerEnOnly.seed(key * 7919);
      expect(draw(fakerEnOnly)).toBe(full);
      // The gateway's own faker (loaded on first use) is that English-only one.
      expect(withFaker(key * 7919, draw)).toBe(full);
    }
  });

  it('loads the tokenizer once and counts as the package does', async () => {
    const first = tokenizerReady();
    if (first) await first;
    expect(tokenizerReady()).toBeUndefined();
    for (const text of ['Hello, world!', 'Benchmark me, please.', 'naïve café — 東京 🚀']) {
      expect(countTokens(text)).toBe(encode(text).length);
      expect(splitTokens(text).join('')).toBe(text);
    }
  });

  it('in-process: importing the package and its first replies load neither ajv, fflate nor gpt-tokenizer', async () => {
    // test/helpers/module-graph.ts lists every module resolved by an import of the built package, its
    // handlers under msw, and a chat request (with the table built, the tokenizer reads that, not the package).
    const CHILD = fileURLToPath(new URL('./helpers/module-graph.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, 'inprocess'], { maxBuffer: 64 * 1024 * 1024 });
    const { modules, files } = JSON.parse(stdout) as { modules: string[]; files: string[] };
    const from = (name: string) => modules.filter((url) => url.includes(`/node_modules/${name}/`));
    expect(from('@faker-js/faker').length).toBeGreaterThan(0);
    // The package's entry is its bundle (scripts/bundle.ts): a few files of ours resolved (chunks and the table), not ~160 modules.
    const ours = files.filter((url) => url.includes('/dist/src/'));
    expect(ours.filter((url) => !/\/dist\/src\/(bundle-[^/]+|[^/]+\.bundle)\.js$|\/core\/o200k_base\.bin$/.test(url))).toEqual([]);
    expect(ours.length).toBeLessThan(40); // 29 on 2026-11-28; 161 modules unbundled
    expect({ ajv: from('ajv'), fflate: from('fflate'), tokenizer: from('gpt-tokenizer') }).toEqual({ ajv: [], fflate: [], tokenizer: [] });
  });

  it('in-process: the realtime, audio and image handlers load with their first request, not with the package or a chat reply', async () => {
    // `media` mode: the same import and chat replies, then one request to each of those routes.
    const CHILD = fileURLToPath(new URL('./helpers/module-graph.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, 'media'], { maxBuffer: 64 * 1024 * 1024 });
    const { modules, beforeMedia, answers } = JSON.parse(stdout) as { modules: string[]; beforeMedia: string[]; answers: string[] };
    // The handlers' modules and what only they import: speech and transcripts, audio encoders and decoders.
    const handlers = [
      'formats/openai/realtime-routes',
      'formats/openai/realtime',
      'formats/openai/realtime-config',
      'formats/openai/realtime-response',
      'formats/openai/audio',
      'formats/openai/images',
      'formats/openai/image-edits',
      'formats/openai/image-variations',
      'core/audio/encode',
      'core/audio/decode',
      'core/audio/flac',
      'core/audio/ogg',
      'core/audio/bytes',
      'core/transcribe',
      'core/voice',
      'core/synthesize/transcript',
    ].map((name) => `/dist/src/${name}.js`);
    const loaded = (graph: string[]) => handlers.filter((name) => graph.some((url) => url.endsWith(name)));
    expect(beforeMedia.some((url) => url.endsWith('/dist/src/formats/openai/routes.js'))).toBe(true);
    expect(loaded(beforeMedia)).toEqual([]);
    expect(loaded(modules)).toEqual(handlers);
    expect(answers).toEqual([
      expect.stringMatching(/^200 application\/json \{"created":/),
      expect.stringMatching(/^400 application\/json .*multipart\/form-data/),
      expect.stringMatching(/^400 application\/json .*multipart\/form-data/),
      expect.stringMatching(/^200 audio\/wav RIFF/),
      'session.created',
    ]);
  });
});
