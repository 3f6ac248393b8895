// Runs a directory of case files in a child vitest, as users run it, and reads each test's outcome.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Outcome {
  status: string;
  failureMessages: string[];
}

/** Runs vitest in `dir` (under the repository) with its vitest.config.ts; each test's status and failure messages, by title. */
export function runCases(dir: string, env: Record<string, string>, args: string[] = []): Promise<Record<string, Outcome>> {
  const out = join(mkdtempSync(join(tmpdir(), 'mgm-vitest-')), 'report.json');
  const argv = [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'vitest.config.ts',
    '--reporter=json',
    `--outputFile=${out}`,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      { cwd: join(root, dir), env: { ...process.env, ...env, VITEST: '', NODE_OPTIONS: '' }, timeout: 120_000 },
      (error) => {
        try {
          const report = JSON.parse(readFileSync(out, 'utf8')) as { testResults: { assertionResults: (Outcome & { title: string })[] }[] };
          resolve(
            Object.fromEntries(
              report.testResults
                .flatMap((f) => f.assertionResults)
                .map((t) => [t.title, { status: t.status, failureMessages: t.failureMessages }]),
            ),
          );
        } catch {
          reject(error ?? new Error('no report'));
        }
      },
    );
  });
}
