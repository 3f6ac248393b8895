// The platform pages, in real headless Chromium (Debian's chromium, driven by playwright-core),
// against the built CLI on a dynamic port: what a developer sees and does on each page.
// Screenshots of every page, at desktop and phone widths, go to test/screenshots/ (ignored by git).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Dialog, type Page } from 'playwright-core';
import OpenAI, { toFile } from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './helpers/chromium.ts';

// CI installs Chromium (.ci/run) and must run these; elsewhere they are skipped, loudly, without it.
const available = existsSync(CHROMIUM);
if (!available && !process.env.CI) console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = join(ROOT, 'test', 'screenshots');
const run = promisify(execFile);

const XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

describe('the pages’ scripts', () => {
  it('are served from source too, stripped of their types', async () => {
    const { clientScript } = await import('../src/console/assets.ts');
    const script = await clientScript('common.js');
    expect(script).toContain('export function $');
    expect(script).not.toMatch(/\): string \{/);
    expect(await clientScript('../server.js')).toBeUndefined();
    expect(await clientScript('missing.js')).toBeUndefined();
  });

  it('keep what they found and no miss: 1000 names that are no file leave the cache as it was', async () => {
    const { cachedScripts, clientScript } = await import('../src/console/assets.ts');
    await clientScript('common.js');
    const before = cachedScripts();
    for (let i = 0; i < 1000; i++) expect(await clientScript(`missing-${'x'.repeat(i + 1)}.js`)).toBeUndefined();
    await clientScript('missing-last.js');
    expect(cachedScripts()).toBe(before);
    expect(await clientScript('common.js')).toContain('export function $');
  });
});

