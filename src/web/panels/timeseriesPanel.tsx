import type { TimeseriesPanel as TimeseriesSpec } from '../../dashboards/types.js';
import { colorAt, formatNumber } from '../lib/format.js';
import { align, movingAverage, type AlignedData, type Series } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { TimeChart, type Band } from './timeChart.js';
import { interlinkChoices, seriesName, usePanelRun } from './usePanelRun.js';

/** stackRows adds each row onto the one before (stacked variants); gaps count as zero. */
export function stackRows(rows: Array<Array<number | null>>): Array<Array<number | null>> {
  const out: Array<Array<number | null>> = [];
  rows.forEach((row, i) => {
    out.push(row.map((v, j) => (v === null && i === 0 ? null : (v ?? 0) + (i === 0 ? 0 : out[i - 1][j] ?? 0))));
  });
  return out;
}

/** normalizeRows scales every column to 100 in total (normalized-bar). */
export function normalizeRows(rows: Array<Array<number | null>>): Array<Array<number | null>> {
  if (rows.length === 0) return rows;
  const totals = rows[0].map((_, j) => rows.reduce((sum, row) => sum + (row[j] ?? 0), 0));
  return rows.map((row) => row.map((v, j) => (v === null || totals[j] === 0 ? null : (100 * v) / totals[j])));
}

/**
 * highlightBands shades each run of timestamps where a highlightWhen series is above its
 * threshold, colored by the series' grouping label value.
 */
function highlightBands(series: Series[], threshold: number, colors: Record<string, string> | undefined, defaultColor: string | undefined): Band[] {
  const bands: Band[] = [];
  for (const s of series) {
    const key = Object.values(s.tags)[0] ?? '';
    const base = colors?.[key] ?? defaultColor ?? '#d44a3a';
    const color = base.startsWith('#') && base.length === 7 ? base + '33' : base;
    const stamps = [...s.points.entries()].sort((a, b) => a[0] - b[0]);
    let start: number | undefined;
    let prev = 0;
    for (const [t, v] of stamps) {
      if (v > threshold) start ??= t;
      else if (start !== undefined) {
        bands.push({ fromS: start / 1000, toS: t / 1000, color });
        start = undefined;
      }
      prev = t;
    }
    if (start !== undefined) bands.push({ fromS: start / 1000, toS: prev / 1000, color });
  }
  return bands;
}

export function TimeseriesPanel({ panel }: { panel: TimeseriesSpec }) {
  const highlight = panel.highlightWhen;
  const { env, run, problem, queries } = usePanelRun(panel.queries, {
    extra: highlight ? [{ query: highlight.query, queryKind: highlight.queryKind }] : undefined,
  });
  const all = run.store.list();
  const plotted = all.filter((s) => s.query < queries.length);
  const highlighted = all.filter((s) => s.query === queries.length);
  const variant = panel.variant ?? 'line';
  const smooth = panel.smooth ?? env.smooth;
  const aligned = align(plotted);
  let rows = aligned.slice(1) as Array<Array<number | null>>;
  if (smooth) rows = rows.map((r) => movingAverage(r));
  if (variant === 'normalized-bar') rows = stackRows(normalizeRows(rows));
  else if (variant === 'stacked-bar' || variant === 'stacked-area') rows = stackRows(rows);
  // Stacked series are drawn last-first so each lower band stays visible in front.
  const order = variant.startsWith('stacked') || variant === 'normalized-bar' ? rows.map((_, i) => rows.length - 1 - i) : rows.map((_, i) => i);
  const data = [aligned[0], ...order.map((i) => rows[i])] as AlignedData;
  const chartSeries = order.map((i) => {
    const s = plotted[i];
    return {
      label: seriesName(s, queries),
      color: queries[s.query]?.color ?? colorAt(i),
      fill: variant === 'area' || variant === 'stacked-area',
      bars: variant.endsWith('bar'),
    };
  });
  const percent = panel.percentScale || variant === 'normalized-bar';
  const yLabel = panel.yAxisLabel ? (panel.unit ? `${panel.yAxisLabel} (${panel.unit})` : panel.yAxisLabel) : panel.unit;
  const bands = highlight ? highlightBands(highlighted, highlight.threshold ?? 0.5, highlight.colors, highlight.defaultColor) : undefined;
  return (
    <PanelFrame panel={panel} run={run} problem={problem} links={interlinkChoices(panel.interlinks, plotted, env)}>
      {plotted.length === 0 && run.running === 0 ? (
        <p class="empty">No data in this time range.</p>
      ) : (
        <TimeChart
          data={data}
          series={chartSeries}
          yMin={percent ? 0 : panel.yMin}
          yMax={percent ? 100 : panel.yMax}
          integerYMax={panel.integerYMax}
          yLabel={yLabel}
          xLabel={panel.xAxisLabel}
          bands={bands}
          syncKey={env.syncKey}
          formatValue={(v) => formatNumber(v)}
        />
      )}
    </PanelFrame>
  );
}
