import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { loadExampleDashboards } from '../../src/gen/exampleDashboards.js';
import { Generator } from '../../src/gen/generator.js';
import { backfill, Sender } from '../../src/gen/sender.js';
import { startService, type RunningService } from '../../src/service.js';
import { mainThreadBreakdown, type Breakdown } from './mainThread.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * How long the demo dashboard (14 panels over 6 h) takes to draw in Chromium, from navigation
 * to the first panel drawn and to every panel drawn, read from the app's own User Timing marks
 * (`panel-drawn:<id>`, see src/web/lib/marks.ts). Cold loads use a fresh browser context (no
 * cache); warm loads reuse one whose cache holds the immutable assets. Beside the totals it
 * reports where the time goes: the script's arrival and start, the spec's arrival, long tasks
 * on the main thread, the bytes of JavaScript the page fetched, and how many time charts were
 * built against how many the page shows at the end (the difference is charts rebuilt).
 *
 * SLUICE_BENCH_WEB_BASELINE names another build of the app (a dist/web directory, e.g. of the
 * previous commit) to measure in the same run over the same data; the ratios compare against it.
 * SLUICE_BENCH_WEB_RUNS sets the navigations per kind (default 7), spread over
 * SLUICE_BENCH_WEB_ROUNDS alternating rounds (default 2). After the timed loads, a few
 * warm loads run under a Chromium trace, whose main-thread events are summed by kind of work
 * (script, compiling, GC, style and layout, paint) as self time (./mainThread.ts): every
 * moment counts once, for the innermost event, so the parts add up to the busy time.
 * Needs Debian's chromium.
 *
 * A baseline build of an earlier commit (70e3166 has the marks and nothing after them):
 *   git checkout 70e3166 -- src/web && npx vite build --config src/web/vite.config.ts
 *   rm -rf /tmp/web-base && cp -r dist/web /tmp/web-base && git checkout HEAD -- src/web && npm run build
 *   SLUICE_BENCH_WEB_BASELINE=/tmp/web-base npm run bench -- web/dashboard
 */

const CHROMIUM = '/usr/bin/chromium';
const DASHBOARD = 'sluice-demo';
const SPAN_MS = 6 * 3_600_000;
const DRAW_TIMEOUT_MS = 60_000;
/** TRACED_LOADS are the warm loads per round traced for the main thread's breakdown. */
const TRACED_LOADS = 1;

interface Load {
  first: number;
  all: number;
  appStart: number;
  specLoaded: number;
  scriptEnd: number;
  longTaskMs: number;
  /** chartBuilds counts the time charts built during the load; charts those on the page at the end. */
  chartBuilds: number;
  charts: number;
  scriptBytes: number;
  panels: number;
  queries: number;
  firstQueryStart: number;
  queryWaitMs: number;
  queryServeMs: number;
}

interface Variant {
  name: string;
  webDir: string | undefined;
}

/**
 * LONG_TASKS is injected before the app runs, so long tasks from the very start are summed. It
 * also counts the charts built: uPlot puts its root element into the chart's host, which is on
 * the page by then, so each build (or rebuild) is one added node of class uplot. Roots inside a
 * larger added subtree are not counted: that subtree was put in after the chart was built.
 */
const LONG_TASKS = `window.__longTaskMs = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTaskMs += e.duration; }).observe({ type: 'longtask', buffered: true });
window.__chartsBuilt = 0;
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) if (n instanceof Element && n.classList.contains('uplot')) window.__chartsBuilt++;
}).observe(document, { childList: true, subtree: true });`;

/** READ_LOAD is browser-side source: the page's marks and resources once every panel is drawn. */
const READ_LOAD = `(() => {
  const marks = performance.getEntriesByType('mark');
  const drawn = marks.filter((m) => m.name.startsWith('panel-drawn:')).map((m) => m.startTime);
  const at = (name) => marks.find((m) => m.name === name)?.startTime ?? NaN;
  const queries = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('/query') || r.name.endsWith('/query/batch'));
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] ?? NaN; };
  const scripts = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
  return {
    first: Math.min(...drawn),
    all: Math.max(...drawn),
    appStart: at('app-start'),
    specLoaded: at('dashboard-loaded'),
    scriptEnd: Math.max(0, ...scripts.map((r) => r.responseEnd)),
    longTaskMs: window.__longTaskMs ?? 0,
    chartBuilds: window.__chartsBuilt ?? 0,
    charts: document.querySelectorAll('.uplot').length,
    scriptBytes: scripts.reduce((n, r) => n + r.encodedBodySize, 0),
    panels: drawn.length,
    queries: queries.length,
    firstQueryStart: Math.min(...queries.map((r) => r.startTime)),
    queryWaitMs: median(queries.map((r) => r.requestStart - r.startTime)),
    queryServeMs: median(queries.map((r) => r.responseEnd - r.requestStart)),
  };
})()`;

