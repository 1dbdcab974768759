// Debian's headless Chromium as both browser scripts launch it: /usr/bin/chromium (CHROMIUM overrides
// it), a throw-away profile directory, no background traffic; playwright-core never downloads a browser.
import { chromium } from 'playwright-core';

export function launchChromium(profile) {
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 1000 },
    timeout: 30_000,
  });
}
