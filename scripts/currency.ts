// The currency check: reads the installed SDKs' type definitions (openai, @anthropic-ai/sdk,
// @google/genai) with the TypeScript compiler API and lists every member the emulator does not know:
// request parameters, model ids, tool types, Gemini's finish reasons. No network: it reads node_modules
// as the lock file pinned them, so an SDK bump that adds a tool or a parameter fails CI with its name.
// Run by `npm run lint`; `npm run currency` runs it alone.
//
//   node scripts/currency.ts [--types <check>=<file.d.ts>]…
//
// `--types` reads one check's type from another file (the test feeds a .d.ts with one extra member).
// Prints `<check> (<type> in <file>): <names>` for each check with missing members and exits 1; prints
// one line and exits 0 when nothing is missing. What the emulator leaves out on purpose is in ALLOWED,
// each with its reason.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, SymbolFlags, TypeFlags, type LiteralType, type Type } from 'typescript/unstable/sync';
import { shippedCatalogue } from '../src/runtime.ts';
import { CHAT_FIELDS } from '../src/formats/openai/parse.ts';
import { FIELDS as RESPONSES_FIELDS } from '../src/formats/openai/responses.ts';
import { TYPES as RESPONSES_TOOL_TYPES } from '../src/formats/openai/tools.ts';
import { MESSAGE_FIELDS } from '../src/formats/anthropic/parse.ts';
import { TAGS as ANTHROPIC_TOOL_TYPES } from '../src/formats/anthropic/tools.ts';
import { STOP_REASONS, STREAM_EVENTS } from '../src/formats/anthropic/render.ts';
import { GENERATION_FIELDS, REQUEST_FIELDS } from '../src/formats/gemini/parse.ts';
import { FIELD_NAMES as GEMINI_TOOL_FIELDS } from '../src/formats/gemini/tools.ts';
import { VERTEX_GENERATION, VERTEX_REQUEST } from '../src/formats/vertex/gemini.ts';
import { FINISH_REASONS } from '../src/formats/gemini/render.ts';

/** How a type's members are named: its properties, or the `type` tags (or literals) of a union's members. */
type Read = 'properties' | 'tags';

interface Check {
  /** `<package>` (resolved in node_modules) and the .d.ts inside it. */
  package: string;
  file: string;
  /** The exported type's name in that file. */
  type: string;
  read: Read;
  /** Whether the emulator knows `name`. */
  knows: (name: string) => boolean;
}

// Served: in the catalogue, or resolved by a vendor's naming family with its capabilities (docs/models.md).
const catalogue = shippedCatalogue();
const inCatalogue = (id: string) => catalogue.get(id) !== undefined;
const among = (names: Iterable<string>) => {
  const set = new Set(names);
  return (name: string) => set.has(name);
};

/** GenerateContentConfig members that @google/genai sends under another name, by their name on the wire. */
const SDK_NAMES: Record<string, string> = { modelConfig: 'modelSelectionConfig', outputConfig: 'generationOutputConfig' };

const CHECKS: Record<string, Check> = {
  'openai.chat.params': {
    package: 'openai',
    file: 'resources/chat/completions/completions.d.ts',
    type: 'ChatCompletionCreateParamsBase',
    read: 'properties',
    knows: among(Object.keys(CHAT_FIELDS)),
  },
  'openai.responses.params': {
    package: 'openai',
    file: 'resources/responses/responses.d.ts',
    type: 'ResponseCreateParamsBase',
    read: 'properties',
    knows: among(Object.keys(RESPONSES_FIELDS)),
  },
  'openai.responses.tools': {
    package: 'openai',
    file: 'resources/responses/responses.d.ts',
    type: 'Tool',
    read: 'tags',
    knows: among(Object.keys(RESPONSES_TOOL_TYPES)),
  },
  'openai.models': { package: 'openai', file: 'resources/shared.d.ts', type: 'ResponsesModel', read: 'tags', knows: inCatalogue },
  'anthropic.messages.params': {
    package: '@anthropic-ai/sdk',
    file: 'resources/messages/messages.d.ts',
    type: 'MessageCreateParamsBase',
    read: 'properties',
    knows: among(Object.keys(MESSAGE_FIELDS)),
  },
  'anthropic.tools': {
    package: '@anthropic-ai/sdk',
    file: 'resources/messages/messages.d.ts',
    type: 'ToolUnion',
    read: 'tags',
    knows: among(ANTHROPIC_TOOL_TYPES),
  },
  'anthropic.models': {
    package: '@anthropic-ai/sdk',
    file: 'resources/messages/messages.d.ts',
    type: 'Model',
    read: 'tags',
    knows: inCatalogue,
  },
  'anthropic.stop-reasons': {
    package: '@anthropic-ai/sdk',
    file: 'resources/messages/messages.d.ts',
    type: 'StopReason',
    read: 'tags',
    knows: among(STOP_REASONS),
  },
  'anthropic.stream-events': {
    package: '@anthropic-ai/sdk',
    file: 'resources/messages/messages.d.ts',
    type: 'RawMessageStreamEvent',
    read: 'tags',
    knows: among(STREAM_EVENTS),
  },
  'gemini.config': {
    package: '@google/genai',
    file: 'dist/genai.d.ts',
    type: 'GenerateContentConfig',
    read: 'properties',
    // In Vertex mode the SDK sends a few more (vertex/gemini.ts takes them), two of them renamed.
    knows: among(
      [
        ...Object.keys(GENERATION_FIELDS),
        ...Object.keys(REQUEST_FIELDS),
        ...Object.keys(VERTEX_REQUEST),
        ...Object.keys(VERTEX_GENERATION),
      ].map((wire) => SDK_NAMES[wire] ?? wire),
    ),
  },
  'gemini.tools': { package: '@google/genai', file: 'dist/genai.d.ts', type: 'Tool', read: 'properties', knows: among(GEMINI_TOOL_FIELDS) },
  'gemini.finish-reasons': {
    package: '@google/genai',
    file: 'dist/genai.d.ts',
    type: 'FinishReason',
    read: 'tags',
    knows: among(FINISH_REASONS),
  },
};