const ALL_DRAWN = `performance.getEntriesByName('dashboard-loaded').length > 0 && document.querySelectorAll('.panel').length > 0 &&
  performance.getEntriesByType('mark').filter((m) => m.name.startsWith('panel-drawn:')).length >= document.querySelectorAll('.panel').length`;

async function provision(dataDir: string): Promise<{ orgId: string; key: string }> {
  const service = await startService(loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' }), { logDestination: new DiscardLog(), announce: () => undefined });
  try {
    const admin = new KeyAdmin(service.store);
    const org = await admin.createOrg('bench-web');
    const { key } = await admin.createKey(org.id, 'bench');
    const url = `http://127.0.0.1:${service.port}`;
    const now = Date.now();
    await backfill(new Generator({ seed: 42 }), new Sender(url, key), now - SPAN_MS, now);
    await loadExampleDashboards(url, key, org.id);
    return { orgId: org.id, key };
  } finally {
    await service.stop();
  }
}

async function withService<T>(dataDir: string, webDir: string | undefined, body: (url: string) => Promise<T>): Promise<T> {
  const service: RunningService = await startService(loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' }), {
    logDestination: new DiscardLog(),
    announce: () => undefined,
    webDir,
  });
  try {
    return await body(`http://127.0.0.1:${service.port}`);
  } finally {
    await service.stop();
  }
}

async function signedInContext(browser: Browser, url: string, key: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(LONG_TASKS);
  await context.addCookies([{ name: 'api_key', value: key, url }]);
  return context;
}

async function loadOnce(context: BrowserContext, url: string): Promise<Load> {
  const page = await context.newPage();
  try {
    await page.goto(`${url}/dashboards/${DASHBOARD}`, { waitUntil: 'commit' });
    await page.waitForFunction(ALL_DRAWN, null, { timeout: DRAW_TIMEOUT_MS, polling: 50 });
    return (await page.evaluate(READ_LOAD)) as Load;
  } finally {
    await page.close();
  }
}

/** traceOnce loads the dashboard once with a Chromium trace running and breaks down the main thread's time. */
async function traceOnce(browser: Browser, context: BrowserContext, url: string): Promise<Breakdown> {
  const page = await context.newPage();
  try {
    await browser.startTracing(page, { categories: ['devtools.timeline', 'v8', 'disabled-by-default-devtools.timeline'] });
    await page.goto(`${url}/dashboards/${DASHBOARD}`, { waitUntil: 'commit' });
    await page.waitForFunction(ALL_DRAWN, null, { timeout: DRAW_TIMEOUT_MS, polling: 50 });
    return mainThreadBreakdown(await browser.stopTracing());
  } finally {
    await page.close();
  }
}

async function measure(browser: Browser, url: string, key: string, runs: number): Promise<{ cold: Load[]; warm: Load[]; traces: Breakdown[] }> {
  // One unmeasured load warms the server's caches (segments, compiled queries) for both kinds.
  const warmup = await signedInContext(browser, url, key);
  await loadOnce(warmup, url);
  await warmup.close();
  const cold: Load[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await signedInContext(browser, url, key);
    cold.push(await loadOnce(context, url));
    await context.close();
  }
  const context = await signedInContext(browser, url, key);
  await loadOnce(context, url);
  const warm: Load[] = [];
  for (let i = 0; i < runs; i++) warm.push(await loadOnce(context, url));
  // Traced apart from the timed loads: tracing slows the page down.
  const traces: Breakdown[] = [];
  for (let i = 0; i < TRACED_LOADS; i++) {
    try {
      traces.push(await traceOnce(browser, context, url));
    } catch (err) {
      process.stderr.write(`trace skipped: ${String(err)}\n`);
    }
  }
  await context.close();
  return { cold, warm, traces };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];
}

const median = (values: number[]): number => quantile(values, 0.5);
const ms = (v: number): string => `${Math.round(v)} ms`;

function describe(loads: Load[]): Record<string, number> {
  const pick = (f: (l: Load) => number): number[] => loads.map(f);
  return {
    firstMedian: median(pick((l) => l.first)),
    firstP90: quantile(pick((l) => l.first), 0.9),
    allMedian: median(pick((l) => l.all)),
    allP90: quantile(pick((l) => l.all), 0.9),
    scriptEnd: median(pick((l) => l.scriptEnd)),
    appStart: median(pick((l) => l.appStart)),
    specLoaded: median(pick((l) => l.specLoaded)),
    longTaskMs: median(pick((l) => l.longTaskMs)),
    chartBuilds: median(pick((l) => l.chartBuilds)),
    charts: median(pick((l) => l.charts)),
    scriptKiB: median(pick((l) => l.scriptBytes)) / 1024,
    panels: median(pick((l) => l.panels)),
    queries: median(pick((l) => l.queries)),
    firstQueryStart: median(pick((l) => l.firstQueryStart)),
    queryWaitMs: median(pick((l) => l.queryWaitMs)),
    queryServeMs: median(pick((l) => l.queryServeMs)),
  };
}

