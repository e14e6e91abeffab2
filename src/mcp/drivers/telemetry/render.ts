import { formatLabels, withColumns, type Labels, type RawRow, type SeriesColumns } from '../../../../engine/index.js';
import { BudgetedLines, clip, csvRow, formatDuration, formatNumber, isoTime, seriesStats, type SeriesStats } from '../../format.js';
import type { QueryWindow } from '../../../query/timeRange.js';
import { countValues, hasHistogramSamples, WindowHistogram } from '../../../query/histogramStats.js';

/**
 * Rendering query results for a model: one summary line per series by default (min, max,
 * average, last, trend), points on request as one line of values per series over the step
 * grid, and log rows as CSV whose columns are only the tags that differ between rows.
 */

export interface SeriesSummaryRow {
  series: string;
  labels: Labels;
  min: number;
  max: number;
  avg: number;
  last: number;
  trend: string;
  points?: Array<number | null>;
  /**
   * histogram is set for a series of native histograms: its values are then observation counts
   * (histogram_count), and this is the window's distribution (see src/query/histogramStats.ts).
   */
  histogram?: { percentiles: Record<string, number>; mean?: number };
}

export interface RenderedSeries {
  text: string;
  rows: SeriesSummaryRow[];
  total: number;
  truncated: boolean;
}

/** windowText describes a query window in one line. */
export function windowText(window: QueryWindow): string {
  return `${isoTime(window.startMs)} to ${isoTime(window.endMs)}, step ${formatDuration(window.stepMs)}`;
}

/**
 * renderSeries writes series most significant first (by average magnitude), as summaries or
 * with points, until the budget is spent. An instant query's series keep the order the query
 * gave them (sort(), sort_desc(), topk()), as Prometheus' and Loki's /query return them.
 */
export function renderSeries(series: readonly SeriesColumns[], window: QueryWindow, withPoints: boolean, budgetTokens: number, maxSeries: number): RenderedSeries {
  const ranked: Array<{ s: SeriesColumns; stats: SeriesStats }> = [];
  for (const raw of series) {
    // A native histogram sample reads as its observation count.
    const s = hasHistogramSamples(raw) ? withColumns(raw, raw.timestampsMs, countValues(raw), raw.histograms) : raw;
    const stats = seriesStats(s.timestampsMs, s.values);
    if (stats) ranked.push({ s, stats });
  }
  if (!window.instant) ranked.sort((a, b) => Math.abs(b.stats.avg) - Math.abs(a.stats.avg) || formatLabels(a.s.labels).localeCompare(formatLabels(b.s.labels)));
  const lines = new BudgetedLines(budgetTokens);
  const rows: SeriesSummaryRow[] = [];
  lines.add(withPoints ? `values at ${isoTime(window.startMs)} + k*${formatDuration(window.stepMs)}, "_" = no value` : 'min,max,avg,last,trend,series (the rest of the line)');
  if (ranked.some(({ s }) => s.histograms !== undefined)) {
    lines.add('native histogram series: values are observation counts (histogram_count); the line after each gives percentiles of its observations over the window and their mean');
  }
  for (const { s, stats } of ranked) {
    if (rows.length >= maxSeries) {
      lines.truncated = true;
      break;
    }
    const name = formatLabels(s.labels);
    const row: SeriesSummaryRow = { series: name, labels: s.labels, min: stats.min, max: stats.max, avg: stats.avg, last: stats.last, trend: stats.trend };
    let line: string;
    if (withPoints) {
      row.points = gridValues(s, window);
      line = `${name}: ${row.points.map((v) => (v === null ? '_' : formatNumber(v))).join(' ')}`;
    } else {
      // The series goes last and unquoted: its quotes would otherwise all be doubled.
      line = `${csvRow([formatNumber(stats.min), formatNumber(stats.max), formatNumber(stats.avg), formatNumber(stats.last), stats.trend])},${name}`;
    }
    if (s.histograms !== undefined) {
      const dist = windowDistribution(s);
      if (dist !== undefined) {
        row.histogram = dist;
        line += `\n  observations: ${distributionText(dist)}`;
      }
    }
    if (!lines.add(line)) break;
    rows.push(row);
  }
  return { text: lines.lines.join('\n'), rows, total: ranked.length, truncated: lines.truncated || rows.length < ranked.length };
}

