import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { AlignedData } from '../lib/series.js';
import { seriesChanges } from './seriesGrowth.js';

/** ChartSeries is how one series is drawn. */
export interface ChartSeries {
  label: string;
  color: string;
  /** fill shades the area under the line (area variants). */
  fill?: boolean;
  bars?: boolean;
}

/** Band shades the background over [fromS, toS] (highlightWhen). */
export interface Band {
  fromS: number;
  toS: number;
  color: string;
}

export interface TimeChartProps {
  data: AlignedData;
  series: ChartSeries[];
  yMin?: number;
  yMax?: number;
  integerYMax?: boolean;
  yLabel?: string;
  xLabel?: string;
  bands?: Band[];
  /** syncKey ties the crosshair of every chart with the same key (the dashboard's shared crosshair). */
  syncKey?: string;
  legend?: boolean;
  /** onPick reports the series clicked in the legend, for interlinks. */
  onPick?: (seriesIndex: number) => void;
  /** formatValue renders y values in the legend and on the axis. */
  formatValue?: (v: number) => string;
}

/** seriesOptions is how uPlot draws one series; `bars` is the chart's shared bar path builder. */
function seriesOptions(s: ChartSeries, props: TimeChartProps, bars: uPlot.Series.PathBuilder | undefined): uPlot.Series {
  return {
    label: s.label,
    stroke: s.color,
    width: s.bars ? 0 : 1.5,
    fill: s.fill || s.bars ? s.color + (s.bars ? 'cc' : '40') : undefined,
    paths: s.bars ? bars : undefined,
    points: { show: false },
    spanGaps: false,
    value: props.formatValue ? (_u, v) => (v === null ? '–' : props.formatValue!(v)) : undefined,
  };
}

/** seriesKey tells series apart for seriesChanges: two series with equal keys draw alike. */
const seriesKey = (s: ChartSeries): string => JSON.stringify([s.label, s.color, s.fill ?? false, s.bars ?? false]);

function optionsFor(props: TimeChartProps, width: number, height: number, bars: uPlot.Series.PathBuilder | undefined, bandsNow: () => Band[] | undefined): uPlot.Options {
  const { yMin, yMax, integerYMax } = props;
  return {
    width,
    height,
    legend: { show: props.legend !== false, live: true },
    cursor: props.syncKey ? { sync: { key: props.syncKey } } : {},
    scales: {
      x: { time: true },
      y: {
        range: (_u, min, max): uPlot.Range.MinMax => {
          let lo = yMin ?? Math.min(0, min ?? 0);
          let hi = yMax ?? (max === null || max === undefined || max === lo ? lo + 1 : max + (max - lo) * 0.05);
          if (integerYMax && yMax === undefined) hi = Math.ceil(hi);
          if (hi <= lo) hi = lo + 1;
          return [lo, hi];
        },
      },
    },
    axes: [
      { label: props.xLabel, stroke: '#7b8190', grid: { stroke: 'rgba(128,128,128,0.18)' } },
      {
        label: props.yLabel,
        stroke: '#7b8190',
        grid: { stroke: 'rgba(128,128,128,0.18)' },
        size: 56,
        values: props.formatValue ? (_u, ticks) => ticks.map((t) => props.formatValue!(t)) : undefined,
      },
    ],
    series: [{}, ...props.series.map((s) => seriesOptions(s, props, bars))],
    hooks: {
      drawClear: [
        (u) => {
          const bands = bandsNow();
          // The drawn Y range and band count are on the chart's element, for tests and for
          // anyone inspecting the page: a canvas does not say what it shows.
          u.root.dataset.yRange = `${u.scales.y.min ?? ''},${u.scales.y.max ?? ''}`;
          u.root.dataset.bands = String(bands?.length ?? 0);
          if (!bands || bands.length === 0) return;
          const ctx = u.ctx;
          ctx.save();
          for (const band of bands) {
            const x0 = u.valToPos(band.fromS, 'x', true);
            const x1 = u.valToPos(band.toS, 'x', true);
            ctx.fillStyle = band.color;
            ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
          }
          ctx.restore();
        },
      ],
    },
  };
}

/**
 * ChartHost is the element a TimeChart draws into. It carries its uPlot, so what a canvas shows
 * (the data drawn, the pixel of a value) can be read from the page: by the browser tests and by
 * anyone inspecting a chart in the developer tools.
 */
export interface ChartHost extends HTMLDivElement {
  uplot?: uPlot;
}

