// Loads the example's /dashboard in Debian's headless Chromium and waits until it shows 429s.
//
//   node dashboard.mjs <base-url> <screenshot.png> [seconds-of-history]
//
// Waits until the page shows a non-zero "429s since start" and "429s in the last minute" and has
// drawn at least <seconds-of-history> polls (default 4), saves a full-page screenshot, and prints
// one JSON line: what the page shows, every URL it requested, and any script error. Exit code 0
// when the page got there within <seconds-of-history> + 30 s, 1 otherwise (after a screenshot of how far it got).
// Run by DashboardBrowserTest; playwright-core drives /usr/bin/chromium (CHROMIUM overrides it) and
// never downloads a browser.
import { launchChromium } from './chromium.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, screenshot, history = '4'] = process.argv.slice(2);
if (!base || !screenshot) {
  console.error('usage: node dashboard.mjs <base-url> <screenshot.png> [seconds-of-history]');
  process.exit(2);
}

const profile = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
const requests = new Set();
const errors = [];
let context;
let page;
try {
  context = await launchChromium(profile);
  page = context.pages()[0] || await context.newPage();
  page.on('request', (r) => requests.add(r.url()));
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });

  await page.goto(base + '/dashboard', { waitUntil: 'load', timeout: 15_000 });
  await page.waitForFunction((polls) => {
    const n = (id) => Number(document.getElementById(id).textContent);
    return n('total-429') > 0 && n('rate-429') > 0 && Number(document.body.dataset.samples || 0) >= polls;
  }, Number(history), { timeout: (Number(history) + 30) * 1000, polling: 200 });
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify(await shown(page)));
} catch (e) {
  if (page) await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
  console.log(JSON.stringify({ failure: String(e.message || e).split('\n')[0], ...(page ? await shown(page).catch(() => ({})) : {}) }));
  process.exitCode = 1;
} finally {
  if (context) await context.close();
  rmSync(profile, { recursive: true, force: true });
}

/** What the page shows, read from the DOM as a person would read it. */
async function shown(p) {
  const tiles = await p.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent;
    return {
      total429: Number(text('total-429')),
      last429PerMinute: Number(text('rate-429')),
      allowedPerSecond: text('rate-allowed'),
      latency: text('latency'),
      health: text('health'),
      evictions: text('evictions'),
      status: text('status'),
      samples: Number(document.body.dataset.samples || 0),
      legend429: text('legend-429'),
    };
  });
  return { ...tiles, requests: [...requests].sort(), errors };
}
