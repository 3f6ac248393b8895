// "Other clients are served while a big request is processed", proved by order, never by time. The
// big body is sent with node:http; another client then reads the journal's entry for the big request
// (one read after another, on its own connection) and sends small requests (likewise, on another)
// until the big answer is in.
// An entry whose body is in (its size measured: `bodyBytes`) and whose reply is not (`status` 0),
// read by another client, is the server's own word that it answered someone else between reading
// the big body and answering it. Order on the client alone would not do: the big body is still being
// read by the server when its last byte leaves the client, and a server that then works from end to
// end without a break still answers what arrived while it was reading.
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import type { Answer } from './fuzz/verdict.ts';

/** Far above anything normal, even on a machine whose cores are all busy: only a hang trips it. */
export const HANG_MS = 60_000;

/** A response read to its end. */
function answerOf(res: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () =>
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        text: Buffer.concat(chunks).toString('utf8'),
      }),
    );
    res.once('error', reject);
  });
}

/**
 * Sends one POST with node:http; `flushed` resolves once the whole body has been handed to the
 * socket, so what the test sends afterwards reaches the server after the big request is complete.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  agent?: Agent,
): { flushed: Promise<void>; answer: Promise<Answer> } {
  let flushed!: () => void;
  const sent = new Promise<void>((resolve) => (flushed = resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
        signal: AbortSignal.timeout(HANG_MS),
      },
      (res) => answerOf(res).then(resolve, reject),
    );
    req.once('error', reject);
    req.end(body, () => flushed());
  });
  return { flushed: sent, answer };
}

const SMALL = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Still there?' }], max_tokens: 8 });
const AUTH = { authorization: 'Bearer sk-test' };

export interface Meanwhile {
  /** The big request's answer, or why there was none. */
  big: Answer | Error;
  /** Journal reads, by the other client, that found the big body in and its reply not ready. */
  witnessed: number;
  /** Journal reads in all while the big answer was pending. */
  reads: number;
  /** Small requests answered before the big one. */
  before: number;
  /** Statuses of every small answer (200 expected). */
  statuses: number[];
}

/** The big request's journal entry as the other client reads it. */
export interface Entry {
  seq: number;
  path: string;
  headers: Record<string, string>;
  status: number;
  bodyBytes?: number;
  outcome: string;
  eventsSent: number;
}

/**
 * Whether an entry shows its request being worked on: by default its body is in and its reply is
 * not; a stream's producer may say it is part-way made (answered, streaming, some events out).
 */
export type InProgress = (entry: Entry) => boolean;
const bodyInReplyNot: InProgress = (entry) => entry.bodyBytes !== undefined && entry.status === 0;

const getJson = async <T>(url: string, agent: Agent): Promise<T> => {
  const answer = await new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(url, { agent, signal: AbortSignal.timeout(HANG_MS) }, (res) => answerOf(res).then(resolve, reject));
    req.once('error', reject).end();
  });
  return JSON.parse(answer.text) as T;
};

/**
 * Sends the big request (`path`, `headers`, `body`) to the server at `url` (nothing else may use it
 * meanwhile) and, from the moment its whole body is on its way, has another client read the big
 * request's journal entry, and send small chat requests, each one after another on its own
 * connection, until the big answer is in; then two more small ones.
 */
export async function servedMeanwhile(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  inProgress: InProgress = bodyInReplyNot,
): Promise<Meanwhile> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // The first API request loads the tokenizer: done before, so the big request is the only cost.
    const warm = await post(`${url}/v1/chat/completions`, AUTH, SMALL, agent).answer;
    if (warm.status !== 200) throw new Error(`the warm-up request got ${warm.status}: ${warm.text}`);
    const [last] = (await getJson<{ requests: Entry[] }>(`${url}/__admin/requests?limit=1`, agent)).requests;
    const length = String(Buffer.byteLength(body));
    const sent = post(`${url}${path}`, headers, body);
    let bigAnswered = false;
    const big = sent.answer.then(
      (a) => ((bigAnswered = true), a),
      (error: Error) => ((bigAnswered = true), error),
    );
    await sent.flushed;
    const out = { witnessed: 0, reads: 0, before: 0, statuses: [] as number[] };
    // Two loops on two connections, so a read is always on its way while the big request is pending.
    const readAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const reads = (async () => {
      while (!bigAnswered) {
        // The big request's entry: newer than the warm-up, with the big body's length (a small request
        // may reach the server before the big one's headers do, so it is not simply the next). Newer
        // entries are the big one and the small ones sent so far.
        const entry = (
          await getJson<{ requests: Entry[] }>(`${url}/__admin/requests?limit=${out.statuses.length + 3}`, readAgent)
        ).requests.find((e) => e.seq > last.seq && e.path === path.split('?')[0] && e.headers['content-length'] === length);
        out.reads++;
        if (entry && inProgress(entry)) out.witnessed++;
      }
    })().finally(() => readAgent.destroy());
    let after = 0;
    while (!bigAnswered || after < 2) {
      const pending = !bigAnswered;
      const answer = await post(`${url}/v1/chat/completions`, AUTH, SMALL, agent).answer;
      out.statuses.push(answer.status);
      if (!bigAnswered) out.before++;
      else if (!pending) after++;
    }
    await reads;
    return { big: await big, ...out };
  } finally {
    agent.destroy();
  }
}

/**
 * servedMeanwhile, sent again (at most `attempts` times in all) until the other client has seen the big
 * request in progress. Whether a read lands in one of the server's pauses is up to the scheduler: a
 * fast machine can finish a big request between two reads. A server that never pauses is seen in none.
 */
export async function seenMeanwhile(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  attempts = 3,
  inProgress?: InProgress,
): Promise<Meanwhile> {
  let result = await servedMeanwhile(url, path, headers, body, inProgress);
  for (let i = 1; i < attempts && result.witnessed === 0 && !(result.big instanceof Error); i++)
    result = await servedMeanwhile(url, path, headers, body, inProgress);
  return result;
}
