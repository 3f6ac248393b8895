// The Python helper (python/): pip-installs it from the clone into a scratch folder, offline (its build needs
// only setuptools and wheel, which Debian packages), and runs its own pytest suite against this repository's
// CLI; the plugin is found by its pytest11 entry point, as after a user's `pip install`. Skipped with a
// warning where no Python has pytest (CI installs python3-pytest: .ci/run).
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { socketSuites } from './helpers/modes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The first Python that has pytest, and pip, setuptools and wheel to install the helper with. */
function python(): { path: string; complete: boolean } | undefined {
  let withPytest: string | undefined;
  for (const candidate of ['python3', '/usr/bin/python3']) {
    const has = (modules: string) => {
      try {
        execFileSync(candidate, ['-c', `import ${modules}`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    };
    if (!has('pytest')) continue;
    withPytest ??= candidate;
    if (has('setuptools, wheel, pip')) return { path: candidate, complete: true };
  }
  return withPytest ? { path: withPytest, complete: false } : undefined;
}

const found = python();
if (!found) console.warn('test/python.test.ts: skipped: no Python with pytest here (apt-get install -y python3-pytest python3-wheel)');

describe.runIf(socketSuites && found)('the Python helper', () => {
  it('pip-installs from the clone and passes its own pytest suite against the CLI', async () => {
    expect(
      found?.complete,
      `${found?.path} has pytest but not pip, setuptools and wheel (apt-get install -y python3-pip python3-wheel)`,
    ).toBe(true);
    const scratch = mkdtempSync(join(tmpdir(), 'mgm-python-'));
    try {
      // A copy: pip builds in the source folder.
      cpSync(join(root, 'python'), join(scratch, 'source'), {
        recursive: true,
        filter: (f) => !/(__pycache__|\.egg-info|[/\\]build)$/.test(f),
      });
      const site = join(scratch, 'site');
      execFileSync(
        found!.path,
        ['-m', 'pip', 'install', '--no-build-isolation', '--no-index', '--no-deps', '--quiet', '--target', site, join(scratch, 'source')],
        {
          env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_ROOT_USER_ACTION: 'ignore' },
        },
      );
      const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          found!.path,
          ['-m', 'pytest', '-v', '-p', 'no:cacheprovider', join(root, 'python/tests')],
          {
            cwd: scratch,
            timeout: 300_000,
            env: {
              ...process.env,
              PYTHONPATH: site,
              PYTHONDONTWRITEBYTECODE: '1',
              MODEL_GATEWAY_CLI: join(root, 'bin/model-gateway-mock.js'),
              MODEL_GATEWAY_NODE: process.execPath,
            },
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
        );
      });
      expect(code, output).toBe(0);
      expect(output).toMatch(/\b10 passed\b/);
      // Found by its entry point, not by a -p flag.
      expect(output).toContain('model-gateway-mock');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 360_000);
});
