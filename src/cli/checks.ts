// Checks shared by the CLI's commands, so that a bad folder is named with its flag and what it takes,
// not reported in the file system's own words (ENOENT, scandir).
import { statSync } from 'node:fs';

/** Why `path`, given as `label`, is not a folder of fixture files; undefined when it is one. */
export function fixtureFolderProblem(label: string, path: string): string | undefined {
  let isDir: boolean | undefined;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // Missing or unreadable: said below.
  }
  const takes = 'it takes a folder of *.json, *.yaml and *.yml fixture files';
  if (isDir === undefined) return `${label}: no folder "${path}" (${takes})`;
  return isDir ? undefined : `${label}: "${path}" is a file; ${takes}`;
}
