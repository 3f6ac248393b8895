// Embedding vectors: unit length, deterministic per (text, model, seed), and meaningful: each word
// contributes its own seeded direction, so texts that share words point closer together.
import { hashString, Rng } from '../seed.ts';
import { memoize } from '../memo.ts';

/** The embedding space of a model under a seed: every format embeds the same text alike there. */
export function embeddingSpace(model: string, seed: number): number {
  return hashString(`embedding space ${model}`, seed);
}

/** Weight of the text's own direction next to its words' (keeps distinct texts distinct). */
const OWN = 0.35;

function gaussianVector(key: number, dims: number): Float32Array {
  const rng = new Rng(key);
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i += 2) {
    // Box–Muller: two normal draws from two uniform ones.
    const r = Math.sqrt(-2 * Math.log(1 - rng.next()));
    const t = 2 * Math.PI * rng.next();
    v[i] = r * Math.cos(t);
    if (i + 1 < dims) v[i + 1] = r * Math.sin(t);
  }
  return normalize(v);
}

const wordVector = memoize((id: string) => {
  const [space, dims, word] = id.split('\u0000');
  return gaussianVector(hashString(word, Number(space)), Number(dims));
}, 20_000);

function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Words that say little about a text's subject: they weigh a tenth of the others. */
const COMMON = new Set(
  'a an and are as at be but by for from has have he her his i in is it its me my not of on or our she so that the their them they this to was we were what when which who will with you your'.split(' '),
);

/** Lower-cased words, plural `s` dropped, so "cats" and "cat" share a direction. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/**
 * A unit vector of `dims` for `text` in the embedding space `space` (a model and seed's hash).
 * `truncateTo` gives the first n dimensions renormalized, as shortened embeddings behave.
 */
export function embed(text: string, space: number, dims: number, truncateTo = dims): Float32Array {
  const v = new Float32Array(dims);
  for (const word of words(text)) {
    const w = wordVector(`${space}\u0000${dims}\u0000${word}`);
    const weight = COMMON.has(word) ? 0.1 : 1;
    for (let i = 0; i < dims; i++) v[i] += weight * w[i];
  }
  normalize(v);
  const own = gaussianVector(hashString(text, space), dims);
  for (let i = 0; i < dims; i++) v[i] = (1 - OWN) * v[i] + OWN * own[i];
  return normalize(truncateTo < dims ? v.slice(0, truncateTo) : v);
}

export function cosine(a: Float32Array, b: Float32Array): number {
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
