import { writeFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, type GridComponentOption, type LegendComponentOption, type TitleComponentOption } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { QueryCaseResult } from './querySuite.js';

/**
 * The report's chart: median latency of every query case, one bar per system, on a log axis
 * (the cases span three orders of magnitude), drawn by ECharts' server-side SVG renderer and
 * rasterised by resvg so the README can embed a PNG.
 */
type BarChartOption = echarts.ComposeOption<BarSeriesOption | TitleComponentOption | LegendComponentOption | GridComponentOption>;

const WIDTH = 1100;
const ROW_HEIGHT = 34;
const SYSTEMS = [
  { key: 'sluice', title: 'Sluice (SSE)', color: '#2f6fde' },
  { key: 'sluice-compact', title: 'Sluice (compact SSE)', color: '#1b9e77' },
  { key: 'sluice-prom', title: 'Sluice (Prometheus API)', color: '#8fb3f0' },
  { key: 'prometheus', title: 'Prometheus', color: '#e6522c' },
  { key: 'victoria', title: 'VictoriaMetrics', color: '#5b3fa8' },
] as const;

export function renderQueryChartSvg(queries: readonly QueryCaseResult[], title: string): string {
  echarts.use([BarChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer]);
  // Top to bottom in suite order: ECharts draws the first category at the bottom.
  const rows = [...queries].reverse();
  const height = 110 + rows.length * ROW_HEIGHT;
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height });
  const option: BarChartOption = {
    animation: false,
    backgroundColor: '#ffffff',
    title: { text: title, left: 'center', textStyle: { fontSize: 15 } },
    // Wide gaps: ECharts measures text for Arial, resvg draws the wider DejaVu Sans.
    legend: { top: 28, itemGap: 40, data: SYSTEMS.map((s) => s.title) },
    grid: { left: 270, right: 40, top: 64, bottom: 40 },
    xAxis: { type: 'log', name: 'median ms (log scale)', nameLocation: 'middle', nameGap: 26, logBase: 10 },
    yAxis: { type: 'category', data: rows.map((q) => `${q.name} · ${q.window}`), axisLabel: { fontSize: 11 } },
    series: SYSTEMS.map((s) => ({
      type: 'bar' as const,
      name: s.title,
      itemStyle: { color: s.color },
      barGap: '10%',
      data: rows.map((q) => Number((q.systems[s.key]?.medianMs ?? Number.NaN).toFixed(2))),
    })),
  };
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** writeQueryChart writes the chart as PNG (and its SVG beside it). */
export function writeQueryChart(queries: readonly QueryCaseResult[], title: string, pngPath: string): void {
  const svg = renderQueryChartSvg(queries, title);
  writeFileSync(pngPath.replace(/\.png$/, '.svg'), svg);
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: WIDTH }, background: '#ffffff', font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, logLevel: 'off' }).render().asPng();
  writeFileSync(pngPath, png);
}
