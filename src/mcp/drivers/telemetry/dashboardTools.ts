import {
  PanelQueryError,
  builtinText,
  computeBuiltinValues,
  panelQueries,
  type BuiltinName,
  type ChosenValues,
  type DashboardSpec,
  type RunnableQuery,
} from '../../../dashboards/index.js';
import type { MetaStore } from '../../../meta/types.js';
import type { QueryWindow } from '../../../query/timeRange.js';
import { ToolError, textResult, type ToolSpec } from '../../driver.js';
import { budgetOf } from '../../format.js';
import type { TelemetryAccess } from './access.js';
import { renderSeries, windowText } from './render.js';
import { END, MAX_TOKENS, READ_ONLY, START } from './schemaParts.js';

/** DEFAULT_PANEL_POINTS is the resolution a panel is run at when the caller names none: a chart's width in points. */
const DEFAULT_PANEL_POINTS = 100;
const MAX_PANEL_POINTS = 2000;
const MAX_SERIES_PER_QUERY = 100;
const MAX_POINT_SERIES = 20;

/** SHOWN_BUILTINS are the built-ins an answer reports, so a caller sees the values the queries ran with. */
const SHOWN_BUILTINS: readonly BuiltinName[] = ['__interval', '__rate_interval', '__range'];

/**
 * dashboardTools run a stored dashboard's panel the way a viewer sees it: the panel's queries
 * with Grafana's built-in variables ($__interval, $__rate_interval, $__range, ...) computed from
 * this run's window and max data points, dashboard variables from the values given or their
 * defaults, and the step equal to $__interval, as Grafana runs a panel.
 */
export function dashboardTools(access: TelemetryAccess, store: MetaStore): ToolSpec[] {
  return [
    {
      name: 'query_dashboard_panel',
      title: 'Run a dashboard panel',
      description:
        'Run the queries of one panel of a stored dashboard over a window, filling $__interval, $__rate_interval, $__range and the dashboard variables (defaults unless given). Returns series per query like query_metrics.',
      inputSchema: {
        type: 'object',
        properties: {
          dashboardId: { type: 'string' },
          panelId: { type: 'string' },
          start: START,
          end: END,
          maxDataPoints: { type: 'integer', minimum: 1, maximum: MAX_PANEL_POINTS, description: `Points across the window (default ${DEFAULT_PANEL_POINTS}).` },
          variables: { type: 'object', additionalProperties: { type: ['string', 'array'], items: { type: 'string' } }, description: 'Dashboard variable values by name.' },
          points: { type: 'boolean', description: 'Include values per step.' },
          maxTokens: MAX_TOKENS,
        },
        required: ['dashboardId', 'panelId'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          dashboardId: { type: 'string' },
          panelId: { type: 'string' },
          window: { type: 'object' },
          builtins: { type: 'object', additionalProperties: { type: 'string' } },
          queries: { type: 'array', items: { type: 'object' } },
        },
        required: ['dashboardId', 'panelId', 'queries'],
      },
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const dashboardId = args.dashboardId as string;
        const panelId = args.panelId as string;
        const record = await store.getDashboard(ctx.orgId, dashboardId);
        if (!record) throw new ToolError(`this org has no dashboard ${JSON.stringify(dashboardId)}`);
        const maxDataPoints = typeof args.maxDataPoints === 'number' ? args.maxDataPoints : DEFAULT_PANEL_POINTS;
        const asked = access.window({ start: args.start, end: args.end, maxDataPoints });
        const time = { fromMs: asked.startMs, toMs: asked.endMs, maxDataPoints };
        const values = computeBuiltinValues(time);
        const window = panelWindow(asked, values.intervalMs, access.deps.windowLimits.maxPointsPerSeries);
        let queries: RunnableQuery[];
        try {
          queries = panelQueries(record.spec as unknown as DashboardSpec, panelId, time, readChosen(args.variables));
        } catch (err) {
          if (err instanceof PanelQueryError) throw new ToolError(err.message);
          throw err;
        }
        const builtins = Object.fromEntries(SHOWN_BUILTINS.map((name) => ['$' + name, builtinText(name, values)]));
        const budget = Math.floor(budgetOf(args.maxTokens) / queries.length);
        const withPoints = args.points === true;
        const lines = [`dashboard ${dashboardId}, panel ${panelId}: ${windowText(window)}; ${Object.entries(builtins).map(([k, v]) => `${k}=${v}`).join(', ')}`];
        const answers = [];
        for (const q of queries) {
          const checked = access.check(q.language, q.text);
          const series = await access.series(ctx.orgId, checked, window, ctx.signal);
          const rendered = renderSeries(series, window, withPoints, budget, withPoints ? MAX_POINT_SERIES : MAX_SERIES_PER_QUERY);
          lines.push(`${q.where} ${q.text}: ${rendered.total} series${rendered.total > 0 ? `\n${rendered.text}` : ''}`);
          answers.push({ where: q.where, written: q.written, query: q.text, seriesTotal: rendered.total, series: rendered.rows, truncated: rendered.truncated });
        }
        const windowOut = { start: new Date(window.startMs).toISOString(), end: new Date(window.endMs).toISOString(), stepSeconds: window.stepMs / 1000 };
        return textResult(lines.join('\n'), { dashboardId, panelId, window: windowOut, builtins, queries: answers });
      },
    },
  ];
}

/** panelWindow is the asked window run at a step of $__interval, as Grafana runs a panel. */
function panelWindow(asked: QueryWindow, intervalMs: number, maxPoints: number): QueryWindow {
  const points = Math.floor((asked.endMs - asked.startMs) / intervalMs) + 1;
  if (points > maxPoints) throw new ToolError(`this window at a $__interval step gives ${points} points per series, more than ${maxPoints}; use a shorter window or fewer maxDataPoints`);
  return { startMs: asked.startMs, endMs: asked.endMs, stepMs: intervalMs, points, instant: asked.instant };
}

/** readChosen reads the `variables` argument: a value or a list of values per variable name. */
function readChosen(raw: unknown): ChosenValues {
  if (raw === undefined) return {};
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string') out[name] = [value];
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[name] = value as string[];
    else throw new ToolError(`variables.${name} must be a string or a list of strings`);
  }
  return out;
}
