import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';
import { LineChart, type LineSeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, type GridComponentOption, type LegendComponentOption, type TitleComponentOption } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

/**
 * Server-side time-series charts, so that a tool client which cannot read a table of numbers
 * well (a model looking at a PromQL or LogQL result) can look at a picture instead.
 *
 * ECharts lays the chart out and writes SVG (its server-side mode needs no DOM or canvas);
 * resvg rasterises the SVG to PNG. Text needs a font file: resvg has no built-in font and no
 * npm package here ships one, so the renderer looks for a common sans-serif font at well-known
 * paths (Liberation Sans, DejaVu Sans, Arial) and otherwise lets resvg search the system's font
 * directories. On a machine with no font at all (such as the slim Node image) the PNG still
 * shows the axes, grid, lines and legend swatches, but no text: install a font package
 * (Debian: fonts-dejavu-core) to get titles and labels. chartFont() tells which case holds.
 */

/** ChartSeries is one line: points at timestampsMs (Unix milliseconds) with values. */
export interface ChartSeries {
  name: string;
  timestampsMs: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** ChartRequest describes one chart; sizes are pixels. */
export interface ChartRequest {
  title: string;
  series: ChartSeries[];
  /** Default 800. */
  width?: number;
  /** Default 400. */
  height?: number;
  /** Unit of the values, e.g. "req/s", "bytes", "s", "ms", "%"; bytes and times are scaled in labels. */
  unit?: string;
  /** Y-axis title; drawn as "label (unit)" when unit is set too. */
  yAxisLabel?: string;
  /** Time window of the x-axis; defaults to the extent of the data. */
  startMs?: number;
  endMs?: number;
}

export const CHART_LIMITS = { minWidth: 200, maxWidth: 2000, minHeight: 100, maxHeight: 1200 } as const;
const DEFAULT_WIDTH = 800;
const DEFAULT_HEIGHT = 400;

/**
 * PALETTE is d3's category10: ten hues that stay apart on white. Series past the tenth reuse
 * them with dashed, then dotted lines, so no two of the first thirty series look the same.
 */
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const LINE_TYPES = ['solid', 'dashed', 'dotted'] as const;
const FONT_SIZE = 12;
const TITLE_FONT_SIZE = 16;
const TEXT_COLOR = '#333';
const MUTED_COLOR = '#666';

// ---------------------------------------------------------------------------------------------
// Public API

/** renderChartSvg draws the chart as an SVG document of exactly the requested size. */
export function renderChartSvg(req: ChartRequest): string {
  const size = validateRequest(req);
  setUpEcharts();
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption(buildOption(req, size));
    return chart.renderToSVGString();
  } finally {
    // A chart that is not disposed keeps timers and references that hold the process open.
    chart.dispose();
  }
}

/** renderChartPng draws the chart and rasterises it to a PNG of exactly the requested size. */
export function renderChartPng(req: ChartRequest): Buffer {
  const svg = renderChartSvg(req);
  const width = req.width ?? DEFAULT_WIDTH;
  const options: ResvgRenderOptions = {
    fitTo: { mode: 'width', value: width },
    background: '#ffffff',
    font: resvgFontOptions(),
    logLevel: 'off',
  };
  return new Resvg(svg, options).render().asPng();
}

/**
 * chartFont reports the font file the renderer found and uses for text, or undefined when it
 * found none at the well-known paths and leaves resvg to search the system (where there may be
 * no font either, and then the PNG has no text). Meant for a warning at start-up.
 */
export function chartFont(): ChartFont | undefined {
  return resolvedFont().font;
}

// ---------------------------------------------------------------------------------------------
// Validation

interface Size {
  width: number;
  height: number;
}

/** validateRequest throws a plain Error naming the first thing wrong with the request. */
function validateRequest(req: ChartRequest): Size {
  const width = req.width ?? DEFAULT_WIDTH;
  const height = req.height ?? DEFAULT_HEIGHT;
  checkDimension('width', width, CHART_LIMITS.minWidth, CHART_LIMITS.maxWidth);
  checkDimension('height', height, CHART_LIMITS.minHeight, CHART_LIMITS.maxHeight);
  if (!Array.isArray(req.series)) throw new Error('chart series must be an array');
  req.series.forEach((s, i) => {
    if (s.timestampsMs.length !== s.values.length) {
      throw new Error(`chart series ${i} (${JSON.stringify(s.name)}) has ${s.timestampsMs.length} timestamps but ${s.values.length} values`);
    }
  });
  for (const key of ['startMs', 'endMs'] as const) {
    const v = req[key];
    if (v !== undefined && !Number.isFinite(v)) throw new Error(`chart ${key} must be a finite number of milliseconds, got ${v}`);
  }
  if (req.startMs !== undefined && req.endMs !== undefined && req.startMs >= req.endMs) {
    throw new Error(`chart startMs (${req.startMs}) must be before endMs (${req.endMs})`);
  }
  return { width, height };
}

function checkDimension(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`chart ${name} must be a whole number of pixels from ${min} to ${max}, got ${value}`);
  }
}

// ---------------------------------------------------------------------------------------------
// ECharts set-up and option

type ChartOption = echarts.ComposeOption<LineSeriesOption | TitleComponentOption | LegendComponentOption | GridComponentOption>;

let echartsReady = false;

/**
 * setUpEcharts registers only the parts a line chart needs (importing all of ECharts takes
 * several times longer) and, when a font file was found, makes ECharts measure text with that
 * font's real advance widths: its built-in estimate is tuned for Arial, and with a wider font
 * such as DejaVu Sans the legend items and axis labels would overlap. The measuring hook is
 * process-wide; nothing else in the service uses ECharts.
 */
