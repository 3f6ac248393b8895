import { setupServer } from 'msw/node';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { createGateway } from './src/index.ts';
const gw = createGateway();
const server = setupServer(...gw.handlers);
server.listen({ onUnhandledFrame: 'error' } as never);
for (const [name, C] of [['1.x', Anthropic], ['0.x', Anthropic0]] as const) {
  const a = new (C as typeof Anthropic)({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:2', maxRetries: 0 });
  const m = await a.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] });
  console.log(name, JSON.stringify(m).slice(0, 300));
  const s = a.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 2000, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] });
  let text = '';
  s.on('text', (t) => (text += t));
  const fin = await s.finalMessage();
  console.log(name, 'stream', JSON.stringify(fin.content).slice(0, 400), fin.stop_reason);
  const c = await a.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] });
  console.log(name, 'count', c);
  const page = await a.models.list({ limit: 3 });
  console.log(name, 'models', page.data.map((m) => m.id), (page as any).has_more);
  try { await a.messages.create({ model: 'claude-nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }); } catch (e: any) { console.log(name, e.constructor.name, e.status, e.message); }
  try { await (a.messages.create as any)({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }); } catch (e: any) { console.log(name, e.constructor.name, e.status, e.message); }
}
server.close();
