import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExampleDashboards } from '../../src/gen/exampleDashboards.js';
import { Generator } from '../../src/gen/generator.js';
import { backfill, Sender } from '../../src/gen/sender.js';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { chartData, chartPixels, chromiumMissing, inkOfCanvases, isBlue, isRed, launchChromium, PANELS_SETTLED, type DrawnChart } from './browser.js';
import { snappyCompress } from '../../engine/ingest/index.js';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import type { DashboardSpec } from '../../src/dashboards/types.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';

/**
 * The web app end to end in a real browser against the real server on loopback with the demo
 * data and dashboards: sign in, every panel kind of the demo dashboard drawn, variables and
 * time range reaching the queries, Import from JSON showing an error at its path, Explore in
 * both languages, and an interlink; the Dashboards page's search, create, import, export and
 * delete; the options of the panel kinds, variables, time range, refresh and crosshair on a
 * dashboard over data written for it; a refused query and a stream ending with `done` status
 * error shown in their panel. One server and one browser for the whole file; waits are on page
 * state, never on wall-clock sleeps. The screenshots the README embeds are taken every run and
 * written to docs/images only when SLUICE_SCREENSHOTS=1, so a test run leaves the tree as it was.
 */

/**
 * writeNativeHistograms writes an hour of a custom-bucket native histogram counter through
 * remote write 1.0 (encoded with protobufjs from the upstream .proto): 100 observations a minute.
 */
async function writeNativeHistograms(srv: TestServer, now: number): Promise<void> {
  const end = Math.floor(now / 60_000) * 60_000;
  const histograms = [];
  for (let k = 0; k <= 60; k++) {
    histograms.push({ countFloat: 100 * k, sum: 19.5 * k, schema: -53, positiveSpans: [{ offset: 0, length: 4 }], positiveCounts: [60 * k, 30 * k, 10 * k, 0], customValues: [0.1, 0.5, 1], timestamp: String(end - (60 - k) * 60_000) });
  }
  const body = snappyCompress(pbEncode(WriteRequest, { timeseries: [{ labels: [{ name: '__name__', value: 'rpc_seconds' }, { name: 'job', value: 'api' }], histograms }] }));
  const res = await fetch(`${srv.url}/api/v1/write`, { method: 'POST', headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }, body });
  expect(res.status).toBe(204);
}

/** LATE_LINE_BYTES is the old log line that ten doublings by line_format take past the 32 MiB budget. */
const LATE_LINE_BYTES = 40_000;
const DOUBLED_TEN_TIMES = ' | line_format "{{__line__}}{{__line__}}"'.repeat(10);

/**
 * PROBE_SPEC is a dashboard over the data of writeProbeData whose panels each show options
 * with a known outcome: a stat's calculation and format, label cards' order, thresholds and
 * timestamp age, a chart's legend names, hidden query, color, Y bounds and highlight band, a
 * percent-scale chart sharing the crosshair, a query the server refuses, a log stream that
 * ends with `done` status error after its first lines, and a panel in a collapsed section.
 * Its Drawing section shows what options change on the canvas: the same query with and
 * without `smooth`, a bar panel with the `last` and the `sum` reducer, and the `bar` and
 * `stacked-bar` variants, in pure red and blue so their pixels can be told apart.
 */
const PROBE_SPEC: DashboardSpec = {
  schemaVersion: 2,
  duration: '30m',
  variables: [{ name: 'k', kind: 'query', source: { signal: 'metrics', metric: 'probe_value', label: 'k' }, multi: true, includeAll: true, regex: '^[a-c]$', sort: 'alphabetical-desc', defaultValue: ['b'] }],
  panels: {
    stat: { id: 'stat', kind: 'stat', title: 'Probe stat', queries: [{ query: 'sum(probe_value{k=~"$k"})' }], calculation: 'max', format: { unit: ' ms', decimalPlaces: 1 } },
    cards: {
      id: 'cards',
      kind: 'label',
      title: 'Probe cards',
      queries: [{ query: 'probe_value{k=~"a|b|c"}', name: '{{k}}' }],
      sort: 'value-desc',
      format: { decimalPlaces: 0 },
      thresholds: [
        { value: 0, color: '#00aa00' },
        { value: 25, color: '#aa0000' },
      ],
    },
    age: { id: 'age', kind: 'label', title: 'Probe age', queries: [{ query: 'probe_seen' }], timestampAge: true },
    refused: { id: 'refused', kind: 'timeseries', title: 'Refused', queries: [{ query: 'approx_topk(1, sum by (app) (count_over_time({app="late"}[1m])))', queryKind: 'loki' }] },
    chart: {
      id: 'chart',
      kind: 'timeseries',
      title: 'Probe chart',
      description: 'About the **probe** series.',
      queries: [
        { query: 'probe_value{k=~"a|b"}', name: '{{k}} probe', color: '#123456' },
        { query: 'probe_value{k="c"}', hidden: true },
      ],
      yMin: 0,
      yMax: 200,
      highlightWhen: { query: 'probe_value{k="c"}', threshold: 40 },
    },
    share: { id: 'share', kind: 'timeseries', title: 'Share', variant: 'stacked-area', percentScale: true, queries: [{ query: 'probe_value{k=~"a|b"}', name: '{{k}}' }] },
    partial: {
      id: 'partial',
      kind: 'log-events',
      title: 'Partial',
      queries: [],
      rawLogql: `{app="late"}${DOUBLED_TEN_TIMES}`,
      limit: 20,
      logqlState: { filters: [{ tag: 'app', op: '=', value: 'late' }], groupBy: [], window: '1m' },
    },
    'hidden-pie': { id: 'hidden-pie', kind: 'pie', title: 'Hidden pie', queries: [{ query: 'sum by (k) (probe_value{k=~"a|b|c"})', name: '{{k}}' }] },
    'smooth-on': { id: 'smooth-on', kind: 'timeseries', title: 'Smoothed', smooth: true, yMin: 0, yMax: 40, queries: [{ query: 'probe_value{k="b"}', color: '#0000ff' }] },
    'smooth-off': { id: 'smooth-off', kind: 'timeseries', title: 'Not smoothed', smooth: false, yMin: 0, yMax: 40, queries: [{ query: 'probe_value{k="b"}', color: '#0000ff' }] },
    'bar-last': { id: 'bar-last', kind: 'bar', title: 'Bars of the last sample', reducer: 'last', color: '#0000ff', queries: [{ query: 'probe_value{k="b"}' }] },
    'bar-sum': { id: 'bar-sum', kind: 'bar', title: 'Bars of the sum', reducer: 'sum', color: '#0000ff', queries: [{ query: 'probe_value{k="b"}' }] },
    bars: { id: 'bars', kind: 'timeseries', title: 'Bar variant', variant: 'bar', yMin: 0, yMax: 50, queries: [{ query: 'probe_value{k="a"}', color: '#ff0000' }] },
    'stacked-bars': {
      id: 'stacked-bars',
      kind: 'timeseries',
      title: 'Stacked-bar variant',
      variant: 'stacked-bar',
      yMin: 0,
      yMax: 50,
      queries: [
        { query: 'probe_value{k="a"}', color: '#ff0000' },
        { query: 'probe_value{k="b"}', color: '#0000ff' },
      ],
    },
  },
  sections: [
    {
      title: 'Probe',
      rowHeight: 40,
      cells: [
        { i: 'stat', x: 0, y: 0, w: 4, h: 4 },
        { i: 'cards', x: 4, y: 0, w: 8, h: 4 },
        { i: 'age', x: 12, y: 0, w: 6, h: 4 },
        { i: 'refused', x: 18, y: 0, w: 6, h: 4 },
        { i: 'chart', x: 0, y: 4, w: 12, h: 8 },
        { i: 'share', x: 12, y: 4, w: 12, h: 8 },
        { i: 'partial', x: 0, y: 12, w: 24, h: 8 },
      ],
    },
    {
      title: 'Drawing',
      rowHeight: 40,
      cells: [
        { i: 'smooth-on', x: 0, y: 0, w: 12, h: 7 },
        { i: 'smooth-off', x: 12, y: 0, w: 12, h: 7 },
        { i: 'bar-last', x: 0, y: 7, w: 12, h: 6 },
        { i: 'bar-sum', x: 12, y: 7, w: 12, h: 6 },
        { i: 'bars', x: 0, y: 13, w: 12, h: 6 },
        { i: 'stacked-bars', x: 12, y: 13, w: 12, h: 6 },
      ],
    },
    { title: 'Collapsed', defaultCollapsed: true, cells: [{ i: 'hidden-pie', x: 0, y: 0, w: 8, h: 6 }] },
  ],
};