function setUpEcharts(): void {
  if (echartsReady) return;
  echarts.use([LineChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer]);
  const measurer = resolvedFont().measurer;
  if (measurer !== undefined) echarts.setPlatformAPI({ measureText: (text: string, font?: string) => ({ width: measurer.width(text, font) }) });
  echartsReady = true;
}

/** PlotData is a request's series as ECharts wants them, with their extents. */
interface PlotData {
  names: string[];
  points: Float64Array[];
  /** lonely counts, per series, the points with no finite neighbour, which a line cannot show. */
  lonely: number[];
  minT: number;
  maxT: number;
  minV: number;
  maxV: number;
}

const SINGLE_INSTANT_PAD_MS = 300_000;

/** buildOption turns a request into an ECharts option: a line chart, or a "no data" notice. */
function buildOption(req: ChartRequest, size: Size): ChartOption {
  const data = plotData(req.series);
  // A single instant gets five minutes either side rather than ECharts' default of days.
  const pad = data.minT === data.maxT ? SINGLE_INSTANT_PAD_MS : 0;
  let startMs = req.startMs ?? (Number.isFinite(data.minT) ? data.minT - pad : undefined);
  let endMs = req.endMs ?? (Number.isFinite(data.maxT) ? data.maxT + pad : undefined);
  if (startMs !== undefined && endMs !== undefined && startMs >= endMs) {
    // Only one end was given and the data lies beyond it: keep the given end alone.
    startMs = req.startMs;
    endMs = req.endMs;
  }
  const window = startMs !== undefined && endMs !== undefined ? formatUtcRange(startMs, endMs) : undefined;
  const base: ChartOption = {
    animation: false,
    useUTC: true,
    backgroundColor: '#ffffff',
    textStyle: { fontFamily: 'sans-serif', fontSize: FONT_SIZE, color: TEXT_COLOR },
  };
  if (!Number.isFinite(data.minV)) return { ...base, title: [titleOption(req.title, window, size), noDataTitle()] };
  const naming = seriesNaming(data.names);
  const legend = legendLayout(data.names, naming.forms, size);
  // Below 200 pixels the plot needs the subtitle's line more than the reader needs the window.
  const subtitle = size.height < 200 ? undefined : subtitleText(naming.shared, legend.note, window, size.width);
  const yName = axisName(req.yAxisLabel, req.unit);
  const gridTop = (subtitle === undefined ? 34 : 50) + (yName === undefined ? 8 : 22);
  const gridBottom = legend.height + 8;
  const intervals = yIntervals(size.height - gridTop - gridBottom - X_LABEL_HEIGHT);
  return {
    ...base,
    title: [titleOption(req.title, subtitle, size)],
    legend: legendOption(legend),
    grid: { left: 12, right: 28, top: gridTop, bottom: gridBottom, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
    xAxis: timeAxis(startMs, endMs),
    yAxis: valueAxis(yName, req.unit, data, intervals),
    series: data.points.map((points, i) => lineSeries(data.names[i], points, data.lonely[i], i)),
  };
}

/**
 * plotData packs each series as ECharts' flat typed-array form (t0, v0, t1, v1, ...), with NaN
 * for gaps. ECharts deep-copies plain arrays in an option, point by point; a typed array it
 * copies whole, which makes a 10,000-point chart markedly faster to draw.
 */
function plotData(series: ChartSeries[]): PlotData {
  const out: PlotData = { names: uniqueNames(series.map((s) => s.name)), points: [], lonely: [], minT: Infinity, maxT: -Infinity, minV: Infinity, maxV: -Infinity };
  for (const s of series) {
    const points = new Float64Array(2 * s.timestampsMs.length);
    let n = 0;
    for (let i = 0; i < s.timestampsMs.length; i++) {
      const t = s.timestampsMs[i];
      if (!Number.isFinite(t)) continue;
      const v = s.values[i];
      const finite = Number.isFinite(v);
      points[n++] = t;
      points[n++] = finite ? v : NaN;
      if (t < out.minT) out.minT = t;
      if (t > out.maxT) out.maxT = t;
      if (finite && v < out.minV) out.minV = v;
      if (finite && v > out.maxV) out.maxV = v;
    }
    const packed = n === points.length ? points : points.slice(0, n);
    out.points.push(packed);
    out.lonely.push(lonelyPoints(packed));
  }
  return out;
}

/** lonelyPoints counts finite values whose neighbours on both sides are gaps or ends. */
function lonelyPoints(packed: Float64Array): number {
  let count = 0;
  for (let i = 1; i < packed.length; i += 2) {
    const lonely = !Number.isNaN(packed[i]) && (i < 2 || Number.isNaN(packed[i - 2])) && (i + 2 >= packed.length || Number.isNaN(packed[i + 2]));
    if (lonely) count++;
  }
  return count;
}

/** uniqueNames numbers repeated names: ECharts joins series of the same name in the legend. */
function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw) => {
    const name = raw === '' ? '(no name)' : raw;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name} #${n}`;
  });
}

function titleOption(text: string, subtitle: string | undefined, size: Size): TitleComponentOption {
  const maxWidth = size.width - 20;
  return {
    text: fitText(text, maxWidth, `bold ${TITLE_FONT_SIZE}px sans-serif`),
    subtext: subtitle === undefined ? undefined : fitText(subtitle, maxWidth, `${FONT_SIZE - 1}px sans-serif`),
    left: 'center',
    top: 6,
    itemGap: 4,
    textStyle: { fontSize: TITLE_FONT_SIZE, fontWeight: 'bold', color: TEXT_COLOR },
    subtextStyle: { fontSize: FONT_SIZE - 1, color: MUTED_COLOR },
  };
}

function noDataTitle(): TitleComponentOption {
  return { text: 'No data', left: 'center', top: 'middle', textStyle: { fontSize: 20, fontWeight: 'normal', color: '#999' } };
}

