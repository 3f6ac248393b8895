// Debian's Chromium, as every browser test launches it (.ci/run installs it; nothing downloads a browser).
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** CI installs Chromium (.ci/run) and must run the browser tests; elsewhere they are skipped without it. */
export const chromiumAvailable = existsSync(CHROMIUM) || Boolean(process.env.CI);
