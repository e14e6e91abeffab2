import { DrainMiner, type LogPattern, type RawRow, type SeriesColumns } from '../../../../engine/index.js';
import { listServices } from '../../../catalog/services.js';
import { instantWindow, type QueryWindow } from '../../../query/timeRange.js';
import { textResult, type CallContext, type JsonSchema, type ToolSpec } from '../../driver.js';
import { BudgetedLines, budgetOf, clip, csvRow, formatDuration, formatNumber, isoTime } from '../../format.js';
import type { TelemetryAccess } from './access.js';
import { END, MAX_TOKENS, READ_ONLY, START } from './schemaParts.js';

/**
 * Investigation tools answer the first questions of an incident without reading raw lines:
 * which services are failing (error log rate and 5xx rate per service, with their top error
 * messages), and what kinds of lines a selector holds (templates mined with Drain, with counts
 * over time).
 */

/** ERROR_LEVELS are the `level` values counted as errors (lowercase severities, as ingestion writes them). */
const ERROR_LEVELS = 'error|fatal|critical|crit|err|panic|emerg|alert';

/** STATUS_LABELS are the label names HTTP metrics carry the response status in, most common first. */
const STATUS_LABELS = ['code', 'status_code', 'status', 'http_status_code', 'http_response_status_code'];

const SERVICE_NAME = /^[A-Za-z0-9_.:/-]+$/;

/** sparkline draws bucket counts as eight-level blocks, so a model sees the shape of a burst at a glance. */
function sparkline(buckets: readonly number[]): string {
  const blocks = '▁▂▃▄▅▆▇█';
  const max = Math.max(...buckets, 0);
  if (max === 0) return blocks[0].repeat(buckets.length);
  return buckets.map((n) => (n === 0 ? ' ' : blocks[Math.min(7, Math.floor((n / max) * 7.999))])).join('');
}

function mine(rows: readonly RawRow[], window: QueryWindow, buckets: number): LogPattern[] {
  const miner = new DrainMiner({ timeBuckets: { startMs: window.startMs, endMs: window.endMs, count: buckets } });
  for (const row of rows) miner.add(row.line ?? row.tags.message ?? '', Number(row.timestampNs / 1_000_000n));
  return miner.patterns();
}

/** lastValueBy maps each series' grouping label to its last finite value. */
function lastValueBy(series: readonly SeriesColumns[], key: (labels: Record<string, string>) => string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) {
    const name = key(s.labels);
    if (name === undefined) continue;
    for (let i = s.values.length - 1; i >= 0; i--) {
      if (Number.isFinite(s.values[i])) {
        out.set(name, (out.get(name) ?? 0) + s.values[i]);
        break;
      }
    }
  }
  return out;
}

