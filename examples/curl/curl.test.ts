// Runs examples/curl/run.sh against the built CLI (what `npx model-gateway-mock` runs) and checks what it prints.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { socketSuites } from '../../test/helpers/modes.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/model-gateway-mock.js', import.meta.url));

describe.runIf(socketSuites)('example: curl against the standalone server', () => {
  it('runs the script: health, a fixture reply, a stream, a 401, the request count', async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        'bash',
        ['run.sh'],
        { cwd: here, env: { ...process.env, MOCK: `${process.execPath} ${bin}` }, timeout: 120_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(output).toContain('"status":"healthy"');
    const completion = JSON.parse(output.split('== pin a reply (a fixture), then ask for it\n')[1].split('\n')[0]);
    expect(completion.choices[0].message.content).toBe('Paris.');
    const events = output.split('== stream a synthesized reply (server-sent events)\n')[1].split('== a wrong key')[0];
    const chunks = events
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0].object).toBe('chat.completion.chunk');
    expect(events).toContain('data: [DONE]');
    expect(output).toContain("== a wrong key gets OpenAI's 401\n401\n");
    expect(output).toContain('{"count":3}');
  }, 180_000); // hang detectors only (the script and execFile above), far above a normal run
});
