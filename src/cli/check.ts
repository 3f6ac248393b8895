// `model-gateway-mock check --fixtures <dir>`: a fixture folder checked as the server loads it (JSON or
// YAML, the schema, regular expressions, tool arguments, latencies), every bad file reported with the
// JSON pointer of each problem, for a CI step before the tests. Exit 0 when all are good, 1 when not.
import { parseArgs } from 'node:util';
import { readFixtureDir } from '../fixtures/load.ts';
import { fixtureFolderProblem } from './checks.ts';

const USAGE = `Usage: model-gateway-mock check --fixtures <dir>

Checks every *.json, *.yaml and *.yml fixture file in <dir> as the server would load it, and reports
each bad file with the JSON pointer of every problem in it. Exits 0 when all are good, 1 when any is
bad (or there is none), 2 on a bad command line.
`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Runs the command; returns the exit code. */
export function checkMain(args: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { fixtures: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`model-gateway-mock: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) return (process.stdout.write(USAGE), 0);
  const problem = values.fixtures === undefined ? 'check needs --fixtures <dir>' : fixtureFolderProblem('--fixtures', values.fixtures);
  if (problem) {
    process.stderr.write(`model-gateway-mock: ${problem}\n\n${USAGE}`);
    return 2;
  }
  const dir = values.fixtures!;
  const { files, fixtures, problems } = readFixtureDir(dir);
  if (!files.length) {
    process.stderr.write(`model-gateway-mock: no fixture files (*.json, *.yaml, *.yml) in ${dir}\n`);
    return 1;
  }
  for (const p of problems) process.stderr.write(`${p.message}\n`);
  const good = files.length - problems.length;
  const summary = `${plural(files.length, 'fixture file')} in ${dir}: ${good} good (${plural(fixtures.length, 'fixture')})`;
  if (!problems.length) return (process.stdout.write(`${summary}\n`), 0);
  process.stderr.write(`${summary}, ${problems.length} bad\n`);
  return 1;
}