/** axisName follows the dashboard spec: "label (unit)", or either alone. */
function axisName(label: string | undefined, unit: string | undefined): string | undefined {
  const l = label?.trim() || undefined;
  const u = unit?.trim() || undefined;
  if (l !== undefined && u !== undefined) return `${l} (${u})`;
  return l ?? u;
}

/**
 * TIME_LABELS are the x-axis label templates per tick level (in UTC, as useUTC is set): a day
 * boundary reads "Mar 3" rather than ECharts' bare day number.
 */
const TIME_LABELS = {
  year: '{yyyy}',
  month: '{MMM} {yyyy}',
  day: '{MMM} {d}',
  hour: '{HH}:{mm}',
  minute: '{HH}:{mm}',
  second: '{HH}:{mm}:{ss}',
  millisecond: '{HH}:{mm}:{ss}.{SSS}',
};

function timeAxis(startMs: number | undefined, endMs: number | undefined): ChartOption['xAxis'] {
  return {
    type: 'time',
    min: startMs,
    max: endMs,
    axisLabel: { hideOverlap: true, color: TEXT_COLOR, formatter: TIME_LABELS },
    axisLine: { lineStyle: { color: '#888' } },
    splitLine: { show: true, lineStyle: { color: '#eee' } },
  };
}

/** X_LABEL_HEIGHT is the room the time labels take under the plot. */
const X_LABEL_HEIGHT = 22;

/** yIntervals is how many y-axis intervals to aim for: labels some 40 pixels apart, 2 to 6 of them. */
function yIntervals(plotHeight: number): number {
  return Math.min(6, Math.max(2, Math.round(plotHeight / 40)));
}

function valueAxis(name: string | undefined, unit: string | undefined, data: PlotData, intervals: number): ChartOption['yAxis'] {
  const style = unitStyle(unit);
  const zero = includeZero(data.minV, data.maxV);
  const lo = zero ? Math.min(0, data.minV) : data.minV;
  const hi = zero ? Math.max(0, data.maxV) : data.maxV;
  const range = style.step === undefined ? undefined : steppedRange(lo, hi, intervals, style.step);
  return {
    type: 'value',
    name,
    nameLocation: 'end',
    nameGap: 10,
    nameTextStyle: { align: 'left', color: MUTED_COLOR },
    scale: !zero,
    splitNumber: intervals,
    ...range,
    axisLabel: { formatter: style.format, color: TEXT_COLOR, hideOverlap: true },
    splitLine: { lineStyle: { color: '#e6e6e6' } },
  };
}

/**
 * steppedRange fixes the y-axis ticks at a unit's own round steps (ECharts only knows decimal
 * ones, which give byte ticks such as 488.3 KiB), aiming at about the given number of intervals.
 */
function steppedRange(lo: number, hi: number, intervals: number, step: (raw: number) => number): { min: number; max: number; interval: number } | undefined {
  if (!(hi > lo)) return undefined;
  const interval = step((hi - lo) / intervals);
  return { min: Math.floor(lo / interval) * interval, max: Math.ceil(hi / interval) * interval, interval };
}

/**
 * includeZero keeps zero on the y-axis, as a reader expects for rates and counts, unless the
 * data sits far from zero (a spread under half its size): then a zero-based axis would flatten
 * the very movement the chart is asked about.
 */
function includeZero(min: number, max: number): boolean {
  const magnitude = Math.max(Math.abs(min), Math.abs(max));
  const sameSign = min > 0 || max < 0;
  return !sameSign || max - min >= magnitude / 2;
}

/** SYMBOL_MAX_POINTS is the most points a series may have for each of them to get a dot. */
const SYMBOL_MAX_POINTS = 60;

/**
 * lineSeries draws one series as a line without point symbols (a symbol per point costs an SVG
 * element each), except where a line would hide data: a short series gets a dot per point, and
 * so does a series with a point between two gaps, which as a line would not show at all.
 */
function lineSeries(name: string, points: Float64Array, lonely: number, index: number): LineSeriesOption {
  const color = PALETTE[index % PALETTE.length];
  const dash = LINE_TYPES[Math.floor(index / PALETTE.length) % LINE_TYPES.length];
  const dots = lonely > 0 || points.length / 2 <= SYMBOL_MAX_POINTS;
  return {
    type: 'line',
    name,
    // ECharts reads a typed array as flat (x, y) pairs; its option types list only arrays.
    data: points as unknown as LineSeriesOption['data'],
    dimensions: ['time', 'value'],
    showSymbol: dots,
    showAllSymbol: dots,
    symbol: dots ? 'circle' : 'none',
    symbolSize: 5,
    sampling: 'lttb',
    connectNulls: false,
    silent: true,
    color,
    lineStyle: { width: 1.5, color, type: dash },
  };
}

// ---------------------------------------------------------------------------------------------
// Series names

/** LabelSet is a series name read as a label set, `metric{k="v", ...}`, the metric as __name__. */
type LabelSet = [name: string, value: string][];

const LABEL_SET = /^([A-Za-z_:][A-Za-z0-9_:.]*)?\{(.*)\}$/s;
const LABEL_PAIR = /\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/** parseLabelSet reads a name such as `up{job="api", zone="a"}`, or gives undefined. */
export function parseLabelSet(text: string): LabelSet | undefined {
  const m = LABEL_SET.exec(text.trim());
  if (m === null) return undefined;
  const labels: LabelSet = m[1] ? [['__name__', m[1]]] : [];
  const body = m[2];
  LABEL_PAIR.lastIndex = 0;
  while (LABEL_PAIR.lastIndex < body.length) {
    const from = LABEL_PAIR.lastIndex;
    const pair = LABEL_PAIR.exec(body);
    if (pair === null || LABEL_PAIR.lastIndex === from) return body.slice(from).trim() === '' ? labels : undefined;
    labels.push([pair[1], pair[2]]);
  }
  return labels;
}

