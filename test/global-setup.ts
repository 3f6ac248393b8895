// Builds dist/ once before the suite, so socket tests run exactly what `npx model-gateway-mock` runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  // The tokenizer's table (npm run build writes it too).
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/o200k-table.ts', import.meta.url))], { cwd: root, stdio: 'inherit' });
}