export async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    process.stdout.write(`skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`);
    return;
  }
  const runs = Number(process.env.SLUICE_BENCH_WEB_RUNS ?? 7);
  const baseline = process.env.SLUICE_BENCH_WEB_BASELINE;
  const variants: Variant[] = [...(baseline ? [{ name: 'baseline', webDir: baseline }] : []), { name: 'current', webDir: undefined }];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-web-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
  try {
    const { key } = await provision(dataDir);
    const results: Record<string, Record<string, Record<string, number>>> = {};
    // Rounds in alternating order even out drift (the data's age, the machine's load); on a
    // machine whose load changes by the minute, more and shorter rounds even out more.
    const roundCount = baseline ? Math.max(2, Number(process.env.SLUICE_BENCH_WEB_ROUNDS ?? 2)) : 1;
    const rounds = Array.from({ length: roundCount }, (_, i) => (i % 2 === 0 ? variants : [...variants].reverse()));
    const collected = new Map<string, { cold: Load[]; warm: Load[]; traces: Breakdown[] }>();
    for (const round of rounds) {
      for (const v of round) {
        const got = await withService(dataDir, v.webDir, (url) => measure(browser, url, key, Math.ceil(runs / rounds.length)));
        const into = collected.get(v.name) ?? { cold: [], warm: [], traces: [] };
        into.cold.push(...got.cold);
        into.warm.push(...got.warm);
        into.traces.push(...got.traces);
        collected.set(v.name, into);
      }
    }
    for (const [name, loads] of collected) results[name] = { cold: describe(loads.cold), warm: describe(loads.warm) };

    process.stdout.write(`demo dashboard, ${SPAN_MS / 3_600_000} h, navigations per kind: ${collected.get('current')!.cold.length}\n\n`);
    process.stdout.write('| build | load | first panel (median / p90) | all panels (median / p90) | script loaded | app start | spec loaded | long tasks | JS KiB | panels | queries | first query sent | query queued / served (median) | charts built / shown |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n');
    for (const [name, byKind] of Object.entries(results)) {
      for (const [kind, d] of Object.entries(byKind)) {
        process.stdout.write(
          `| ${name} | ${kind} | ${ms(d.firstMedian)} / ${ms(d.firstP90)} | ${ms(d.allMedian)} / ${ms(d.allP90)} | ${ms(d.scriptEnd)} | ${ms(d.appStart)} | ${ms(d.specLoaded)} | ${ms(d.longTaskMs)} | ${Math.round(d.scriptKiB)} | ${d.panels} | ${d.queries} | ${ms(d.firstQueryStart)} | ${ms(d.queryWaitMs)} / ${ms(d.queryServeMs)} | ${d.chartBuilds} / ${d.charts} |\n`,
        );
      }
    }
    if (results.baseline) {
      process.stdout.write('\ncurrent / baseline (median; below 1 is faster):\n');
      for (const kind of ['cold', 'warm']) {
        const c = results.current[kind];
        const b = results.baseline[kind];
        process.stdout.write(`  ${kind}: first panel ${(c.firstMedian / b.firstMedian).toFixed(2)}, all panels ${(c.allMedian / b.allMedian).toFixed(2)}, app start ${(c.appStart / b.appStart).toFixed(2)}, charts built ${(c.chartBuilds / b.chartBuilds).toFixed(2)}, JS bytes ${(c.scriptKiB / b.scriptKiB).toFixed(2)}\n`);
      }
    }
    // Where the main thread's time goes in a warm load: self time per kind of work, as the mean
    // of the traced loads (means of parts add up to the mean of their sum; medians would not).
    const buckets = [...new Set([...collected.values()].flatMap((c) => c.traces.flatMap((t) => Object.keys(t.buckets))))].sort();
    const names = [...collected.keys()];
    const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
    process.stdout.write(`\nmain thread of a warm load, self time (mean of ${collected.get('current')!.traces.length} traced loads)\n\n| work | ${names.join(' | ')} |\n|---|${names.map(() => '---|').join('')}\n`);
    for (const bucket of buckets) {
      process.stdout.write(`| ${bucket} | ${names.map((n) => ms(mean(collected.get(n)!.traces.map((t) => t.buckets[bucket] ?? 0)))).join(' | ')} |\n`);
    }
    process.stdout.write(`| busy (the sum) | ${names.map((n) => ms(mean(collected.get(n)!.traces.map((t) => t.busy)))).join(' | ')} |\n`);
    process.stdout.write(`\n${JSON.stringify(results)}\n`);
  } finally {
    await browser.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
