// The npm package as a user gets it, offline: `npm pack`, unpacked into an empty project's node_modules
// beside its declared dependencies and the packages named (linked from this repository's node_modules:
// no network), with their bins.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
// npm and npx run on this Node (24), whatever `node` the machine has first on its PATH; offline.
export const projectEnv = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  npm_config_update_notifier: 'false',
  npm_config_offline: 'true',
};

export interface PackedProject {
  /** The project folder (package.json, node_modules). */
  dir: string;
  /** The packed tarball. */
  tarball: string;
  remove(): void;
}

/** Packs this repository and makes a project that has the package, its dependencies and `also` (e.g. vitest, openai). */
export async function packedProject(also: string[]): Promise<PackedProject> {
  const scratch = mkdtempSync(join(tmpdir(), 'mgm-package-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: root,
    env: projectEnv,
  });
  const tarball = join(scratch, (JSON.parse(stdout) as { filename: string }[])[0].filename);
  const dir = join(scratch, 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  // The tarball's own files, and only its declared dependencies beside it: an import of anything undeclared
  // fails here as it would for a user.
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  await run('tar', ['xzf', tarball, '-C', scratch]);
  renameSync(join(scratch, 'package'), join(modules, 'model-gateway-mock'));
  const declared = Object.keys(
    (JSON.parse(readFileSync(join(modules, 'model-gateway-mock/package.json'), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies,
  );
  for (const name of new Set([...declared, ...also])) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  symlinkSync('../model-gateway-mock/bin/model-gateway-mock.js', join(modules, '.bin/model-gateway-mock'));
  if (also.includes('vitest')) symlinkSync('../vitest/vitest.mjs', join(modules, '.bin/vitest'));
  return { dir, tarball, remove: () => rmSync(scratch, { recursive: true, force: true }) };
}
