// The currency check (scripts/currency.ts): nothing missing against the SDK versions the lock file pins,
// and a type with one member more is reported by name, with exit code 1.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { currencyReport, typeMembers } from '../scripts/currency.ts';

const root = join(import.meta.dirname, '..');
const extraTool = join(import.meta.dirname, 'currency', 'responses-tools.d.ts');
const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, [join(root, 'scripts', 'currency.ts'), ...args], { cwd: root }).then(
    (out) => ({ code: 0, stdout: out.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );

describe('the currency check', () => {
  it('reads the SDK types it checks: properties, union tags and enum values', () => {
    const sdk = (pkg: string, file: string) => join(root, 'node_modules', pkg, file);
    const [tools, params, finish, events] = typeMembers([
      { file: sdk('openai', 'resources/responses/responses.d.ts'), type: 'Tool', read: 'tags' },
      { file: sdk('@anthropic-ai/sdk', 'resources/messages/messages.d.ts'), type: 'MessageCreateParamsBase', read: 'properties' },
      { file: sdk('@google/genai', 'dist/genai.d.ts'), type: 'FinishReason', read: 'tags' },
      { file: sdk('@anthropic-ai/sdk', 'resources/messages/messages.d.ts'), type: 'RawMessageStreamEvent', read: 'tags' },
    ]);
    expect(tools).toEqual(expect.arrayContaining(['function', 'web_search', 'mcp', 'apply_patch', 'custom']));
    expect(params).toEqual(expect.arrayContaining(['model', 'messages', 'max_tokens', 'tools', 'thinking']));
    expect(finish).toEqual(expect.arrayContaining(['STOP', 'MALFORMED_FUNCTION_CALL', 'CONTINUATION']));
    expect(events.sort()).toEqual([
      'content_block_delta',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_start',
      'message_stop',
    ]);
  });

  it('finds nothing missing for the pinned SDK versions, and exits 0', async () => {
    expect(currencyReport()).toEqual([]);
    const out = await run();
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^currency: the emulator knows every member of the \d+ checked SDK types\n$/);
  });

  it('names a member a type file adds, and exits 1', async () => {
    expect(currencyReport({ 'openai.responses.tools': extraTool })).toEqual([
      { check: 'openai.responses.tools', type: 'Tool', file: extraTool, missing: ['teleport_2026_01_01'] },
    ]);
    const out = await run('--types', `openai.responses.tools=${extraTool}`);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`openai.responses.tools (Tool in ${extraTool}): teleport_2026_01_01\n`);
  });
});
