// Lists every name a module in src/ exports that no other file imports (src, test, bench, examples,
// scripts), leaving out what the package's entry points (package.json `exports` and `bin`) publish.
// Prints `file:line name` per finding and exits 1 if there is any: such a name is either used in its
// own file only (drop `export`) or nowhere (delete it). Run by `npm run lint`.
//
// Syntactic: TypeScript's parser (the `typescript` devDependency's API) reads the files, this script
// resolves the specifiers itself. A module reached by a dynamic import() (`lazyImport(..., () =>
// import('./audio.ts'))`), `typeof import()` or `import * as ns` has each of its names used that the
// importing file mentions anywhere (`audio.get().audioHandlers`, `const { Recorder } = await import()`):
// following the value is the checker's business, and missing a dead name is better than reporting a
// live one. `export * from` uses all of a module's names.
//
// `--root <dir>` checks another tree laid out the same way (the lint test runs it on scratch files).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

const rootArg = process.argv.indexOf('--root');
const root = resolve(rootArg === -1 ? join(import.meta.dirname, '..') : process.argv[rootArg + 1]);
const folders = ['src', 'test', 'bench', 'examples', 'scripts'];
const WHOLE = '*';
// Exported on purpose though no other file imports them, each with its reason (`file name`).
const KEEP = new Set([
  // The inferred types of memoized exports (synthesizeText, systemFingerprint) name it: the build's
  // declaration emit needs it exported (TS4023).
  'src/core/memo.ts Memo',
]);

/** The fields of the nodes this script reads (the API's node types are a union it would narrow at length). */
interface Syntax extends Node {
  text: string;
  name?: Syntax;
  propertyName?: Syntax;
  importClause?: Syntax;
  namedBindings?: Syntax;
  exportClause?: Syntax;
  moduleSpecifier?: Syntax;
  elements?: Syntax[];
  argument?: Syntax & { literal?: Syntax };
  qualifier?: Syntax;
  expression: Syntax;
  arguments: Syntax[];
  modifiers?: Syntax[];
  declarationList: { declarations: Syntax[] };
}

function tsFiles(dir: string): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : tsFiles(path);
    return /\.m?tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}
const files = folders.flatMap((f) => tsFiles(join(root, f)));
const known = new Set(files);