/** Built is a chart on the page: the uPlot, what it was built for, and how to take it down. */
interface Built {
  u: uPlot;
  /** shape is everything but the series that the chart's options were made from. */
  shape: string;
  /** keys are the seriesKey of each series the chart draws, in order. */
  keys: string[];
  bars: uPlot.Series.PathBuilder | undefined;
  dispose: () => void;
}

/**
 * TimeChart draws time series with uPlot, which keeps tens of thousands of points on a canvas
 * fast. The chart is rebuilt only when its axes change or the series it keeps change order;
 * series a stream finds later are added to the same chart and series gone are taken out of it
 * (uPlot's addSeries and delSeries), and new points are only fed to it, so a streaming panel
 * redraws without re-creating its canvas.
 */
export function TimeChart(props: TimeChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const built = useRef<Built | null>(null);
  const latest = useRef(props.data);
  latest.current = props.data;
  const pick = useRef(props.onPick);
  pick.current = props.onPick;
  // Bands are read when the chart draws, so bands that grow while the highlight query streams
  // redraw the chart instead of rebuilding it.
  const bands = useRef(props.bands);
  bands.current = props.bands;
  const bandsKey = JSON.stringify(props.bands ?? []);
  /** drawn is what the chart last drew, so a chart just built is not drawn again with the same data. */
  const drawn = useRef<{ data: AlignedData | undefined; bands: string }>({ data: undefined, bands: '' });
  const shape = JSON.stringify([props.yMin, props.yMax, props.integerYMax, props.yLabel, props.xLabel, props.legend, props.syncKey, props.formatValue !== undefined]);
  const keys = props.series.map(seriesKey);
  const keysKey = JSON.stringify(keys);

  useEffect(() => () => built.current?.dispose(), []);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const current = built.current;
    const changes = current && current.shape === shape ? seriesChanges(current.keys, keys) : undefined;
    if (current && changes) {
      // uPlot's series 0 is the time axis, so series i of the list is uPlot's i + 1.
      for (const i of changes.removed) current.u.delSeries(i + 1);
      for (const j of changes.inserted) current.u.addSeries(seriesOptions(props.series[j], props, current.bars), j + 1);
      current.keys = keys;
      drawn.current = { data: latest.current, bands: bandsKey };
      current.u.setData(latest.current as uPlot.AlignedData);
      return;
    }
    current?.dispose();
    const rect = el.getBoundingClientRect();
    const legendRoom = props.legend === false ? 0 : 28;
    let size = { width: Math.max(120, rect.width), height: Math.max(60, rect.height - legendRoom) };
    const bars = uPlot.paths.bars?.({ size: [0.8, 64] });
    const u = new uPlot(optionsFor(props, size.width, size.height, bars, () => bands.current), latest.current as uPlot.AlignedData, el);
    drawn.current = { data: latest.current, bands: bandsKey };
    (el as ChartHost).uplot = u;
    // One listener for the whole legend, so rows of series added later pick too.
    const onLegend = (e: Event): void => {
      const row = (e.target as Element | null)?.closest('.u-legend .u-series');
      if (!row || !pick.current) return;
      const index = [...u.root.querySelectorAll('.u-legend .u-series')].indexOf(row);
      if (index > 0) pick.current(index - 1);
    };
    u.root.addEventListener('dblclick', onLegend);
    // A ResizeObserver reports once as soon as it observes; redrawing only on a real change of
    // size spares every chart a second full draw when the dashboard opens.
    const resize = new ResizeObserver((entries) => {
      const box = entries[entries.length - 1].contentRect;
      const next = { width: Math.max(120, box.width), height: Math.max(60, box.height - legendRoom) };
      if (Math.round(next.width) === Math.round(size.width) && Math.round(next.height) === Math.round(size.height)) return;
      size = next;
      u.setSize(size);
    });
    resize.observe(el);
    built.current = {
      u,
      shape,
      keys,
      bars,
      dispose: () => {
        resize.disconnect();
        u.root.removeEventListener('dblclick', onLegend);
        u.destroy();
        if ((el as ChartHost).uplot === u) delete (el as ChartHost).uplot;
        built.current = null;
      },
    };
  }, [shape, keysKey]);

  useEffect(() => {
    if (drawn.current.data === props.data) return;
    drawn.current.data = props.data;
    built.current?.u.setData(props.data as uPlot.AlignedData);
  }, [props.data]);

  useEffect(() => {
    if (drawn.current.bands === bandsKey) return;
    drawn.current.bands = bandsKey;
    built.current?.u.redraw(false);
  }, [bandsKey]);

  return <div class="chart" ref={host} />;
}
