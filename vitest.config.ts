import { globSync, readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { ignoreHappyDomCancel } from './src/vitest-config.ts';

// Debian's Chromium, driven by playwright-core: nothing downloads a browser. CI installs it (.ci/run).
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './test/helpers/chromium.ts';

/** Serves msw's worker script at /mockServiceWorker.js, where setupWorker looks (an app runs `npx msw init public`). */
const mswWorkerScript: Plugin = {
  name: 'msw-worker-script',
  configureServer(server) {
    server.middlewares.use('/mockServiceWorker.js', (_req, res) => {
      res.setHeader('content-type', 'text/javascript');
      res.end(readFileSync('node_modules/msw/lib/mockServiceWorker.js'));
    });
  },
};
/** Imports of test/helpers/modes.ts, whose `modes`, `withGateway` and `inProcess` start the gateway under msw. */
const MODES_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'(?:\.\.?\/)+helpers\/modes\.ts'/;
/**
 * The suites that run the gateway in-process, found by what they import (msw itself, or the in-process
 * helpers) or call (createGateway), so that a new one runs under msw 2 too without being listed anywhere.
 * A suite leaves with a line `// msw 2: not run again (why)` of its own.
 */
function inProcessSuites(): string[] {
  return globSync('test/**/*.test.ts', { exclude: ['test/dom/**', 'test/cases/**', 'test/browser-mode/**'] })
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      if (/^\/\/ msw 2: not run again\b/m.test(text)) return false;
      return (
        /from 'msw(\/node)?'/.test(text) ||
        /\b(modes|withGateway|inProcess)\b/.test(MODES_IMPORT.exec(text)?.[1] ?? '') ||
        /\bcreateGateway\(/.test(text) ||
        // The resource suites' modes (test/helpers/gateways.ts) run in-process too.
        /from '\.\/helpers\/gateways\.ts'/.test(text)
      );
    })
    .sort();
}

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Hang detectors only, far above any normal run, so a machine whose cores are busy never trips
    // them; no test bounds time (expect.poll's own default, 1 s, would be such a bound).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 60_000 } },
    // happy-dom's fetch throws an uncaught ERR_INVALID_STATE when the openai SDK cancels a body (the package's
    // own filter, as its users set it: model-gateway-mock/vitest-config); every other one still fails the run.
    onUnhandledError: ignoreHappyDomCancel,
    projects: [
      {
        extends: true,
        test: { name: 'msw3', include: ['test/**/*.test.ts', 'examples/*/*.test.ts'], exclude: ['test/dom/**', 'test/cases/**', 'test/browser-mode/**'], env: { GATEWAY_TEST_MSW_MAJOR: '3' } },
      },
      // A frontend component's tests in simulated DOMs, with the vitest helper (model-gateway-mock/vitest).
      ...(['jsdom', 'happy-dom'] as const).map((environment) => ({
        extends: true,
        test: { name: environment, environment, include: ['test/dom/**/*.dom.test.ts'] },
      })),
      // vitest's browser mode: the component in real Chromium, the gateway in msw's service worker.
      ...(chromiumAvailable
        ? [
            {
              extends: true,
              plugins: [mswWorkerScript],
              // Pre-bundled up front: a dependency discovered mid-run makes vite reload the page under the tests.
              optimizeDeps: { include: ['openai', '@anthropic-ai/sdk', '@google/genai', 'msw/browser', 're2js'] },
              test: {
                name: 'browser',
                include: ['test/browser-mode/**/*.browser.test.ts'],
                browser: {
                  enabled: true,
                  headless: true,
                  provider: playwright({ launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS } }),
                  instances: [{ browser: 'chromium' as const }],
                },
              },
            },
          ]
        : []),
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
          // Every suite that runs in-process (their socket halves skip themselves: socketSuites in test/helpers/modes.ts).
          include: inProcessSuites(),
          env: { GATEWAY_TEST_INPROCESS_ONLY: '1', GATEWAY_TEST_MSW_MAJOR: '2' },
        },
      },
    ],
  },
});
