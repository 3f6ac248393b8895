// The project's tests, pointed at the server the workflow started (GATEWAY_URL): each test gets its own
// test id on the shared server, its own fixtures and journal, reset after it.
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import { setupGateway } from 'model-gateway-mock/vitest';

const gateway = setupGateway({ url: process.env.GATEWAY_URL!, adminToken: process.env.MGM_ADMIN_TOKEN });

it('answers from the fixture file the server loaded', async () => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1` });
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
  expect(reply.choices[0].message.content).toBe('Hi from CI!');
  expect(await gateway.requests()).toHaveLength(1);
});

it('answers from a fixture of this test only', async () => {
  await gateway.use({ match: { userMessage: { contains: 'weather' } }, reply: { text: 'Sunny.' } });
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1` });
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'weather?' }] });
  expect(reply.choices[0].message.content).toBe('Sunny.');
});