/** formatLabelSet writes a label set back, the metric name outside the braces. */
function formatLabelSet(labels: LabelSet, braces: boolean): string {
  const metric = labels.find(([k]) => k === '__name__')?.[1] ?? '';
  const rest = labels.filter(([k]) => k !== '__name__').map(([k, v]) => `${k}="${v}"`).join(', ');
  if (metric === '') return braces ? `{${rest}}` : rest || '{}';
  return rest === '' ? metric : `${metric}{${rest}}`;
}

/** SeriesNaming is what the legend may call the series and what the subtitle says once. */
interface SeriesNaming {
  /** shared are the labels all series have alike, written as a selector. */
  shared: string | undefined;
  /** forms name every series, most explicit first; a form may come with a note for the subtitle. */
  forms: NamingForm[];
}

interface NamingForm {
  labels: string[];
  note?: string;
}

/**
 * seriesNaming shortens legend labels when every series name is a label set: labels with the
 * same value in every series (often the metric name, a job, a status code) move to the
 * subtitle once, and the legend shows only the labels that tell the series apart. When those
 * are the same keys in every series, a second, shorter form gives their values alone, with
 * the keys noted in the subtitle. Long names are thus shortened by dropping what is known
 * rather than cutting off the part that matters.
 */
function seriesNaming(names: string[]): SeriesNaming {
  const unchanged: SeriesNaming = { shared: undefined, forms: [{ labels: names }] };
  if (names.length < 2) return unchanged;
  const sets = names.map(parseLabelSet);
  if (sets.some((set) => set === undefined)) return unchanged;
  const parsed = sets as LabelSet[];
  const shared = parsed[0].filter(([k, v]) => parsed.every((set) => set.some(([k2, v2]) => k2 === k && v2 === v)));
  const sharedKeys = new Set(shared.map(([k]) => k));
  const varying = parsed.map((set) => set.filter(([k]) => !sharedKeys.has(k)));
  const forms: NamingForm[] = [{ labels: varying.map((set) => formatLabelSet(set, false)) }];
  const keys = varying[0].map(([k]) => k).join(', ');
  if (keys !== '' && varying.every((set) => set.map(([k]) => k).join(', ') === keys)) {
    forms.push({ labels: varying.map((set) => set.map(([, v]) => v).join(', ')), note: `legend: ${keys}` });
  }
  return { shared: shared.length === 0 ? undefined : formatLabelSet(shared, true), forms };
}

/**
 * subtitleText joins the shared labels, a legend note and the time window, shortening the
 * shared labels (the only open-ended part) to fit the width.
 */
function subtitleText(shared: string | undefined, note: string | undefined, window: string | undefined, width: number): string | undefined {
  const font = `${FONT_SIZE - 1}px sans-serif`;
  const separator = '  ·  ';
  const fixed = [note, window].filter((x) => x !== undefined);
  if (shared === undefined) return fixed.length === 0 ? undefined : fixed.join(separator);
  const room = width - 20 - textWidth(fixed.map((x) => x + separator).join(''), font);
  return [fitText(shared, Math.max(room, 60), font), ...fixed].join(separator);
}

// ---------------------------------------------------------------------------------------------
// Legend

interface LegendLayout {
  /** names are the series' (unique) names, which ECharts matches series by. */
  names: string[];
  /** labels are what the legend shows for each name. */
  labels: Map<string, string>;
  /** note explains the labels in the subtitle, when they are values without their keys. */
  note: string | undefined;
  scroll: boolean;
  /** height is the space to keep free for the legend at the bottom, margins included. */
  height: number;
}

const LEGEND_ICON_WIDTH = 14;
const LEGEND_ICON_TEXT_GAP = 5;
const LEGEND_ITEM_GAP = 12;
/** LEGEND_LINE_HEIGHT is the height of one legend row without the gap (ECharts: the text's). */
const LEGEND_LINE_HEIGHT = FONT_SIZE;
const LEGEND_MARGIN = 10;
const LEGEND_BOTTOM = 6;

/**
 * legendLayout picks the naming form and the length of legend labels, and whether the legend
 * scrolls. Every series in view is worth more than long labels, so the legend must fit in about
 * a fifth of the height: whole labels if some form fits, else the shortest form cut ever
 * shorter; when even short labels do not fit it falls back to one scrolling row (which shows a
 * page number and arrows).
 */
function legendLayout(names: string[], forms: NamingForm[], size: Size): LegendLayout {
  const maxRows = Math.max(1, Math.floor((size.height * 0.2 + LEGEND_ITEM_GAP) / (LEGEND_LINE_HEIGHT + LEGEND_ITEM_GAP)));
  const rowWidth = size.width - 2 * LEGEND_MARGIN;
  const labelsFor = (form: NamingForm, maxChars: number) => new Map(names.map((n, i) => [n, truncateMiddle(form.labels[i], maxChars)]));
  const compact = forms[forms.length - 1];
  const tries: [NamingForm, number][] = [...forms.map((f): [NamingForm, number] => [f, Infinity]), ...[64, 48, 40, 32, 24, 18].map((n): [NamingForm, number] => [compact, n])];
  for (const [form, maxChars] of tries) {
    const labels = labelsFor(form, maxChars);
    const rows = legendRows([...labels.values()], rowWidth);
    if (rows <= maxRows) return { names, labels, note: form.note, scroll: false, height: legendHeight(rows) };
  }
  return { names, labels: labelsFor(compact, 32), note: compact.note, scroll: true, height: legendHeight(1) };
}

function legendHeight(rows: number): number {
  return rows * LEGEND_LINE_HEIGHT + (rows - 1) * LEGEND_ITEM_GAP + LEGEND_BOTTOM;
}