/** findStatusMetric picks the request counter with a status label: http_requests_total first, then any *_requests_total or *_count carrying one. */
function findStatusMetric(access: TelemetryAccess, org: string, window: QueryWindow): { metric: string; label: string } | undefined {
  const candidates = new Map<string, string>();
  access.storage.metricLabelSets(org).forEachLabelSet([], window.startMs, window.endMs, (labels) => {
    const name = labels.__name__;
    if (name === undefined || candidates.has(name) || !/(_requests_total|_requests_count|_request_duration_seconds_count|_duration_seconds_count|_total)$/.test(name)) return true;
    const label = STATUS_LABELS.find((l) => labels[l] !== undefined && /^\d{3}$/.test(labels[l]));
    if (label) candidates.set(name, label);
    return candidates.size < 50;
  });
  const ranked = [...candidates.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return ranked.length === 0 ? undefined : { metric: ranked[0], label: candidates.get(ranked[0])! };
}

function rank(name: string): number {
  if (name === 'http_requests_total') return 0;
  if (/^http_server_request/.test(name)) return 1;
  if (/requests_total$/.test(name)) return 2;
  return 3;
}

const serviceOf = (labels: Record<string, string>): string | undefined => labels.service_name ?? labels.job;

async function errorOverview(access: TelemetryAccess, args: Record<string, unknown>, ctx: CallContext) {
  const window = access.window(args, 'now-1h');
  const seconds = Math.max(1, (window.endMs - window.startMs) / 1000);
  const range = formatDuration(window.endMs - window.startMs);
  const only = typeof args.service === 'string' && args.service !== '' ? args.service : undefined;
  const scope = only === undefined ? 'service_name=~".+"' : `service_name=${JSON.stringify(only)}`;
  // Each query runs once, at the end of the window, over a range that covers the window.
  const at = instantWindow(window.endMs);
  const runLog = async (q: string) => access.series(ctx.orgId, access.check('logql', q), at, ctx.signal);
  const errorLines = lastValueBy(await runLog(`sum by (service_name) (count_over_time({${scope}, level=~"${ERROR_LEVELS}"}[${range}]))`), (l) => l.service_name);
  const allLines = lastValueBy(await runLog(`sum by (service_name) (count_over_time({${scope}}[${range}]))`), (l) => l.service_name);

  const status = findStatusMetric(access, ctx.orgId, window);
  let errors5xx = new Map<string, number>();
  let requests = new Map<string, number>();
  if (status) {
    const filter = only === undefined ? '' : `service_name=${JSON.stringify(only)}`;
    const sel = (extra: string) => `${status.metric}{${[filter, extra].filter((x) => x !== '').join(', ')}}`;
    const run = async (q: string) => access.series(ctx.orgId, access.check('promql', q), at, ctx.signal);
    errors5xx = lastValueBy(await run(`sum by (service_name, job) (increase(${sel(`${status.label}=~"5.."`)}[${range}]))`), serviceOf);
    requests = lastValueBy(await run(`sum by (service_name, job) (increase(${sel('')}[${range}]))`), serviceOf);
  }

  // Top error messages: templates mined from the newest error lines of each service.
  const errorQuery = access.check('logql', `{${scope}, level=~"${ERROR_LEVELS}"}`);
  const rows = await access.logs(ctx.orgId, errorQuery, window, 3000, true, ctx.signal);
  const rowsBy = new Map<string, RawRow[]>();
  for (const row of rows) {
    const name = row.tags.service_name ?? '';
    let list = rowsBy.get(name);
    if (!list) rowsBy.set(name, (list = []));
    list.push(row);
  }

  const names = new Set<string>([...allLines.keys(), ...requests.keys()]);
  if (only === undefined) for (const s of listServices(access.storage, ctx.orgId, window.startMs, window.endMs, 1000).data) names.add(s.name);
  else names.add(only);
  const services = [...names]
    .filter((n) => SERVICE_NAME.test(n))
    .map((name) => {
      const errs = errorLines.get(name) ?? 0;
      const total = allLines.get(name) ?? 0;
      const e5 = errors5xx.get(name);
      const req = requests.get(name);
      const patterns = mine(rowsBy.get(name) ?? [], window, 12).slice(0, 3);
      return {
        service: name,
        errorLines: Math.round(errs),
        errorLinesPerSecond: errs / seconds,
        errorLineShare: total > 0 ? errs / total : 0,
        http5xxPerSecond: e5 === undefined ? null : e5 / seconds,
        http5xxShare: e5 === undefined || !req ? null : e5 / req,
        topErrors: patterns.map((p) => ({ template: p.template, count: p.count })),
      };
    })
    .sort((a, b) => b.errorLinesPerSecond + (b.http5xxPerSecond ?? 0) - (a.errorLinesPerSecond + (a.http5xxPerSecond ?? 0)) || a.service.localeCompare(b.service));

  const out = new BudgetedLines(budgetOf(args.maxTokens));
  out.add(`error overview ${isoTime(window.startMs)} to ${isoTime(window.endMs)}; 5xx from ${status ? `${status.metric}{${status.label}=~"5.."}` : 'no HTTP status metric found'}`);
  out.add('service,error_lines,error_lines_per_s,error_share,5xx_per_s,5xx_share');
  for (const s of services) {
    const pct = (x: number | null) => (x === null ? '' : `${formatNumber(x * 100)}%`);
    out.add(csvRow([s.service, String(s.errorLines), formatNumber(s.errorLinesPerSecond), pct(s.errorLineShare), s.http5xxPerSecond === null ? '' : formatNumber(s.http5xxPerSecond), pct(s.http5xxShare)]));
  }
  for (const s of services) {
    if (s.topErrors.length === 0) continue;
    out.add(`top errors of ${s.service}:`);
    for (const p of s.topErrors) out.add(`  ${p.count}x ${clip(p.template, 300)}`);
  }
  const failing = services.filter((s) => s.errorLines > 0 || (s.http5xxPerSecond ?? 0) > 0).map((s) => s.service);
  if (failing.length > 0) out.add(`next: log_patterns or query_logs on {service_name="${failing[0]}", level="error"}`);
  return textResult(out.lines.join('\n'), { window: { start: isoTime(window.startMs), end: isoTime(window.endMs) }, statusMetric: status?.metric ?? null, services, truncated: out.truncated });
}

const PATTERNS_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    linesScanned: { type: 'integer' },
    sampled: { type: 'boolean' },
    patterns: { type: 'array', items: { type: 'object' } },
    truncated: { type: 'boolean' },
  },
  required: ['query', 'patterns', 'truncated'],
};

