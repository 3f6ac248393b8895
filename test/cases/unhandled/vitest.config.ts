// Test files that send a real-looking key to a host no handler serves, run by test/unhandled.test.ts in a
// child vitest (msw 3, or msw 2 with CASE_MSW=2); that test's listener at REAL_HOST stands in for the real host.
import { defineConfig } from 'vitest/config';
import cases from '../vitest.config.ts';

export default defineConfig({ resolve: cases.resolve, test: { include: ['*.case.ts'] } });
