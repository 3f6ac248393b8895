// Checking fixtures (fixtures/validate.ts, with ajv: ~80 CommonJS modules, ~40 ms) loads with the first
// fixtures to check instead of with the package: in Node by require, synchronously, so createGateway()
// and gateway.use() still throw at once on a bad fixture. A browser cannot load a module synchronously:
// the browser entry (browser.ts, which the root resolves to under the "browser" condition) imports it up
// front and provides it.
import { lazyOwnModule } from './core/lazy.ts';

type Validate = typeof import('./fixtures/validate.ts');

export const fixtureCheck = lazyOwnModule<Validate>('fixtures/validate', () => import('./fixtures/validate.ts'));

/** validateFixtures, loaded on first use. */
export const validateFixtures: Validate['validateFixtures'] = (fixtures, source) => fixtureCheck.get().validateFixtures(fixtures, source);
