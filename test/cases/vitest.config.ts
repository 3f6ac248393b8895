// Test files that are meant to fail, run by test/vitest-helper.test.ts in a child vitest (msw 3, or msw 2 with CASE_MSW=2).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias:
      process.env.CASE_MSW === '2'
        ? [
            { find: /^msw\/node$/, replacement: 'msw2/node' },
            { find: /^msw$/, replacement: 'msw2' },
          ]
        : [],
  },
  test: { include: ['*.case.ts'] },
});
