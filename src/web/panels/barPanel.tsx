import type { BarPanel as BarSpec } from '../../dashboards/types.js';
import { colorAt, formatNumber } from '../lib/format.js';
import { reduce, type AlignedData, type Reducer, type Series } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { TimeChart } from './timeChart.js';
import { stackRows } from './timeseriesPanel.js';
import { interlinkChoices, seriesName, usePanelRun } from './usePanelRun.js';

/** BAR_COUNT is how many bars the window is cut into; samples in one bar are combined by the reducer. */
const BAR_COUNT = 30;

/** bucketSeries cuts every series into BAR_COUNT buckets over [fromMs, toMs) and reduces each. */
export function bucketSeries(series: Series[], fromMs: number, toMs: number, reducer: Reducer): AlignedData {
  const width = (toMs - fromMs) / BAR_COUNT;
  const xs = Array.from({ length: BAR_COUNT }, (_, i) => (fromMs + (i + 0.5) * width) / 1000);
  const rows = series.map((s) => {
    const buckets: Series[] = xs.map(() => ({ label: s.label, tags: s.tags, points: new Map(), query: s.query }));
    for (const [t, v] of s.points) {
      const i = Math.floor((t - fromMs) / width);
      if (i >= 0 && i < BAR_COUNT) buckets[i].points.set(t, v);
    }
    return buckets.map((b) => reduce(b, reducer) ?? null);
  });
  return [xs, ...rows];
}

/** BarPanel draws stacked bars over time, one color per series unless the panel sets one. */
export function BarPanel({ panel }: { panel: BarSpec }) {
  const { env, run, problem, queries } = usePanelRun(panel.queries);
  const series = run.store.list();
  const bucketed = bucketSeries(series, env.fromMs, env.toMs, panel.reducer ?? 'last');
  const stacked = stackRows(bucketed.slice(1) as Array<Array<number | null>>);
  const order = stacked.map((_, i) => stacked.length - 1 - i);
  const data = [bucketed[0], ...order.map((i) => stacked[i])] as AlignedData;
  const yLabel = panel.yAxisLabel ? (panel.unit ? `${panel.yAxisLabel} (${panel.unit})` : panel.yAxisLabel) : panel.unit;
  return (
    <PanelFrame panel={panel} run={run} problem={problem} links={interlinkChoices(panel.interlinks, series, env)}>
      {series.length === 0 && run.running === 0 ? (
        <p class="empty">No data in this time range.</p>
      ) : (
        <TimeChart
          data={data}
          series={order.map((i) => ({ label: seriesName(series[i], queries), color: panel.color ?? queries[series[i].query]?.color ?? colorAt(i), bars: true }))}
          yMin={0}
          yMax={panel.percentScale ? 100 : undefined}
          yLabel={yLabel}
          xLabel={panel.xAxisLabel}
          syncKey={env.syncKey}
          formatValue={(v) => formatNumber(v)}
        />
      )}
    </PanelFrame>
  );
}
