// Moderation scores, deterministic: each category scores low (a small value drawn from the input's
// hash) unless the input says one of the category's trigger words, which scores it high (flagged); a
// subcategory's word raises its parent too. Pictures are judged by their URL's words (a data URL has
// none: its bytes only draw the low scores). A fixture may pin any category's score.
import { deriveKey, hashString, Rng } from '../seed.ts';

/** The categories, in the order OpenAI's replies list them. */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'sexual',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm/intent',
  'self-harm/instructions',
  'self-harm',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** The categories a picture can be judged in (omni models); the others are judged on text only. */
export const IMAGE_CATEGORIES: readonly ModerationCategory[] = [
  'sexual',
  'self-harm/intent',
  'self-harm/instructions',
  'self-harm',
  'violence',
  'violence/graphic',
];

/** The words (and phrases) that flag each category: documented, so a test can rely on them. */
export const TRIGGER_WORDS: Record<ModerationCategory, readonly string[]> = {
  harassment: ['idiot', 'loser', 'worthless'],
  'harassment/threatening': ['hunt you down', 'i will hurt you'],
  sexual: ['explicit sex', 'nsfw'],
  hate: ['subhuman', 'hateful'],
  'hate/threatening': ['exterminate'],
  illicit: ['shoplift', 'counterfeit', 'launder money'],
  'illicit/violent': ['build a bomb', 'buy a gun illegally'],
  'self-harm/intent': ['kill myself', 'i want to die'],
  'self-harm/instructions': ['how to self-harm'],
  'self-harm': ['self-harm', 'suicide'],
  'sexual/minors': ['underage'],
  violence: ['kill', 'murder', 'stab'],
  'violence/graphic': ['gore', 'dismember'],
};

/** A subcategory's parent: flagging the one scores the other high too. */
const PARENT: Partial<Record<ModerationCategory, ModerationCategory>> = {
  'harassment/threatening': 'harassment',
  'hate/threatening': 'hate',
  'illicit/violent': 'illicit',
  'self-harm/intent': 'self-harm',
  'self-harm/instructions': 'self-harm',
  'sexual/minors': 'sexual',
  'violence/graphic': 'violence',
};

/** Scores at or above this are flagged. */
export const FLAG_THRESHOLD = 0.5;

type ModerationScores = Record<ModerationCategory, number>;

/** What one result is judged on: texts and pictures (by URL, a data URL included). */
export interface ModerationInput {
  texts: readonly string[];
  images: readonly string[];
}

const literal = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Each category's triggers as one pattern, matched as whole words, in any case. */
const PATTERNS = Object.fromEntries(
  MODERATION_CATEGORIES.map((c) => [
    c,
    new RegExp(`(?<![\\p{L}\\p{N}])(?:${TRIGGER_WORDS[c].map(literal).join('|')})(?![\\p{L}\\p{N}])`, 'iu'),
  ]),
) as Record<ModerationCategory, RegExp>;

/** The categories a text's words trigger, parents included. */
function triggered(text: string, within: readonly ModerationCategory[] = MODERATION_CATEGORIES): Set<ModerationCategory> {
  const out = new Set<ModerationCategory>();
  for (const c of within) {
    if (!PATTERNS[c].test(text)) continue;
    out.add(c);
    const parent = PARENT[c];
    if (parent) out.add(parent);
  }
  return out;
}

/**
 * The scores of one input: low, from the input's hash, unless triggered (high, from the hash too), or
 * pinned. Pictures count only in the categories pictures are judged in.
 */
export function moderationScores(input: ModerationInput, seed: number, pinned: Partial<Record<string, number>> = {}): ModerationScores {
  const hit = new Set<ModerationCategory>();
  for (const text of input.texts) for (const c of triggered(text)) hit.add(c);
  for (const url of input.images) for (const c of triggered(url.startsWith('data:') ? '' : url, IMAGE_CATEGORIES)) hit.add(c);
  const key = hashString([...input.texts, ...input.images].join('\u0000'), seed);
  const scores = {} as ModerationScores;
  for (const c of MODERATION_CATEGORIES) {
    const u = new Rng(deriveKey(key, c)).next();
    scores[c] = pinned[c] ?? (hit.has(c) ? 0.9 + 0.0999 * u : 1e-6 + 0.000999 * u);
  }
  return scores;
}
