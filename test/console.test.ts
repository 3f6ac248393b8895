// The pages, in real headless Chromium (Debian's chromium, driven by playwright-core): the home page
// shows the base address to copy, and the playground sends a message with a token and streams the reply.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import OpenAI from 'openai';
import { spawnCli, type Spawned } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';

const CHROMIUM = '/usr/bin/chromium';
// CI installs Chromium (.ci/run) and must run these; elsewhere they are skipped, loudly, without it.
const available = existsSync(CHROMIUM);
if (!available && !process.env.CI) console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);

describe.runIf(socketSuites && (available || process.env.CI))('console pages in Chromium', () => {
  let cli: Spawned;
  let browser: Browser;
  beforeAll(async () => {
    cli = await spawnCli(['--token', 'sk-console']);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('shows the API base address on the home page, ready to copy', async () => {
    const page = await browser.newPage();
    await page.goto(`${cli.url}/`);
    expect(await page.inputValue('#base-url')).toBe(`${cli.url}/v1`);
    await page.click('#copy');
    expect(await page.textContent('#copy')).toBe('Copied');
    await page.close();
  });

  it('sends a message from the playground and streams the same reply the SDK gets', async () => {
    const page = await browser.newPage();
    await page.goto(`${cli.url}/console/playground`);
    const models = await page.$$eval('#model option', (options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(models).toContain('gpt-4o-mini');
    expect(models).not.toContain('text-embedding-3-small');
    await page.fill('#token', 'sk-console');
    await page.selectOption('#model', 'gpt-4o-mini');
    await page.fill('#message', 'Hello from the playground');
    await page.click('#send');
    await page.waitForFunction(() => document.querySelector('#usage')!.textContent !== '');
    const shown = await page.textContent('#reply');
    const sdk = new OpenAI({ apiKey: 'sk-console', baseURL: `${cli.url}/v1`, maxRetries: 0 });
    const expected = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello from the playground' }] });
    expect(shown).toBe(expected.choices[0].message.content);
    expect(await page.textContent('#usage')).toContain(`${expected.usage!.completion_tokens} completion tokens`);
    await page.close();
  });

  it('shows the error when the token is wrong', async () => {
    const page = await browser.newPage();
    await page.goto(`${cli.url}/console/playground`);
    await page.fill('#token', 'sk-wrong');
    await page.fill('#message', 'hi');
    await page.click('#send');
    await page.waitForSelector('#reply.error');
    expect(await page.textContent('#reply')).toMatch(/^401: Incorrect API key provided/);
    await page.screenshot({ path: '/tmp/playground-error.png' });
    await page.close();
  });
});
