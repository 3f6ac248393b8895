import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'msw3', include: ['test/**/*.test.ts'], env: { GATEWAY_TEST_MSW_MAJOR: '3' } },
      },
      {
        // The in-process tests again, with msw 2.x standing in for msw everywhere (ours and the test's).
        extends: true,
        resolve: {
          alias: [
            { find: /^msw\/node$/, replacement: 'msw2/node' },
            { find: /^msw$/, replacement: 'msw2' },
          ],
        },
        test: {
          name: 'msw2',
          // Every suite that runs in-process (their socket halves are skipped here).
          include: [
            'test/inprocess.test.ts',
            'test/chat.contract.test.ts',
            'test/tools.test.ts',
            'test/completions.test.ts',
            'test/responses.test.ts',
            'test/embeddings.test.ts',
            'test/anthropic.test.ts',
            'test/gemini.test.ts',
            'test/fixtures.test.ts',
            'test/fuzz.test.ts',
          ],
          env: { GATEWAY_TEST_INPROCESS_ONLY: '1', GATEWAY_TEST_MSW_MAJOR: '2' },
        },
      },
    ],
  },
});