// The package's own name (tsconfig `paths`) and the built tree (dist/src/x.js) both lead back to src/.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name?: string;
  exports?: unknown;
  bin?: string | Record<string, string>;
};
function toSource(path: string): string | undefined {
  const src = path.replace(`${root}/dist/src/`, `${root}/src/`);
  // An entry's bundle (dist/src/x.bundle.js, scripts/bundle.ts) leads back to its module too.
  const bare = src.replace(/(\.bundle)?\.(m?[jt]sx?)$/, '');
  return [src, `${bare}.ts`, `${bare}.tsx`, `${bare}/index.ts`].find((p) => known.has(p));
}
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return toSource(resolve(dirname(from), specifier));
  if (pkg.name && (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`))) {
    return toSource(join(root, 'src', specifier === pkg.name ? 'index' : specifier.slice(pkg.name.length + 1)));
  }
  return undefined;
}

// Entry points: every `./dist/src/*.js` path package.json's `exports` names, and what the `bin` scripts import.
const entries = new Set<string>();
const collect = (value: unknown): void => {
  if (typeof value === 'string') {
    const file = value.startsWith('./dist/src/') ? toSource(resolve(root, value)) : undefined;
    if (file) entries.add(file);
  } else if (value && typeof value === 'object') Object.values(value).forEach(collect);
};
collect(pkg.exports);
for (const bin of typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {})) {
  const text = readFileSync(join(root, bin), 'utf8');
  for (const [, spec] of text.matchAll(/import\s*(?:\(\s*)?'([^']+)'/g))
    collect(`./${relative(root, resolve(dirname(join(root, bin)), spec))}`);
}

// A throwaway project: just these files, parsed, no resolution and no lib (nothing here is type-checked).
const exported = new Map<string, { file: string; line: number; name: string }>(); // key `file\0name`
const used = new Set<string>(); // `file\0name`, or `file\0*` for the whole module
const loose: { target: string; names: Set<string> }[] = []; // modules read by whatever name the importer mentions
const scratch = mkdtempSync(join(tmpdir(), 'unused-exports-'));
let api: API | undefined;
try {
  const config = join(scratch, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: { noResolve: true, noLib: true, types: [], allowImportingTsExtensions: true, noEmit: true, allowJs: false },
      files,
    }),
  );
  api = new API({ cwd: root });
  const program = api.updateSnapshot({ openProject: config }).getProjects()[0].program;
  for (const file of files) walk(file, program.getSourceFile(file)!);
} finally {
  api?.close();
  rmSync(scratch, { recursive: true, force: true });
}

function walk(file: string, sf: SourceFile): void {
  const names = new Set<string>();
  const use = (specifier: Node | undefined, name: string | typeof names) => {
    if (specifier?.kind !== SyntaxKind.StringLiteral) return;
    const target = resolveSpecifier(file, (specifier as unknown as { text: string }).text);
    if (!target || target === file) return;
    if (typeof name === 'string') used.add(`${target}\0${name}`);
    else loose.push({ target, names: name });
  };
  const declare = (node: Node, name: string) => {
    if (!file.startsWith(`${root}/src/`) || entries.has(file)) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    exported.set(`${file}\0${name}`, { file: relative(root, file), line, name });
  };
  const visit = (node: Node): void => {
    const n = node as Syntax;
    switch (node.kind) {
      case SyntaxKind.ImportDeclaration: {
        const clause = n.importClause;
        if (!clause) break; // a side-effect import
        if (clause.name) use(n.moduleSpecifier, 'default');
        const bindings = clause.namedBindings;
        if (bindings?.kind === SyntaxKind.NamespaceImport) use(n.moduleSpecifier, names);
        for (const el of bindings?.elements ?? []) use(n.moduleSpecifier, (el.propertyName ?? el.name)!.text);
        return;
      }
      case SyntaxKind.ExportDeclaration: {
        const clause = n.exportClause;
        if (!clause || clause.kind === SyntaxKind.NamespaceExport) use(n.moduleSpecifier, WHOLE);
        for (const el of clause?.elements ?? []) {
          if (n.moduleSpecifier) use(n.moduleSpecifier, (el.propertyName ?? el.name)!.text);
          declare(el, el.name!.text);
        }
        return;
      }
      case SyntaxKind.ImportType: // typeof import('./x.ts'), import('./x.ts').Name
        use(n.argument?.literal, n.qualifier?.kind === SyntaxKind.Identifier ? n.qualifier.text : names);
        break;
      case SyntaxKind.CallExpression: // import('./x.ts')
        if (n.expression.kind === SyntaxKind.ImportKeyword) use(n.arguments[0], names);
        break;
      case SyntaxKind.Identifier:
        names.add(n.text);
        break;
      case SyntaxKind.ExportAssignment:
        declare(node, 'default');
        break;
    }
    if (node.parent?.kind === SyntaxKind.SourceFile && n.modifiers?.some((m) => m.kind === SyntaxKind.ExportKeyword)) {
      if (n.modifiers.some((m) => m.kind === SyntaxKind.DefaultKeyword)) declare(node, 'default');
      else if (node.kind === SyntaxKind.VariableStatement) {
        for (const d of n.declarationList.declarations) if (d.name?.kind === SyntaxKind.Identifier) declare(d, d.name.text);
      } else if (n.name) declare(node, n.name.text);
    }
    node.forEachChild(visit);
  };
  sf.forEachChild(visit);
}

// The syntax API is typescript's unstable one: if a release renamed what this walk reads, it would find
// nothing and pass. A tree with exports that shows none is that, not a clean tree.
if (!exported.size && files.some((f) => f.startsWith(join(root, 'src')))) {
  console.error('unused-exports: no export found in src/: has typescript/unstable/sync changed its syntax tree?');
  process.exit(2);
}
for (const { target, names } of loose) for (const name of names) used.add(`${target}\0${name}`);
const findings = [...exported].filter(
  ([key, f]) => !used.has(key) && !used.has(`${key.slice(0, key.indexOf('\0'))}\0${WHOLE}`) && !KEEP.has(`${f.file} ${f.name}`),
);
for (const [, f] of findings.sort(([, a], [, b]) => a.file.localeCompare(b.file) || a.line - b.line))
  console.log(`${f.file}:${f.line} ${f.name}`);
if (findings.length) {
  console.error(`${findings.length} exported name(s) in src/ that no other file imports: drop \`export\`, or delete what nothing uses.`);
  process.exit(1);
}
