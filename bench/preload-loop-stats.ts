// Preloaded into the emulator by the benchmarks (`node --import`), so the event-loop hook runs even
// where the CLI does not start it itself; the hook is idempotent, so both may.
import { startLoopStats } from '../dist/src/cli/loop-stats.js';

startLoopStats();
