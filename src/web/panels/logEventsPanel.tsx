import type { LogEventsPanel as LogSpec, PanelQuery } from '../../dashboards/types.js';
import { LEVEL_COLORS, colorAt } from '../lib/format.js';
import { aggregateOf, selectorOf, volumeByLevel } from '../lib/logql.js';
import { align, type AlignedData } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { stackRows } from './timeseriesPanel.js';
import { TimeChart } from './timeChart.js';
import { seriesName, usePanelRun, waitingRun } from './usePanelRun.js';
import { fillQuery, usesAwaited } from './context.js';
import { useQueryRun } from '../lib/queryRun.js';
import { LogLines } from './logLines.js';

/** logSource is the panel's LogQL: rawLogql, else the builder's selector, else the deprecated fields. */
export function logSource(panel: LogSpec): string {
  if (panel.rawLogql) return panel.rawLogql;
  if (panel.logqlState) return selectorOf(panel.logqlState);
  const matchers: string[] = [];
  if (panel.serviceName) matchers.push(`service_name="${panel.serviceName}"`);
  if (panel.level) matchers.push(`level="${panel.level}"`);
  return `{${matchers.join(', ') || 'service_name=~".+"'}}`;
}

/**
 * LogEventsPanel draws a volume chart by level (or, for a builder state, its aggregation by its
 * groupBy labels) and, unless distributionOnly, the newest lines up to `limit`.
 */
export function LogEventsPanel({ panel }: { panel: LogSpec }) {
  const source = logSource(panel);
  const chartQuery: PanelQuery = {
    query: panel.logqlState ? aggregateOf({ ...panel.logqlState }) : volumeByLevel(source, '$__interval'),
    queryKind: 'loki',
    name: panel.logqlState ? panel.logqlState.groupBy.map((g) => `{{${g}}}`).join(' ') || undefined : '{{level}}',
  };
  const { env, run, problem, queries } = usePanelRun([chartQuery]);
  let linesQuery: string | undefined;
  let linesProblem: string | undefined;
  try {
    linesQuery = panel.distributionOnly ? undefined : fillQuery(source, env);
  } catch (err) {
    linesProblem = err instanceof Error ? err.message : String(err);
  }
  const linesWaiting = linesProblem !== undefined && usesAwaited(source, env);
  if (linesWaiting) linesProblem = undefined;
  const limit = panel.limit ?? 100;
  const linesRun = useQueryRun(linesQuery ? [{ q: linesQuery, language: 'logql', raw: true, limit }] : undefined, env.window, JSON.stringify([linesQuery, limit, env.window, env.refreshKey]));
  const lines = linesWaiting ? waitingRun(linesRun) : linesRun;
  const series = run.store.list();
  const aligned = align(series);
  const stacked = stackRows(aligned.slice(1) as Array<Array<number | null>>);
  const order = stacked.map((_, i) => stacked.length - 1 - i);
  const data = [aligned[0], ...order.map((i) => stacked[i])] as AlignedData;
  const combined = { ...run, waiting: run.waiting || lines.waiting, error: run.error ?? lines.error, warning: run.warning ?? lines.warning, running: run.running + lines.running, received: run.received + lines.received };
  return (
    <PanelFrame panel={panel} run={combined} problem={problem ?? linesProblem}>
      <div class={panel.distributionOnly ? 'log-events distribution-only' : 'log-events'}>
        <div class="log-volume">
          {series.length === 0 && run.running === 0 ? (
            <p class="empty">No log lines in this time range.</p>
          ) : (
            <TimeChart
              data={data}
              series={order.map((i) => {
                const name = seriesName(series[i], queries);
                return { label: name, color: LEVEL_COLORS[series[i].tags.level ?? ''] ?? colorAt(i), bars: true };
              })}
              yMin={0}
              syncKey={env.syncKey}
            />
          )}
        </div>
        {!panel.distributionOnly && <LogLines lines={lines.lines} />}
      </div>
    </PanelFrame>
  );
}
