// Builds dist/ once before the suite, so socket tests run exactly what `npx model-gateway-mock` runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.ts', import.meta.url))], { stdio: 'inherit' });
}