/**
 * writeProbeData writes what PROBE_SPEC draws, a sample a minute over the last half hour:
 * probe_value for k = a (10), b (30, then 20 for the last ten minutes), c (50) and z (1000);
 * probe_seen, a Unix time 575 s before now; and the log stream app="late": five short lines
 * in the last minutes and, 25 minutes ago, one line of LATE_LINE_BYTES.
 */
async function writeProbeData(srv: TestServer): Promise<void> {
  const end = Math.floor(Date.now() / 60_000) * 60_000;
  const stamps = Array.from({ length: 31 }, (_, i) => end - (30 - i) * 60_000);
  const series = (labels: Record<string, string>, value: (t: number) => number) => ({
    labels: Object.entries(labels).map(([name, v]) => ({ name, value: v })),
    samples: stamps.map((timestamp) => ({ value: value(timestamp), timestamp })),
  });
  const seen = Math.floor(Date.now() / 1000) - 575;
  const body = encodeRemoteWriteBody({
    timeseries: [
      series({ __name__: 'probe_value', k: 'a' }, () => 10),
      series({ __name__: 'probe_value', k: 'b' }, (t) => (t < end - 10 * 60_000 ? 30 : 20)),
      series({ __name__: 'probe_value', k: 'c' }, () => 50),
      series({ __name__: 'probe_value', k: 'z' }, () => 1000),
      series({ __name__: 'probe_seen' }, () => seen),
    ],
  });
  const written = await fetch(`${srv.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' } });
  expect(written.status).toBe(204);
  const ns = (ms: number): string => String(BigInt(ms) * 1_000_000n);
  const values: Array<[string, string]> = [[ns(Date.now() - 25 * 60_000), 'L'.repeat(LATE_LINE_BYTES)], ...Array.from({ length: 5 }, (_, i): [string, string] => [ns(Date.now() - (5 - i) * 60_000), `ok ${i + 1}`])];
  const pushed = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams: [{ stream: { app: 'late' }, values }] }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
  expect(pushed.status).toBe(204);
}

const SCREENSHOTS = path.join(packageRoot(), 'docs', 'images');
/** WRITE_SCREENSHOTS is set to refresh the README's images: `SLUICE_SCREENSHOTS=1 npx vitest run test/web/ui.test.ts`. */
const WRITE_SCREENSHOTS = process.env.SLUICE_SCREENSHOTS === '1';
const PANEL_KINDS = ['timeseries', 'stat', 'gauge', 'service-gauges', 'service-memory-bars', 'bar', 'pie', 'label', 'service-graph', 'log-events'];
/** SETTLE_MS bounds how long the page may take to finish its streams on a loaded machine. */
const SETTLE_MS = 90_000;
const skip = chromiumMissing && process.env.CI !== 'true';

/**
 * PROGRESS_WATCH runs in the page before the app: it notes the id of every panel seen while
 * it streams with its progress (the result count and the bar) on show, and every panel error
 * ever shown (`window.__errorsSeen`, as panel id and message), however briefly.
 */
const PROGRESS_WATCH = `
  window.__progressSeen = [];
  window.__errorsSeen = [];
  new MutationObserver(() => {
    for (const p of document.querySelectorAll('.panel[data-state=running]')) {
      const id = p.getAttribute('data-panel-id');
      if (id && p.querySelector('.progress[role=status]') && p.querySelector('.progress-bar') && !window.__progressSeen.includes(id)) window.__progressSeen.push(id);
    }
    for (const e of document.querySelectorAll('.panel .panel-error')) {
      const seen = e.closest('.panel').getAttribute('data-panel-id') + ': ' + e.textContent;
      if (!window.__errorsSeen.includes(seen)) window.__errorsSeen.push(seen);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-state'] });
`;

/** SLOW_EVENT_MS is how long SLOW_STREAMS holds each of the first SLOW_EVENTS events of a stream that carry results or follow one. */
const SLOW_EVENT_MS = 400;
const SLOW_EVENTS = 20;

/**
 * SLOW_STREAMS runs in a page before the app: query streams (`.../query`, `.../query/batch`)
 * reach the app one SSE event at a time, and each of the first SLOW_EVENTS events that carry
 * points or lines, or come right after one, is held SLOW_EVENT_MS (longer than the app's 150 ms
 * between partial redraws). Before handing each event over it
 * notes in `window.__streamLog` the event's type and what Explore shows at that moment: the
 * log lines on the page plus the points its chart draws.
 */
const SLOW_STREAMS = `
  window.__streamLog = [];
  const CARRIES = ['result', 'points', 'rows'];
  const shown = () => {
    const u = document.querySelector('.explore-result .chart')?.uplot;
    const points = u ? u.data.slice(1).reduce((n, col) => n + col.filter((v) => v !== null && v !== undefined).length, 0) : 0;
    return document.querySelectorAll('.explore-result .log-line').length + points;
  };
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const res = await original(input, init);
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (!/\\/query(\\/batch)?$/.test(url.pathname) || !res.ok || !res.body) return res;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = '';
    let handed = 0;
    let afterCarrier = false;
    const body = new ReadableStream({
      async pull(controller) {
        for (;;) {
          const end = buffer.indexOf('\\n\\n');
          if (end >= 0) {
            const event = buffer.slice(0, end + 2);
            buffer = buffer.slice(end + 2);
            const type = /"type":"([a-z]+)"/.exec(event)?.[1] ?? '';
            const carries = CARRIES.includes(type);
            // The event after one that carried results is held too, so what is noted before it
            // includes that event's redraw (the last batch before done would otherwise go unseen).
            if ((carries || afterCarrier) && handed++ < ${SLOW_EVENTS}) await new Promise((r) => setTimeout(r, ${SLOW_EVENT_MS}));
            afterCarrier = carries;
            window.__streamLog.push({ type, shown: shown() });
            controller.enqueue(encoder.encode(event));
            return;
          }
          const { done, value } = await reader.read();
          if (done) {
            if (buffer !== '') controller.enqueue(encoder.encode(buffer));
            controller.close();
            return;
          }
          buffer += decoder.decode(value, { stream: true });
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
`;

describe.skipIf(skip)('web UI in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let page: Page;
  const queries: Array<{ path: string; body: Record<string, unknown> }> = [];
  /** batches holds how many queries each batch request carried. */
  const batches: number[] = [];

  beforeAll(async () => {
    // A per-query memory budget of 32 MiB (instead of 256) lets a log query pass it after its
    // first lines without the worker first building strings of hundreds of megabytes.
    srv = await startTestServer({ SVC_QUERY_MEMORY_BYTES: '32MiB' });
    const now = Date.now();
    await backfill(new Generator({ seed: 42 }), new Sender(srv.url, srv.key), now - 30 * 60_000, now);
    await loadExampleDashboards(srv.url, srv.key, srv.orgId);
    await writeNativeHistograms(srv, now);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('request', (req: Request) => {
      const url = new URL(req.url());
      if (req.method() !== 'POST') return;
      const body = JSON.parse(req.postData() ?? '{}') as Record<string, unknown>;
      if (url.pathname.endsWith('/query')) queries.push({ path: url.pathname, body });
      // Dashboard panels send their queries in batches: each is recorded under its own endpoint.
      if (url.pathname === '/api/v1/query/batch') {
        batches.push((body.queries as unknown[]).length);
        for (const q of body.queries as Array<Record<string, unknown>>) queries.push({ path: `/api/v1/${String(q.kind)}/query`, body: q });
      }
    });
    // Every panel that is ever seen streaming, with its progress shown, is noted: a dashboard
    // settles too fast to catch that state by polling.
    await page.addInitScript(PROGRESS_WATCH);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  /** screenshot takes a PNG of the page and, when asked to, writes it for the README. */
  async function screenshot(name: string, fullPage: boolean): Promise<void> {
    const png = await page.screenshot({ fullPage });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    if (!WRITE_SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(path.join(SCREENSHOTS, name), png);
  }

  const api = (p: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${srv.url}/api/orgs/${srv.orgId}${p}`, { ...init, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', ...(init.headers ?? {}) } });

  /** settled waits until the dashboard has panels and none is still streaming. */
  async function settled(): Promise<void> {
    await page.waitForFunction(PANELS_SETTLED, null, { timeout: SETTLE_MS });
  }

  it('refuses a wrong key and signs in with the right one into an HttpOnly cookie', async () => {
    await page.goto(`${srv.url}/`, { waitUntil: 'domcontentloaded' });
    await page.fill('#api-key', 'slk_not-a-key');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.sign-in [role=alert]')).toContain('invalid API key');
    await page.fill('#api-key', srv.key);
    await page.click('button[type=submit]');
    await page.waitForSelector('.dashboards-page .dashboard-link');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'api_key');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    expect(await page.evaluate("document.cookie")).not.toContain('api_key');
    const categories = await page.$$eval('.category h2', (hs) => hs.map((h) => h.textContent));
    expect(categories).toEqual(expect.arrayContaining(['Demo', 'Examples']));
  }, 60_000);

  it('draws every panel kind of the demo dashboard', async () => {
    await page.click('a.dashboard-link:has-text("Sluice demo")');
    await page.waitForURL(/\/dashboards\/sluice-demo/);
    await settled();
    const kinds = await page.$$eval('.panel', (ps) => ps.map((p) => p.getAttribute('data-kind')));
    expect(new Set(kinds)).toEqual(new Set(PANEL_KINDS));
    expect(await page.$$eval('.panel-error', (es) => es.map((e) => e.textContent))).toEqual([]);
    // Panels ask for the compact result format and draw from it.
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.filter((q) => q.body.format !== 'compact')).toEqual([]);
    // The dashboard's queries share a few batch streams instead of one connection each.
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(queries.length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(queries.length);
    const inks = (await page.evaluate(inkOfCanvases('.panel[data-kind=timeseries] canvas, .panel[data-kind=bar] canvas, .panel[data-kind=log-events] canvas'))) as number[];
    expect(inks.length).toBeGreaterThanOrEqual(6);
    for (const ink of inks) expect(ink).toBeGreaterThan(500);
    // Every time chart has at least one series in its legend beside the time column.
    for (const n of await page.$$eval('.panel[data-kind=timeseries], .panel[data-kind=bar]', (ps) => ps.map((p) => p.querySelectorAll('.u-legend .u-series').length))) expect(n).toBeGreaterThan(1);
    expect(await page.$$eval('.panel[data-kind=stat] .stat-value', (vs) => vs.map((v) => v.getAttribute('data-value')))).not.toContain('');
    expect(await page.$$('.panel[data-kind=gauge] path.gauge-fill')).toHaveLength(1);
    expect((await page.$$('.panel[data-kind=pie] svg path')).length).toBeGreaterThan(0);
    expect((await page.$$('.panel[data-kind=label] .card')).length).toBeGreaterThan(0);
    expect((await page.$$('.panel[data-kind=service-gauges] .mini-gauge')).length).toBeGreaterThanOrEqual(3);
    expect((await page.$$('.panel[data-kind=service-memory-bars] svg rect')).length).toBeGreaterThan(1);
    expect(await page.textContent('.panel[data-kind=service-graph]')).toContain('No trace data yet');
    expect(await page.$$('.panel[data-kind=service-graph] svg circle')).toHaveLength(1);
    expect((await page.$$('.panel[data-kind=log-events] .log-line')).length).toBeGreaterThan(0);
    // Options of the demo's panels: the stat's format and sparkline, the charts' Y ranges
    // (percent scale, yMin, a whole-number top), the log panel's limit.
    expect(await page.textContent('.panel[data-panel-id=request-rate] .stat-value')).toMatch(/^\d+\.\d req\/s$/);
    expect(await page.$('.panel[data-panel-id=request-rate] svg.sparkline path')).not.toBeNull();
    const yRange = async (id: string): Promise<number[]> => ((await page.getAttribute(`.panel[data-panel-id=${id}] .uplot`, 'data-y-range')) ?? '').split(',').map(Number);
    expect(await yRange('status-share')).toEqual([0, 100]);
    expect((await yRange('latency'))[0]).toBe(0);
    const [cpuLow, cpuHigh] = await yRange('cpu');
    expect(cpuLow).toBe(0);
    expect(Number.isInteger(cpuHigh) && cpuHigh > 0).toBe(true);
    expect(new Set(queries.filter((q) => q.body.limit !== undefined).map((q) => q.body.limit))).toEqual(new Set([100]));
    expect((await page.$$('.panel[data-panel-id=logs] .log-line')).length).toBeLessThanOrEqual(100);
    // The dashboard's duration (6h) is the window when the URL names none.
    for (const q of queries) expect(Number(q.body.e) - Number(q.body.s)).toBe(6 * 3_600_000);
    // Every panel showed its progress while its streams ran.
    const progressed = (await page.evaluate('window.__progressSeen')) as string[];
    const querying = await page.$$eval('.panel:not([data-kind=service-graph])', (ps) => ps.map((p) => p.getAttribute('data-panel-id')));
    expect(new Set(progressed)).toEqual(new Set(querying));
    // The Services section has rowHeight 36: each grid row is 36 px high.
    const rows = (await page.evaluate(`[...document.querySelectorAll('.dash-section')].map((s) => [s.querySelector('h2').textContent, s.querySelector('.grid') ? getComputedStyle(s.querySelector('.grid')).gridTemplateRows : ''])`)) as Array<[string, string]>;
    const services = rows.find(([title]) => title.includes('Services'))!;
    expect(new Set(services[1].split(' '))).toEqual(new Set(['36px']));
    await screenshot('dashboard.png', true);
  }, 120_000);

  it('sends the chosen variable value and time range with every query', async () => {
    const services = await page.$$eval('#var-service option', (os) => os.map((o) => o.textContent ?? ''));
    const other = services.find((s) => s !== 'checkout');
    expect(other).toBeDefined();
    queries.length = 0;
    await page.selectOption('#var-service', other!);
    await expect.poll(() => new URL(page.url()).searchParams.get('var-service')).toBe(other);
    await expect.poll(() => queries.some((q) => String(q.body.q).includes(`service_name="${other}"`)), { timeout: 30_000 }).toBe(true);
    await settled();

    queries.length = 0;
    await page.click('[data-testid=time-range]');
    await page.click('.quick-range:has-text("Last 15m")');
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toBe('now-15m');
    await expect.poll(() => queries.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const spans = queries.map((q) => Number(q.body.e) - Number(q.body.s));
    for (const span of spans) expect(span).toBe(15 * 60_000);
    await settled();
  }, 150_000);

  it('opens an interlink with the time range and the series label', async () => {
    await page.goto(`${srv.url}/dashboards/sluice-demo?from=now-30m&to=now`, { waitUntil: 'domcontentloaded' });
    await settled();
    await page.click('.panel[data-panel-id=traffic] .links-button');
    await page.click('.panel[data-panel-id=traffic] [role=menuitem]');
    await page.waitForURL(/\/dashboards\/logs-explorer\?/);
    const params = new URL(page.url()).searchParams;
    expect(params.get('from')).toBe('now-30m');
    expect(params.get('var-service')).toBe('checkout');
    await page.waitForSelector('.dashboard[data-dashboard-id=logs-explorer] .panel');
    // Its pickers are filled from log labels. $namespace has no default: it takes its first
    // option, so the panels using it draw instead of failing for want of a value (they wait
    // for it, never showing the missing-value error), and $level's options, limited by
    // $namespace and a regex, follow.
    await expect.poll(() => page.inputValue('#var-namespace'), { timeout: 30_000 }).not.toBe('');
    await settled();
    expect(await page.$$eval('.panel-error', (es) => es.map((e) => e.textContent))).toEqual([]);
    expect(await page.evaluate('window.__errorsSeen')).toEqual([]);
    await page.click('#var-level');
    await expect.poll(() => page.$$eval('.picker.variable [role=listbox] label', (ls) => ls.length), { timeout: 30_000 }).toBeGreaterThan(2);
    const levels = await page.$$eval('.picker.variable [role=listbox] label', (ls) => ls.map((l) => (l.textContent ?? '').trim()));
    expect(levels[0]).toBe('All');
    for (const level of levels.slice(1)) expect(['debug', 'info', 'warn', 'error', 'fatal']).toContain(level);
    await page.keyboard.press('Escape');
  }, 120_000);

  it('imports nothing from a spec with an error and shows the error at its JSON path', async () => {
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.click('button:has-text("Import from JSON")');
    const spec = { duration: '1h', libraryRef: 'gallery/x', panels: {}, sections: [{ title: 'S', cells: [{ i: 'cpu', x: 30, y: 0, w: 4, h: 4 }] }] };
    await page.fill('#import-spec', JSON.stringify(spec));
    await page.click('button:has-text("Validate and import")');
    const issue = await page.waitForSelector('.issue[data-path="$.sections[0].cells[0].x"]');
    expect(await issue.textContent()).toContain('at most 23');
    expect(await page.textContent('.dialog [role=alert]')).toContain('nothing was created');
  }, 60_000);

  it('runs a PromQL and a LogQL query in Explore', async () => {
    await page.goto(`${srv.url}/explore?lang=promql`, { waitUntil: 'domcontentloaded' });
    await page.click('.query-editor .cm-content');
    await page.keyboard.insertText('sum by (service_name) (rate(http_requests_total[5m]))');
    await page.click('button:has-text("Run")');
    await page.waitForFunction("document.querySelectorAll('.explore-chart .u-legend .u-series').length > 1", null, { timeout: SETTLE_MS });
    await page.waitForSelector('.explore-result[data-state=done]', { timeout: SETTLE_MS });
    await screenshot('explore.png', false);
    // The same result as a table, one row per series.
    await page.click('[role=tab]:has-text("Table")');
    expect((await page.$$('.explore-result .result-table tbody tr')).length).toBeGreaterThan(1);
    // The query is in this browser's history.
    await page.click('.history summary');
    expect(await page.$$eval('.history li', (ls) => ls.map((l) => l.textContent))).toContain('sum by (service_name) (rate(http_requests_total[5m]))');
    // Add to dashboard puts it on the chosen dashboard as a new time series panel.
    await page.selectOption('#add-target', 'service-overview');
    await page.click('.add-to-dashboard button:has-text("Add panel")');
    await expect.poll(() => page.textContent('.add-to-dashboard [role=status]'), { timeout: 30_000 }).toContain('Added to');
    const overview = (await (await api('/dashboards/service-overview')).json()) as { spec: DashboardSpec };
    const added = Object.values(overview.spec.panels).filter((p) => p.id.startsWith('explore-'));
    expect(added.map((p) => [p.kind, p.queries[0]?.query])).toEqual([['timeseries', 'sum by (service_name) (rate(http_requests_total[5m]))']]);

    await page.click('[role=tab]:has-text("LogQL")');
    await page.click('.query-editor[data-language=logql] .cm-content');
    // Completion from the helper endpoints: a label name inside the braces, then its values.
    await page.keyboard.insertText('{');
    await page.keyboard.press('Control+Space');
    await page.getByRole('option', { name: 'service_name', exact: true }).click({ timeout: 30_000 });
    await page.keyboard.insertText('="');
    await page.keyboard.press('Control+Space');
    await page.getByRole('option', { name: 'checkout', exact: true }).click({ timeout: 30_000 });
    await page.keyboard.insertText('"}');
    expect(await page.textContent('.query-editor[data-language=logql] .cm-content')).toBe('{service_name="checkout"}');
    // Validate-as-you-type: the server's answer for a bad expression is drawn as a lint mark.
    await page.keyboard.insertText(' |= ');
    await page.waitForSelector('.cm-lintRange-error', { timeout: 30_000 });
    await page.keyboard.insertText('"error"');
    await page.waitForSelector('.cm-lintRange-error', { state: 'detached', timeout: 30_000 });
    await page.click('button:has-text("Run")');
    await page.waitForSelector('.explore-result .log-line', { timeout: SETTLE_MS });
    expect(await page.textContent('.explore-result .log-line')).toContain('checkout');
  }, 240_000);

  it('redraws Explore while its stream runs, before the done event', async () => {
    // A page signed in with the same cookie whose query streams reach the app one event at a
    // time, SLOW_EVENT_MS apart: before each event is handed over, what Explore shows is noted.
    // Explore drawing only at the end would show nothing before `done`.
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addCookies(await page.context().cookies());
    const slow = await context.newPage();
    // A line a minute over the window, so the log query's time slices each bring a few rows
    // whatever the demo data holds.
    const ns = (ms: number): string => String(BigInt(ms) * 1_000_000n);
    const values = Array.from({ length: 29 }, (_, i): [string, string] => [ns(Date.now() - (29 - i) * 60_000), `drip ${i}`]);
    const pushed = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams: [{ stream: { app: 'drip' }, values }] }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(pushed.status).toBe(204);
    try {
      await slow.addInitScript(SLOW_STREAMS);
      const runs: Array<[string, string]> = [
        ['promql', 'sum by (service_name) (rate(http_requests_total[1m]))'],
        ['logql', '{app="drip"}'],
      ];
      for (const [lang, q] of runs) {
        await slow.goto(`${srv.url}/explore?lang=${lang}&from=now-30m&to=now&q=${encodeURIComponent(q)}`, { waitUntil: 'domcontentloaded' });
        await slow.waitForSelector('.explore-result[data-state=done]', { timeout: SETTLE_MS });
        const log = (await slow.evaluate('window.__streamLog')) as Array<{ type: string; shown: number }>;
        const done = log.findIndex((e) => e.type === 'done');
        expect(done, `${lang}: ${JSON.stringify(log)}`).toBeGreaterThan(1);
        // Each entry is what was on screen just before its event was handed over, so the done
        // entry itself still counts as before done.
        const before = log.slice(0, done + 1).map((e) => e.shown);
        // Something was on screen before done, and it grew while the stream ran.
        const shown = before.filter((n) => n > 0);
        expect(shown.length, `${lang}: ${JSON.stringify(log)}`).toBeGreaterThan(0);
        expect(new Set(shown).size, `${lang}: ${JSON.stringify(log)}`).toBeGreaterThanOrEqual(2);
        for (let i = 1; i < before.length; i++) expect(before[i]).toBeGreaterThanOrEqual(before[i - 1]);
      }
    } finally {
      await context.close();
    }
  }, 180_000);

  it('draws native histogram series in Explore as observation counts, with a note saying so', async () => {
    await page.goto(`${srv.url}/explore?lang=promql`, { waitUntil: 'domcontentloaded' });
    await page.click('.query-editor .cm-content');
    await page.keyboard.insertText('rate(rpc_seconds[5m])');
    await page.click('button:has-text("Run")');
    await page.waitForSelector('.explore-result[data-state=done]', { timeout: SETTLE_MS });
    expect(await page.textContent('.explore-result .note')).toContain('drawn as their observation count (histogram_count)');
    await page.waitForFunction("document.querySelectorAll('.explore-chart .u-legend .u-series').length > 1", null, { timeout: SETTLE_MS });
    const ink = (await page.evaluate(inkOfCanvases('.explore-chart canvas'))) as number[];
    expect(Math.max(...ink)).toBeGreaterThan(0);
    // A float query has no such note.
    await page.click('.query-editor .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('histogram_count(rate(rpc_seconds[5m]))');
    await page.click('button:has-text("Run")');
    await page.waitForSelector('.explore-result .note', { state: 'detached', timeout: SETTLE_MS });
    await page.waitForSelector('.explore-result[data-state=done]', { timeout: SETTLE_MS });
    await page.waitForFunction("document.querySelectorAll('.explore-chart .u-legend .u-series').length > 1", null, { timeout: SETTLE_MS });
    expect(await page.$('.explore-result .note')).toBeNull();
  }, 240_000);

  it('searches, creates, imports under Custom without libraryRef, exports and deletes on the Dashboards page', async () => {
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.dashboard-link');
    const names = (): Promise<string[]> => page.$$eval('.dashboard-link', (as) => as.map((a) => a.textContent ?? ''));
    await page.fill('#dashboard-search', 'logs');
    await expect.poll(names).toEqual(['Logs explorer']);
    await page.fill('#dashboard-search', '');
    await expect.poll(async () => (await names()).length).toBeGreaterThan(3);

    // New dashboard asks for a name and opens the empty dashboard.
    page.once('dialog', (d) => void d.accept('Probe board'));
    await page.click('button:has-text("New dashboard")');
    await page.waitForURL(/\/dashboards\/[^/?]+$/);
    await page.waitForFunction("document.querySelector('.dashboard h1')?.textContent === 'Probe board'");
    const createdId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect((await api(`/dashboards/${createdId}`)).status).toBe(200);

    // Import: a valid spec without a category, carrying libraryRef, which is dropped.
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.click('button:has-text("Import from JSON")');
    await page.fill('#import-name', 'Imported probe');
    const spec = { schemaVersion: 2, duration: '2h', libraryRef: 'gallery/probe', panels: {}, sections: [{ title: 'Empty', cells: [] }] };
    await page.fill('#import-spec', JSON.stringify(spec));
    await page.click('button:has-text("Validate and import")');
    await page.waitForFunction("document.querySelector('.dashboard h1')?.textContent === 'Imported probe'", null, { timeout: 30_000 });
    const importedId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const imported = (await (await api(`/dashboards/${importedId}`)).json()) as { spec: Record<string, unknown> };
    expect(imported.spec.libraryRef).toBeUndefined();
    expect(imported.spec.duration).toBe('2h');

    // Without a category both are listed under Custom, the last category.
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.dashboard-link');
    const categories = await page.$$eval('.category', (cs) => cs.map((c) => [c.querySelector('h2')?.textContent, [...c.querySelectorAll('.dashboard-link')].map((a) => a.textContent)]));
    expect(categories.at(-1)).toEqual(['Custom', ['Imported probe', 'Probe board']]);

    // Export downloads the stored spec as JSON, without libraryRef.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[aria-label="Export Imported probe"]')]);
    expect(download.suggestedFilename()).toBe(`${importedId}.json`);
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8'))).toEqual(imported.spec);

    // Delete asks first, then the dashboard is gone from the page and the store.
    for (const [name, id] of [['Imported probe', importedId], ['Probe board', createdId]]) {
      page.once('dialog', (d) => void d.accept());
      await page.click(`button[aria-label="Delete ${name}"]`);
      await page.waitForSelector(`.dashboard-link:text-is("${name}")`, { state: 'detached' });
      expect((await api(`/dashboards/${id}`)).status).toBe(404);
    }
  }, 120_000);

  it("draws each kind's options, variables, time range, refresh, crosshair, a refused query and a partial stream", async () => {
    await writeProbeData(srv);
    const res = await api(`/dashboards?id=probe&name=Probe`, { method: 'POST', body: JSON.stringify(PROBE_SPEC) });
    expect(res.status, await res.clone().text()).toBe(201);
    queries.length = 0;
    await page.goto(`${srv.url}/dashboards/probe`, { waitUntil: 'domcontentloaded' });
    await settled();
    const firstQueries = queries.map((q) => String(q.body.q));
    const panel = (id: string): string => `.panel[data-panel-id="${id}"]`;

    // Variable: options from the metric's label, regex (z hidden), sort (descending), default (b).
    await page.click('#var-k');
    await expect.poll(() => page.$$eval('.picker.variable [role=listbox] label', (ls) => ls.map((l) => l.textContent?.trim())), { timeout: 30_000 }).toEqual(['All', 'c', 'b', 'a']);
    expect(await page.textContent('#var-k')).toContain('b');
    // Stat: the max (30) of a series whose last value is 20, in its format.
    expect(await page.textContent(`${panel('stat')} .stat-value`)).toBe('30.0 ms');
    expect(queries.find((q) => String(q.body.q).startsWith('sum(probe_value'))?.body.q).toBe('sum(probe_value{k=~"b"})');
    // All is substituted as .+ and the stat follows: 10 + 30 + 50 + 1000 at most.
    queries.length = 0;
    await page.click('.picker.variable [role=listbox] label:has-text("All") input');
    await expect.poll(() => queries.some((q) => q.body.q === 'sum(probe_value{k=~".+"})'), { timeout: 30_000 }).toBe(true);
    await page.keyboard.press('Escape');
    await settled();
    expect(await page.textContent(`${panel('stat')} .stat-value`)).toBe('1090.0 ms');

    // Label cards: value order, threshold colors, number format; and the age of a timestamp.
    const cards = await page.evaluate(`[...document.querySelectorAll('${panel('cards')} .card')].map((c) => [c.querySelector('.card-name').textContent, c.querySelector('.card-value').textContent, getComputedStyle(c).borderTopColor])`);
    expect(cards).toEqual([
      ['c', '50', 'rgb(170, 0, 0)'],
      ['b', '20', 'rgb(0, 170, 0)'],
      ['a', '10', 'rgb(0, 170, 0)'],
    ]);
    expect(await page.textContent(`${panel('age')} .card-value`)).toBe('10m ago');

    // Time series: legend names from {{k}}, the hidden query left out, the query's color,
    // fixed Y bounds, a highlight band; percent scale on the other chart.
    expect(await page.$$eval(`${panel('chart')} .u-legend .u-series .u-label`, (ls) => ls.slice(1).map((l) => l.textContent))).toEqual(['a probe', 'b probe']);
    expect(await page.evaluate(`[...document.querySelectorAll('${panel('chart')} .u-legend .u-series .u-marker')].slice(1).map((m) => getComputedStyle(m).borderTopColor)`)).toEqual(['rgb(18, 52, 86)', 'rgb(18, 52, 86)']);
    expect(await page.getAttribute(`${panel('chart')} .uplot`, 'data-y-range')).toBe('0,200');
    expect(await page.getAttribute(`${panel('chart')} .uplot`, 'data-bands')).toBe('1');
    expect(await page.getAttribute(`${panel('share')} .uplot`, 'data-y-range')).toBe('0,100');
    const ink = (await page.evaluate(inkOfCanvases(`${panel('chart')} canvas, ${panel('share')} canvas`))) as number[];
    for (const n of ink) expect(n).toBeGreaterThan(500);

    // The description behind the ? button, rendered from Markdown.
    await page.click(`${panel('chart')} button[aria-label="About Probe chart"]`);
    expect(await page.textContent(`${panel('chart')} [role=tooltip] strong`)).toBe('probe');

    // Shared crosshair: hovering one chart draws the cursor line on the other.
    const otherCursor = `${panel('share')} .u-cursor-x`;
    const centre = async (id: string): Promise<[number, number]> => {
      const box = (await (await page.$(`${panel(id)} .u-over`))!.boundingBox())!;
      return [box.x + box.width / 2, box.y + box.height / 2];
    };
    // In and out of the other chart first, so its cursor line is known to be off.
    await page.mouse.move(...(await centre('share')));
    await page.mouse.move(5, 5);
    await expect.poll(() => page.$eval(otherCursor, (c) => c.classList.contains('u-off'))).toBe(true);
    await page.mouse.move(...(await centre('chart')));
    await expect.poll(() => page.$eval(otherCursor, (c) => c.classList.contains('u-off'))).toBe(false);
    await page.mouse.move(5, 5);

    // A query the server refuses shows its error in its own panel; the others draw.
    expect(await page.textContent(`${panel('refused')} .panel-error`)).toContain('approx_topk is only supported on instant queries');
    // A stream that ends with done status error: the lines before it stay, under a warning.
    expect(await page.textContent(`${panel('partial')} .warning`)).toMatch(/Partial results: .*memory budget/);
    expect(await page.$$eval(`${panel('partial')} .log-line`, (ls) => ls.length)).toBe(5);
    expect(await page.$(`${panel('partial')} .panel-error`)).toBeNull();
    // Its volume chart comes from the builder state (logqlState), its lines from rawLogql.
    expect(firstQueries).toContain('sum (count_over_time({app="late"}[1m]))');
    expect(Math.max(...((await page.evaluate(inkOfCanvases(`${panel('partial')} canvas`))) as number[]))).toBeGreaterThan(0);

    // A collapsed section draws its panels once opened.
    expect(await page.$(panel('hidden-pie'))).toBeNull();
    await page.click('.section-toggle:has-text("Collapsed")');
    await page.waitForSelector(`${panel('hidden-pie')} svg path`, { timeout: SETTLE_MS });

    // An absolute range from the picker goes into the URL and every query's window.
    const [fromText, toText] = (await page.evaluate(`(() => {
      const local = (ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60000).toISOString().slice(0, 16);
      return [local(Date.now() - 20 * 60000), local(Date.now() - 5 * 60000)];
    })()`)) as [string, string];
    const [fromMs, toMs] = (await page.evaluate(`[new Date(${JSON.stringify(fromText)}).getTime(), new Date(${JSON.stringify(toText)}).getTime()]`)) as [number, number];
    queries.length = 0;
    await page.click('[data-testid=time-range]');
    await page.fill('#range-from', fromText);
    await page.fill('#range-to', toText);
    await page.click('.absolute-range button[type=submit]');
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toBe(String(fromMs));
    expect(new URL(page.url()).searchParams.get('to')).toBe(String(toMs));
    await expect.poll(() => queries.length, { timeout: 30_000 }).toBeGreaterThan(0);
    for (const q of queries) expect([q.body.s, q.body.e]).toEqual([String(fromMs), String(toMs)]);
    await settled();

    // Auto refresh runs the queries again without a click.
    queries.length = 0;
    await page.selectOption('#auto-refresh', '10s');
    expect(new URL(page.url()).searchParams.get('refresh')).toBe('10s');
    await expect.poll(() => queries.length, { timeout: 60_000, interval: 1000 }).toBeGreaterThan(0);
    await page.selectOption('#auto-refresh', 'off');
    await settled();
  }, 240_000);

  it('draws smooth as a moving average, bars by their reducer, and the bar and stacked-bar variants as bars', async () => {
    // The probe dashboard and its data were written by the test before; a fresh load of its default range.
    await page.goto(`${srv.url}/dashboards/probe`, { waitUntil: 'domcontentloaded' });
    await settled();
    const panel = (id: string): string => `.panel[data-panel-id="${id}"]`;
    const drawn = async (id: string): Promise<DrawnChart> => {
      const chart = (await page.evaluate(chartData(panel(id)))) as DrawnChart | null;
      expect(chart, id).not.toBeNull();
      return chart!;
    };
    const pixels = async (id: string, at: Array<[number, number]>, dy = 0): Promise<number[][]> => (await page.evaluate(chartPixels(panel(id), at, dy))) as number[][];
    const values = (col: Array<number | null>): number[] => col.filter((v): v is number => v !== null);

    // smooth: the same query with and without it. Unsmoothed, b steps from 30 to 20; smoothed,
    // the step is a ramp of moving averages in between, at the same times.
    const on = await drawn('smooth-on');
    const off = await drawn('smooth-off');
    expect(on.data[0]).toEqual(off.data[0]);
    expect([...new Set(values(off.data[1]))].sort()).toEqual([20, 30]);
    const ramp = on.data[1].map((v, i) => [i, v] as const).filter((e): e is readonly [number, number] => e[1] !== null && e[1] > 20 && e[1] < 30);
    expect(ramp.length).toBeGreaterThanOrEqual(3);
    // On screen: at the middle of the ramp the smoothed line is drawn at its average, where the
    // unsmoothed one has no ink (it is already down at 20).
    const [mid, average] = ramp[Math.floor(ramp.length / 2)];
    const t = on.data[0][mid]!;
    expect(isBlue((await pixels('smooth-on', [[t, average]]))[0])).toBe(true);
    expect((await pixels('smooth-off', [[t, average]]))[0][3]).toBeLessThan(60);
    expect(isBlue((await pixels('smooth-off', [[t, off.data[1][mid]!]]))[0])).toBe(true);

    // bar reducer: the same query cut into the same 30 bars, each the last sample of its bar or
    // the sum of the bar's samples; the axes follow.
    const last = await drawn('bar-last');
    const sum = await drawn('bar-sum');
    expect(last.data[0]).toEqual(sum.data[0]);
    expect(values(last.data[1]).length).toBeGreaterThan(20);
    for (const v of values(last.data[1])) expect([20, 30]).toContain(v);
    last.data[1].forEach((v, i) => {
      if (v !== null) expect(sum.data[1][i]!, `bar ${i}`).toBeGreaterThan(v);
    });
    expect(Math.max(...values(sum.data[1]))).toBeGreaterThan(5 * Math.max(...values(last.data[1])));
    const top = async (id: string): Promise<number> => Number(((await page.getAttribute(`${panel(id)} .uplot`, 'data-y-range')) ?? '').split(',')[1]);
    expect(await top('bar-sum')).toBeGreaterThan(5 * (await top('bar-last')));
    // Each bar is drawn up to its value: filled halfway, empty a few pixels above its top.
    for (const [id, chart] of [['bar-last', last], ['bar-sum', sum]] as const) {
      const bars = chart.data[0].map((x, i) => [x!, chart.data[1][i]] as const).filter((b): b is readonly [number, number] => b[1] !== null);
      const inside = await pixels(id, bars.map(([x, v]) => [x, v / 2]));
      expect(inside.filter(isBlue).length, id).toBe(bars.length);
      const above = await pixels(id, bars.map(([x, v]) => [x, v]), -4);
      expect(above.filter(isBlue), id).toEqual([]);
    }

    // bar variant: one series drawn as filled bars from zero, where a line chart has no ink.
    const bars = await drawn('bars');
    const aAt = bars.data[0].map((x, i) => [x!, bars.data[1][i]] as const).filter((b): b is readonly [number, number] => b[1] !== null);
    expect(aAt.length).toBeGreaterThan(100);
    const sample = aAt.filter((_, i) => i % 25 === 12);
    expect((await pixels('bars', sample.map(([x, v]) => [x, v / 2]))).every(isRed)).toBe(true);
    expect((await pixels('smooth-off', sample.map(([x]) => [x, 5]))).every((p) => p[3] < 60)).toBe(true);

    // stacked-bar: the top series is the sum (a = 10 under b = 30 or 20), drawn above a's bar.
    const stacked = await drawn('stacked-bars');
    const [, sums, lows] = stacked.data;
    expect(new Set(values(lows))).toEqual(new Set([10]));
    expect(new Set(values(sums))).toEqual(new Set([40, 30]));
    const columns = stacked.data[0].map((x, i) => [x!, sums[i]] as const).filter((c): c is readonly [number, number] => c[1] !== null).filter((_, i) => i % 25 === 12);
    expect((await pixels('stacked-bars', columns.map(([x]) => [x, 5]))).every(isRed)).toBe(true);
    expect((await pixels('stacked-bars', columns.map(([x, total]) => [x, (10 + total) / 2]))).every(isBlue)).toBe(true);
    expect((await pixels('stacked-bars', columns.map(([x, total]) => [x, total]), -4)).filter((p) => isBlue(p) || isRed(p))).toEqual([]);
  }, 120_000);

  it('signs out: the cookie is cleared and the API refuses the browser', async () => {
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.click('nav button:has-text("Sign out")');
    await page.waitForSelector('#api-key');
    expect((await page.context().cookies()).find((c) => c.name === 'api_key')).toBeUndefined();
    const status = await page.evaluate(async () => (await fetch('/api/v1/session')).status);
    expect(status).toBe(401);
  }, 60_000);
});
