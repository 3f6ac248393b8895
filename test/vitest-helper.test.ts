// model-gateway-mock/vitest, run as users run it: a child vitest on test/cases/helper.case.ts, under msw 3 and
// msw 2; fixtures per test, a clean journal per test, and an unhandled request failing the test that made it.
import { describe, expect, it } from 'vitest';
import { socketSuites } from './helpers/modes.ts';
import { runCases as runIn } from './helpers/child-vitest.ts';

/** Runs the case file in a child vitest and returns each test's status and failure messages, by title. */
const runCases = (env: Record<string, string>) => runIn('test/cases', env);

describe.runIf(socketSuites)('vitest helper', () => {
  for (const msw of ['3', '2']) {
    it(`fails the test that made an unhandled request, with msw ${msw}`, async () => {
      const results = await runCases({ CASE_MSW: msw });
      expect(results['answers from the per-test fixture'].status).toBe('passed');
      expect(results['starts each test with a reset journal'].status).toBe('passed');
      expect(results['calls a host no handler serves'].status).toBe('failed');
      expect(results['calls a host no handler serves'].failureMessages.join('\n')).toContain(
        'GET http://127.0.0.1:2/not-an-endpoint: no handler answers this request',
      );
      // Not strict: the gateway synthesizes a reply, which is a handled request.
      expect(results['asks something no fixture matches'].status).toBe('passed');
    });
  }

  it('fails a test whose request no fixture matched in strict mode, with the near-miss report', async () => {
    const results = await runCases({ CASE_STRICT: '1' });
    expect(results['answers from the per-test fixture'].status).toBe('passed');
    const failure = results['asks something no fixture matches'];
    expect(failure.status).toBe('failed');
    const message = failure.failureMessages.join('\n');
    expect(message).toContain('POST /v1/chat/completions: No fixture matched this request (strict mode). Nearest fixture: "weather"');
    expect(message).toMatch(/✗ userMessage.*hello/);
    // One input answered by a fixture does not hide another that no fixture matched.
    const partial = results['embeds one input a fixture matches and one no fixture matches'];
    expect(partial.status).toBe('failed');
    expect(partial.failureMessages.join('\n')).toContain('POST /v1/embeddings: No fixture matched this request (strict mode)');
  });
});
