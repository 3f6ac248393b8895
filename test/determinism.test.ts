// The same request gives the same bytes: twice on one server, and on two separate server processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type Spawned } from './helpers/cli.ts';

const BODY = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Say something deterministic' }], n: 2 };

async function raw(url: string, body: object): Promise<{ text: string; requestId: string | null }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { text: await res.text(), requestId: res.headers.get('x-request-id') };
}

describe('determinism over real sockets', () => {
  let a: Spawned;
  let b: Spawned;
  let other: Spawned;

  beforeAll(async () => {
    [a, b, other] = await Promise.all([spawnCli(['--seed', '7']), spawnCli(['--seed', '7']), spawnCli(['--seed', '8'])]);
  });
  afterAll(() => Promise.all([a.stop(), b.stop(), other.stop()]));

  for (const stream of [false, true]) {
    it(`repeats ${stream ? 'a stream' : 'a reply'} byte for byte, on one server and across processes`, async () => {
      const body = { ...BODY, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
      const first = await raw(a.url, body);
      const again = await raw(a.url, body);
      const elsewhere = await raw(b.url, body);
      expect(first.text.length).toBeGreaterThan(200);
      expect(again).toEqual(first);
      expect(elsewhere).toEqual(first);
    });
  }

  it('gives different content under a different seed, and for a different request seed', async () => {
    const base = JSON.parse((await raw(a.url, BODY)).text);
    const reseeded = JSON.parse((await raw(other.url, BODY)).text);
    const clientSeed = JSON.parse((await raw(a.url, { ...BODY, seed: 42 })).text);
    expect(reseeded.choices[0].message.content).not.toBe(base.choices[0].message.content);
    expect(reseeded.id).not.toBe(base.id);
    expect(clientSeed.choices[0].message.content).not.toBe(base.choices[0].message.content);
  });
});
