// `npm` for the doc test's projects, offline: `npm install <names>` puts each named package in the project's
// node_modules as a link to this repository's copy (resolved there, its dependencies come along), a tarball
// (`npm install ../x.tgz`) unpacked with its declared dependencies linked beside it, as test/package.test.ts
// installs one; each is written to package.json's devDependencies and its bins linked. A package this
// repository does not have fails the install, as a missing one would. Every other command is the real npm.
// Run as a script: `node offline-npm.ts <args>` (the doc test's `npm` on PATH is a shell line calling it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
// The real npm: the one on PATH after this script's own folder (the doc test names it).
const realNpm = process.env.DOC_REAL_NPM ?? 'npm';

interface Manifest {
  name: string;
  version: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** A package name from an install spec: `msw`, `msw@3`, `@vitest/browser-playwright@5.1.1`. */
const nameOf = (spec: string) => (spec.startsWith('@') ? `@${spec.slice(1).split('@')[0]}` : spec.split('@')[0]);

function linkBins(modules: string, name: string, manifest: Manifest) {
  const bins = typeof manifest.bin === 'string' ? { [name.split('/').pop()!]: manifest.bin } : (manifest.bin ?? {});
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const [bin, path] of Object.entries(bins)) {
    const link = join(modules, '.bin', bin);
    rmSync(link, { force: true });
    symlinkSync(relative(join(modules, '.bin'), join(modules, name, path)), link);
  }
}

function linkFromRepo(modules: string, name: string): Manifest {
  const source = join(repo, 'node_modules', name);
  if (!existsSync(join(source, 'package.json')))
    throw new Error(`npm (offline, doc test): ${name} is not in the repository's node_modules, so it cannot be installed here`);
  const target = join(modules, name);
  if (!existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(source, target, 'dir');
  }
  const manifest = manifestOf(source);
  linkBins(modules, name, manifest);
  return manifest;
}

function unpack(modules: string, tarball: string): Manifest {
  mkdirSync(modules, { recursive: true });
  const scratch = mkdtempSync(join(modules, '.unpack-'));
  const tar = spawnSync('tar', ['xzf', tarball, '-C', scratch], { stdio: 'inherit' });
  if (tar.status !== 0) throw new Error(`npm (offline, doc test): cannot unpack ${tarball}`);
  const manifest = manifestOf(join(scratch, 'package'));
  rmSync(join(modules, manifest.name), { recursive: true, force: true });
  mkdirSync(dirname(join(modules, manifest.name)), { recursive: true });
  renameSync(join(scratch, 'package'), join(modules, manifest.name));
  rmSync(scratch, { recursive: true, force: true });
  for (const dependency of Object.keys(manifest.dependencies ?? {})) linkFromRepo(modules, dependency);
  linkBins(modules, manifest.name, manifest);
  return manifest;
}

const [command, ...rest] = process.argv.slice(2);
if (!['install', 'i', 'add'].includes(command ?? '')) {
  const real = spawnSync(realNpm, process.argv.slice(2), { stdio: 'inherit' });
  process.exit(real.status ?? 1);
}
const project = process.cwd();
const modules = join(project, 'node_modules');
const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
try {
  for (const spec of rest.filter((a) => !a.startsWith('-'))) {
    const tarball = /\.(tgz|tar\.gz)$/.test(spec);
    const manifest = tarball ? unpack(modules, resolve(spec)) : linkFromRepo(modules, nameOf(spec));
    pkg.devDependencies = { ...pkg.devDependencies, [manifest.name]: tarball ? `file:${spec}` : manifest.version };
    console.log(`+ ${manifest.name}@${manifest.version}`);
  }
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
writeFileSync(join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