export function investigateTools(access: TelemetryAccess): ToolSpec[] {
  return [
    {
      name: 'error_overview',
      title: 'Error overview per service',
      description: 'Per service over the window: error log lines (rate, share), HTTP 5xx rate and share, and top error message templates. Worst first. The first call in an incident.',
      inputSchema: {
        type: 'object',
        properties: { service: { type: 'string', description: 'Only this service_name.' }, start: START, end: END, maxTokens: MAX_TOKENS },
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { window: { type: 'object' }, statusMetric: { type: ['string', 'null'] }, services: { type: 'array', items: { type: 'object' } }, truncated: { type: 'boolean' } },
        required: ['services'],
      },
      annotations: READ_ONLY,
      handler: (args, ctx) => errorOverview(access, args, ctx),
    },
    {
      name: 'log_patterns',
      title: 'Log patterns',
      description:
        'Cluster the lines of a LogQL log query into templates (variables as <*>) with counts and a sparkline over the window: "what kinds of lines", without reading them. Example: {service_name="payments", level="error"}.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'LogQL log query (selector, optional filters).' },
          start: START,
          end: END,
          maxLines: { type: 'integer', minimum: 100, maximum: 20000, description: 'Newest lines to mine (default 5000).' },
          maxPatterns: { type: 'integer', minimum: 1, maximum: 200, description: 'Patterns to show (default 20).' },
          maxTokens: MAX_TOKENS,
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: PATTERNS_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const query = access.check('logql', args.query as string);
        if (query.kind !== 'logs') return textResult('log_patterns needs a log query (a selector with optional filters), not a metric query.', { query: query.q, patterns: [], truncated: false });
        const window = access.window(args);
        const maxLines = (args.maxLines as number | undefined) ?? 5000;
        const rows = await access.logs(ctx.orgId, query, window, maxLines, true, ctx.signal);
        const patterns = mine(rows, window, 16);
        const shownMax = (args.maxPatterns as number | undefined) ?? 20;
        const out = new BudgetedLines(budgetOf(args.maxTokens));
        const sampled = rows.length >= maxLines;
        out.add(`${patterns.length} patterns in ${rows.length} lines${sampled ? ` (the newest ${maxLines}; raise maxLines or narrow the window for all)` : ''}, ${isoTime(window.startMs)} to ${isoTime(window.endMs)}`);
        out.add('count,share,over_time,first,last,template');
        const shown: Array<Record<string, unknown>> = [];
        for (const p of patterns.slice(0, shownMax)) {
          const line = csvRow([String(p.count), `${formatNumber((p.count / Math.max(1, rows.length)) * 100)}%`, sparkline(p.buckets ?? []), isoTime(p.firstMs), isoTime(p.lastMs), clip(p.template, 400)]);
          if (!out.add(line)) break;
          shown.push({ template: p.template, count: p.count, firstMs: p.firstMs, lastMs: p.lastMs, buckets: p.buckets ?? [], sample: clip(p.sampleLine, 400) });
        }
        const truncated = shown.length < patterns.length;
        let text = out.lines.join('\n');
        if (truncated) text += `\n[${patterns.length - shown.length} rarer patterns not shown: raise maxPatterns or filter out the frequent ones with != "..."]`;
        if (rows.length === 0) text += '\nNo lines matched; check the selector with list_series signal=logs.';
        return textResult(text, { query: query.q, linesScanned: rows.length, sampled, patterns: shown, truncated });
      },
    },
  ];
}
