// model-gateway-mock/browser: the in-process gateway for msw's setupWorker. The root entry is the same
// module graph (no Node built-ins on it); this name promises it, and test/browser-bundle.test.ts keeps it so.
export * from './index.ts';
