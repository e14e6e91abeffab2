import { formatLabels, withColumns } from '../../../engine/index.js';
import { autoStepMs } from '../../query/timeRange.js';
import { countValues, hasHistogramSamples } from '../../query/histogramStats.js';
import { renderChartPng } from '../chart.js';
import { ToolError, type JsonSchema, type ToolSpec, type Driver } from '../driver.js';
import { formatDuration, isoTime } from '../format.js';
import { tableDriver } from '../tableDriver.js';
import type { TelemetryAccess } from './telemetry/access.js';

/**
 * The common driver needs no credentials: the current time, time ranges resolved the way
 * Sluice resolves them (so an agent can say "the last 3 hours" and know the exact instants and
 * step), and charts of a query rendered as a PNG a model can look at.
 */

const READ_ONLY = { readOnlyHint: true, openWorldHint: false, idempotentHint: true } as const;
const CHART_MAX_SERIES = 20;

const RANGE_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    start: { type: 'string' },
    end: { type: 'string' },
    startMs: { type: 'integer' },
    endMs: { type: 'integer' },
    durationSeconds: { type: 'number' },
    stepSeconds: { type: 'number' },
    points: { type: 'integer' },
  },
  required: ['start', 'end', 'startMs', 'endMs', 'stepSeconds'],
};

