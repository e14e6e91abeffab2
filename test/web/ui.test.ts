import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExampleDashboards } from '../../src/gen/exampleDashboards.js';
import { Generator } from '../../src/gen/generator.js';
import { backfill, Sender } from '../../src/gen/sender.js';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { chromiumMissing, inkOfCanvases, launchChromium, PANELS_SETTLED } from './browser.js';
import { snappyCompress } from '../../engine/ingest/index.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';

/**
 * The web app end to end in a real browser against the real server on loopback with the demo
 * data and dashboards: sign in, every panel kind of the demo dashboard drawn, variables and
 * time range reaching the queries, Import from JSON showing an error at its path, Explore in
 * both languages, and an interlink. One server and one browser for the whole file; waits are
 * on page state, never on wall-clock sleeps. Screenshots go to docs/images for the README.
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

const SCREENSHOTS = path.join(packageRoot(), 'docs', 'images');
const PANEL_KINDS = ['timeseries', 'stat', 'gauge', 'service-gauges', 'service-memory-bars', 'bar', 'pie', 'label', 'service-graph', 'log-events'];
/** SETTLE_MS bounds how long the page may take to finish its streams on a loaded machine. */
const SETTLE_MS = 90_000;
const skip = chromiumMissing && process.env.CI !== 'true';

describe.skipIf(skip)('web UI in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let page: Page;
  const queries: Array<{ path: string; body: Record<string, unknown> }> = [];
  /** batches holds how many queries each batch request carried. */
  const batches: number[] = [];

  beforeAll(async () => {
    srv = await startTestServer();
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
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

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
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard.png'), fullPage: true });
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
    await page.screenshot({ path: path.join(SCREENSHOTS, 'explore.png') });

    await page.click('[role=tab]:has-text("LogQL")');
    await page.click('.query-editor[data-language=logql] .cm-content');
    // One input event per edit keeps the test quick on a loaded machine; completion is not under test here.
    await page.keyboard.insertText('{service_name="checkout"}');
    // Validate-as-you-type: the server's answer for a bad expression is drawn as a lint mark.
    await page.keyboard.insertText(' |= ');
    await page.waitForSelector('.cm-lintRange-error', { timeout: 30_000 });
    await page.keyboard.insertText('"error"');
    await page.waitForSelector('.cm-lintRange-error', { state: 'detached', timeout: 30_000 });
    await page.click('button:has-text("Run")');
    await page.waitForSelector('.explore-result .log-line', { timeout: SETTLE_MS });
    expect(await page.textContent('.explore-result .log-line')).toContain('checkout');
  }, 240_000);

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

  it('signs out: the cookie is cleared and the API refuses the browser', async () => {
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.click('nav button:has-text("Sign out")');
    await page.waitForSelector('#api-key');
    expect((await page.context().cookies()).find((c) => c.name === 'api_key')).toBeUndefined();
    const status = await page.evaluate(async () => (await fetch('/api/v1/session')).status);
    expect(status).toBe(401);
  }, 60_000);
});
