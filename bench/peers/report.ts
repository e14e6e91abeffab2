import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeQueryChart } from './chart.js';
import type { Agreement } from './compareAnswers.js';
import type { ConcurrencyLevelResult } from './concurrencySuite.js';
import type { DatasetSummary } from './dataset.js';
import type { LogsSuiteResult } from './logsSuite.js';
import type { MachineInfo } from './machine.js';
import type { QueryCaseResult } from './querySuite.js';

/**
 * The outputs of one run: a JSON file with every timing (the record), and a Markdown report
 * (what a person reads), both under bench/results/ with the run's time and scale in the name.
 */
export interface RunReport {
  startedAt: string;
  finishedAt: string;
  scale: string;
  repetitions: number;
  /** quickRepetitions is how many runs a query case that every system answered within quickCaseMs got. */
  quickRepetitions: number;
  quickCaseMs: number;
  machine: MachineInfo;
  versions: Record<string, string>;
  dataset: DatasetSummary;
  load: Record<string, unknown>;
  sampleCounts: Record<string, number>;
  queries: QueryCaseResult[];
  concurrency: ConcurrencyLevelResult[];
  suites: Record<string, unknown>;
}

export interface WrittenReport {
  json: string;
  markdown: string;
  /** The chart, when the query suite ran. */
  chart?: string;
  baseName: string;
}

export function reportBaseName(report: RunReport): string {
  return `${report.startedAt.replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z')}-${report.scale}`;
}

