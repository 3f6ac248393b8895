// Embedding vectors: unit length, deterministic per (text, model, seed), and meaningful: each word
// contributes its own seeded direction, so texts that share words point closer together.
import { hashString } from '../seed.ts';
import { memoize } from '../memo.ts';

/** The embedding space of a model under a seed: every format embeds the same text alike there. */
export function embeddingSpace(model: string, seed: number): number {
  return hashString(`embedding space ${model}`, seed);
}

/** Weight of the text's own direction next to its words' (keeps distinct texts distinct). */
const OWN = 0.35;

/**
 * A seeded random unit direction. Components are uniform (mulberry32, inlined): as near-orthogonal in
 * many dimensions as Gaussian ones, and cheap enough for every distinct word of a 2048-input batch.
 */
function randomDirection(key: number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let state = (key ^ Math.floor(key / 4294967296)) | 0;
  for (let i = 0; i < dims; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    v[i] = ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
  }
  return normalize(v);
}

const wordVector = memoize(
  (id: string) => {
    const [space, dims, word] = id.split('\u0000');
    return randomDirection(hashString(word, Number(space)), Number(dims));
  },
  { entries: 20_000, bytes: 32 * 1024 * 1024, sizeOf: (id) => 4 * Number(id.split('\u0000', 2)[1]) + id.length * 2 + 64 },
);

/** Distinct words that shape one text's direction (its most frequent), so a text's cost is bounded. */
const MAX_WORDS = 512;

/**
 * The work embed() does for `text`, counted (vector components touched, characters read; at most one
 * distinct word per two characters), so a batch can be sliced by work done, not by time.
 */
export function embedWork(text: string, dims: number): number {
  return text.length + dims * (2 + Math.min(MAX_WORDS, Math.ceil(text.length / 2)));
}

/** embedWork between two turns of the event loop when a batch is embedded in slices: a few ms of work. */
export const EMBED_SLICE_WORK = 1024 * 1024;

function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Words that say little about a text's subject: they weigh a tenth of the others. */
const COMMON = new Set(
  'a an and are as at be but by for from has have he her his i in is it its me my not of on or our she so that the their them they this to was we were what when which who will with you your'.split(
    ' ',
  ),
);

/** Lower-cased words, plural `s` dropped, so "cats" and "cat" share a direction. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) =>
    w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w,
  );
}

/**
 * A unit vector of `dims` for `text` in the embedding space `space` (a model and seed's hash).
 * `truncateTo` gives the first n dimensions renormalized, as shortened embeddings behave.
 */
export function embed(text: string, space: number, dims: number, truncateTo = dims): Float32Array {
  const v = new Float32Array(dims);
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  let chosen = [...counts];
  // A stable sort: among equally frequent words the first seen are kept.
  if (chosen.length > MAX_WORDS) chosen = chosen.sort((a, b) => b[1] - a[1]).slice(0, MAX_WORDS);
  for (const [word, n] of chosen) {
    const w = wordVector(`${space}\u0000${dims}\u0000${word}`);
    const weight = (COMMON.has(word) ? 0.1 : 1) * n;
    for (let i = 0; i < dims; i++) v[i] += weight * w[i];
  }
  normalize(v);
  const own = randomDirection(hashString(text, space), dims);
  for (let i = 0; i < dims; i++) v[i] = (1 - OWN) * v[i] + OWN * own[i];
  return normalize(truncateTo < dims ? v.slice(0, truncateTo) : v);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

/** Relevance of `document` to `query`, in (0, 1): shared words raise it, sharing none keeps it low. */
export function relevance(query: string, document: string, space: number): number {
  const dims = 256;
  const c = cosine(embed(query, space, dims), embed(document, space, dims));
  return Math.round((1 / (1 + Math.exp(-8 * (c - 0.25)))) * 1e6) / 1e6;
}

/** Little-endian float32 bytes, as OpenAI's base64 embeddings carry them. */
export function float32Bytes(v: Float32Array): Uint8Array {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  v.forEach((x, i) => view.setFloat32(i * 4, x, true));
  return bytes;
}

/** Dimensions a held passage's vector has (OpenAI's vector stores embed at 256 with text-embedding-3-large). */
export const PASSAGE_DIMS = 256;

/**
 * The vector a file search compares passages and queries by: what `/v1/embeddings` answers for the
 * text with `model: "text-embedding-3-small"` and `dimensions: 256` under the gateway's seed, so a test
 * can work out which passage a query finds.
 */
export function passageVector(text: string, seed: number): Float32Array {
  return embed(text, embeddingSpace('text-embedding-3-small', seed), 1536, PASSAGE_DIMS);
}

/** Work passageVector() does for `text` (see embedWork). */
export const passageWork = (text: string) => embedWork(text, 1536);

/**
 * The `max` items nearest `query` by cosine (their vectors are unit length), best first, scored in
 * [0, 1] (a negative cosine scores 0); items scoring under `threshold` are left out. Ties keep the items' order.
 */
export function nearest<T extends { vector: Float32Array }>(
  query: Float32Array,
  items: Iterable<T>,
  max: number,
  threshold = 0,
): { item: T; score: number }[] {
  const scored: { item: T; score: number; at: number }[] = [];
  let at = 0;
  for (const item of items) {
    const score = Math.max(0, Math.round(cosine(query, item.vector) * 1e6) / 1e6);
    if (score >= threshold) scored.push({ item, score, at: at++ });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.at - b.at)
    .slice(0, max)
    .map(({ item, score }) => ({ item, score }));
}
