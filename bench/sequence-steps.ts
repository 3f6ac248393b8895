// Heap held by the sequence store when full: MAX_SEQUENCE_CONVERSATIONS places advanced from the shared
// requests and 257 test scopes (the ceiling docs/errors.md gives), per place and in all.
// Usage: node --expose-gc --experimental-strip-types bench/sequence-steps.ts
import { MAX_SEQUENCE_CONVERSATIONS, SequenceSteps } from '../src/fixtures/sequences.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
gc();
const before = process.memoryUsage().heapUsed;
const steps = new SequenceSteps();
// Three times the bound, from scopes with large generations and 40 fixtures: the store stays full.
for (let i = 0; i < 3 * MAX_SEQUENCE_CONVERSATIONS; i++)
  steps.advance(i % 258 === 0 ? 0 : 1_000_000 + (i % 258), `fx_${i % 40}`, ((i * 2654435761) >>> 0).toString(16).padStart(8, '0'));
gc();
const used = process.memoryUsage().heapUsed - before;
console.log(`${steps.size} places: ${(used / steps.size).toFixed(0)} bytes each, ${(used / 1048576).toFixed(2)} MiB in all`);
