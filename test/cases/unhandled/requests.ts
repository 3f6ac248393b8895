// What every case file sends with a real-looking key to paths no handler serves (the gateway's handlers
// take their paths on any host, and answer a key they did not issue with a 401, in the process): a base
// URL typo (`/v2`) through the openai SDK, an Azure-style path, a Vertex-style one with `?key=`, node:http
// through an ESM named import, and a WebSocket. Each path starts with the case's name, so the listener can tell whose request arrived.
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';

export const REAL_KEY = 'sk-REAL-KEY';
const real = process.env.REAL_HOST!;

/** Sends them all; each outcome: 'refused' (a network error) or what answered. */
export async function sendEverything(name: string): Promise<Record<string, string>> {
  const outcome = async (send: () => Promise<unknown>) =>
    send().then(
      (answer) => `answered ${String(answer)}`,
      (e: Error) => `refused: ${e.message}`,
    );
  const sdk = new OpenAI({ apiKey: REAL_KEY, baseURL: `${real}/${name}/v2`, maxRetries: 0 });
  return {
    sdk: await outcome(
      async () => (await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices.length,
    ),
    azure: await outcome(async () => {
      const res = await fetch(`${real}/${name}/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21`, {
        method: 'POST',
        headers: { 'api-key': REAL_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      return res.status;
    }),
    gemini: await outcome(
      async () => (await fetch(`${real}/${name}/vertex/models/gemini-2.5-flash:generateContent?key=${REAL_KEY}`)).status,
    ),
    http: await outcome(
      () =>
        new Promise((resolve, reject) => {
          const req = httpRequest(`${real}/${name}/named-import`, { headers: { authorization: `Bearer ${REAL_KEY}` } }, (res) => {
            res.resume();
            resolve(res.statusCode);
          });
          req.on('error', reject);
          req.end();
        }),
    ),
    websocket: await outcome(
      () =>
        new Promise((resolve, reject) => {
          const socket = new WebSocket(`${real.replace(/^http/, 'ws')}/${name}/socket`, [`openai-insecure-api-key.${REAL_KEY}`]);
          socket.onerror = (e) => reject(new Error(String((e as Event & { cause?: Error }).cause?.message ?? 'socket error')));
          socket.onclose = (e) => resolve(`closed ${e.code}`);
        }),
    ),
  };
}
