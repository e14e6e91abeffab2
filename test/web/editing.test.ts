import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardSpec } from '../../src/dashboards/types.js';
import { loadExampleDashboards } from '../../src/gen/exampleDashboards.js';
import { Generator } from '../../src/gen/generator.js';
import { backfill, Sender } from '../../src/gen/sender.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { chromiumMissing, launchChromium } from './browser.js';

/**
 * Editing dashboards in the app, and using it from the keyboard alone, in Chromium against the
 * real server with the demo data and dashboards: a panel's query edited and saved (and there
 * after a reload), a cell moved and resized with the keyboard, a panel added from the kind
 * picker, findings shown at their JSON path, a concurrent edit answered with the conflict
 * message; pickers and the links menu operated by keyboard, and every control named; the kind
 * forms and the links form edit panels of seven kinds, each change checked in the saved spec.
 */

const skip = chromiumMissing && process.env.CI !== 'true';
const WAIT_MS = 60_000;

interface StoredDashboard {
  name: string;
  version: number;
  spec: DashboardSpec;
}

describe.skipIf(skip)('dashboard editing and keyboard use in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let page: Page;

  const api = async (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${srv.url}/api/orgs/${srv.orgId}${path}`, { ...init, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const stored = async (id: string): Promise<StoredDashboard> => (await (await api(`/dashboards/${id}`)).json()) as StoredDashboard;

  beforeAll(async () => {
    srv = await startTestServer();
    const now = Date.now();
    await backfill(new Generator({ seed: 7 }), new Sender(srv.url, srv.key), now - 10 * 60_000, now);
    await loadExampleDashboards(srv.url, srv.key, srv.orgId);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addCookies([{ name: 'api_key', value: srv.key, url: srv.url, httpOnly: true, sameSite: 'Strict' }]);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  async function openDashboard(id: string): Promise<void> {
    await page.goto(`${srv.url}/dashboards/${id}?from=now-15m&to=now`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`.dashboard[data-dashboard-id=${id}] .panel`);
  }

  async function startEditing(): Promise<void> {
    await page.click('button.edit-button');
    await page.waitForSelector('.edit-bar');
    await page.waitForSelector('.cell .move-handle');
  }

  async function saveAndWait(): Promise<void> {
    await page.click('.edit-bar button:has-text("Save")');
    await page.waitForSelector('.edit-bar', { state: 'detached', timeout: WAIT_MS });
  }

  /** focused tells whether the element with focus matches `selector`. */
  const focused = (selector: string): Promise<boolean> => page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`) as Promise<boolean>;

  /** tabTo presses Tab until the focused element matches `selector`, as a keyboard user would. */
  async function tabTo(selector: string, maxPresses = 80): Promise<void> {
    for (let i = 0; i < maxPresses; i++) {
      if (await focused(selector)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  }


  it("edits a panel's title and query, saves with If-Match, and shows them after a reload", async () => {
    await openDashboard('sluice-demo');
    const before = await stored('sluice-demo');
    await startEditing();
    await page.click('.cell[data-cell=cpu] button[aria-label="Edit CPU by service"]');
    await page.waitForSelector('.panel-editor');
    await page.fill('#panel-title', 'CPU of every service');
    await page.click('.query-row[data-query-index="0"] .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('sum by (service_name) (rate(process_cpu_seconds_total[2m]))');
    const puts: Array<Record<string, string>> = [];
    page.on('request', (r) => r.method() === 'PUT' && puts.push(r.headers()));
    await page.click('.panel-editor button[type=submit]');
    await page.waitForSelector('.panel-editor', { state: 'detached' });
    // The draft draws at once, before anything is saved.
    expect(await page.textContent('.cell[data-cell=cpu] .panel-title')).toBe('CPU of every service');
    await saveAndWait();
    expect(puts.at(-1)?.['if-match']).toBe(`"${before.version}"`);

    const after = await stored('sluice-demo');
    expect(after.version).toBe(before.version + 1);
    expect(after.name).toBe(before.name);
    expect(after.spec.panels.cpu.title).toBe('CPU of every service');
    expect(after.spec.panels.cpu.queries[0].query).toBe('sum by (service_name) (rate(process_cpu_seconds_total[2m]))');

    const queries: string[] = [];
    page.on('request', (r) => {
      // Panels send their queries in batches: each member of a batch is one query.
      if (!r.url().endsWith('/query/batch')) return;
      for (const q of (JSON.parse(r.postData() ?? '{}') as { queries: Array<{ q: string }> }).queries) queries.push(q.q);
    });
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.cell[data-cell=cpu] .panel-title');
    expect(await page.textContent('.cell[data-cell=cpu] .panel-title')).toBe('CPU of every service');
    await expect.poll(() => queries.includes('sum by (service_name) (rate(process_cpu_seconds_total[2m]))'), { timeout: WAIT_MS }).toBe(true);
  }, 120_000);

  it('moves and resizes a cell with the keyboard alone and saves the new place', async () => {
    await openDashboard('sluice-demo');
    await startEditing();
    const handle = '.cell[data-cell=p99] .move-handle';
    const cell = async (): Promise<number[]> => page.$eval('.cell[data-cell=p99]', (c) => ['x', 'y', 'w', 'h'].map((k) => Number(c.getAttribute(`data-${k}`))));
    expect(await cell()).toEqual([16, 0, 8, 4]);
    await tabTo(handle);
    // Right is clamped at the grid's edge: first narrower with Shift+Left, then two columns right.
    await page.keyboard.press('ArrowRight');
    expect(await cell()).toEqual([16, 0, 8, 4]);
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    expect(await cell()).toEqual([18, 1, 6, 5]);
    expect(await focused(handle)).toBe(true);
    expect(await page.getAttribute(handle, 'aria-label')).toContain('column 19, row 2, 6 wide, 5 high');
    await saveAndWait();
    const after = await stored('sluice-demo');
    expect(after.spec.sections[0].cells.find((c) => c.i === 'p99')).toEqual({ i: 'p99', x: 18, y: 1, w: 6, h: 5 });
  }, 120_000);

  it('edits a time series and a log-events panel through their forms, checked by the validate endpoint', async () => {
    await openDashboard('sluice-demo');
    const before = await stored('sluice-demo');
    const logsId = Object.values(before.spec.panels).find((p) => p.kind === 'log-events')!.id;
    const logsTitle = before.spec.panels[logsId].title;
    await startEditing();
    await page.click('.cell[data-cell=traffic] button[aria-label="Edit Traffic by route"]');
    await page.waitForSelector('.kind-fields[data-kind=timeseries]');
    await page.selectOption('#ts-variant', 'area');
    await page.fill('#ts-unit', 'ms');
    await page.fill('#ts-y-min', '0');
    await page.fill('#ts-y-max', '2500');
    await page.fill('#query-name-0', '{{route}} requests');
    // A highlight threshold without its query is refused by the server's validate endpoint, shown in the form.
    await page.fill('#ts-highlight-query', '');
    await page.fill('#ts-highlight-threshold', '400');
    const validations: string[] = [];
    page.on('request', (r) => r.url().includes('/dashboards/validate') && validations.push(r.url()));
    await page.click('.panel-editor button[type=submit]');
    const issue = await page.waitForSelector('.panel-editor .issue[data-path^="$.panels.traffic.highlightWhen"]', { timeout: WAIT_MS });
    expect(await issue.textContent()).toMatch(/query/);
    expect(validations.length).toBeGreaterThan(0);
    await page.fill('#ts-highlight-query', 'sum(rate(http_requests_total{code=~"5.."}[5m])) > 1');
    await page.click('.panel-editor button[type=submit]');
    await page.waitForSelector('.panel-editor', { state: 'detached', timeout: WAIT_MS });

    await page.click(`.cell[data-cell="${logsId}"] button[aria-label="Edit ${logsTitle}"]`);
    await page.waitForSelector('.kind-fields[data-kind=log-events]');
    await page.fill('#logs-limit', '25');
    await page.fill('#logs-raw', '{service_name="payments"} |= "error"');
    await page.click('.panel-editor button[type=submit]');
    await page.waitForSelector('.panel-editor', { state: 'detached', timeout: WAIT_MS });
    await saveAndWait();

    const after = await stored('sluice-demo');
    expect(after.version).toBe(before.version + 1);
    expect(after.spec.panels.traffic).toMatchObject({ variant: 'area', unit: 'ms', yMin: 0, yMax: 2500, highlightWhen: { query: 'sum(rate(http_requests_total{code=~"5.."}[5m])) > 1', threshold: 400 } });
    expect(after.spec.panels.traffic.queries[0].name).toBe('{{route}} requests');
    // Fields without inputs of their own are kept as they were.
    expect(after.spec.panels.traffic.interlinks).toEqual(before.spec.panels.traffic.interlinks);
    expect(after.spec.panels.traffic.description).toBe(before.spec.panels.traffic.description);
    expect(after.spec.panels[logsId]).toMatchObject({ limit: 25, rawLogql: '{service_name="payments"} |= "error"' });
  }, 120_000);

  it('moves and resizes a cell by dragging it with the mouse and saves the new place', async () => {
    await openDashboard('sluice-demo');
    await startEditing();
    const id = 'p99';
    const cell = async (): Promise<number[]> => page.$eval(`.cell[data-cell=${id}]`, (c) => ['x', 'y', 'w', 'h'].map((k) => Number(c.getAttribute(`data-${k}`))));
    const [x0, y0, w0, h0] = await cell();
    // One grid column and one row in pixels, as the page lays them out.
    const { col, row } = (await page.evaluate(`(() => {
      const c = document.querySelector('.cell[data-cell=${id}]');
      const grid = c.closest('.grid');
      const style = getComputedStyle(grid);
      const h = Number(c.getAttribute('data-h'));
      return { col: (grid.clientWidth + (parseFloat(style.columnGap) || 0)) / 24, row: (c.getBoundingClientRect().height + (parseFloat(style.rowGap) || 0)) / h };
    })()`)) as { col: number; row: number };
    const drag = async (selector: string, cols: number, rows: number): Promise<void> => {
      const box = (await (await page.$(selector))!.boundingBox())!;
      const fromX = box.x + box.width / 2;
      const fromY = box.y + box.height / 2;
      await page.mouse.move(fromX, fromY);
      await page.mouse.down();
      await page.mouse.move(fromX + (cols * col) / 2, fromY + (rows * row) / 2, { steps: 4 });
      await page.mouse.move(fromX + cols * col, fromY + rows * row, { steps: 4 });
      await page.mouse.up();
    };
    // Left by four columns and down by one row.
    await drag(`.cell[data-cell=${id}] .move-handle`, -4, 1);
    expect(await cell()).toEqual([x0 - 4, y0 + 1, w0, h0]);
    // The corner grip: two columns wider and one row taller.
    await drag(`.cell[data-cell=${id}] .resize-grip`, 2, 1);
    expect(await cell()).toEqual([x0 - 4, y0 + 1, w0 + 2, h0 + 1]);
    await saveAndWait();
    const after = await stored('sluice-demo');
    expect(after.spec.sections[0].cells.find((c) => c.i === id)).toEqual({ i: id, x: x0 - 4, y: y0 + 1, w: w0 + 2, h: h0 + 1 });
  }, 120_000);

  it('adds a panel from the kind picker and settings, then Cancel discards an edit', async () => {
    await openDashboard('service-overview');
    await startEditing();
    await page.click('.edit-bar button:has-text("Add panel")');
    await page.waitForSelector('.panel-editor');
    expect(await focused('#panel-kind')).toBe(true);
    await page.selectOption('#panel-kind', 'stat');
    await page.fill('#panel-title', 'Checkout requests');
    await page.click('.query-row[data-query-index="0"] .cm-content');
    await page.keyboard.insertText('sum(rate(http_requests_total{service_name="checkout"}[5m]))');
    // The stat kind's own form: calculation, unit and sparkline.
    await page.selectOption('#stat-calculation', 'max');
    await page.fill('#stat-unit', 'reqps');
    await page.check('.kind-fields[data-kind=stat] input[type=checkbox]');
    await page.click('.panel-editor button[type=submit]');
    await page.click('.edit-bar button:has-text("Settings")');
    await page.fill('#dash-name', 'Service overview, edited');
    await page.fill('#dash-category', 'Edited');
    await page.click('.dialog button:has-text("Apply")');
    await page.waitForSelector('.panel[data-panel-id=checkout-requests][data-kind=stat]');
    await saveAndWait();
    const after = await stored('service-overview');
    expect(after.name).toBe('Service overview, edited');
    expect(after.spec.category).toBe('Edited');
    expect(after.spec.panels['checkout-requests']).toMatchObject({ kind: 'stat', title: 'Checkout requests', calculation: 'max', format: { unit: 'reqps' }, sparkline: true });
    expect(after.spec.sections.at(-1)?.cells.some((c) => c.i === 'checkout-requests')).toBe(true);

    await startEditing();
    await page.click('.cell[data-cell=checkout-requests] button[aria-label="Remove Checkout requests"]');
    expect(await page.$('.panel[data-panel-id=checkout-requests]')).toBeNull();
    await page.click('.edit-bar button:has-text("Cancel")');
    await page.waitForSelector('.panel[data-panel-id=checkout-requests]');
    expect((await stored('service-overview')).version).toBe(after.version);
  }, 120_000);

  it("shows the server's findings at their JSON path and saves nothing", async () => {
    await openDashboard('sluice-demo');
    const before = await stored('sluice-demo');
    await startEditing();
    await page.click('.edit-bar button:has-text("JSON")');
    const spec = JSON.parse(await page.inputValue('#dash-json')) as DashboardSpec;
    spec.sections[0].cells[0].x = 30;
    await page.fill('#dash-json', JSON.stringify(spec));
    await page.click('.dialog button:has-text("Apply")');
    await page.click('.edit-bar button:has-text("Save")');
    const issue = await page.waitForSelector('.edit-bar .issue[data-path="$.sections[0].cells[0].x"]', { timeout: WAIT_MS });
    expect(await issue.textContent()).toContain('at most 23');
    expect(await page.textContent('.edit-bar [role=alert]')).toContain('Not saved');
    expect((await stored('sluice-demo')).version).toBe(before.version);
    await page.click('.edit-bar button:has-text("Cancel")');
  }, 120_000);

  it('answers a concurrent edit with the conflict message and reloads the saved version', async () => {
    await openDashboard('logs-explorer');
    await startEditing();
    // Someone else saves the dashboard after this edit began.
    const current = await stored('logs-explorer');
    const other = await api(`/dashboards/logs-explorer?name=${encodeURIComponent('Changed elsewhere')}`, { method: 'PUT', headers: { 'if-match': `"${current.version}"` }, body: JSON.stringify(current.spec) });
    expect(other.status).toBe(200);
    await page.click('.edit-bar button:has-text("Settings")');
    await page.fill('#dash-name', 'Mine');
    await page.click('.dialog button:has-text("Apply")');
    await page.click('.edit-bar button:has-text("Save")');
    const alert = await page.waitForSelector('.save-problem.conflict', { timeout: WAIT_MS });
    expect(await alert.textContent()).toContain('saved elsewhere');
    expect(await alert.textContent()).toContain(`version ${current.version + 1}`);
    expect((await stored('logs-explorer')).name).toBe('Changed elsewhere');
    await page.click('.save-problem button:has-text("Reload the saved dashboard")');
    await page.waitForFunction("document.querySelector('.dashboard h1')?.textContent === 'Changed elsewhere'", null, { timeout: WAIT_MS });
    expect(await page.$('.edit-bar')).toBeNull();
  }, 120_000);

  it('operates the time range picker, a variable picker and the links menu with the keyboard alone', async () => {
    await openDashboard('sluice-demo');
    await page.waitForSelector('.panel[data-panel-id=traffic] .links-button', { timeout: WAIT_MS });
    await page.focus('body');

    await tabTo('[data-testid=time-range]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.time-picker [role=dialog]');
    await page.keyboard.press('ArrowDown');
    expect(await focused('.quick-range')).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.time-picker [role=dialog]', { state: 'detached' });
    expect(await focused('[data-testid=time-range]')).toBe(true);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('.time-picker [role=dialog]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const chosen = (await page.evaluate("document.activeElement?.textContent ?? ''")) as string;
    await page.keyboard.press('Enter');
    await page.waitForSelector('.time-picker [role=dialog]', { state: 'detached' });
    expect(await focused('[data-testid=time-range]')).toBe(true);
    expect(new URL(page.url()).searchParams.get('from')).toBe(`now-${chosen.replace('Last ', '').trim()}`);

    await page.focus('body');
    await tabTo('#var-service');
    const before = await page.inputValue('#var-service');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => new URL(page.url()).searchParams.get('var-service')).not.toBe(before);

    await page.goto(`${srv.url}/dashboards/sluice-demo?from=now-15m&to=now`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.panel[data-panel-id=traffic] .links-button', { timeout: WAIT_MS });
    await page.focus('body');
    await tabTo('.panel[data-panel-id=traffic] .links-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.panel[data-panel-id=traffic] [role=menu]');
    expect(await focused('[role=menuitem]')).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.panel[data-panel-id=traffic] [role=menu]', { state: 'detached' });
    expect(await focused('.panel[data-panel-id=traffic] .links-button')).toBe(true);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('.panel[data-panel-id=traffic] [role=menu]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboards\/logs-explorer\?/);
    expect(new URL(page.url()).searchParams.get('from')).toBe('now-15m');
  }, 120_000);

  it('operates a multi-value variable picker with the keyboard alone', async () => {
    await openDashboard('service-overview');
    const picker = '.picker.variable button.picker-button';
    await page.waitForSelector(picker);
    await page.focus('body');
    await tabTo(picker);
    await page.keyboard.press('Enter');
    await page.waitForSelector('.picker.variable [role=listbox]');
    await page.keyboard.press('ArrowDown');
    expect(await focused('.picker.variable input[type=checkbox]')).toBe(true);
    await page.keyboard.press('ArrowDown');
    const url = page.url();
    await page.keyboard.press('Space');
    await expect.poll(() => page.url()).not.toBe(url);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.picker.variable [role=listbox]', { state: 'detached' });
    expect(await focused(picker)).toBe(true);
  }, 60_000);

  it('gives every button, field and menu item an accessible name', async () => {
    const cdp = await page.context().newCDPSession(page);
    const unnamed = async (where: string): Promise<string[]> => {
      const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string } }> };
      const roles = new Set(['button', 'textbox', 'combobox', 'checkbox', 'listbox', 'menuitem', 'searchbox', 'spinbutton', 'radio', 'slider', 'tab', 'link']);
      const controls = nodes.filter((n) => !n.ignored && roles.has(n.role?.value ?? ''));
      expect(controls.length, where).toBeGreaterThan(3);
      return controls.filter((n) => (n.name?.value ?? '').trim() === '').map((n) => `${where}: ${n.role?.value}`);
    };
    const missing: string[] = [];
    await page.goto(`${srv.url}/dashboards`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.dashboard-link');
    missing.push(...(await unnamed('dashboards page')));
    await page.click('button:has-text("Import from JSON")');
    missing.push(...(await unnamed('import dialog')));
    await page.keyboard.press('Escape');

    await openDashboard('service-overview');
    await page.click('.picker.variable button.picker-button');
    await page.click('[data-testid=time-range]');
    missing.push(...(await unnamed('dashboard with open pickers')));
    await page.keyboard.press('Escape');
    await startEditing();
    missing.push(...(await unnamed('edit mode')));
    await page.click('.edit-bar button:has-text("Add panel")');
    await page.waitForSelector('.panel-editor .cm-content');
    missing.push(...(await unnamed('panel editor')));
    // The label cards' form with a threshold row, and a link with a variable row.
    await page.selectOption('#panel-kind', 'label');
    await page.click('#label-thresholds button:has-text("Add threshold")');
    await page.click('.interlinks > button:has-text("Add link")');
    await page.click('#link-params-0 button:has-text("Add variable")');
    await page.waitForSelector('#link-params-0-key-0');
    missing.push(...(await unnamed('panel editor, label cards with a threshold and a link')));
    await page.keyboard.press('Escape');
    await page.click('.edit-bar button:has-text("Settings")');
    missing.push(...(await unnamed('settings')));
    await page.keyboard.press('Escape');
    await page.click('.edit-bar button:has-text("Cancel")');

    await page.goto(`${srv.url}/explore?lang=logql`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.query-editor .cm-content');
    missing.push(...(await unnamed('explore')));
    expect(missing).toEqual([]);
    // The check itself finds a control without a name.
    await page.evaluate("document.body.appendChild(document.createElement('button'))");
    expect(await unnamed('probe')).toEqual(['probe: button']);
  }, 120_000);

  it('edits a gauge, a bar chart, label cards with thresholds, a service graph and a link through their forms', async () => {
    await openDashboard('sluice-demo');
    const before = await stored('sluice-demo');
    await startEditing();
    const edit = async (id: string): Promise<void> => {
      await page.click(`.cell[data-cell="${id}"] button[aria-label="Edit ${before.spec.panels[id].title}"]`);
      await page.waitForSelector(`.kind-fields[data-kind="${before.spec.panels[id].kind}"]`);
    };
    const apply = async (): Promise<void> => {
      await page.click('.panel-editor button[type=submit]');
      await page.waitForSelector('.panel-editor', { state: 'detached', timeout: WAIT_MS });
    };

    // Gauge: the arc's maximum, the number format and the sparkline, each by its label.
    await edit('error-ratio');
    await page.getByLabel('Arc maximum').fill('25');
    await page.getByLabel('Decimal places').fill('1');
    await page.getByLabel('Sparkline', { exact: true }).check();
    await page.getByLabel('Sparkline color').fill('#ff7f0e');
    await apply();

    // Bar: reducer, one color and the X axis label.
    await edit('errors-by-status');
    await page.selectOption('#bar-reducer', 'max');
    await page.fill('#bar-color', '#123456');
    await page.fill('#bar-x-label', 'Time');
    await page.fill('#bar-y-label', '');
    await apply();

    // Label cards: card order, a threshold changed, one removed and one added.
    await edit('last-restart');
    expect(await page.$$eval('#label-thresholds [data-threshold-index]', (rows) => rows.length)).toBe(3);
    await page.selectOption('#label-sort', 'value-asc');
    await page.fill('#threshold-color-0', '#aa0000');
    await page.click('button[aria-label="Remove threshold 2"]');
    await page.click('#label-thresholds button:has-text("Add threshold")');
    await page.fill('#threshold-value-2', '7200');
    await page.fill('#threshold-color-2', '#0000ff');
    await page.getByLabel('Card color').fill('#888888');
    await apply();

    // Service graph: what the edges show and how far out.
    await edit('dependencies');
    await page.selectOption('#graph-metric', 'latency');
    await page.fill('#graph-max-hops', '4');
    await apply();

    // Links: the existing link renamed, and a new one that the server refuses until it has a target.
    await edit('traffic');
    await page.fill('#link-label-0', 'Logs for {{service_name}}');
    await page.click('.interlinks > button:has-text("Add link")');
    await page.fill('#link-label-1', 'Overview of {{service_name}}');
    await page.click('.panel-editor button[type=submit]');
    const issue = await page.waitForSelector('.panel-editor .issue[data-path="$.panels.traffic.interlinks[1].targetDashboardId"]', { timeout: WAIT_MS });
    expect(await issue.isVisible()).toBe(true);
    await page.fill('#link-target-1', 'service-overview');
    await page.fill('#link-required-1', 'service_name, route');
    await page.click('#link-params-1 button:has-text("Add variable")');
    await page.fill('#link-params-1-key-0', 'service');
    await page.fill('#link-params-1-value-0', 'service_name');
    await page.fill('#link-group-1', 'Services');
    await page.uncheck('#link-keep-time-1');
    await apply();
    await saveAndWait();

    const after = await stored('sluice-demo');
    expect(after.version).toBe(before.version + 1);
    const panels = after.spec.panels;
    expect(panels['error-ratio']).toEqual({ ...before.spec.panels['error-ratio'], max: 25, format: { unit: '%', decimalPlaces: 1 }, sparkline: true, sparklineColor: '#ff7f0e' });
    const { yAxisLabel: _cleared, ...barBefore } = before.spec.panels['errors-by-status'] as unknown as Record<string, unknown>;
    expect(panels['errors-by-status']).toEqual({ ...barBefore, reducer: 'max', color: '#123456', xAxisLabel: 'Time' });
    expect(panels['last-restart']).toEqual({
      ...before.spec.panels['last-restart'],
      sort: 'value-asc',
      color: '#888888',
      thresholds: [
        { value: 0, color: '#aa0000' },
        { value: 3600, color: '#2ca02c' },
        { value: 7200, color: '#0000ff' },
      ],
    });
    expect(panels.dependencies).toEqual({ ...before.spec.panels.dependencies, metric: 'latency', maxHops: 4 });
    expect(panels.traffic.interlinks).toEqual([
      { ...before.spec.panels.traffic.interlinks![0], label: 'Logs for {{service_name}}' },
      { label: 'Overview of {{service_name}}', targetDashboardId: 'service-overview', requiredLabels: ['service_name', 'route'], paramMap: { service: 'service_name' }, group: 'Services', keepTimeRange: false },
    ]);

    // The saved link is in the panel's menu, filled from a series, without the time range.
    await page.click('.panel[data-panel-id=traffic] .links-button', { timeout: WAIT_MS });
    const link = await page.waitForSelector('.panel[data-panel-id=traffic] [role=menuitem]:has-text("Overview of")');
    const href = new URL((await link.getAttribute('href'))!, srv.url);
    expect(href.pathname).toBe('/dashboards/service-overview');
    expect(href.searchParams.get('var-service')).toBeTruthy();
    expect(href.searchParams.has('from')).toBe(false);
  }, 180_000);

  it("edits a log panel's builder state in its form, and refuses map rows without a name or with a name twice", async () => {
    await openDashboard('logs-explorer');
    const before = await stored('logs-explorer');
    await startEditing();
    await page.click('.cell[data-cell=severity] button[aria-label="Edit Severity by service"]');
    await page.waitForSelector('.kind-fields[data-kind=log-events]');
    // The builder state is in the form, not in the JSON of other options.
    expect(await page.isChecked('#logs-builder')).toBe(true);
    expect(await page.inputValue('#panel-options')).not.toContain('logqlState');
    expect(await page.$$eval('#logs-builder-fields [data-filter-index]', (rows) => rows.length)).toBe(2);
    expect([await page.inputValue('#builder-tag-1'), await page.inputValue('#builder-op-1'), await page.inputValue('#builder-value-1')]).toEqual(['service_name', '=~', '$service']);
    await page.click('#logs-builder-fields button:has-text("Add filter")');
    await page.fill('#builder-tag-2', 'level');
    await page.selectOption('#builder-op-2', '=~');
    await page.fill('#builder-value-2', 'error|warn');
    await page.fill('#builder-group-by', 'level');
    await page.fill('#builder-window', '2m');
    await page.selectOption('#builder-aggregation', 'rate');
    // A filter without a label is refused at its input.
    await page.click('#logs-builder-fields button:has-text("Add filter")');
    await page.click('.panel-editor button[type=submit]');
    expect(await page.$eval('#builder-tag-3', (i) => (i as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect(await page.$('.panel-editor')).not.toBeNull();
    await page.click('button[aria-label="Remove filter 4"]');

    // A link variable with a value but no name is reported at its row, and Apply is refused.
    await page.click('.interlinks > button:has-text("Add link")');
    await page.fill('#link-label-0', 'Demo for {{service_name}}');
    await page.fill('#link-target-0', 'sluice-demo');
    await page.click('#link-params-0 button:has-text("Add variable")');
    await page.fill('#link-params-0-value-0', 'service_name');
    expect(await page.textContent('#link-params-0 .field-error')).toContain('Variable is empty');
    expect(await page.getAttribute('#link-params-0-key-0', 'aria-invalid')).toBe('true');
    await page.click('.panel-editor button[type=submit]');
    expect(await page.$eval('#link-params-0-key-0', (i) => (i as unknown as { validity: { customError: boolean } }).validity.customError)).toBe(true);
    expect(await page.$('.panel-editor')).not.toBeNull();
    await page.fill('#link-params-0-key-0', 'service');
    expect(await page.$('#link-params-0 .field-error')).toBeNull();
    // The same name twice is reported too.
    await page.click('#link-params-0 button:has-text("Add variable")');
    await page.fill('#link-params-0-key-1', 'service');
    await page.fill('#link-params-0-value-1', 'other_label');
    expect(await page.textContent('#link-params-0 .field-error')).toContain('"service" is given twice');
    await page.click('.panel-editor button[type=submit]');
    expect(await page.$('.panel-editor')).not.toBeNull();
    await page.click('button[aria-label="Remove variable service"] >> nth=1');
    await page.click('.panel-editor button[type=submit]');
    await page.waitForSelector('.panel-editor', { state: 'detached', timeout: WAIT_MS });
    await saveAndWait();

    const after = await stored('logs-explorer');
    expect(after.version).toBe(before.version + 1);
    const { logqlState: _old, ...unchanged } = before.spec.panels.severity as unknown as Record<string, unknown>;
    expect(after.spec.panels.severity).toEqual({
      ...unchanged,
      logqlState: {
        filters: [
          { tag: 'k8s_namespace_name', op: '=', value: '$namespace' },
          { tag: 'service_name', op: '=~', value: '$service' },
          { tag: 'level', op: '=~', value: 'error|warn' },
        ],
        groupBy: ['level'],
        window: '2m',
        aggregation: 'rate',
      },
      interlinks: [{ label: 'Demo for {{service_name}}', targetDashboardId: 'sluice-demo', requiredLabels: [], paramMap: { service: 'service_name' } }],
    });
  }, 120_000);
});
