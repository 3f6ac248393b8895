// A fresh process's first reply (the tokenizer and faker loading on first use, or in the background
// after the server listens) has the same bytes as a warm process's: fresh processes, the request asked
// first in one and after others in the other. No timing here: bench/cold.ts measures.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { spawnCli } from './helpers/cli.ts';
import { socketSuites } from './helpers/modes.ts';
import pkg from '../package.json' with { type: 'json' };

const PROBE = fileURLToPath(new URL('./helpers/first-replies.ts', import.meta.url));
const HEALTH_FIRST = fileURLToPath(new URL('./helpers/health-first.ts', import.meta.url));
const chat = (content: string, stream = false) => ({
  path: '/v1/chat/completions',
  body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 60, stream },
});
// What the warm process asks first: other prompts, through the tokenizer, faker and the other formats.
const WARM_UP = [
  chat('Warm up with something else entirely.'),
  chat('Und noch etwas: 東京タワー 🚀', true),
  { path: '/v1/messages', body: { model: 'claude-sonnet-4-5', max_tokens: 30, messages: [{ role: 'user', content: 'hi' }] } },
];
// The first requests of the cold process: text with words, CJK, emoji and a byte-order mark.
const ASKED = [
  chat('Naïve café — 東京 🚀 \uFEFFusing tokens, please.', true),
  chat('Benchmark me, please.'),
  { path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'count me: ünïcödé' } },
];

async function inProcessReplies(requests: unknown[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, JSON.stringify(requests)], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as string[];
}

describe('cold start', () => {
  it('in-process: the first replies of a fresh process are byte for byte a warm process’s', async () => {
    const [cold, warm] = await Promise.all([inProcessReplies(ASKED), inProcessReplies([...WARM_UP, ...ASKED])]);
    expect(cold.every((r) => r.startsWith('200 '))).toBe(true);
    expect(cold).toEqual(warm.slice(WARM_UP.length));
  });

  it.runIf(socketSuites)('standalone: the first API requests of a fresh server are byte for byte a warm server’s', async () => {
    const ask = async (url: string, requests: { path: string; body: unknown }[]) => {
      const out: string[] = [];
      for (const { path, body } of requests) {
        const res = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        out.push(`${res.status} ${await res.text()}`);
      }
      return out;
    };
    const [a, b] = await Promise.all([spawnCli(), spawnCli()]);
    try {
      // The cold server is asked at once, before it could have loaded anything in the background.
      const [cold, warm] = await Promise.all([ask(a.url, ASKED), ask(b.url, [...WARM_UP, ...ASKED])]);
      expect(cold.every((r) => r.startsWith('200 '))).toBe(true);
      expect(cold).toEqual(warm.slice(WARM_UP.length));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('standalone: health probes load nothing; the first API request loads the tokenizer and faker, and express then by itself', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [HEALTH_FIRST]);
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    // Not one module of express, faker or the tokenizer had loaded when either answer was written; the
    // same body express's route sends.
    expect(seen).toEqual({
      atHealth: [
        { express: 0, lazy: 0 },
        { express: 0, lazy: 0 },
      ],
      status: 200,
      body: JSON.stringify({ status: 'healthy', version: pkg.version }),
      chatStatus: 200,
      lazyAfterChat: true,
      pageStatus: 200,
    });
  });
});