export function commonDriver(access: TelemetryAccess): Driver {
  const tools: ToolSpec[] = [
    {
      name: 'current_time',
      title: 'Current time',
      description: 'The server time now, in UTC (RFC 3339) and epoch seconds and milliseconds.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: { now: { type: 'string' }, epochSeconds: { type: 'integer' }, epochMs: { type: 'integer' } },
        required: ['now', 'epochSeconds', 'epochMs'],
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
      handler: async () => {
        const ms = Date.now();
        const out = { now: new Date(ms).toISOString(), epochSeconds: Math.floor(ms / 1000), epochMs: ms };
        return { content: [{ type: 'text', text: `${out.now} (epoch ${out.epochSeconds} s, ${ms} ms)` }], structuredContent: out };
      },
    },
    {
      name: 'resolve_time_range',
      title: 'Resolve a time range',
      description:
        'Turn start/end as queries take them (now-1h, e-3w, RFC 3339, epoch s or ms) into absolute UTC times, with the step Sluice picks for maxDataPoints (default 100).',
      inputSchema: {
        type: 'object',
        properties: {
          start: { type: 'string', description: 'e.g. now-3h (default now-1h); e-... is relative to end.' },
          end: { type: 'string', description: 'e.g. now (default).' },
          maxDataPoints: { type: 'integer', minimum: 2, maximum: 11000, description: 'Points a chart can show (default 100).' },
        },
        additionalProperties: false,
      },
      outputSchema: RANGE_OUTPUT,
      annotations: { ...READ_ONLY, idempotentHint: false },
      handler: async (args) => {
        const maxDataPoints = (args.maxDataPoints as number | undefined) ?? 100;
        const w = access.window({ start: args.start, end: args.end, maxDataPoints });
        const out = {
          start: new Date(w.startMs).toISOString(),
          end: new Date(w.endMs).toISOString(),
          startMs: w.startMs,
          endMs: w.endMs,
          durationSeconds: (w.endMs - w.startMs) / 1000,
          stepSeconds: autoStepMs(w.endMs - w.startMs, maxDataPoints) / 1000,
          points: w.points,
        };
        return {
          content: [{ type: 'text', text: `${out.start} to ${out.end} (${formatDuration(w.endMs - w.startMs)}); step ${formatDuration(out.stepSeconds * 1000)} for ${maxDataPoints} points` }],
          structuredContent: out,
        };
      },
    },
    {
      name: 'render_chart',
      title: 'Chart a query',
      description: 'Render a PromQL query or LogQL metric query as a PNG line chart (title, axes with unit, legend) to look at. Example: sum by (service_name) (rate(http_requests_total[5m])).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'PromQL, or LogQL metric query.' },
          language: { type: 'string', enum: ['promql', 'logql'], description: 'Default: logql when the query starts with { or a LogQL range function, else promql.' },
          start: { type: 'string', description: 'now-1h (default), RFC 3339, epoch s/ms.' },
          end: { type: 'string', description: 'now (default).' },
          title: { type: 'string', description: 'Chart title (default: the query).' },
          unit: { type: 'string', description: 'Y unit, e.g. req/s, bytes, s, %.' },
          width: { type: 'integer', minimum: 200, maximum: 2000, description: 'Pixels (default 800).' },
          height: { type: 'integer', minimum: 100, maximum: 1200, description: 'Pixels (default 400).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          seriesTotal: { type: 'integer' },
          drawn: { type: 'integer' },
          start: { type: 'string' },
          end: { type: 'string' },
          stepSeconds: { type: 'number' },
          width: { type: 'integer' },
          height: { type: 'integer' },
        },
        required: ['seriesTotal', 'drawn', 'width', 'height'],
      },
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const q = args.query as string;
        const language = (args.language as 'promql' | 'logql' | undefined) ?? guessLanguage(q);
        const query = access.check(language, q);
        if (query.kind !== 'series') throw new ToolError('a log query yields lines, not series; chart a metric query such as sum(count_over_time({...}[1m]))');
        const width = (args.width as number | undefined) ?? 800;
        const height = (args.height as number | undefined) ?? 400;
        // About one point per two pixels keeps lines smooth without wasting work.
        const window = access.window({ start: args.start, end: args.end, maxDataPoints: Math.max(50, Math.floor(width / 2)) });
        const series = await access.series(ctx.orgId, query, window, ctx.signal);
        // A native histogram sample is drawn as its observation count (histogram_count).
        const counted = series.map((s) => (hasHistogramSamples(s) ? withColumns(s, s.timestampsMs, countValues(s), s.histograms) : s));
        const histograms = series.filter(hasHistogramSamples).length;
        const ranked = [...counted].sort((a, b) => peak(b.values) - peak(a.values)).slice(0, CHART_MAX_SERIES);
        const png = renderChartPng({
          title: (args.title as string | undefined) ?? q,
          unit: args.unit as string | undefined,
          width,
          height,
          startMs: window.startMs,
          endMs: window.endMs,
          series: ranked.map((s) => ({ name: formatLabels(s.labels), timestampsMs: s.timestampsMs, values: s.values })),
        });
        const note =
          `${series.length} series${series.length > CHART_MAX_SERIES ? ` (the ${CHART_MAX_SERIES} highest drawn)` : ''}, ${isoTime(window.startMs)} to ${isoTime(window.endMs)}, step ${formatDuration(window.stepMs)}` +
          (series.length === 0 ? '; no data: try query_metrics or query_logs for hints' : '') +
          (histograms > 0 ? `; ${histograms} native histogram series drawn as observation counts (histogram_count); query_metrics gives their percentiles` : '');
        return {
          content: [
            { type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' },
            { type: 'text', text: note },
          ],
          structuredContent: {
            seriesTotal: series.length,
            drawn: ranked.length,
            start: isoTime(window.startMs),
            end: isoTime(window.endMs),
            stepSeconds: window.stepMs / 1000,
            width,
            height,
          },
        };
      },
    },
  ];
  return tableDriver({
    name: 'common',
    description: 'Sluice common tools, no credentials needed: current time, time range resolution, and PNG charts of PromQL or LogQL metric queries.',
    enabledByDefault: true,
    tools,
  });
}

function peak(values: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i]) && values[i] > max) max = values[i];
  return max;
}

/** guessLanguage tells LogQL from PromQL by its opening: a stream selector or a LogQL range function over one. */
export function guessLanguage(q: string): 'promql' | 'logql' {
  return /^\s*\{/.test(q) || /\b(count_over_time|bytes_over_time|bytes_rate|rate|sum_over_time|avg_over_time|max_over_time|min_over_time|quantile_over_time|absent_over_time|first_over_time|last_over_time|stddev_over_time|stdvar_over_time|rate_counter)\s*\(\s*\{/.test(q)
    ? 'logql'
    : 'promql';
}
