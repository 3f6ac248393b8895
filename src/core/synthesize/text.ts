// Plausible English reply text, drawn from faker seeded by the request's key.
import type { Faker } from '@faker-js/faker';
import { withFaker } from '../seed.ts';
import { memoize } from '../memo.ts';

const OPENINGS = [
  'Sure.',
  'Here is what I found.',
  'Good question.',
  'Short answer: it depends.',
  'Let me walk through it.',
  'Happy to help.',
];

function sentence(f: Faker): string {
  switch (f.number.int({ min: 0, max: 3 })) {
    case 0:
      return f.hacker.phrase();
    case 1:
      return `The ${f.word.adjective()} ${f.word.noun()} ${f.word.verb()}s the ${f.word.noun()} ${f.word.adverb()}.`;
    case 2:
      return `${f.company.catchPhrase()} is what ${f.person.firstName()} would suggest here.`;
    default:
      return `You can ${f.hacker.verb()} the ${f.hacker.adjective()} ${f.hacker.noun()} to keep the ${f.word.noun()} ${f.word.adjective()}.`;
  }
}

/** A reply of two to six sentences, the same for the same key. */
export const synthesizeText = memoize((key: number): string =>
  withFaker(key, (f) => {
    const count = f.number.int({ min: 2, max: 6 });
    const parts = [f.helpers.arrayElement(OPENINGS)];
    for (let i = 0; i < count; i++) {
      const s = sentence(f);
      parts.push(s.charAt(0).toUpperCase() + s.slice(1));
    }
    return parts.join(' ');
  }),
);

/** Reasoning text that leads up to an answer, the same for the same key. */
export const synthesizeThinking = memoize((key: number): string =>
  withFaker(key, (f) => {
    const steps = f.number.int({ min: 2, max: 4 });
    const parts = ['Let me think this through.'];
    for (let i = 0; i < steps; i++)
      parts.push(`${['First', 'Next', 'Then', 'Finally'][Math.min(i, 3)]}, ${f.hacker.phrase().replace(/^./, (c) => c.toLowerCase())}`);
    return parts.join(' ');
  }),
);
