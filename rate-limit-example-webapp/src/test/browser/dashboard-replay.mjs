// Replays a scripted /metrics to the example's /dashboard in Debian's headless Chromium, on a fake clock.
//
//   node dashboard-replay.mjs <base-url> [polls]
//
// The page comes from the app; its /metrics polls are answered here, one scripted scrape per poll,
// and the page's clock (Date, timers, performance.now) advances exactly one second per poll, so a
// long session takes seconds. The script: 12 tiers t0..t11 on endpoint "e", each with 1 rejected
// and 10 allowed decisions per second; the app restarts at poll 70 (every counter starts again from
// 0); remaining quota: 1 decision per second at 0-10% before the restart, then 1 at 0-10% and 1 at
// 90-100%; 3 clients evicted per second. Prints one JSON line: the tiles after each poll, the charts
// after the last one, and any script error. Run by DashboardBrowserTest; never downloads a browser.
import { launchChromium } from './chromium.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, pollsArg = '440'] = process.argv.slice(2);
if (!base) {
  console.error('usage: node dashboard-replay.mjs <base-url> [polls]');
  process.exit(2);
}
const POLLS = Number(pollsArg);
const RESTART = 70;
const TIERS = 12;

/** The scrape the app would give at poll n (0 is the page's first). */
function scrape(n) {
  const m = n < RESTART ? n : n - RESTART; // seconds since the app (re)started
  const lines = ['# TYPE ratelimit_decisions_total counter'];
  for (let i = 0; i < TIERS; i++) {
    for (const [outcome, count] of [['allowed', 10 * m], ['rejected', m], ['unavailable', 0]]) {
      lines.push(`ratelimit_decisions_total{algorithm="token_bucket",endpoint="e",outcome="${outcome}",tier="t${i}"} ${count}.0`);
    }
  }
  lines.push('# TYPE ratelimit_decision_seconds histogram');
  for (const [le, count] of [['1.0E-5', 0], ['1.0E-4', 11 * TIERS * m], ['+Inf', 11 * TIERS * m]]) {
    lines.push(`ratelimit_decision_seconds_bucket{le="${le}"} ${count}`);
  }
  lines.push('# TYPE ratelimit_remaining_percent histogram');
  for (let i = 0; i < TIERS; i++) {
    for (let le = 10; le <= 100; le += 10) {
      const count = m + (n >= RESTART && le === 100 ? m : 0);
      lines.push(`ratelimit_remaining_percent_bucket{endpoint="e",tier="t${i}",le="${le}.0"} ${count}`);
    }
    lines.push(`ratelimit_remaining_percent_bucket{endpoint="e",tier="t${i}",le="+Inf"} ${m + (n >= RESTART ? m : 0)}`);
  }
  lines.push('# TYPE ratelimit_evictions_total counter', `ratelimit_evictions_total ${3 * m}.0`);
  lines.push('# TYPE ratelimit_store_health gauge');
  for (const state of ['circuit_open', 'degraded', 'up']) lines.push(`ratelimit_store_health{state="${state}"} ${state === 'up' ? 1 : 0}.0`);
  return lines.join('\n') + '\n';
}

const profile = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
const errors = [];
const polls = [];
let context;
try {
  context = await launchChromium(profile);
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  let served = 0;
  await page.route('**/metrics', (route) => route.fulfill({
    status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body: scrape(served++) }));
  const start = new Date('2025-01-01T00:00:00Z').getTime();
  await page.clock.install({ time: start });
  await page.clock.pauseAt(start + 1000);

  const status = () => page.evaluate(() => document.getElementById('status').textContent);
  await page.goto(base + '/dashboard', { waitUntil: 'load', timeout: 15_000 });
  let shown = '';
  for (let n = 0; n < POLLS; n++) {
    if (n > 0) await page.clock.runFor(1000);
    // Each poll writes "updated <time>", a second later than the last one.
    await page.waitForFunction((before) => {
      const text = document.getElementById('status').textContent;
      return text !== before && text.startsWith('updated');
    }, shown, { timeout: 10_000, polling: 10 });
    shown = await status();
    polls.push(await page.evaluate(() => {
      const text = (id) => document.getElementById(id).textContent;
      return { total429: text('total-429'), rate429: text('rate-429'), allowed: text('rate-allowed'),
        evictions: text('evictions'), negativeHeights: document.querySelectorAll('rect[height^="-"]').length };
    }));
  }
  const charts = await page.evaluate(() => {
    const paths = (id) => [...document.querySelectorAll('#' + id + ' path')].map((p) => ({
      stroke: p.getAttribute('stroke'),
      ys: [...new Set(p.getAttribute('d').trim().split(/[ML]/).filter((s) => s.trim()).map((s) => s.trim().split(' ')[1]))],
    }));
    return { chart429: paths('chart-429'), chartAllowed: paths('chart-allowed'), samples: Number(document.body.dataset.samples) };
  });
  console.log(JSON.stringify({ polls, ...charts, errors }));
} catch (e) {
  console.log(JSON.stringify({ failure: String(e.message || e).split('\n')[0], polls, errors }));
  process.exitCode = 1;
} finally {
  if (context) await context.close();
  rmSync(profile, { recursive: true, force: true });
}