/** windowDistribution adds a series' histograms over the window and describes their observations. */
function windowDistribution(s: SeriesColumns): SeriesSummaryRow['histogram'] {
  const total = new WindowHistogram();
  total.addSeries(s);
  const stats = total.stats();
  if (stats === undefined) return undefined;
  return stats.mean === undefined ? { percentiles: stats.percentiles } : { percentiles: stats.percentiles, mean: stats.mean };
}

/** distributionText writes a distribution as `p50=… p90=… p95=… p99=… mean=…`. */
function distributionText(d: NonNullable<SeriesSummaryRow['histogram']>): string {
  const parts = Object.entries(d.percentiles).map(([name, v]) => `${name}=${formatNumber(v)}`);
  if (d.mean !== undefined) parts.push(`mean=${formatNumber(d.mean)}`);
  return parts.length === 0 ? 'no finite estimate' : parts.join(' ');
}

/** gridValues lays a series on the query's step grid, null where it has no finite value. */
function gridValues(s: SeriesColumns, window: QueryWindow): Array<number | null> {
  const out: Array<number | null> = new Array(window.points).fill(null);
  for (let i = 0; i < s.timestampsMs.length; i++) {
    const k = Math.round((s.timestampsMs[i] - window.startMs) / window.stepMs);
    const v = s.values[i];
    if (k >= 0 && k < out.length && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

export interface RenderedRows {
  text: string;
  columns: string[];
  rows: string[][];
  common: Record<string, string>;
  returned: number;
  truncated: boolean;
}

/** MAX_VARYING_COLUMNS keeps the table narrow; other varying tags are named, not shown. */
const MAX_VARYING_COLUMNS = 6;
const MAX_MESSAGE_CHARS = 1000;

/**
 * renderRows writes log rows as CSV. Tags whose value is the same in every row are said once
 * above the table; tags that vary become columns (fewest distinct values first, since those
 * group rows best), so a screen of lines from one service costs little more than the messages.
 */
export function renderRows(rows: readonly RawRow[], budgetTokens: number): RenderedRows {
  const distinct = new Map<string, Set<string>>();
  const present = new Map<string, number>();
  for (const row of rows) {
    for (const key in row.tags) {
      if (key === 'message') continue;
      let set = distinct.get(key);
      if (!set) distinct.set(key, (set = new Set()));
      if (set.size < 1000) set.add(row.tags[key]);
      present.set(key, (present.get(key) ?? 0) + 1);
    }
  }
  const common: Record<string, string> = {};
  const varying: Array<{ key: string; n: number }> = [];
  for (const [key, set] of distinct) {
    if (set.size === 1 && present.get(key) === rows.length) common[key] = [...set][0];
    else varying.push({ key, n: set.size });
  }
  varying.sort((a, b) => a.n - b.n || a.key.localeCompare(b.key));
  const shown = varying.slice(0, MAX_VARYING_COLUMNS).map((v) => v.key);
  const hidden = varying.slice(MAX_VARYING_COLUMNS).map((v) => v.key);
  const columns = ['time', ...shown, 'message'];
  const lines = new BudgetedLines(budgetTokens);
  const commonText = Object.entries(common)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  if (commonText !== '') lines.add(`same in every row: ${clip(commonText, 1000)}`);
  if (hidden.length > 0) lines.add(`tags not shown: ${hidden.join(', ')}`);
  lines.add(`${csvRow(columns)} (the rest of the line)`);
  const table: string[][] = [];
  for (const row of rows) {
    const message = clip(row.line ?? row.tags.message ?? '', MAX_MESSAGE_CHARS);
    const cells = [isoTime(Number(row.timestampNs / 1_000_000n)), ...shown.map((k) => row.tags[k] ?? ''), message];
    // The message goes last and unquoted, since log lines are full of quotes that CSV would
    // double; a line break inside it is written as \n so one row stays one line.
    if (!lines.add(`${csvRow(cells.slice(0, -1))},${message.replace(/\r?\n/g, '\\n')}`)) break;
    table.push(cells);
  }
  return { text: lines.lines.join('\n'), columns, rows: table, common, returned: table.length, truncated: lines.truncated };
}
