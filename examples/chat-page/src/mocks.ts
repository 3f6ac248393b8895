// Development and tests only: the model gateway, answered inside the browser by msw's service worker.
import { setupWorker } from 'msw/browser';
import { blockUnhandled, createGateway } from 'model-gateway-mock/browser';

export async function enableMocking() {
  const gateway = createGateway({
    fixtures: [
      {
        name: 'greeting',
        match: { userMessage: { contains: 'hello' } },
        reply: { text: 'Hello! I am a mock, streaming one token at a time.' },
        latency: 'ttft=50,tps=25',
      },
    ],
  });
  // /mockServiceWorker.js comes from `npx msw init public` (the test serves node_modules/msw/lib's copy).
  // A request no handler takes fails here instead of reaching the network, unless it is for this page's own server.
  const unhandled = blockUnhandled({ allow: (url) => url.host === location.host });
  await setupWorker(...gateway.handlers).start({ ...unhandled, quiet: true, serviceWorker: { url: '/mockServiceWorker.js' } });
  return gateway;
}