export function writeReport(report: RunReport, outDir: string): WrittenReport {
  mkdirSync(outDir, { recursive: true });
  const baseName = reportBaseName(report);
  const json = path.join(outDir, `${baseName}.json`);
  const markdown = path.join(outDir, `${baseName}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  let chart: string | undefined;
  if (report.queries.length > 0) {
    chart = path.join(outDir, `${baseName}.png`);
    writeQueryChart(report.queries, `Median query latency, ${report.scale} scale (${report.dataset.samples.toLocaleString('en-US')} samples)`, chart);
  }
  writeFileSync(markdown, renderMarkdown(report, chart === undefined ? undefined : path.basename(chart)));
  return { json, markdown, baseName, chart };
}

function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function ratio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(2)}×`;
}

function agreementText(a: Agreement | undefined): string {
  if (a === undefined) return '–';
  return a.mismatches === 0 ? `same (${a.points})` : `${a.mismatches}/${a.points} differ`;
}

/** queryTable is the Markdown table of the query suite, also used by the README. */
export function queryTable(queries: readonly QueryCaseResult[]): string {
  const lines = [
    '| Query | Window | Sluice ms (p90) | Prometheus ms (p90) | VictoriaMetrics ms (p90) | Sluice/Prometheus | Sluice/VictoriaMetrics | Sluice = Prometheus | VictoriaMetrics = Prometheus |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const q of queries) {
    const cell = (name: 'sluice' | 'prometheus' | 'victoria'): string =>
      q.failures?.[name] !== undefined ? 'failed' : `${ms(q.systems[name]?.medianMs)} (${ms(q.systems[name]?.p90Ms)})`;
    lines.push(`| ${q.name} | ${q.window} | ${cell('sluice')} | ${cell('prometheus')} | ${cell('victoria')} | ${ratio(q.ratios.prometheus)} | ${ratio(q.ratios.victoria)} | ${agreementText(q.agreement.sluice)} | ${agreementText(q.agreement.victoria)} |`);
  }
  return lines.join('\n');
}

const SYSTEM_TITLES: Readonly<Record<string, string>> = {
  sluice: 'Sluice',
  'sluice-compact': 'Sluice (compact SSE)',
  'sluice-prom': 'Sluice (Prometheus API)',
  'sluice-cache': 'Sluice (results cache)',
  'sluice-baseline': 'Sluice (baseline build)',
  prometheus: 'Prometheus',
  victoria: 'VictoriaMetrics',
};

/**
 * prometheusApiSection shows the same queries asked of Sluice through its Prometheus-compatible
 * API (one JSON body) against its SSE API (one event per point), and against the peers.
 */
function prometheusApiSection(queries: readonly QueryCaseResult[]): string[] {
  const asked = queries.filter((q) => q.prometheusApiRatios !== undefined);
  if (asked.length === 0) return [];
  const lines = [
    '### Sluice through its Prometheus API',
    '',
    'The same queries asked of Sluice at `/prometheus/api/v1/query(_range)`, read to the end of the JSON body. A ratio to SSE below 1 means the JSON answer was faster than the SSE stream.',
    '',
    '| Query | Window | Prometheus API ms (p90) | bytes, Prometheus API / SSE | Prometheus API / SSE | Prometheus API / Prometheus | Prometheus API / VictoriaMetrics | Answer = Prometheus |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const q of asked) {
    const api = q.systems['sluice-prom'];
    const sse = q.systems.sluice;
    const bytes = api !== undefined && sse !== undefined ? `${api.bytes.toLocaleString('en-US')} / ${sse.bytes.toLocaleString('en-US')}` : '–';
    const r = q.prometheusApiRatios!;
    lines.push(`| ${q.name} | ${q.window} | ${ms(api?.medianMs)} (${ms(api?.p90Ms)}) | ${bytes} | ${ratio(r.sse)} | ${ratio(r.prometheus)} | ${ratio(r.victoria)} | ${agreementText(q.agreement['sluice-prom'])} |`);
  }
  const mean = (pick: (r: NonNullable<QueryCaseResult['prometheusApiRatios']>) => number | undefined): string => ratio(geometricMean(asked.map((q) => pick(q.prometheusApiRatios!) ?? Number.NaN)));
  lines.push('', `Geometric means: Prometheus API/SSE ${mean((r) => r.sse)}, Prometheus API/Prometheus ${mean((r) => r.prometheus)}, Prometheus API/VictoriaMetrics ${mean((r) => r.victoria)}.`, '');
  return lines;
}

/**
 * compactSection shows the same queries asked of Sluice's SSE API for the compact format
 * (series once, points as columns) against the default SSE events, and against the peers.
 */
function compactSection(queries: readonly QueryCaseResult[]): string[] {
  const asked = queries.filter((q) => q.compactRatios !== undefined);
  if (asked.length === 0) return [];
  const lines = [
    '### Sluice with the compact SSE format',
    '',
    'The same queries asked of `/api/v1/metrics/query` with `format: "compact"` and `columns: "float64"` and a browser\'s Accept-Encoding (as the web UI asks), read to `done`. A ratio to SSE below 1 means the compact stream was faster than the default one.',
    '',
    '| Query | Window | Compact ms (p90) | bytes, compact / SSE | Compact / SSE | Compact / Prometheus | Compact / VictoriaMetrics | Answer = Prometheus |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const q of asked) {
    const compact = q.systems['sluice-compact'];
    const sse = q.systems.sluice;
    const bytes = compact !== undefined && sse !== undefined ? `${compact.bytes.toLocaleString('en-US')} / ${sse.bytes.toLocaleString('en-US')}` : '–';
    const r = q.compactRatios!;
    lines.push(`| ${q.name} | ${q.window} | ${ms(compact?.medianMs)} (${ms(compact?.p90Ms)}) | ${bytes} | ${ratio(r.sse)} | ${ratio(r.prometheus)} | ${ratio(r.victoria)} | ${agreementText(q.agreement['sluice-compact'])} |`);
  }
  const mean = (pick: (r: NonNullable<QueryCaseResult['compactRatios']>) => number | undefined): string => ratio(geometricMean(asked.map((q) => pick(q.compactRatios!) ?? Number.NaN)));
  lines.push('', `Geometric means: compact/SSE ${mean((r) => r.sse)}, compact/Prometheus ${mean((r) => r.prometheus)}, compact/VictoriaMetrics ${mean((r) => r.victoria)}.`, '');
  return lines;
}

/** concurrencyTable is the Markdown table of the concurrency suite. */
export function concurrencyTable(levels: readonly ConcurrencyLevelResult[]): string {
  const lines = ["| Viewers | System | Queries/s | p50 ms | p99 ms | Slow readers p50 ms | Errors | Unfinished | CPU ms/query | Viewers' CPU ms/query | Peak RSS MiB |", '|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const l of levels) {
    // Reports written before slow readers were counted apart have neither field.
    const slow = l.slowReaderP50Ms === undefined || !Number.isFinite(l.slowReaderP50Ms) ? '–' : ms(l.slowReaderP50Ms);
    lines.push(`| ${l.viewers} | ${SYSTEM_TITLES[l.system]} | ${l.queriesPerSecond.toFixed(1)} | ${ms(l.p50Ms)} | ${ms(l.p99Ms)} | ${slow} | ${l.errors} | ${l.unfinished ?? '–'} | ${ms(l.cpuSecondsPerQuery * 1000)} | ${l.clientCpuSecondsPerQuery === undefined ? '–' : ms(l.clientCpuSecondsPerQuery * 1000)} | ${l.peakRssMiB} |`);
  }
  return lines.join('\n');
}

function geometricMean(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  return finite.length === 0 ? Number.NaN : Math.exp(finite.reduce((s, v) => s + Math.log(v), 0) / finite.length);
}

/** IngestSuiteResult is what main records about ingest rates and disk use. */
export interface IngestSuiteResult {
  sluiceRemoteWriteSamplesPerSecond: number;
  sluiceLokiPushLinesPerSecond: number;
  victoriaImportSamplesPerSecond: number;
  sluiceBytesPerSample: number;
  sluiceBytesPerLogLine: number;
  sluiceWalBytesPerSampleOrLine: number;
  prometheusBytesPerSample: number;
  victoriaBytesPerSample: number;
}

function logsSection(logs: LogsSuiteResult): string[] {
  const lines = [
    '## Logs (Sluice only; grep as the scan-rate reference)',
    '',
    `${(logs.rawBytes / 2 ** 20).toFixed(1)} MiB of log lines. \`grep -F -c\` over the same bytes: ${logs.grep.matches} matches in ${ms(logs.grep.medianMs)} ms (${logs.grep.scanMiBPerSecond.toFixed(0)} MiB/s). Sluice counted ${logs.sluiceFilterCount} matching lines and ${logs.sluiceTotalCount} of ${logs.expectedTotal} lines in all.`,
    '',
    '| Query | Cold ms | Warm ms (p90) | MiB/s of input, warm |',
    '|---|---|---|---|',
  ];
  for (const q of logs.queries) lines.push(`| ${q.name} | ${ms(q.coldMs)} | ${ms(q.warmMedianMs)} (${ms(q.warmP90Ms)}) | ${q.scanMiBPerSecond.toFixed(1)} |`);
  lines.push('');
  return lines;
}

function ingestSection(ingest: IngestSuiteResult): string[] {
  const rate = (x: number): string => Math.round(x).toLocaleString('en-US');
  const size = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');
  return [
    '## Ingest and disk',
    '',
    '| | Sluice | Prometheus | VictoriaMetrics |',
    '|---|---|---|---|',
    `| samples/s written | ${rate(ingest.sluiceRemoteWriteSamplesPerSecond)} (remote write) | – (promtool blocks) | ${rate(ingest.victoriaImportSamplesPerSecond)} (import API) |`,
    `| log lines/s written | ${rate(ingest.sluiceLokiPushLinesPerSecond)} (Loki push) | – | – |`,
    `| bytes on disk per sample | ${size(ingest.sluiceBytesPerSample)} (segments) | ${size(ingest.prometheusBytesPerSample)} | ${size(ingest.victoriaBytesPerSample)} |`,
    `| bytes on disk per log line | ${size(ingest.sluiceBytesPerLogLine)} (segments) | – | – |`,
    `| Sluice write-ahead log, bytes per sample or line | ${size(ingest.sluiceWalBytesPerSampleOrLine)} | | |`,
    '',
  ];
}

export function renderMarkdown(report: RunReport, chartFile?: string): string {
  const m = report.machine;
  const d = report.dataset;
  const sluiceDiffers = report.queries.filter((q) => (['sluice', 'sluice-compact', 'sluice-prom'] as const).some((name) => (q.agreement[name]?.mismatches ?? 0) > 0));
  const out: string[] = [
    `# Sluice against Prometheus and VictoriaMetrics (${report.scale})`,
    '',
    `Run ${report.startedAt} to ${report.finishedAt}. Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; load average at start ${m.loadAverageAtStart.join(' / ')}.`,
    `Versions: ${Object.entries(report.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    '',
    `Dataset: ${d.counterSeries} counter and ${d.histogramSeries} histogram bucket series, ${d.steps} scrapes at ${d.scrapeIntervalS} s (${d.samples} samples), ${d.logLines} log lines, seed ${d.seed}. Every system held all ${d.samples} samples before timing (${Object.entries(report.sampleCounts).map(([k, v]) => `${k} ${v}`).join(', ')}).`,
    '',
    `## Queries`,
    '',
    `Median and p90 of ${report.repetitions} interleaved runs after one warm-up (${report.quickRepetitions} for a case every system answered within ${report.quickCaseMs} ms each time), each read to the end of the answer (Sluice: its SSE stream to \`done\`). A ratio below 1 means Sluice was faster. Answers are compared with Prometheus' to ${'1e-6'} relative; VictoriaMetrics computes rate() without Prometheus' extrapolation, so its differences are reported, not failures.`,
    '',
    queryTable(report.queries),
    '',
    ...compactSection(report.queries),
    ...prometheusApiSection(report.queries),
    ...(chartFile === undefined ? [] : [`![Median query latency per system](${chartFile})`, '']),
    `Geometric mean of the ratios: Sluice/Prometheus ${ratio(geometricMean(report.queries.map((q) => q.ratios.prometheus ?? Number.NaN)))}, Sluice/VictoriaMetrics ${ratio(geometricMean(report.queries.map((q) => q.ratios.victoria ?? Number.NaN)))}.`,
    '',
  ];
  if (sluiceDiffers.length > 0) {
    out.push('**Sluice answered differently from Prometheus:**', '');
    for (const q of sluiceDiffers) {
      for (const [name, wire] of [['sluice', 'SSE'], ['sluice-compact', 'compact SSE'], ['sluice-prom', 'Prometheus API']] as const) {
        const agreement = q.agreement[name];
        if (agreement !== undefined && agreement.mismatches > 0) out.push(`- ${q.id} (${wire}): ${agreement.examples.join('; ')}`);
      }
    }
    out.push('');
  }
  const failedQueries = report.queries.filter((q) => Object.keys(q.failures ?? {}).length > 0);
  if (failedQueries.length > 0) {
    out.push('**Queries that failed** (each system that failed a case was not asked it again; the case has no ratio for it):', '');
    for (const q of failedQueries) {
      for (const [name, message] of Object.entries(q.failures)) out.push(`- ${q.id}, ${name}: ${message.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
    out.push('');
  }
  if (report.concurrency.length > 0) {
    out.push(
      '## Concurrent dashboard viewers',
      '',
      'Each viewer refreshes a 10-panel dashboard (range queries over the shortest window) in a loop, its panels in parallel; every tenth viewer reads its answers slowly (a 20 ms pause per chunk read). One system at a time, for a fixed window: queries/s counts answers read in full within it, requests still open when it closes are abandoned (Unfinished), and p50/p99 are the full-speed viewers\' (the slow readers\' median is its own column). CPU is the system process\'s own (all threads) over the window per completed query, the viewers\' CPU that of the load generator (which runs on the same cores: requests, reading and decompressing answers), RSS the system\'s peak while the level ran. Sluice is measured once per client format, one after the other on the same process: its spec events (each point one JSON event), the compact SSE format its web UI reads (float64 columns, with the Accept-Encoding a browser sends, so brotli), and its Prometheus API, which Grafana reads. Every system runs without a results cache; "Sluice (results cache)" rows, when present, are Sluice restarted with its cache on, for comparison with its own rows only.',
      '',
      concurrencyTable(report.concurrency),
      '',
    );
    const failed = report.concurrency.filter((l) => l.firstError !== undefined);
    for (const l of failed) out.push(`- ${SYSTEM_TITLES[l.system]}, ${l.viewers} viewers, first error: ${l.firstError}`);
    if (failed.length > 0) out.push('');
  }
  const logs = report.suites.logs as LogsSuiteResult | undefined;
  if (logs !== undefined) out.push(...logsSection(logs));
  const ingest = report.suites.ingest as IngestSuiteResult | undefined;
  if (ingest !== undefined) out.push(...ingestSection(ingest));
  out.push('## Load details', '', '```json', JSON.stringify(report.load, null, 2), '```', '');
  return out.join('\n');
}
