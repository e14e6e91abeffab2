/**
 * Chart rendering for the tool gateway: a 10-series, 1000-point chart at 800x400, drawn as SVG
 * by ECharts alone and as PNG (ECharts, then resvg), against the 150 ms a tool call may spend
 * on it. Also times resvg alone on the finished SVG, with the renderer's trimmed copy of the
 * font and with the system's font file as it is (resvg reads the whole file again for every
 * label, so the trimmed copy's size shows directly), and the first render of the process
 * (ECharts' start-up, reading and trimming the font), which the steady-state figures leave out.
 *
 * Run: npm run bench -- chart
 */
import { Resvg } from '@resvg/resvg-js';
import { Bench } from 'tinybench';
import { chartFont, renderChartPng, renderChartSvg, type ChartRequest, type ChartSeries } from '../../src/mcp/chart.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';

const SERIES = 10;
const POINTS = 1000;
const TARGET_MS = 150;

/** chartRequest builds ten noisy waves over an hour, named like PromQL label sets. */
function chartRequest(): ChartRequest {
  const endMs = Date.UTC(2026, 0, 1, 12, 0, 0);
  const startMs = endMs - 3_600_000;
  let seed = 1;
  const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
  const series: ChartSeries[] = [];
  for (let s = 0; s < SERIES; s++) {
    const timestampsMs = new Float64Array(POINTS);
    const values = new Float64Array(POINTS);
    for (let i = 0; i < POINTS; i++) {
      timestampsMs[i] = startMs + Math.round((i * 3_600_000) / (POINTS - 1));
      values[i] = 1000 * (s + 1) * (1 + 0.3 * Math.sin(i / 60 + s)) + 200 * random();
    }
    series.push({ name: `{service_name="svc-${s}", code="500", namespace="shop"}`, timestampsMs, values });
  }
  return { title: 'HTTP 500 responses by service', series, unit: 'req/s', yAxisLabel: 'Rate', startMs, endMs };
}


export async function main(): Promise<void> {
  const req = chartRequest();
  const firstStarted = performance.now();
  const firstPng = renderChartPng(req);
  const firstMs = performance.now() - firstStarted;
  const svg = renderChartSvg(req);
  const font = chartFont();
  console.log(`${SERIES} series x ${POINTS} points at 800x400; font: ${font === undefined ? 'none found (resvg searches the system)' : `${font.family} (${font.files.join(', ')})`}`);
  console.log(`first render in this process (start-up included): ${firstMs.toFixed(0)} ms; PNG ${firstPng.length} bytes, SVG ${svg.length} bytes`);

  const resvgWith = (fontFiles: string[]) => {
    const fonts = font === undefined ? { loadSystemFonts: true } : { loadSystemFonts: false, fontFiles, defaultFontFamily: font.family, sansSerifFamily: font.family };
    const options = { fitTo: { mode: 'width' as const, value: 800 }, font: fonts };
    return () => void new Resvg(svg, options).render().asPng();
  };
  const bench = new Bench({ time: 3000, warmupTime: 500 });
  bench.add('svg', () => void renderChartSvg(req));
  bench.add('svg + png', () => void renderChartPng(req));
  bench.add('resvg alone (svg to png)', resvgWith(font?.renderFiles ?? []));
  if (font !== undefined) bench.add('resvg alone, untrimmed system font', resvgWith(font.files));
  await bench.run();

  const rows: Record<string, Record<string, string>> = {};
  for (const task of bench.tasks) {
    const ms = taskMeanMs(bench, task.name);
    rows[task.name] = { 'mean ms': ms.toFixed(1), [`of ${TARGET_MS} ms target`]: (ms / TARGET_MS).toFixed(2) };
  }
  console.table(rows);
}

runWhenDirect(import.meta.url, main);