/** What the emulator leaves out on purpose, by check and name, each with its reason. */
export const ALLOWED: Record<string, Record<string, string>> = {
  'gemini.config': {
    httpOptions: 'the SDK’s own transport options (headers, timeout, base URL): never sent as a field',
    abortSignal: 'the SDK’s own cancellation signal: never sent',
    automaticFunctionCalling: 'the SDK runs the function loop on the client: never sent',
    automaticContinuation: 'the SDK follows a CONTINUATION finish on the client (sending continuationToken): never sent',
  },
};

interface Wanted {
  file: string;
  type: string;
  read: Read;
}

/** The names each wanted type defines, read as its `read` says (TypeScript's checker, through its API: one project for all files). */
export function typeMembers(wanted: readonly Wanted[]): string[][] {
  const scratch = mkdtempSync(join(tmpdir(), 'currency-'));
  const api = new API({ cwd: scratch });
  try {
    const config = join(scratch, 'tsconfig.json');
    const files = [...new Set(wanted.map((w) => w.file))];
    writeFileSync(config, JSON.stringify({ compilerOptions: { noEmit: true, skipLibCheck: true, types: [] }, files }));
    const { program, checker } = api.updateSnapshot({ openProject: config }).getProjects()[0];
    return wanted.map(({ file, type, read }) => {
      const source = program.getSourceFile(file);
      const module = source && checker.getSymbolAtLocation(source);
      const found = module && checker.getMemberInModuleExports(module, type);
      if (!found) throw new Error(`${file}: no exported type ${type} (did the SDK move it?)`);
      const symbol = found.flags & SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
      const declared = checker.getDeclaredTypeOfSymbol(symbol);
      if (read === 'properties') return checker.getPropertiesOfType(declared).map((p) => p.name);
      // A union's string literals (an enum's values), and the literal `type` tags of its object members.
      const names = new Set<string>();
      const literals = (t: Type) => {
        for (const u of t.isUnionType() ? (t.getTypes() ?? []) : [t])
          if (u.flags & TypeFlags.StringLiteral) names.add(String((u as LiteralType).value));
      };
      for (const member of declared.isUnionType() ? (declared.getTypes() ?? []) : [declared]) {
        if (member.flags & TypeFlags.Object) {
          const tag = checker.getPropertyOfType(member, 'type');
          const tagType = tag && checker.getTypeOfSymbol(tag);
          if (tagType) literals(tagType);
        } else literals(member);
      }
      return [...names];
    });
  } finally {
    api.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The installed package's folder (this project's node_modules, as the lock file pinned it). */
const packageDir = (name: string) => join(import.meta.dirname, '..', 'node_modules', name);

/** Each check's missing names (after ALLOWED), with where they were read; `files` reads a check's type from another file. */
export function currencyReport(files: Record<string, string> = {}): { check: string; type: string; file: string; missing: string[] }[] {
  const checks = Object.entries(CHECKS).map(([name, check]) => ({
    name,
    ...check,
    file: files[name] ?? join(packageDir(check.package), check.file),
  }));
  const members = typeMembers(checks);
  return checks.flatMap(({ name, type, file, knows }, i) => {
    const allowed = ALLOWED[name] ?? {};
    const missing = members[i].filter((m) => !knows(m) && !(m in allowed));
    return missing.length ? [{ check: name, type, file, missing }] : [];
  });
}

if (import.meta.main) {
  const files: Record<string, string> = {};
  for (let i = 2; i < process.argv.length; i++) {
    const [check, file] = process.argv[i] === '--types' ? (process.argv[++i] ?? '').split('=') : [];
    if (!check || !file || !(check in CHECKS))
      throw new Error(`usage: currency.ts [--types <check>=<file.d.ts>]… (checks: ${Object.keys(CHECKS).join(', ')})`);
    files[check] = file;
  }
  const report = currencyReport(files);
  for (const r of report) console.log(`${r.check} (${r.type} in ${r.file}): ${r.missing.join(', ')}`);
  if (report.length) {
    console.log(
      `currency: ${report.reduce((n, r) => n + r.missing.length, 0)} member(s) the installed SDKs define that the emulator does not know`,
    );
    process.exitCode = 1;
  } else console.log(`currency: the emulator knows every member of the ${Object.keys(CHECKS).length} checked SDK types`);
}
