import { startApp } from './app.ts';
import { enableMocking } from './mocks.ts';

// The SDK talks to this page's own origin: with the worker on, nothing leaves the browser.
const gateway = await enableMocking();
Object.assign(window, { gateway }); // for the test: what the gateway received
startApp(`${location.origin}/v1`);
document.body.dataset.ready = '';
