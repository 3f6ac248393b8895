// setupGateway({ url }) against a strict server (run alone by test/shared-server.test.ts); some of these
// tests must fail, by the helper's afterEach.
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import { setupGateway } from '../../../src/vitest.ts';

const url = process.env.SHARED_GATEWAY_URL!;
const gateway = setupGateway({
  url,
  use: [{ name: 'weather', match: { userMessage: { contains: 'weather' } }, reply: { text: 'Sunny.' } }],
});
const ask = (content: string) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  });

it('answers from the use fixtures and from one added in the test', async () => {
  expect((await ask('weather in Porto?')).choices[0].message.content).toBe('Sunny.');
  await gateway.use({ name: 'again', match: { userMessage: 'again' }, reply: { text: 'Again.' } });
  expect((await ask('again')).choices[0].message.content).toBe('Again.');
  expect(await gateway.countRequests()).toBe(2);
  expect((await gateway.requests({ fixture: 'again' })).map((e) => e.fixture)).toEqual(['again']);
});

it("does not see the previous test's fixture", async () => {
  expect(await gateway.requests()).toEqual([]);
  const { fixtures } = (await (await fetch(`${url}/__admin/fixtures?test=${encodeURIComponent(gateway.testId!)}`)).json()) as {
    fixtures: { test?: string; fixture: { name: string } }[];
  };
  expect(fixtures.map((e) => [e.test === gateway.testId, e.fixture.name])).toEqual([[true, 'weather']]);
});

it('asks something no fixture matches', async () => {
  await ask('hello').catch(() => undefined);
});

it('calls a host no handler serves', async () => {
  await fetch('http://127.0.0.1:2/not-an-endpoint').catch(() => undefined);
});
