// Two test files meant to run at once in two forked workers against one standalone server (its URL in
// SHARED_GATEWAY_URL), run by test/shared-server.test.ts; CASE_MSW=2 puts msw 2 in msw's place, as for ../.
import { defineConfig } from 'vitest/config';
import cases from '../vitest.config.ts';

export default defineConfig({
  resolve: cases.resolve,
  // Hang detectors only: each file waits for the other, so run one after the other they never finish.
  test: { include: ['*.case.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