describe.runIf(socketSuites && (available || process.env.CI))('console pages in Chromium', () => {
  let cli: Spawned;
  let browser: Browser;
  let context: BrowserContext;
  let imagesExist = false;
  let speechExists = false;
  /** Uncaught exceptions in any page, ever: there must be none. */
  const pageErrors: string[] = [];

  const admin = async (path: string, method = 'GET', body?: unknown) => {
    const res = await fetch(`${cli.url}/__admin${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  /** Whether the public endpoint exists on this build (other branches add images and speech). */
  const exists = async (path: string) =>
    (
      await fetch(`${cli.url}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-console', 'content-type': 'application/json' },
        body: '{}',
      })
    ).status !== 404;

  /** How a page answers the next dialog it opens (see `answering`); a dialog nobody expects is an error. */
  const nextAnswer = new WeakMap<Page, (dialog: Dialog) => void>();
  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${path}: ${error.message}`));
    page.on('dialog', (dialog) => {
      const answer = nextAnswer.get(page);
      nextAnswer.delete(page);
      if (answer) return answer(dialog);
      pageErrors.push(`${path}: a dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(`${cli.url}${path}`);
    return page;
  }

  /** Does `action`, accepting or dismissing the one dialog it must open; returns the dialog's message. */
  async function answering(page: Page, accept: boolean, action: () => Promise<unknown>): Promise<string> {
    let message: string | undefined;
    nextAnswer.set(page, (dialog) => {
      message = dialog.message();
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    await action();
    await expect.poll(() => message, { message: 'a confirmation dialog opened' }).toBeDefined();
    return message!;
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    cli = await spawnCli(['--token', 'sk-console', '--token', 'sk-second']);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, '--autoplay-policy=no-user-gesture-required'],
    });
    context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1280, height: 900 } });
    imagesExist = await exists('/v1/images/generations');
    speechExists = await exists('/v1/audio/speech');
    // Pieces of this reply come 40 ms apart, so a page that streams shows them one by one.
    await admin('/fixtures', 'POST', {
      name: 'slow',
      match: { userMessage: { contains: 'slowly' } },
      reply: { text: 'One two three four five six seven eight nine ten.' },
      latency: 'ttft=50,tps=25,jitter=0',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('copies each base address to the clipboard and shows the issued tokens', async () => {
    const page = await open('/');
    for (const [id, expected] of [
      ['base-openai', `${cli.url}/v1`],
      ['base-anthropic', cli.url],
      ['base-gemini', `${cli.url}/v1beta`],
    ]) {
      expect(await page.inputValue(`#${id}`)).toBe(expected);
      await page.click(`button[data-copy-from="${id}"]`);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
    }
    expect(await page.$$eval('#token-list input', (inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual([
      'sk-console',
      'sk-second',
    ]);
    await page.close();
  });

  it('gives snippets that run as pasted: curl, openai, @anthropic-ai/sdk, @google/genai and msw', async () => {
    const page = await open('/');
    const snippet = async (id: string) => {
      await page.click(`#tab-${id}`);
      await page.click(`button[data-copy-from="snippet-${id}"]`);
      return page.evaluate(() => navigator.clipboard.readText());
    };
    // The snippets are tabs, usable from the keyboard.
    await page.focus('#tab-curl');
    await page.keyboard.press('ArrowRight');
    expect(await page.getAttribute('#tab-openai', 'aria-selected')).toBe('true');
    expect(await page.isVisible('#snippet-openai')).toBe(true);
    expect(await page.isVisible('#snippet-curl')).toBe(false);
    const curl = await snippet('curl');
    expect(curl).toContain(`${cli.url}/v1/chat/completions`);
    const { stdout } = await run('sh', ['-c', curl]);
    expect(JSON.parse(stdout).choices[0].message.content).toMatch(/\w/);

    // Saved inside the project, so the SDKs (and this package itself) resolve as they would for a user.
    const dir = mkdtempSync(join(ROOT, 'test', '.snippets-'));
    try {
      for (const id of ['openai', 'anthropic', 'genai', 'msw']) {
        const file = join(dir, `${id}.mjs`);
        writeFileSync(file, await snippet(id));
        const out = await run(process.execPath, [file], { cwd: dir });
        expect(out.stdout.trim(), id).toMatch(/\w{3,}/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const journal = (await admin('/requests')) as { requests: { path: string; status: number }[] };
    expect(journal.requests.filter((r) => r.status === 200).map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/v1/chat/completions',
        '/v1/messages',
        expect.stringMatching(/\/models\/gemini-2\.5-flash:generateContent$/),
      ]),
    );
    await page.close();
  });

  it('gives each cloud and router client its constructor options, which work as copied: Azure, Vertex, Bedrock, OpenRouter', async () => {
    const page = await open('/');
    const clients: [id: string, path: RegExp, dialect: string][] = [
      ['azure', /^\/openai\/deployments\/[^/]+\/chat\/completions/, 'azure'],
      ['ai-sdk-azure', /^\/openai\/v1\/chat\/completions$/, 'azure'],
      [
        'vertex-genai',
        /^\/v1beta1\/projects\/my-project\/locations\/us-central1\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/,
        'vertex',
      ],
      ['anthropic-vertex', /\/publishers\/anthropic\/models\/[^/]+:rawPredict$/, 'vertex'],
      ['anthropic-bedrock', /^\/model\/[^/]+\/invoke$/, 'bedrock'],
      ['bedrock-runtime', /^\/model\/[^/]+\/converse$/, 'bedrock'],
      ['openrouter', /^\/api\/v1\/chat\/completions$/, 'openrouter'],
    ];
    // Folded until opened: the page stays short, on a phone too.
    expect(await page.isVisible('#snippet-azure')).toBe(false);
    const dir = mkdtempSync(join(ROOT, 'test', '.snippets-'));
    try {
      for (const [id, path, dialect] of clients) {
        await page.click(`#cloud-${id} > summary`);
        await page.click(`button[data-copy-from="snippet-${id}"]`);
        const code = await page.evaluate(() => navigator.clipboard.readText());
        expect(code, id).toContain(cli.url);
        await admin('/requests', 'DELETE');
        const file = join(dir, `${id}.mjs`);
        writeFileSync(file, code);
        const out = await run(process.execPath, [file], { cwd: dir });
        expect(out.stdout.trim(), id).toMatch(/\w{3,}/);
        const journal = (await admin('/requests')) as { requests: { path: string; status: number; dialect?: string }[] };
        expect(
          journal.requests.map((r) => [r.path.split('?')[0], r.status, r.dialect]),
          id,
        ).toEqual([[expect.stringMatching(path), 200, dialect]]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.close();
  });

  it('streams the reply in pieces as they are produced, with usage and timing', async () => {
    const page = await open('/console/playground');
    expect(await page.inputValue('#token')).toBe('sk-console');
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.fill('#message', 'Tell it slowly');
    // Record every text the reply shows while it streams.
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { seen: string[] }).seen = []);
      new MutationObserver(() => seen.push(document.querySelector('#reply')!.textContent!)).observe(document.querySelector('#reply')!, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.click('#send');
    await page.waitForFunction(() => /ms in all/.test(document.querySelector('#usage')!.textContent!));
    const seen = (await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).filter(Boolean);
    expect(await page.textContent('#reply')).toBe('One two three four five six seven eight nine ten.');
    expect(await page.textContent('#token-status')).toBe('This token works.');
    expect(new Set(seen).size).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i].startsWith(seen[i - 1])).toBe(true);
    const usage = await page.textContent('#usage');
    expect(usage).toMatch(
      /^HTTP 200 · \d+ streamed pieces · \d+ input tokens, \d+ output tokens · first text after \d+ ms · \d+ ms in all$/,
    );
    await page.screenshot({ path: join(SHOTS, 'playground-streamed.png'), fullPage: true });
    await page.close();
  });

  it('paces a stream as chosen in its latency control (x-mock-latency), with the fixture text all the same', async () => {
    const page = await open('/console/playground');
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.fill('#message', 'Tell it slowly');
    expect(await page.$$eval('#latency option', (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual([
      '',
      'realistic',
      'slow',
      'ttft=1000,tps=5,jitter=0',
    ]);
    await page.selectOption('#latency', 'realistic');
    await page.click('#show-curl');
    expect(await page.textContent('#curl')).toContain("-H 'x-mock-latency: realistic'");
    await page.click('#send');
    await page.waitForFunction(() => /ms in all/.test(document.querySelector('#usage')!.textContent!));
    expect(await page.textContent('#reply')).toBe('One two three four five six seven eight nine ten.');
    // The gateway saw the pace asked for (the journal keeps the request's headers).
    const journal = (await admin('/requests')) as { requests: { headers: Record<string, string>; stream: boolean }[] };
    expect(journal.requests.at(-1)).toMatchObject({ stream: true, headers: { 'x-mock-latency': 'realistic' } });
    await page.close();
  });

  it('answers in the format that suits each model, streamed or not, the same text the SDK gets', async () => {
    const page = await open('/console/playground');
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    for (const [model, format] of [
      ['claude-sonnet-5-5', 'messages'],
      ['gemini-2.5-flash', 'gemini'],
      ['gpt-4o', 'chat'],
    ]) {
      await page.selectOption('#model', model);
      expect(await page.inputValue('#format')).toBe(format);
      for (const stream of [true, false]) {
        await page.setChecked('#stream', stream);
        await page.fill('#message', `Hello ${model}`);
        await page.click('#send');
        await page.waitForFunction(
          () =>
            /ms in all/.test(document.querySelector('#usage')!.textContent!) &&
            !(document.querySelector('#send') as HTMLButtonElement).disabled,
        );
        expect(await page.getAttribute('#reply', 'class')).toBe('output');
        expect((await page.textContent('#reply'))!.length).toBeGreaterThan(10);
      }
    }
    // Any chat model answers any chat format; the Responses API gives the chat text for the same request.
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.selectOption('#format', 'responses');
    await page.setChecked('#stream', true);
    await page.fill('#message', 'Hello responses');
    await page.click('#send');
    await page.waitForFunction(() => /output tokens/.test(document.querySelector('#usage')!.textContent!));
    const expected = await sdk.responses.create({ model: 'gpt-4o-mini', input: 'Hello responses', temperature: 1 });
    expect(await page.textContent('#reply')).toBe(expected.output_text);
    await page.close();
  });

  it('sends a request through each cloud and router, as its clients send it, and the journal names the dialect', async () => {
    const page = await open('/console/playground');
    // A Gemini model is not served through Azure: the way is offered only where it serves the model.
    await page.selectOption('#model', 'gemini-2.5-flash');
    expect(await page.$eval('#through option[value="azure"]', (o) => (o as HTMLOptionElement).disabled)).toBe(true);
    const ways: [model: string, through: string, format: string, path: RegExp][] = [
      ['gpt-4o-mini', 'azure', 'chat', /^\/openai\/deployments\/gpt-4o-mini\/chat\/completions$/],
      ['gpt-4o-mini', 'openrouter', 'chat', /^\/api\/v1\/chat\/completions$/],
      [
        'gemini-2.5-flash',
        'vertex',
        'gemini',
        /^\/v1beta1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/gemini-2\.5-flash:/,
      ],
      ['claude-sonnet-5-5', 'vertex', 'messages', /\/publishers\/anthropic\/models\/claude-sonnet-5-5:(stream)?[rR]awPredict$/],
      ['gpt-4o-mini', 'bedrock', 'converse', /^\/model\/gpt-4o-mini\/converse(-stream)?$/],
    ];
    for (const [model, through, format, path] of ways) {
      await page.selectOption('#model', model);
      await page.selectOption('#through', through);
      expect(await page.inputValue('#format'), through).toBe(format);
      for (const stream of [true, false]) {
        await admin('/requests', 'DELETE');
        await page.setChecked('#stream', stream);
        await page.fill('#message', `Hello through ${through}`);
        await page.click('#send');
        await page.waitForFunction(
          () =>
            /ms in all/.test(document.querySelector('#usage')!.textContent!) &&
            !(document.querySelector('#send') as HTMLButtonElement).disabled,
        );
        const what = `${model} through ${through}, stream ${stream}`;
        expect(await page.getAttribute('#reply', 'class'), what).toBe('output');
        expect((await page.textContent('#reply'))!.length, what).toBeGreaterThan(10);
        expect(await page.textContent('#usage'), what).toMatch(/^HTTP 200 .*output tokens/);
        const journal = (await admin('/requests')) as { requests: { path: string; status: number; dialect?: string; stream?: boolean }[] };
        expect(journal.requests, what).toHaveLength(1);
        expect(journal.requests[0], what).toMatchObject({ status: 200, dialect: through });
        expect(journal.requests[0].path, what).toMatch(path);
        // The endpoint line says where it went, the query (Azure's api-version, Gemini's alt=sse) included.
        const endpoint = (await page.textContent('#endpoint'))!;
        expect(endpoint.split('?')[0], what).toBe(`POST ${journal.requests[0].path}`);
        if (through === 'azure') expect(endpoint, what).toContain('?api-version=2024-10-21');
        if (stream) {
          // The requests page assembles the stream it journaled, whatever way it came (Bedrock's event-stream frames too).
          const requests = await open('/console/requests');
          await requests.locator('#rows tr button[data-open]').first().click();
          await requests.waitForFunction(() => !(document.querySelector('#assembled') as HTMLElement).hidden);
          expect(await requests.textContent('#res-text'), what).toBe(await page.textContent('#reply'));
          await requests.close();
        }
      }
    }
    await page.screenshot({ path: join(SHOTS, 'playground-through.png'), fullPage: true });
    await page.close();
  });

  it('shows the request as a curl command that gives the same reply', async () => {
    const page = await open('/console/playground');
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.setChecked('#stream', false);
    await page.fill('#system', "Answer like a pirate, it's fun");
    await page.fill('#message', 'Hello curl');
    await page.click('#send');
    await page.waitForFunction(() => /output tokens/.test(document.querySelector('#usage')!.textContent!));
    await page.click('#show-curl');
    const curl = (await page.textContent('#curl'))!;
    expect(curl).toContain("'\\''s fun");
    const { stdout } = await run('sh', ['-c', curl]);
    expect(JSON.parse(stdout).choices[0].message.content).toBe(await page.textContent('#reply'));
    await page.close();
  });

  it('shows the vector of an embedding model, reranks documents, and completes a prompt', async () => {
    const page = await open('/console/playground');
    await page.selectOption('#model', 'text-embedding-3-small');
    expect(await page.inputValue('#format')).toBe('embeddings');
    await page.fill('#message', 'a sentence to embed');
    await page.click('#send');
    await page.waitForFunction(() => /dimensions/.test(document.querySelector('#reply')!.textContent!));
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const expected = (
      await sdk.embeddings.create({ model: 'text-embedding-3-small', input: 'a sentence to embed', encoding_format: 'float' })
    ).data[0].embedding;
    expect(await page.textContent('#reply')).toBe(
      `1536 dimensions: [${expected
        .slice(0, 8)
        .map((v) => v.toFixed(6))
        .join(', ')}, …]`,
    );
    await page.screenshot({ path: join(SHOTS, 'playground-embedding.png') });

    // A reranker: the query, the documents one per line, the scores best first.
    await page.selectOption('#model', 'jina-reranker-v2-base-multilingual');
    expect(await page.isVisible('#documents')).toBe(true);
    await page.fill('#message', 'weather in Oslo');
    await page.fill('#documents', 'A recipe for bread\nThe weather in Oslo is mild\nTrain timetables');
    await page.click('#send');
    await page.waitForFunction(() => /\n/.test(document.querySelector('#reply')!.textContent!));
    const lines = (await page.textContent('#reply'))!.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^0\.\d{4} {2}The weather in Oslo is mild$/);
    // A legacy completion model answers on /v1/completions.
    await page.selectOption('#model', 'gpt-3.5-turbo-instruct');
    expect(await page.textContent('#endpoint')).toBe('POST /v1/completions');
    await page.fill('#message', 'Once upon a time');
    await page.click('#send');
    await page.waitForFunction(() => /output tokens/.test(document.querySelector('#usage')!.textContent!));
    expect(await page.getAttribute('#reply', 'class')).toBe('output');
    await page.close();
  });

  /** Waits for the playground's <audio> to load, and returns its duration in seconds. */
  async function playedSeconds(page: Page): Promise<number> {
    await page.waitForSelector('#media audio');
    return page.$eval('#media audio', (audio) => {
      const a = audio as HTMLAudioElement;
      return new Promise<number>((resolve, reject) => {
        if (a.readyState >= 1) return resolve(a.duration);
        a.addEventListener('loadedmetadata', () => resolve(a.duration));
        a.addEventListener('error', () => reject(new Error(`audio error ${a.error?.code}`)));
      });
    });
  }

  it('plays the speech of a Gemini speech model', async () => {
    const page = await open('/console/playground');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.selectOption('#model', 'gemini-2.5-flash-preview-tts');
    expect(await page.isVisible('#voice')).toBe(true);
    await page.fill('#message', 'Have a wonderful day!');
    await page.click('#send');
    expect(await playedSeconds(page)).toBeGreaterThan(0.3);
    await page.screenshot({ path: join(SHOTS, 'playground-speech-phone.png'), fullPage: true });
    await page.close();
  });

  // The OpenAI speech and images endpoints come from another branch: these run once they exist.
  it('plays the speech of an OpenAI speech model (POST /v1/audio/speech)', async ({ skip }) => {
    if (!speechExists) return skip('POST /v1/audio/speech answers 404 on this build');
    const page = await open('/console/playground');
    await page.selectOption('#model', 'tts-1');
    await page.fill('#message', 'Have a wonderful day!');
    await page.click('#send');
    expect(await playedSeconds(page)).toBeGreaterThan(0.3);
    await page.close();
  });

  it('shows the image of an image model (POST /v1/images/generations)', async ({ skip }) => {
    if (!imagesExist) return skip('POST /v1/images/generations answers 404 on this build');
    const page = await open('/console/playground');
    for (const model of ['gpt-image-1', 'dall-e-3']) {
      await page.selectOption('#model', model);
      await page.fill('#message', 'A lighthouse at dusk');
      await page.click('#send');
      await page.waitForFunction(() => {
        const img = document.querySelector('#media img') as HTMLImageElement | null;
        return img !== null && img.complete && img.naturalWidth > 0;
      });
    }
    await page.close();
  });

  it('says plainly that a bad token does not work, with the gateway’s 401 message', async () => {
    const page = await open('/console/playground');
    await page.fill('#token', 'sk-wrong');
    await page.fill('#message', 'hi');
    await page.click('#send');
    await page.waitForSelector('#reply.error');
    expect(await page.textContent('#reply')).toMatch(
      /^401: Incorrect API key provided: \*\*\*-8chars-[0-9a-f]{4}\. Tokens are issued by the gateway/,
    );
    expect(await page.textContent('#token-status')).toBe('This token is refused (401).');
    await page.screenshot({ path: join(SHOTS, 'playground-401.png'), fullPage: true });
    await page.close();
  });

  it('issues a token on the tokens page that works from the playground, and fails once revoked', async () => {
    const tokens = await open('/console/tokens');
    await tokens.fill('#new-token', 'sk-from-the-page');
    await tokens.fill('#quota', '5');
    await tokens.selectOption('#models', ['gpt-4o-mini', 'claude-haiku-4-5']);
    await tokens.click('#issue-button');
    await tokens.waitForSelector('#issued-token');
    expect(await tokens.textContent('#issued-token')).toBe('sk-from-the-page');
    const row = tokens.locator('#tokens tr', { hasText: 'sk-from-the-page' });
    await expect.poll(() => row.textContent()).toContain('gpt-4o-mini, claude-haiku-4-5');
    expect(await row.textContent()).toContain('5');

    const playground = await open('/console/playground?token=sk-from-the-page');
    await playground.selectOption('#model', 'gpt-4o-mini');
    await playground.fill('#message', 'Does my new token work?');
    await playground.click('#send');
    await playground.waitForFunction(() => /output tokens/.test(document.querySelector('#usage')!.textContent!));
    expect(await playground.getAttribute('#reply', 'class')).toBe('output');
    // The use shows on the tokens page without reloading it.
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('1');
    // A model outside the token's scope is refused with the gateway's 403.
    await playground.selectOption('#model', 'gpt-4o');
    await playground.click('#send');
    await playground.waitForSelector('#reply.error');
    expect(await playground.textContent('#reply')).toMatch(/^403: This token may not use model `gpt-4o`/);

    await answering(tokens, true, () => tokens.click('button[data-revoke="sk-from-the-page"]'));
    await expect.poll(() => tokens.locator('#tokens').textContent()).not.toContain('sk-from-the-page');
    await playground.selectOption('#model', 'gpt-4o-mini');
    await playground.click('#send');
    await playground.waitForSelector('#reply.error');
    expect(await playground.textContent('#reply')).toMatch(/^401: Incorrect API key provided/);
    await tokens.close();
    await playground.close();
  });

  it('shows a request made by an SDK in the inspector without reloading, with its bodies', async () => {
    const page = await open('/console/requests');
    await page.waitForSelector('#live.ok');
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const reply = await sdk.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Inspect me, please' }] });
    const row = page.locator('#rows tr', { hasText: 'gpt-4.1-mini' }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('POST /v1/chat/completions');
    expect(await row.locator('.preview').textContent()).toBe('Inspect me, please');
    expect(await row.textContent()).toContain('200');
    await row.locator('button[data-open]').click();
    await page.waitForFunction(() => /Inspect me, please/.test(document.querySelector('#req-body')!.textContent!));
    expect(JSON.parse((await page.textContent('#res-body'))!).choices[0].message.content).toBe(reply.choices[0].message.content);

    // A stream shows its progress and its events.
    const stream = await sdk.chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'Stream it slowly' }],
      stream: true,
    });
    for await (const _ of stream) void _;
    const streamed = page.locator('#rows tr', { hasText: 'gpt-5-mini' }).first();
    await expect.poll(() => streamed.textContent()).toMatch(/\d+ events, completed/);
    expect(await streamed.textContent()).toContain('slow');
    await streamed.locator('button[data-open]').click();
    await page.waitForFunction(() => /data: \[DONE\]/.test(document.querySelector('#res-body')!.textContent!));

    // Filters: only the fixture's request, then only 4xx.
    await page.selectOption('#f-fixture', 'matched');
    await expect.poll(() => page.locator('#rows tr').count()).toBe(await page.locator('#rows tr', { hasText: 'slow' }).count());
    await page.selectOption('#f-fixture', '');
    await page.selectOption('#f-status', '4');
    await expect.poll(async () => (await page.locator('#rows').textContent())!.includes('gpt-4.1-mini')).toBe(false);
    await page.selectOption('#f-status', '');
    await page.screenshot({ path: join(SHOTS, 'requests-detail.png'), fullPage: true });
    await page.close();
  });

  it('shows a prompt, a reply and a fixture name holding <script> as text on every page', async () => {
    await admin('/fixtures', 'POST', {
      name: `xss ${XSS}`,
      match: { userMessage: { contains: '<script>' } },
      reply: { text: `Echo: ${XSS}` },
    });
    const playground = await open('/console/playground');
    await playground.selectOption('#model', 'gpt-4o-mini');
    await playground.setChecked('#stream', false);
    await playground.fill('#message', `Hello ${XSS}`);
    await playground.click('#send');
    await playground.waitForFunction(() => /output tokens/.test(document.querySelector('#usage')!.textContent!));
    expect(await playground.textContent('#reply')).toBe(`Echo: ${XSS}`);

    const requests = await open('/console/requests');
    const row = requests.locator('#rows tr', { hasText: 'xss <script>' }).first();
    await row.waitFor();
    await row.locator('button[data-open]').click();
    await requests.waitForFunction(
      (xss) => document.querySelector('#req-body')!.textContent!.includes(JSON.stringify(`Hello ${xss}`)),
      XSS,
    );
    expect(await requests.textContent('#res-body')).toContain(JSON.stringify(`Echo: ${XSS}`));

    const fixtures = await open('/console/fixtures');
    expect(await fixtures.locator('table').first().textContent()).toContain(`xss ${XSS}`);

    // A token is shown on the home and tokens pages: as text too.
    await admin('/tokens', 'POST', { token: `sk-${XSS}` });
    const home = await open('/');
    expect(await home.$$eval('#token-list input', (inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toContain(`sk-${XSS}`);
    const tokens = await open('/console/tokens');
    await tokens.locator('#tokens code', { hasText: 'window.__pwned' }).waitFor();
    expect(await tokens.locator('#tokens code', { hasText: 'window.__pwned' }).textContent()).toBe(`sk-${XSS}`);
    // ...and in the playground's page data and token list.
    const playground2 = await open('/console/playground');
    expect(await playground2.$$eval('#issued-tokens option', (options) => options.map((o) => (o as HTMLOptionElement).value))).toContain(
      `sk-${XSS}`,
    );
    await admin(`/tokens/${encodeURIComponent(`sk-${XSS}`)}`, 'DELETE');

    for (const page of [playground, requests, fixtures, home, tokens, playground2]) {
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('main script, main img[src="x"]').count()).toBe(0);
      await page.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('shows fixtures and scenarios with their state and use counts', async () => {
    await admin('/fixtures', 'POST', [
      {
        name: 'order-new',
        scenario: 'order',
        newScenarioState: 'paid',
        match: { userMessage: { contains: 'order' } },
        reply: { text: 'paid' },
      },
      {
        name: 'order-paid',
        scenario: 'order',
        requiredScenarioState: 'paid',
        match: { userMessage: { contains: 'order' } },
        reply: { text: 'shipped' },
      },
    ]);
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'my order' }] });
    const page = await open('/console/fixtures');
    const row = page.locator('tr', { hasText: 'order-new' }).first();
    expect(await row.locator('td').last().textContent()).toBe('1');
    expect(await page.locator('tr', { hasText: 'order-paid' }).first().locator('td').last().textContent()).toBe('0');
    const scenario = page.locator('tr', { has: page.locator('td', { hasText: /^order$/ }) });
    expect(await scenario.locator('td').nth(1).textContent()).toBe('paid');
    await page.close();
  });

  it('filters the fixtures and requests pages by test (x-mock-test-id)', async () => {
    await admin('/fixtures?test=console-a', 'POST', {
      name: 'of console-a',
      match: { userMessage: { contains: 'which test' } },
      reply: { text: 'console a' },
    });
    const sdk = (test: string) =>
      new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': test } });
    for (const test of ['console-a', 'console-b'])
      await sdk(test).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'which test?' }] });
    const fixtures = await open('/console/fixtures?test=console-a');
    expect(await fixtures.textContent('#fixtures-heading')).toContain('of test console-a');
    expect(await fixtures.locator('tr', { hasText: 'of console-a' }).first().locator('td').last().textContent()).toBe('1');
    expect(await fixtures.locator('nav[aria-label="Tests"] li').allTextContents()).toEqual(['every fixture', 'console-a', 'console-b']);
    await fixtures.click('nav[aria-label="Tests"] a:text-is("console-b")');
    expect(await fixtures.locator('tr', { hasText: 'of console-a' }).count()).toBe(0);
    await fixtures.close();
    const requests = await open('/console/requests?test=console-a');
    await requests.waitForSelector('#live.ok');
    const shown = (test: string) => requests.locator('#rows tr', { hasText: `test: ${test}` }).count();
    await expect.poll(() => shown('console-a')).toBe(1);
    expect(await shown('console-b')).toBe(0);
    await requests.fill('#f-test', 'console-b');
    await expect.poll(() => shown('console-b')).toBe(1);
    expect(await shown('console-a')).toBe(0);
    await requests.close();
  });

  it('shows file uploads and batch lines in the inspector, and the files and batches each test holds', async () => {
    const sdk = (test: string) =>
      new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-mock-test-id': test } });
    const lines = ['one', 'two'].map((q) => ({
      custom_id: `q-${q}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: q === 'one' ? 'gpt-4o-mini' : 'gpt-nope', messages: [{ role: 'user', content: q }] },
    }));
    const openai = sdk('resources-a');
    const file = await openai.files.create({
      file: await toFile(Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join('')), 'lines.jsonl'),
      purpose: 'batch',
    });
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await sdk('resources-b').files.create({ file: await toFile(Buffer.from('b'), 'b.txt'), purpose: 'user_data' });

    const requests = await open('/console/requests?test=resources-a');
    await requests.waitForSelector('#live.ok');
    const upload = requests.locator('#rows tr', { hasText: 'POST /v1/files' }).first();
    await upload.waitFor();
    expect(await upload.locator('.preview').textContent()).toMatch(/^lines\.jsonl \(\d+ bytes, purpose batch\)$/);
    const created = requests.locator('#rows tr', { hasText: 'POST /v1/batches' }).first();
    expect(await created.locator('.preview').textContent()).toBe('batch of 2 requests: 1 succeeded, 1 errored');
    await created.locator('button[data-open]').click();
    await requests.waitForSelector('#batch-lines table');
    expect(await requests.locator('#batch-lines tbody tr').allTextContents()).toEqual(['q-onesucceededgpt-4o-mini', 'q-twoerrored']);
    await requests.close();

    const page = await open('/console/resources');
    const files = page.locator('section', { has: page.locator('h2', { hasText: 'OpenAI files' }) });
    expect(await files.locator('tbody tr').count()).toBe(2);
    expect(await files.locator('tr', { hasText: file.id }).textContent()).toContain('resources-a');
    expect(await page.locator('section', { has: page.locator('h2', { hasText: 'OpenAI batches' }) }).textContent()).toContain(batch.id);
    await page.click('nav[aria-label="Tests"] a:text-is("resources-b")');
    await page.waitForURL(/test=resources-b/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain(batch.id);
    await page.screenshot({ path: join(SHOTS, 'resources-test.png'), fullPage: true });
    await admin('/reset?test=resources-a', 'POST');
    await page.goto(`${cli.url}/console/resources?test=resources-a`);
    expect(await page.locator('tbody tr').count()).toBe(0);
    await page.close();
  });

  /** Waits for the playground to show `count` images, decoded, and returns their [width, height]s. */
  async function decodedImages(page: Page, count: number): Promise<number[][]> {
    await page.waitForFunction((n) => {
      const images = [...document.querySelectorAll('#media img')] as HTMLImageElement[];
      return images.length === n && images.every((img) => img.complete && img.naturalWidth > 0);
    }, count);
    return page.$$eval('#media img', (images) =>
      images.map((i) => [(i as HTMLImageElement).naturalWidth, (i as HTMLImageElement).naturalHeight]),
    );
  }

  it('keeps the curl command the request Send would make, as the model, message and options change', async () => {
    const page = await open('/console/playground');
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.setChecked('#stream', false);
    await page.fill('#message', 'The first message');
    await page.click('#show-curl');
    expect(await page.textContent('#curl')).toContain('The first message');
    await page.fill('#message', 'The second message');
    await page.selectOption('#model', 'gpt-4o');
    await page.setChecked('#stream', true);
    const curl = (await page.textContent('#curl'))!;
    expect(curl).not.toContain('The first message');
    expect(curl).toContain('"model":"gpt-4o"');
    expect(curl).toMatch(/^curl -N /);
    const { stdout } = await run('sh', ['-c', curl]);
    expect(stdout).toContain('data: [DONE]');
    // The journal got the request the curl described: the new message.
    const journal = (await admin('/requests')) as { requests: { model?: string; body?: { messages?: { content: string }[] } }[] };
    expect(journal.requests.some((r) => r.model === 'gpt-4o' && r.body?.messages?.[0].content === 'The second message')).toBe(true);
    await page.close();
  });

  it('shows a fault inflicted inside a stream on the requests page, though the status was 200', async () => {
    const page = await open('/console/requests');
    await page.waitForSelector('#live.ok');
    const res = await fetch(`${cli.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-console', 'content-type': 'application/json', 'x-mock-fault': 'STREAM_CUT,after=2' },
      body: JSON.stringify({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Cut me short' }], stream: true }),
    });
    expect(res.status).toBe(200);
    await res.text().catch(() => 'cut');
    const row = page.locator('#rows tr', { hasText: 'Cut me short' }).first();
    await expect.poll(() => row.textContent()).toContain('2 events, then STREAM_CUT');
    expect(await row.locator('.pill').getAttribute('class')).toContain('bad');
    expect(await row.locator('td').last().textContent()).toBe('STREAM_CUT');
    await page.selectOption('#f-status', 'failed');
    await expect.poll(() => page.locator('#rows tr', { hasText: 'Cut me short' }).count()).toBe(1);
    await row.locator('button[data-open]').click();
    await page.waitForFunction(() => /STREAM_CUT/.test(document.querySelector('#res-note')!.textContent!));
    expect(await page.textContent('#res-note')).toBe('Fault inflicted: STREAM_CUT, after 2 events.');
    expect(await page.textContent('#detail-facts')).toContain('FaultSTREAM_CUT');
    await page.close();
  });

  it('asks Gemini image models for an image, at the aspect ratio and count chosen, and shows them', async () => {
    const page = await open('/console/playground');
    await page.selectOption('#model', 'gemini-2.5-flash-image');
    expect(await page.inputValue('#format')).toBe('gemini-image');
    expect(await page.isVisible('#image-options')).toBe(true);
    expect(await page.$$eval('#size option', (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining(['1:1', '16:9', '9:16']),
    );
    await page.selectOption('#size', '16:9');
    await page.fill('#n', '2');
    await page.fill('#message', 'A lighthouse at dusk');
    await page.click('#send');
    expect(await decodedImages(page, 2)).toEqual([
      [1344, 768],
      [1344, 768],
    ]);
    expect(await page.textContent('#usage')).toMatch(/^HTTP 200/);
    await page.screenshot({ path: join(SHOTS, 'playground-gemini-image.png'), fullPage: true });
    await page.close();
  });

  it('lets the size and number of images be chosen for an OpenAI image model, as its API allows', async ({ skip }) => {
    if (!imagesExist) return skip('POST /v1/images/generations answers 404 on this build');
    const page = await open('/console/playground');
    await page.selectOption('#model', 'dall-e-3');
    expect(await page.$$eval('#size option', (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual([
      '1024x1024',
      '1792x1024',
      '1024x1792',
    ]);
    expect(await page.getAttribute('#n', 'max')).toBe('1');
    await page.selectOption('#model', 'gpt-image-1');
    await page.selectOption('#size', '1536x1024');
    await page.fill('#n', '2');
    await page.fill('#message', 'Two boats');
    await page.click('#send');
    expect(await decodedImages(page, 2)).toEqual([
      [1536, 1024],
      [1536, 1024],
    ]);
    await page.close();
  });

  it('shows a stream’s assembled text and tool calls above its raw events, which stay folded', async () => {
    await admin('/fixtures', 'POST', [
      {
        name: 'assembled-text',
        match: { userMessage: { contains: 'assemble my text' } },
        reply: { text: 'Alpha beta gamma, delta epsilon.' },
      },
      {
        name: 'assembled-invoke',
        match: { userMessage: { contains: 'invoke my text' } },
        reply: { text: 'Alpha beta gamma, delta epsilon.' },
      },
      {
        name: 'assembled-tool',
        match: { userMessage: { contains: 'assemble my call' } },
        reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      },
    ]);
    const page = await open('/console/requests');
    await page.waitForSelector('#live.ok');
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    for await (const _ of await sdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Please assemble my text' }],
      stream: true,
    }))
      void _;
    const tools = [
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
    ];
    const res = await fetch(`${cli.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-console', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-haiku-4-5',
        max_tokens: 200,
        stream: true,
        tools,
        messages: [{ role: 'user', content: 'Please assemble my call' }],
      }),
    });
    await res.text();
    // Bedrock's InvokeModelWithResponseStream: Messages events inside event-stream `chunk` frames.
    const invoked = await fetch(`${cli.url}/model/claude-haiku-4-5/invoke-with-response-stream`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-console', 'content-type': 'application/json' },
      body: JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Please invoke my text' }],
      }),
    });
    expect(invoked.status).toBe(200);
    await invoked.arrayBuffer();

    const invokeRow = page.locator('#rows tr', { hasText: 'invoke my text' }).first();
    await expect.poll(() => invokeRow.textContent()).toMatch(/events, completed/);
    await invokeRow.locator('button[data-open]').click();
    await page.waitForFunction(() => /event: chunk/.test(document.querySelector('#res-body')!.textContent!));
    // Opened first, so nothing of another entry is on the page: the assembled box is this stream's.
    await page.waitForFunction(() => !(document.querySelector('#assembled') as HTMLElement).hidden);
    expect(await page.textContent('#assembled-heading')).toBe('Assembled text');
    expect(await page.textContent('#res-text')).toBe('Alpha beta gamma, delta epsilon.');

    const text = page.locator('#rows tr', { hasText: 'assemble my text' }).first();
    await expect.poll(() => text.textContent()).toMatch(/events, completed/);
    await text.locator('button[data-open]').click();
    await page.waitForFunction(() => /data: \[DONE\]/.test(document.querySelector('#res-body')!.textContent!));
    expect(await page.textContent('#assembled-heading')).toBe('Assembled text');
    expect(await page.textContent('#res-text')).toBe('Alpha beta gamma, delta epsilon.');
    expect(await page.isVisible('#res-text')).toBe(true);
    // The raw events are there, folded: one click opens them.
    expect(await page.getAttribute('#res-raw', 'open')).toBeNull();
    expect(await page.isVisible('#res-body')).toBe(false);
    expect(await page.textContent('#res-raw-summary')).toMatch(/^Raw events \(\d+\)$/);
    await page.screenshot({ path: join(SHOTS, 'requests-stream-detail.png'), fullPage: true });
    await page.click('#res-raw-summary');
    expect(await page.isVisible('#res-body')).toBe(true);

    const call = page.locator('#rows tr', { hasText: 'assemble my call' }).first();
    await expect.poll(() => call.textContent()).toMatch(/events, completed/);
    await call.locator('button[data-open]').click();
    await page.waitForFunction(() => /get_weather/.test(document.querySelector('#res-tools')!.textContent!));
    expect(await page.textContent('#assembled-heading')).toBe('Tool calls');
    expect(await page.$$eval('#res-tools li', (items) => items.map((li) => li.textContent))).toEqual([
      `get_weather ${JSON.stringify({ city: 'Oslo' }, null, 2)}`,
    ]);
    await page.close();
  });

  it('asks before revoking a token or clearing the journal: dismissed, nothing happens; accepted, it is done', async () => {
    await admin('/tokens', 'POST', { token: 'sk-to-confirm' });
    const tokens = await open('/console/tokens');
    const revoke = () => tokens.click('button[data-revoke="sk-to-confirm"]');
    const listed = async () =>
      ((await admin('/tokens')) as { tokens: { token: string }[] }).tokens.some((t) => t.token === 'sk-to-confirm');
    expect(await answering(tokens, false, revoke)).toContain('Revoke sk-to-confirm?');
    expect(await listed()).toBe(true);
    expect(await tokens.locator('#tokens').textContent()).toContain('sk-to-confirm');
    await answering(tokens, true, revoke);
    await expect.poll(listed).toBe(false);
    await expect.poll(() => tokens.locator('#tokens').textContent()).not.toContain('sk-to-confirm');
    await tokens.close();

    const requests = await open('/console/requests');
    await requests.waitForSelector('#live.ok');
    await requests.locator('#rows button[data-open]').first().waitFor();
    const held = async () => ((await admin('/requests')) as { requests: unknown[] }).requests.length;
    const before = await held();
    expect(before).toBeGreaterThan(0);
    expect(await answering(requests, false, () => requests.click('#clear'))).toContain('Clear the journal?');
    expect(await held()).toBeGreaterThanOrEqual(before);
    expect(await requests.locator('#rows button[data-open]').count()).toBeGreaterThan(0);
    await answering(requests, true, () => requests.click('#clear'));
    await expect.poll(held).toBe(0);
    await expect.poll(() => requests.textContent('#rows')).toBe('No requests yet.');
    await requests.close();
  });

  it('says a scoped token is scoped to other models, naming them, when used on another model', async () => {
    await admin('/tokens', 'POST', { token: 'sk-scoped', models: ['gpt-4o-mini', 'claude-haiku-4-5'] });
    const page = await open('/console/playground?token=sk-scoped');
    await page.selectOption('#model', 'gpt-4o');
    await page.fill('#message', 'Am I allowed?');
    await page.click('#send');
    await page.waitForSelector('#reply.error');
    expect(await page.textContent('#token-status')).toBe(
      'This token is scoped to other models: gpt-4o-mini, claude-haiku-4-5. Choose one of them, or use another token.',
    );
    await page.close();
  });

  it('keeps a generated token inside its notice and its card on a 390 px screen', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    await page.goto(`${cli.url}/console/tokens`);
    await page.click('#issue-button');
    await page.waitForSelector('#issued-token');
    const token = (await page.textContent('#issued-token'))!;
    expect(token.length).toBeGreaterThan(40);
    await expect.poll(() => page.locator('#tokens tr', { hasText: token }).count()).toBe(1);
    // No box whose content is wider than it: the page, the notice, the table's scroller, each card and cell.
    const wider = await page.evaluate(() =>
      [document.documentElement, ...document.querySelectorAll('#issued, #issued *, .tablewrap, #tokens tr, #tokens td, #tokens td *')]
        .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline')
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`),
    );
    expect(wider).toEqual([]);
    // And the token's text ends inside its notice.
    const [code, notice] = await Promise.all(['#issued-token', '#issued'].map((s) => page.locator(s).boundingBox()));
    expect(code!.x + code!.width).toBeLessThanOrEqual(notice!.x + notice!.width);
    await page.screenshot({ path: join(SHOTS, 'tokens-issued-phone.png'), fullPage: true });
    await ctx.close();
  });

  it('renders every page without console errors, with every control labelled, at desktop and phone widths', async () => {
    const pages = ['/', '/console/playground', '/console/tokens', '/console/requests', '/console/fixtures', '/console/resources'];
    for (const [width, height, suffix] of [
      [1280, 900, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
      for (const path of pages) {
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${cli.url}${path}`);
        await page.waitForLoadState('load');
        await page.waitForTimeout(300);
        expect(errors, path).toEqual([]);
        const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (controls) =>
          controls.filter((c) => !(c as HTMLInputElement).labels?.length && !c.getAttribute('aria-label')).map((c) => c.id),
        );
        expect(unlabelled, path).toEqual([]);
        // Nothing wider than the screen except inside scrolling tables and code.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} at ${width}px`).toBeLessThanOrEqual(0);
        const name = path === '/' ? 'home' : path.split('/').pop();
        await page.screenshot({ path: join(SHOTS, `${name}-${suffix}.png`), fullPage: true });
        await page.close();
      }
      await ctx.close();
    }
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