/** legendRows counts the rows a plain horizontal legend needs, packing items as ECharts does. */
function legendRows(labels: string[], rowWidth: number): number {
  let rows = 1;
  let x = 0;
  for (const label of labels) {
    const w = LEGEND_ICON_WIDTH + LEGEND_ICON_TEXT_GAP + textWidth(label, `${FONT_SIZE}px sans-serif`);
    if (x > 0 && x + w > rowWidth) {
      rows++;
      x = 0;
    }
    x += w + LEGEND_ITEM_GAP;
  }
  return rows;
}

function legendOption(layout: LegendLayout): LegendComponentOption {
  return {
    type: layout.scroll ? 'scroll' : 'plain',
    data: layout.names,
    bottom: LEGEND_BOTTOM,
    left: LEGEND_MARGIN,
    right: LEGEND_MARGIN,
    icon: 'roundRect',
    itemWidth: LEGEND_ICON_WIDTH,
    itemHeight: 8,
    itemGap: LEGEND_ITEM_GAP,
    textStyle: { fontSize: FONT_SIZE, color: TEXT_COLOR },
    formatter: (name: string) => layout.labels.get(name) ?? name,
  };
}

/**
 * truncateMiddle keeps both ends of a long name: series names are label sets, and the label
 * that tells two series apart is as often at the end as at the start.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  const head = Math.ceil((maxChars - 1) / 2);
  const tail = maxChars - 1 - head;
  return `${chars.slice(0, head).join('')}…${tail > 0 ? chars.slice(-tail).join('') : ''}`;
}

/** fitText shortens text in the middle until it is at most maxWidth pixels wide in font. */
function fitText(text: string, maxWidth: number, font: string): string {
  if (textWidth(text, font) <= maxWidth) return text;
  let lo = 1;
  let hi = Array.from(text).length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(truncateMiddle(text, mid), font) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return truncateMiddle(text, lo);
}

// ---------------------------------------------------------------------------------------------
// Number and time formatting

type Scale = readonly (readonly [factor: number, suffix: string])[];

const SI: Scale = [
  [1e15, 'P'],
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];
const BINARY: Scale = [
  [2 ** 50, ' PiB'],
  [2 ** 40, ' TiB'],
  [2 ** 30, ' GiB'],
  [2 ** 20, ' MiB'],
  [2 ** 10, ' KiB'],
  [1, ' B'],
];
const SECONDS: Scale = [
  [86_400, ' d'],
  [3_600, ' h'],
  [60, ' min'],
  [1, ' s'],
  [1e-3, ' ms'],
  [1e-6, ' µs'],
  [1e-9, ' ns'],
];
/** BYTE_UNITS name bytes and byte rates; symbols keep their case, as a lower-case b is a bit. */
const BYTE_UNITS = new Set(['bytes', 'byte', 'B', 'By', 'bytes/s', 'byte/s', 'B/s', 'By/s', 'bytes/sec']);
/** TIME_UNITS maps duration units (in lower case) to seconds. */
const TIME_UNITS = new Map([
  ['s', 1],
  ['sec', 1],
  ['second', 1],
  ['seconds', 1],
  ['ms', 1e-3],
  ['millisecond', 1e-3],
  ['milliseconds', 1e-3],
  ['us', 1e-6],
  ['µs', 1e-6],
  ['microseconds', 1e-6],
  ['ns', 1e-9],
  ['nanoseconds', 1e-9],
]);
const PERCENT_UNITS = new Set(['%', 'percent']);
/** TIME_STEPS are round durations in seconds for ticks between a second and a day. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

/** UnitStyle is how the y-axis labels values of one unit and, optionally, where its ticks go. */
interface UnitStyle {
  format: (value: number) => string;
  /** step rounds a raw tick interval to the unit's own round numbers; absent: ECharts' decimal ones. */
  step?: (raw: number) => number;
}

/**
 * unitStyle picks the y-axis label format for a unit: bytes in binary multiples (KiB, MiB) at
 * power-of-two steps, durations in the largest fitting unit (ns to days) at round durations,
 * percentages with a % sign, anything else with SI suffixes (k, M, G); the unit itself then
 * appears only in the axis name.
 */
function unitStyle(unit: string | undefined): UnitStyle {
  const exact = unit?.trim() ?? '';
  const u = exact.toLowerCase();
  if (BYTE_UNITS.has(exact) || BYTE_UNITS.has(u)) {
    const rate = u.includes('/') ? '/s' : '';
    return { format: (v) => withScale(v, BINARY, ' B') + rate, step: binaryStep };
  }
  const toSeconds = TIME_UNITS.get(u);
  if (toSeconds !== undefined) {
    return { format: (v) => withScale(v * toSeconds, SECONDS, ' s'), step: (raw) => timeStep(raw * toSeconds) / toSeconds };
  }
  if (PERCENT_UNITS.has(u)) return { format: (v) => `${roundTo(v, 4)}%` };
  return { format: (v) => withScale(v, SI, '') };
}

/** valueFormatter gives the y-axis label format for a unit (see unitStyle). */
export function valueFormatter(unit: string | undefined): (value: number) => string {
  return unitStyle(unit).format;
}

/** binaryStep is the power of two nearest a raw byte interval (decimal below one byte). */
function binaryStep(raw: number): number {
  return raw < 1 ? decimalStep(raw) : 2 ** Math.round(Math.log2(raw));
}

/** timeStep is the round duration at or above a raw interval in seconds. */
function timeStep(raw: number): number {
  if (raw < 1) return decimalStep(raw);
  return TIME_STEPS.find((step) => step >= raw) ?? 86_400 * decimalStep(raw / 86_400);
}

/** decimalStep is the smallest of 1, 2, 2.5 and 5 times a power of ten at or above raw. */
function decimalStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw * (1 - 1e-9)) ?? 10) * power;
}

