'use strict';
/*
 * The live dashboard. Polls /metrics (Prometheus' text format) every second, draws the last five
 * minutes as plain SVG charts (keeping one minute more in memory: the baseline of the oldest
 * per-minute point). No library, nothing from another host.
 *
 * It reads the series a Prometheus server would store, and computes what Grafana would:
 *  - 429s: ratelimit_decisions_total with outcome "rejected" or "fallback_rejected" (the filter's
 *    429s; "unavailable" is a 503, "shadow_rejected" was let through);
 *  - allowed: outcome "allowed", "fallback_allowed", "failed_open" or "shadow_rejected" (passed on);
 *  - decision latency: ratelimit_decision_seconds_bucket, a quantile interpolated inside its bucket
 *    as histogram_quantile() does;
 *  - remaining quota: ratelimit_remaining_percent_bucket (remaining, in % of the limit, after each decision);
 *  - store health: the ratelimit_store_health{state} series that is 1;
 *  - evictions: ratelimit_evictions_total (in-memory store only; "-" when the app has no such series).
 * A rate is the increase between two samples over the time between them; a counter that went down
 * (the app restarted) counts from zero, as Prometheus' rate() does.
 */
(function () {
  const POLL_MS = 1000;
  const KEEP_S = 300;        // history drawn
  const RATE_S = 10;         // window of per-second rates and latency percentiles
  const MINUTE_S = 60;       // window of "429s per minute" and of the remaining-quota distribution
  const KEPT_S = KEEP_S + MINUTE_S; // history kept: the oldest point drawn still has a minute before it
  const REJECTED = new Set(['rejected', 'fallback_rejected']);
  const ALLOWED = new Set(['allowed', 'fallback_allowed', 'failed_open', 'shadow_rejected']);
  const COLORS = ['#c81e1e', '#2563eb', '#2f8132', '#d69e2e', '#7c3aed', '#0e7490', '#db2777', '#52606d', '#65a30d'];
  const HEALTH_COLORS = { up: '#2f8132', degraded: '#d69e2e', circuit_open: '#c81e1e' };
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const samples = [];
  const colorOf = new Map();

  // ---------- reading /metrics ----------

  const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
  const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

  function number(text) {
    if (text === '+Inf') return Infinity;
    if (text === '-Inf') return -Infinity;
    return Number(text);
  }

  function labels(text) {
    const result = {};
    for (const m of text.matchAll(LABEL)) {
      result[m[1]] = m[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    return result;
  }

  function add(map, key, value) {
    map.set(key, (map.get(key) || 0) + value);
  }

  /** One poll, reduced to what the charts need. */
  function summarize(text, t) {
    const s = { t, rejected: new Map(), allowed: new Map(), latency: new Map(), remaining: new Map(), evictions: new Map(), health: null, total429: 0 };
    for (const line of text.split('\n')) {
      if (line === '' || line[0] === '#') continue;
      const m = LINE.exec(line);
      if (!m) continue;
      const l = labels(m[2] || '');
      const value = number(m[3]);
      switch (m[1]) {
        case 'ratelimit_decisions_total':
          if (REJECTED.has(l.outcome)) { add(s.rejected, l.tier + ' / ' + l.endpoint, value); s.total429 += value; }
          else if (ALLOWED.has(l.outcome)) add(s.allowed, l.tier, value);
          break;
        case 'ratelimit_decision_seconds_bucket':
          add(s.latency, number(l.le), value);
          break;
        case 'ratelimit_remaining_percent_bucket':
          add(s.remaining, number(l.le), value);
          break;
        case 'ratelimit_evictions_total':
          add(s.evictions, '', value);
          break;
        case 'ratelimit_store_health':
          if (value === 1) s.health = l.state;
          break;
      }
    }
    return s;
  }

  // ---------- arithmetic over samples ----------

  function increase(now, then) {
    return now >= then ? now - then : now;
  }

  /**
   * Turns one series' values as read (since the app started) into totals that only grow, as
   * Prometheus' rate() sees them: each poll adds its increase over the previous poll, and a value
   * that went down (the app restarted) adds itself. So a window spanning a restart still counts what
   * came before it. A histogram (`whole`) resets as a whole: if any bucket went down, every bucket
   * counts from zero, which keeps its buckets cumulative. A series that vanished keeps its total.
   */
  function accumulate(read, prev, whole) {
    const raw = new Map(prev ? prev.raw : []);
    const total = new Map(prev ? prev.total : []);
    let reset = false;
    if (whole) for (const [key, value] of read) if (value < (raw.get(key) || 0)) reset = true;
    for (const [key, value] of read) {
      const before = raw.get(key) || 0;
      total.set(key, (total.get(key) || 0) + (reset ? value : increase(value, before)));
      raw.set(key, value);
    }
    return { raw, total };
  }

  /** s's series as totals continuing those of prev (the previous sample, or none). */
  function continueFrom(s, prev) {
    for (const [name, whole] of [['rejected', false], ['allowed', false], ['evictions', false], ['latency', true], ['remaining', true]]) {
      const acc = accumulate(s[name], prev && prev.acc[name], whole);
      s.acc = s.acc || {};
      s.acc[name] = acc;
      s[name] = acc.total;
    }
    return s;
  }

  /** The oldest sample at most `seconds` older than samples[i] (samples[i] itself when it is the first). */
  function baseline(i, seconds) {
    let j = i;
    while (j > 0 && samples[j - 1].t >= samples[i].t - seconds - POLL_MS / 2000) j--;
    return samples[j];
  }

  function increases(now, then) {
    const result = new Map();
    for (const [key, value] of now) result.set(key, increase(value, then.get(key) || 0));
    return result;
  }

  function sum(map) {
    let total = 0;
    for (const v of map.values()) total += v;
    return total;
  }

  /** The q-quantile of a cumulative histogram's increase (le -> count), or null without observations. */
  function quantile(q, buckets) {
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    if (bounds.length === 0) return null;
    const total = buckets.get(bounds[bounds.length - 1]);
    if (!(total > 0)) return null;
    const rank = q * total;
    let lower = 0;
    let below = 0;
    for (const le of bounds) {
      const count = buckets.get(le);
      if (count >= rank) {
        if (le === Infinity) return lower;
        return count > below ? lower + (le - lower) * (rank - below) / (count - below) : le;
      }
      lower = le;
      below = count;
    }
    return null;
  }

  // ---------- formatting ----------

  function fmt(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return '-';
    const a = Math.abs(v);
    if (a === 0 || Number.isInteger(v)) return String(v);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return String(Number(v.toFixed(1)));
    if (a >= 1) return String(Number(v.toFixed(2)));
    return String(Number(v.toPrecision(2)));
  }

  function fmtSeconds(s) {
    if (s === null) return '-';
    if (s < 1e-3) return fmt(s * 1e6) + ' µs';
    if (s < 1) return fmt(s * 1e3) + ' ms';
    return fmt(s) + ' s';
  }

  /** A round top for an axis of four steps (each step then rounds too). */
  function niceMax(max) {
    if (!(max > 0)) return 1;
    const pow = Math.pow(10, Math.floor(Math.log10(max)));
    for (const m of [1, 2, 4, 6, 8, 10]) if (m * pow >= max) return m * pow;
    return 10 * pow;
  }

  // ---------- drawing ----------

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function colorFor(key) {
    if (!colorOf.has(key)) {
      const k = colorOf.size;
      // The palette first, then hues a golden angle apart: no two series share a color.
      colorOf.set(key, k < COLORS.length ? COLORS[k] : 'hsl(' + ((k * 137.508) % 360).toFixed(1) + ', 70%, 40%)');
    }
    return colorOf.get(key);
  }

  /** Axes with four grid lines up to a round maximum; returns the y scale. */
  function frame(svg, w, h, pad, max) {
    const top = niceMax(max);
    for (let k = 0; k <= 4; k++) {
      const y = pad.t + (h - pad.t - pad.b) * (1 - k / 4);
      svg.appendChild(el('line', { x1: pad.l, x2: w - pad.r, y1: y, y2: y, class: k === 0 ? 'axis' : 'grid' }));
      svg.appendChild(el('text', { x: pad.l - 6, y: y + 4, 'text-anchor': 'end' }, fmt(top * k / 4)));
    }
    return (v) => pad.t + (h - pad.t - pad.b) * (1 - v / top);
  }

  /** Index of the oldest sample drawn: at most KEEP_S older than the newest (older ones are only baselines). */
  function firstShown() {
    const now = samples[samples.length - 1].t;
    let i = 0;
    while (samples[i].t < now - KEEP_S) i++;
    return i;
  }

  /** Seconds shown on the time axis: the history drawn so far, at least a minute, at most five. */
  function span() {
    return Math.min(KEEP_S, Math.max(MINUTE_S, samples[samples.length - 1].t - samples[firstShown()].t));
  }

  /** Lines over the history: series = [{name, color, points: [[t, v or null]]}]. */
  function lineChart(svg, series, legend, unit) {
    const w = 560, h = 220, pad = { l: 48, r: 10, t: 10, b: 22 };
    svg.replaceChildren();
    const now = samples[samples.length - 1].t;
    const seconds = span();
    const x = (t) => pad.l + (w - pad.l - pad.r) * (1 - (now - t) / seconds);
    let max = 0;
    for (const s of series) for (const [, v] of s.points) if (v !== null && v > max) max = v;
    const y = frame(svg, w, h, pad, max);
    const step = seconds <= 120 ? 15 : 60;
    for (let ago = Math.floor(seconds / step) * step; ago >= 0; ago -= step) {
      const label = ago === 0 ? 'now' : step < 60 ? '-' + ago + ' s' : '-' + ago / 60 + ' min';
      svg.appendChild(el('text', { x: x(now - ago), y: h - 6, 'text-anchor': ago === 0 ? 'end' : 'middle' }, label));
    }
    for (const s of series) {
      let d = '';
      let pen = 'M';
      for (const [t, v] of s.points) {
        if (v === null) { pen = 'M'; continue; }
        d += pen + x(t).toFixed(1) + ' ' + y(v).toFixed(1) + ' ';
        pen = 'L';
      }
      if (d) svg.appendChild(el('path', { d, fill: 'none', stroke: s.color, 'stroke-width': 2 }));
    }
    legend.replaceChildren();
    for (const s of series) {
      const last = s.points.length ? s.points[s.points.length - 1][1] : null;
      const item = document.createElement('span');
      const swatch = document.createElement('i');
      swatch.style.background = s.color;
      item.append(swatch, s.name + ': ' + fmt(last) + (unit ? ' ' + unit : ''));
      legend.appendChild(item);
    }
  }

  function barChart(svg, bars) {
    const w = 560, h = 220, pad = { l: 48, r: 10, t: 10, b: 22 };
    svg.replaceChildren();
    const total = bars.reduce((a, b) => a + b.value, 0);
    const share = bars.map((b) => (total > 0 ? b.value / total * 100 : 0));
    const y = frame(svg, w, h, pad, Math.max(...share));
    const slot = (w - pad.l - pad.r) / bars.length;
    bars.forEach((b, k) => {
      const x = pad.l + k * slot + 3;
      svg.appendChild(el('rect', { x, y: y(share[k]), width: slot - 6, height: y(0) - y(share[k]), fill: k < 2 ? '#c81e1e' : '#2563eb' }));
      svg.appendChild(el('text', { x: x + (slot - 6) / 2, y: h - 6, 'text-anchor': 'middle' }, b.label));
      if (b.value > 0) {
        svg.appendChild(el('text', { x: x + (slot - 6) / 2, y: y(share[k]) - 3, 'text-anchor': 'middle' }, fmt(share[k]) + '%'));
      }
    });
    if (total === 0) {
      svg.appendChild(el('text', { x: w / 2, y: h / 2, 'text-anchor': 'middle' }, 'no decisions in the last minute'));
    }
  }

  function healthStrip(svg) {
    const w = 1140, h = 44;
    svg.replaceChildren();
    const now = samples[samples.length - 1].t;
    const x = (t) => w * (1 - (now - t) / span());
    const from = firstShown();
    samples.forEach((s, i) => {
      if (i < from) return;
      const next = i + 1 < samples.length ? samples[i + 1].t : now + POLL_MS / 1000;
      const left = Math.max(0, x(s.t));
      svg.appendChild(el('rect', { x: left, y: 4, width: Math.max(1, x(next) - left), height: h - 8,
        fill: HEALTH_COLORS[s.health] || '#cbd2d9' }));
    });
  }

  // ---------- the page ----------

  function series(pick, window, perSecond) {
    const from = firstShown();
    const names = new Set();
    for (const s of samples.slice(from)) for (const [key, v] of pick(s)) if (v > 0) names.add(key);
    return [...names].sort().map((name) => ({
      name,
      color: colorFor(name),
      points: samples.slice(from).map((s, k) => {
        const then = baseline(from + k, window);
        if (then === s) return [s.t, null];
        const inc = increase(pick(s).get(name) || 0, pick(then).get(name) || 0);
        return [s.t, perSecond ? inc / (s.t - then.t) : inc];
      }),
    }));
  }

  function render() {
    const i = samples.length - 1;
    const now = samples[i];
    const minuteAgo = baseline(i, MINUTE_S);
    const recent = baseline(i, RATE_S);
    const text = (id, value) => { document.getElementById(id).textContent = value; };

    text('total-429', String(now.total429));
    text('rate-429', String(sum(increases(now.rejected, minuteAgo.rejected))));
    text('rate-allowed', recent === now ? '-' : fmt(sum(increases(now.allowed, recent.allowed)) / (now.t - recent.t)));
    text('evictions', now.acc.evictions.raw.size === 0 ? '-' : String(sum(increases(now.evictions, minuteAgo.evictions))));
    const latency = increases(now.latency, recent.latency);
    text('latency', fmtSeconds(quantile(0.5, latency)) + ' / ' + fmtSeconds(quantile(0.99, latency)));
    const health = document.getElementById('health');
    health.textContent = now.health ? now.health.replace('_', ' ') : '-';
    health.className = 'value ' + (now.health || '');

    lineChart(document.getElementById('chart-429'), series((s) => s.rejected, MINUTE_S, false),
      document.getElementById('legend-429'), '/min');
    lineChart(document.getElementById('chart-allowed'), series((s) => s.allowed, RATE_S, true),
      document.getElementById('legend-allowed'), '/s');
    const from = firstShown();
    const percentiles = [[0.5, 'p50', '#2563eb'], [0.99, 'p99', '#c81e1e']].map(([q, name, color]) => ({
      name, color,
      points: samples.slice(from).map((s, k) => {
        const value = quantile(q, increases(s.latency, baseline(from + k, RATE_S).latency));
        return [s.t, value === null ? null : value * 1000];
      }),
    }));
    lineChart(document.getElementById('chart-latency'), percentiles, document.getElementById('legend-latency'), 'ms');

    const remaining = increases(now.remaining, minuteAgo.remaining);
    const bounds = [...remaining.keys()].filter((le) => le <= 100).sort((a, b) => a - b);
    barChart(document.getElementById('chart-remaining'), bounds.map((le, k) => ({
      label: (k === 0 ? 0 : bounds[k - 1]) + '-' + le + '%',
      value: remaining.get(le) - (k === 0 ? 0 : remaining.get(bounds[k - 1])),
    })));
    healthStrip(document.getElementById('chart-health'));
    document.body.dataset.samples = String(samples.length);
  }

  async function poll() {
    const status = document.getElementById('status');
    try {
      const response = await fetch('/metrics', { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      samples.push(continueFrom(summarize(await response.text(), performance.now() / 1000), samples[samples.length - 1]));
      while (samples.length > 1 && samples[0].t < samples[samples.length - 1].t - KEPT_S - POLL_MS / 1000) samples.shift();
      render();
      status.textContent = 'updated ' + new Date().toLocaleTimeString();
      status.className = 'status';
    } catch (e) {
      status.textContent = 'cannot read /metrics: ' + e.message;
      status.className = 'status error';
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  poll();
})();
