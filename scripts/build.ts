// `npm run build` and the test run's global setup: dist/ written afresh (tsc never deletes the output of a
// source that moved, and `npm pack` would publish it), then the tokenizer's tables (scripts/o200k-table.ts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
await import('./o200k-table.ts');
await import('./bundle.ts');