/** withScale divides by the largest factor not above |v| (after rounding) and adds its suffix. */
function withScale(v: number, scale: Scale, unscaledSuffix: string): string {
  if (v === 0 || !Number.isFinite(v)) return v === 0 ? '0' : String(v);
  const a = Math.abs(roundTo(v, 4));
  for (const [factor, suffix] of scale) {
    if (a >= factor) return `${roundTo(v / factor, 4)}${suffix}`;
  }
  const smallest = scale[scale.length - 1];
  // Below the smallest unit: plain decimals, or the smallest unit's fractions for durations.
  return smallest[0] < 1 ? `${roundTo(v / smallest[0], 3)}${smallest[1]}` : `${roundTo(v, 3)}${unscaledSuffix}`;
}

/** roundTo keeps `digits` significant digits and prints no trailing zeros. */
function roundTo(v: number, digits: number): number {
  return Number(v.toPrecision(digits));
}

/** formatUtcRange writes a window as "2026-01-02 10:00:00 – 11:00:00 UTC", the date once if shared. */
export function formatUtcRange(startMs: number, endMs: number): string {
  const [startDate, startTime] = utcParts(startMs);
  const [endDate, endTime] = utcParts(endMs);
  const end = endDate === startDate ? endTime : `${endDate} ${endTime}`;
  return `${startDate} ${startTime} – ${end} UTC`;
}

function utcParts(ms: number): [date: string, time: string] {
  const iso = new Date(ms).toISOString();
  return [iso.slice(0, 10), iso.slice(11, 19)];
}

// ---------------------------------------------------------------------------------------------
// Fonts

/** ChartFont is the font the renderer measures and draws text with. */
export interface ChartFont {
  family: string;
  /** files are the font files found on this machine: regular, then bold if there is one. */
  files: string[];
  /** renderFiles are what resvg loads: trimmed copies of files (see trimFont), or files themselves. */
  renderFiles: string[];
}

/**
 * FONT_CANDIDATES are the usual places of a few sans-serif fonts: Liberation Sans first (it
 * has Arial's widths, which ECharts' own layout assumes), then DejaVu Sans (Debian and
 * Ubuntu's default, also in fonts-dejavu-core on slim images), then Arial on macOS and Windows.
 * Each entry is a family, its regular file and, optionally, its bold file for titles.
 */
const FONT_CANDIDATES: readonly (readonly [family: string, regular: string, bold?: string])[] = [
  ['Liberation Sans', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf', '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf'],
  ['Liberation Sans', '/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf', '/usr/share/fonts/liberation-sans/LiberationSans-Bold.ttf'],
  ['DejaVu Sans', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'],
  ['DejaVu Sans', '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf', '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans-Bold.ttf'],
  ['DejaVu Sans', '/usr/share/fonts/dejavu/DejaVuSans.ttf', '/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf'],
  ['DejaVu Sans', '/usr/share/fonts/TTF/DejaVuSans.ttf', '/usr/share/fonts/TTF/DejaVuSans-Bold.ttf'],
  ['Arial', '/Library/Fonts/Arial.ttf', '/Library/Fonts/Arial Bold.ttf'],
  ['Arial', '/System/Library/Fonts/Supplemental/Arial.ttf', '/System/Library/Fonts/Supplemental/Arial Bold.ttf'],
  ['Arial', 'C:\\Windows\\Fonts\\arial.ttf', 'C:\\Windows\\Fonts\\arialbd.ttf'],
];

interface ResolvedFont {
  font: ChartFont | undefined;
  measurer: TextMeasurer | undefined;
}

let resolved: ResolvedFont | undefined;

/** resolvedFont finds the font once per process; a font that cannot be parsed is skipped. */
function resolvedFont(): ResolvedFont {
  if (resolved !== undefined) return resolved;
  resolved = { font: undefined, measurer: undefined };
  for (const [family, regular, bold] of FONT_CANDIDATES) {
    if (!existsSync(regular)) continue;
    try {
      const files = bold !== undefined && existsSync(bold) ? [regular, bold] : [regular];
      const metrics = files.map((file) => new FontMetrics(readFileSync(file)));
      const renderFiles = files.map((file, i) => trimmedCopy(file, metrics[i]));
      resolved = { font: { family, files, renderFiles }, measurer: new TextMeasurer(metrics[0], metrics[1]) };
      break;
    } catch {
      continue;
    }
  }
  return resolved;
}

/**
 * resvgFontOptions gives resvg the found font files only: searching the system's fonts on
 * every render costs time on machines with many fonts. Without a found font, resvg searches.
 */
function resvgFontOptions(): ResvgRenderOptions['font'] {
  const font = resolvedFont().font;
  if (font === undefined) return { loadSystemFonts: true, defaultFontSize: FONT_SIZE };
  return { loadSystemFonts: false, fontFiles: font.renderFiles, defaultFontFamily: font.family, sansSerifFamily: font.family, defaultFontSize: FONT_SIZE };
}

/**
 * TextMeasurer gives text widths from a TrueType font's own advance widths (tables cmap and
 * hmtx), without kerning, as resvg draws the trimmed font. Characters the font lacks count as
 * one em, as a fallback font's would roughly.
 */
class TextMeasurer {
  constructor(
    private readonly regular: FontMetrics,
    private readonly bold: FontMetrics = regular,
  ) {}

  /** width measures text in a CSS font such as "bold 16px sans-serif". */
  width(text: string, font: string | undefined): number {
    const css = font ?? `${FONT_SIZE}px sans-serif`;
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(css)?.[1] ?? FONT_SIZE);
    const metrics = /bold|\b[6-9]00\b/.test(css) ? this.bold : this.regular;
    return metrics.emWidth(text) * size;
  }
}

/** TableRecord is one entry of a font's table directory. */
interface TableRecord {
  offset: number;
  length: number;
}

function readTables(data: Buffer): Map<string, TableRecord> {
  const tables = new Map<string, TableRecord>();
  const count = data.readUInt16BE(4);
  for (let i = 0; i < count; i++) {
    const rec = 12 + 16 * i;
    tables.set(data.toString('latin1', rec, rec + 4), { offset: data.readUInt32BE(rec + 8), length: data.readUInt32BE(rec + 12) });
  }
  return tables;
}

/** FontMetrics reads a TrueType font's tables, glyph indexes (BMP) and advance widths. */
class FontMetrics {
  readonly tables: Map<string, TableRecord>;
  private readonly unitsPerEm: number;
  private readonly numberOfHMetrics: number;
  private readonly cmap4: number;
  private readonly cache = new Float32Array(65_536).fill(-1);

  constructor(readonly data: Buffer) {
    this.tables = readTables(data);
    this.unitsPerEm = data.readUInt16BE(this.table('head').offset + 18);
    this.numberOfHMetrics = data.readUInt16BE(this.table('hhea').offset + 34);
    this.cmap4 = this.findCmap4();
  }

  /** emWidth is the advance width of text in ems. */
  emWidth(text: string): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let adv = this.cache[code];
      if (adv < 0) {
        const glyph = this.glyphIndex(code);
        adv = glyph === 0 ? 1 : this.advance(glyph) / this.unitsPerEm;
        this.cache[code] = adv;
      }
      w += adv;
    }
    return w;
  }

  table(tag: string): TableRecord {
    const record = this.tables.get(tag);
    if (record === undefined) throw new Error(`font has no ${tag} table`);
    return record;
  }

  /** glyphIndex maps a BMP code point to a glyph through the format-4 cmap; 0 when missing. */
  glyphIndex(code: number): number {
    const d = this.data;
    const segCount = d.readUInt16BE(this.cmap4 + 6) / 2;
    const ends = this.cmap4 + 14;
    const starts = ends + 2 * segCount + 2;
    const deltas = starts + 2 * segCount;
    const rangeOffsets = deltas + 2 * segCount;
    let lo = 0;
    let hi = segCount - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (d.readUInt16BE(ends + 2 * mid) < code) lo = mid + 1;
      else hi = mid;
    }
    const start = d.readUInt16BE(starts + 2 * lo);
    if (code < start || code > d.readUInt16BE(ends + 2 * lo)) return 0;
    const delta = d.readUInt16BE(deltas + 2 * lo);
    const rangeOffset = d.readUInt16BE(rangeOffsets + 2 * lo);
    if (rangeOffset === 0) return (code + delta) & 0xffff;
    const glyph = d.readUInt16BE(rangeOffsets + 2 * lo + rangeOffset + 2 * (code - start));
    return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
  }

  private advance(glyph: number): number {
    const index = Math.min(glyph, this.numberOfHMetrics - 1);
    return this.data.readUInt16BE(this.table('hmtx').offset + 4 * index);
  }

  /** findCmap4 locates the Unicode BMP character map (format 4) that maps codes to glyphs. */
  private findCmap4(): number {
    const d = this.data;
    const cmap = this.table('cmap').offset;
    const count = d.readUInt16BE(cmap + 2);
    for (let i = 0; i < count; i++) {
      const platform = d.readUInt16BE(cmap + 4 + 8 * i);
      const encoding = d.readUInt16BE(cmap + 6 + 8 * i);
      const sub = cmap + d.readUInt32BE(cmap + 8 + 8 * i);
      if (((platform === 3 && encoding === 1) || platform === 0) && d.readUInt16BE(sub) === 4) return sub;
    }
    throw new Error('font has no Unicode format-4 cmap');
  }
}

/**
 * TRIM_RANGES are the characters whose glyphs a trimmed font keeps: Latin with its
 * extensions, Greek (µ), Cyrillic, punctuation (– …), currency, letterlike symbols, arrows,
 * mathematical operators, geometric shapes, symbols and dingbats. Other glyphs are left empty,
 * so such characters (rare in labels) are drawn as blanks.
 */
const TRIM_RANGES: readonly [from: number, to: number][] = [
  [0x20, 0x24f],
  [0x370, 0x4ff],
  [0x2000, 0x206f],
  [0x20a0, 0x20cf],
  [0x2100, 0x21ff],
  [0x2200, 0x22ff],
  [0x25a0, 0x27bf],
];
/** TRIM_KEEP_TABLES are the tables a trimmed font keeps besides its rebuilt glyf, loca, head and post. */
const TRIM_KEEP_TABLES = ['cmap', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2'];
/**
 * trimmedCopy gives resvg a smaller copy of a font file, or the file itself if trimming fails.
 * resvg (2.6) reads its whole font file again for every text element it lays out, which for
 * DejaVu Sans (760 KB) costs over a millisecond per label, a third of a chart's rendering. The
 * copy keeps glyph numbering and metrics but empties glyphs outside TRIM_RANGES and drops
 * hinting, kerning and shaping tables (the layout measured text without kerning anyway): under
 * half the size. Copies go to a directory of this process's own (created private, so no other
 * user can plant a file in its place) and are removed when the process exits.
 */
function trimmedCopy(file: string, metrics: FontMetrics): string {
  try {
    const target = path.join(fontDir(), path.basename(file));
    writeFileSync(target, trimFont(metrics), { flag: 'wx' });
    return target;
  } catch {
    return file;
  }
}

let trimmedFontDir: string | undefined;

function fontDir(): string {
  if (trimmedFontDir === undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-chart-fonts-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    trimmedFontDir = dir;
  }
  return trimmedFontDir;
}

/** trimFont builds the trimmed font described at trimmedCopy. */
function trimFont(metrics: FontMetrics): Buffer {
  const data = metrics.data;
  const numGlyphs = data.readUInt16BE(metrics.table('maxp').offset + 4);
  const glyphs = new GlyphTable(data, metrics.table('glyf').offset, metrics.table('loca').offset, data.readInt16BE(metrics.table('head').offset + 50) === 1);
  const keep = keptGlyphs(metrics, glyphs);
  const loca = Buffer.alloc(4 * (numGlyphs + 1));
  const pieces: Buffer[] = [];
  let size = 0;
  for (let g = 0; g < numGlyphs; g++) {
    loca.writeUInt32BE(size, 4 * g);
    if (!keep.has(g)) continue;
    const glyph = glyphs.glyph(g);
    pieces.push(glyph, Buffer.alloc(pad4(glyph.length) - glyph.length));
    size += pad4(glyph.length);
  }
  loca.writeUInt32BE(size, 4 * numGlyphs);
  const head = Buffer.from(tableBytes(metrics, 'head'));
  head.writeUInt32BE(0, 8); // checkSumAdjustment, set once the whole file is known
  head.writeInt16BE(1, 50); // indexToLocFormat: 32-bit offsets
  const post = Buffer.from(tableBytes(metrics, 'post').subarray(0, 32));
  post.writeUInt32BE(0x0003_0000, 0); // version 3: no glyph names
  const tables = new Map<string, Buffer>([...TRIM_KEEP_TABLES.filter((t) => metrics.tables.has(t)).map((t): [string, Buffer] => [t, tableBytes(metrics, t)])]);
  tables.set('glyf', Buffer.concat(pieces)).set('loca', loca).set('head', head).set('post', post);
  return writeFont(data.readUInt32BE(0), tables);
}

/** keptGlyphs is .notdef, the glyphs of TRIM_RANGES, and every component they are built of. */
function keptGlyphs(metrics: FontMetrics, glyphs: GlyphTable): Set<number> {
  const keep = new Set<number>([0]);
  const pending: number[] = [];
  const add = (g: number) => {
    if (keep.has(g)) return;
    keep.add(g);
    pending.push(g);
  };
  for (const [from, to] of TRIM_RANGES) {
    for (let code = from; code <= to; code++) {
      const g = metrics.glyphIndex(code);
      if (g !== 0) add(g);
    }
  }
  for (let g = pending.pop(); g !== undefined; g = pending.pop()) glyphs.components(g).forEach(add);
  return keep;
}

/** GlyphTable reads glyph outlines from a font's glyf and loca tables. */
class GlyphTable {
  constructor(
    private readonly data: Buffer,
    private readonly glyf: number,
    private readonly loca: number,
    private readonly longOffsets: boolean,
  ) {}

  glyph(g: number): Buffer {
    return this.data.subarray(this.glyf + this.offset(g), this.glyf + this.offset(g + 1));
  }

  /** components lists the glyphs a composite glyph is assembled from (none for a simple one). */
  components(g: number): number[] {
    const glyph = this.glyph(g);
    if (glyph.length === 0 || glyph.readInt16BE(0) >= 0) return [];
    const out: number[] = [];
    let p = 10;
    for (;;) {
      const flags = glyph.readUInt16BE(p);
      out.push(glyph.readUInt16BE(p + 2));
      // Arguments are words or bytes; then an optional scale, 2x2 matrix or x and y scales.
      p += 4 + (flags & 0x0001 ? 4 : 2) + (flags & 0x0008 ? 2 : flags & 0x0040 ? 4 : flags & 0x0080 ? 8 : 0);
      if (!(flags & 0x0020)) return out;
    }
  }

  private offset(g: number): number {
    return this.longOffsets ? this.data.readUInt32BE(this.loca + 4 * g) : 2 * this.data.readUInt16BE(this.loca + 2 * g);
  }
}

function tableBytes(metrics: FontMetrics, tag: string): Buffer {
  const { offset, length } = metrics.table(tag);
  return metrics.data.subarray(offset, offset + length);
}

function pad4(n: number): number {
  return (n + 3) & ~3;
}

/** writeFont lays tables out as an sfnt file: directory sorted by tag, checksums, 4-byte alignment. */
function writeFont(sfntVersion: number, tables: Map<string, Buffer>): Buffer {
  const tags = [...tables.keys()].sort();
  const log2 = Math.floor(Math.log2(tags.length));
  const header = Buffer.alloc(12 + 16 * tags.length);
  header.writeUInt32BE(sfntVersion, 0);
  header.writeUInt16BE(tags.length, 4);
  header.writeUInt16BE(16 * 2 ** log2, 6);
  header.writeUInt16BE(log2, 8);
  header.writeUInt16BE(16 * (tags.length - 2 ** log2), 10);
  const body: Buffer[] = [];
  let offset = header.length;
  tags.forEach((tag, i) => {
    const table = tables.get(tag)!;
    const padded = Buffer.concat([table, Buffer.alloc(pad4(table.length) - table.length)]);
    header.write(tag, 12 + 16 * i, 'latin1');
    header.writeUInt32BE(checksum(padded), 16 + 16 * i);
    header.writeUInt32BE(offset, 20 + 16 * i);
    header.writeUInt32BE(table.length, 24 + 16 * i);
    body.push(padded);
    offset += padded.length;
  });
  const font = Buffer.concat([header, ...body]);
  const headOffset = header.readUInt32BE(20 + 16 * tags.indexOf('head'));
  font.writeUInt32BE((0xb1b0afba - checksum(font)) >>> 0, headOffset + 8);
  return font;
}

/** checksum is the sfnt sum of big-endian 32-bit words, modulo 2^32. */
function checksum(data: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 4 <= data.length; i += 4) sum = (sum + data.readUInt32BE(i)) >>> 0;
  return sum;
}

/** textWidth measures text as the chart will: with the found font, or ECharts' own estimate. */
function textWidth(text: string, font: string): number {
  setUpEcharts();
  const measurer = resolvedFont().measurer;
  return measurer !== undefined ? measurer.width(text, font) : echarts.format.getTextRect(text, font).width;
}
