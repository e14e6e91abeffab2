/**
 * Metric segment codec benchmark: bytes per sample and decode speed of the sample encodings,
 * and PromQL query time over the same data written as format version 1 (plain columns) and
 * version 2 (compressed sample blocks), all measured in one run so only ratios matter.
 *
 * Data: the peer benchmark's dataset (counters growing by whole numbers plus an irrational
 * per-instance share, and classic histogram buckets, scraped every 15 s) and the demo world
 * of src/gen (request counters, histogram buckets and sums, CPU seconds, memory and constant
 * gauges). Value layouts compared, timestamps always delta-of-delta:
 *   xor      Gorilla XOR of each value with the previous one (Prometheus' chunks)
 *   decimal  decimal mantissas, deltas bit-packed (VictoriaMetrics without its zstd pass)
 *   smaller  whichever of the two is smaller per series: what segments are written with
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/segmentCodec.bench.js
 * Sizes: BENCH_HOURS (default 24), BENCH_COUNTERS (1000), BENCH_HISTOGRAMS (200).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { readSharedSync } from '../../engine/storage/blobStore.js';
import { labelsKey } from '../../engine/storage/labels.js';
import { compileMatchers, type LabelMatcher } from '../../engine/storage/matchers.js';
import type { MetricQuerier } from '../../engine/storage/metricHead.js';
import { MetricSegmentReader, encodeMetricSegment } from '../../engine/storage/metricSegment.js';
import { decodeBlockTimestamps, decodeBlockValues, encodeSampleBlock } from '../../engine/storage/sampleBlocks.js';
import { sampleLoops, sampleLoopsInJavaScript } from '../../engine/storage/sampleLoops.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import type { ValueLayout } from '../../engine/storage/valueCodec.js';
import { Generator, SCRAPE_INTERVAL_MS } from '../../src/gen/generator.js';
import { Dataset } from '../peers/dataset.js';
import { runWhenDirect } from '../runDirect.js';
import { completedResult } from '../taskResult.js';

const HOURS = Number(process.env.BENCH_HOURS ?? 24);
const COUNTERS = Number(process.env.BENCH_COUNTERS ?? 1000);
const HISTOGRAMS = Number(process.env.BENCH_HISTOGRAMS ?? 200);
const END_MS = Date.UTC(2024, 4, 2, 0, 0, 0) - 8_000;
const LAYOUTS: ValueLayout[] = ['xor', 'decimal', 'smaller'];

/** peerSeries is the peer benchmark's dataset as whole series. */
function peerSeries(): SeriesColumns[] {
  const dataset = new Dataset({ name: 'small', counterSeries: COUNTERS, histogramSeries: HISTOGRAMS, hours: HOURS, logLines: 0, windowsHours: [] }, END_MS);
  const series = dataset.series.map((s) => ({ labels: s.labels, timestampsMs: new Float64Array(dataset.steps), values: new Float64Array(dataset.steps) }));
  let step = 0;
  for (const { timestampMs, values } of dataset.samples()) {
    for (let i = 0; i < series.length; i++) {
      series[i].timestampsMs[step] = timestampMs;
      series[i].values[step] = values[i];
    }
    step++;
  }
  return series;
}

/** demoSeries is the demo world's metrics as whole series. */
function demoSeries(): SeriesColumns[] {
  const gen = new Generator({ seed: 42, logsPerSecond: 0 });
  const byKey = new Map<string, { labels: Record<string, string>; t: number[]; v: number[] }>();
  for (let t = END_MS - HOURS * 3_600_000; t < END_MS; t += SCRAPE_INTERVAL_MS) {
    for (const ts of gen.scrape(t).metrics.timeseries) {
      const labels = Object.fromEntries(ts.labels.map((l) => [l.name, l.value]));
      const key = labelsKey(labels);
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { labels, t: [], v: [] }));
      for (const sample of ts.samples) {
        s.t.push(Number(sample.timestamp));
        s.v.push(sample.value);
      }
    }
  }
  return [...byKey.values()].map((s) => ({ labels: s.labels, timestampsMs: Float64Array.from(s.t), values: Float64Array.from(s.v) }));
}

function family(labels: Record<string, string>): string {
  const name = labels.__name__ ?? '';
  if (name.endsWith('_bucket')) return 'histogram buckets';
  if (name.endsWith('_total') || name.endsWith('_count') || name.endsWith('_sum')) return 'counters';
  return 'gauges';
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(1);
}

/** completed returns a finished task's result, or throws if it did not finish. */
function completed(bench: Bench, name: string): { hz: number; medianMs: number } {
  const result = completedResult(bench, name);
  return { hz: result.throughput.mean, medianMs: result.latency.p50 ?? result.latency.mean };
}

function samplesOf(series: readonly SeriesColumns[]): number {
  return series.reduce((n, s) => n + s.timestampsMs.length, 0);
}

/** sizes prints bytes per sample: whole files in both formats, then per value layout and family. */
function sizes(name: string, series: readonly SeriesColumns[]): void {
  const samples = samplesOf(series);
  const v1 = encodeMetricSegment(series, 1)!.bytes.length;
  const v2 = encodeMetricSegment(series, 2)!.bytes.length;
  console.log(`\n${name}: ${series.length} series, ${fmt(samples)} samples`);
  console.log(`  segment file, version 1       ${(v1 / samples).toFixed(3).padStart(8)} B/sample`);
  console.log(`  segment file, version 2       ${(v2 / samples).toFixed(3).padStart(8)} B/sample   (${(v1 / v2).toFixed(1)}x smaller)`);
  const families = [...new Set(series.map((s) => family(s.labels)))].sort();
  console.log(`  sample blocks by value layout ${['all', ...families].map((f) => f.padStart(18)).join('')}`);
  for (const layout of LAYOUTS) {
    const bytes = new Map<string, number>();
    const count = new Map<string, number>();
    for (const s of series) {
      const f = family(s.labels);
      const b = encodeSampleBlock(s.timestampsMs, s.values, layout).length * 4;
      for (const key of ['all', f]) {
        bytes.set(key, (bytes.get(key) ?? 0) + b);
        count.set(key, (count.get(key) ?? 0) + s.timestampsMs.length);
      }
    }
    const cells = ['all', ...families].map((f) => `${((bytes.get(f) ?? 0) / (count.get(f) ?? 1)).toFixed(3)} B/sample`.padStart(18));
    console.log(`    ${layout.padEnd(27)}${cells.join('')}`);
  }
}

/** decodeSpeed times decoding every series' block, per layout, against reading version 1 views. */
async function decodeSpeed(name: string, series: readonly SeriesColumns[]): Promise<void> {
  const samples = samplesOf(series);
  const bench = new Bench({ time: 0, iterations: 5, warmup: true, warmupIterations: 1, warmupTime: 0 });
  for (const layout of LAYOUTS) {
    const blocks = series.map((s) => encodeSampleBlock(s.timestampsMs, s.values, layout));
    for (const [loopsName, loops] of [['', sampleLoops()], [', JavaScript loops', sampleLoopsInJavaScript()]] as const) {
      bench.add(`${layout}${loopsName}`, () => {
        for (let i = 0; i < blocks.length; i++) {
          decodeBlockTimestamps(blocks[i], series[i].timestampsMs.length, loops);
          decodeBlockValues(blocks[i], series[i].values.length, loops);
        }
      });
    }
  }
  const v1 = encodeMetricSegment(series, 1)!.bytes;
  bench.add('version 1 (open, views)', () => void MetricSegmentReader.decode(v1, undefined, 'trusted').select([], [], -Infinity, Infinity));
  await bench.run();
  console.log(`\n${name}: decode throughput (all series, timestamps and values; module: the WebAssembly loops, ratio to JavaScript's)`);
  for (const task of bench.tasks) {
    const hz = completed(bench, task.name).hz;
    const reference = bench.tasks.find((t) => t.name === `${task.name}, JavaScript loops`);
    const ratio = reference === undefined ? '' : `   ${(hz / completed(bench, reference.name).hz).toFixed(2)}x`;
    console.log(`  ${task.name.padEnd(28)} ${`${fmt(samples * hz)} samples/s`.padStart(20)}${ratio}`);
  }
}

/** ReaderQuerier serves PromQL from one segment reader, as a worker's view does. */
class ReaderQuerier implements MetricQuerier {
  constructor(private readonly reader: () => MetricSegmentReader) {}

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    return this.reader().select(matchers, compileMatchers(matchers), minMs, maxMs);
  }

  labelNames(): string[] {
    return [];
  }

  labelValues(): string[] {
    return [];
  }
}

/**
 * queries times PromQL over both formats: warm (reader kept across runs, as the worker LRU
 * does), cold (opened per run from bytes in memory, as a worker opens a segment the query front
 * handed it) and from the file (read from the file system, checksum verified, then opened: what
 * the first query over a segment costs the process, the file in the page cache).
 */
async function queries(series: readonly SeriesColumns[]): Promise<void> {
  const v1 = encodeMetricSegment(series, 1)!.bytes;
  const v2 = encodeMetricSegment(series, 2)!.bytes;
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-codec-bench-'));
  const file1 = path.join(dir, 'v1.seg');
  const file2 = path.join(dir, 'v2.seg');
  writeFileSync(file1, v1);
  writeFileSync(file2, v2);
  const warm1 = MetricSegmentReader.decode(v1);
  const warm2 = MetricSegmentReader.decode(v2);
  const variants: Array<[string, MetricQuerier]> = [
    ['v1 warm', new ReaderQuerier(() => warm1)],
    ['v2 warm', new ReaderQuerier(() => warm2)],
    ['v1 cold', new ReaderQuerier(() => MetricSegmentReader.decode(v1, undefined, 'trusted'))],
    ['v2 cold', new ReaderQuerier(() => MetricSegmentReader.decode(v2, undefined, 'trusted'))],
    ['v1 file', new ReaderQuerier(() => MetricSegmentReader.decode(readSharedSync(file1)))],
    ['v2 file', new ReaderQuerier(() => MetricSegmentReader.decode(readSharedSync(file2)))],
  ];
  const startMs = END_MS - HOURS * 3_600_000 + 5 * 60_000;
  const suite = [
    { name: `rate, ${COUNTERS} series out`, query: 'rate(bench_requests_total[5m])' },
    { name: 'sum by (route) (rate)', query: 'sum by (route) (rate(bench_requests_total[5m]))' },
    { name: 'max_over_time', query: 'max_over_time(bench_requests_total[5m])' },
    { name: 'histogram_quantile', query: 'histogram_quantile(0.9, sum by (le) (rate(bench_request_duration_seconds_bucket[5m])))' },
  ];
  const bench = new Bench({ time: 0, iterations: 4, warmup: true, warmupIterations: 1, warmupTime: 0 });
  for (const q of suite) {
    const expr = parseAndCheckPromQL(q.query);
    // Both formats must answer identically before anything is timed.
    const a = evaluateRange(expr, variants[0][1], startMs, END_MS, 60_000);
    const b = evaluateRange(expr, variants[1][1], startMs, END_MS, 60_000);
    if (JSON.stringify(a.series.map((s) => [s.labels, [...s.values]])) !== JSON.stringify(b.series.map((s) => [s.labels, [...s.values]]))) {
      throw new Error(`${q.query}: formats answer differently`);
    }
    for (const [variant, querier] of variants) bench.add(`${q.name} | ${variant}`, () => void evaluateRange(expr, querier, startMs, END_MS, 60_000));
  }
  await bench.run();
  rmSync(dir, { recursive: true, force: true });
  const ms = (name: string): number => completed(bench, name).medianMs;
  console.log(`\nPromQL over one segment, ${HOURS} h at a 1 m step (median ms; ratio version 2 / version 1)`);
  console.log(`  ${'query'.padEnd(30)}${['v1 warm', 'v2 warm', 'v2/v1', 'v1 cold', 'v2 cold', 'v2/v1', 'v1 file', 'v2 file', 'v2/v1'].map((h) => h.padStart(10)).join('')}`);
  for (const q of suite) {
    const cells: string[] = [];
    for (const state of ['warm', 'cold', 'file']) {
      const [one, two] = ['v1', 'v2'].map((v) => ms(`${q.name} | ${v} ${state}`));
      cells.push(one.toFixed(1), two.toFixed(1), `${(two / one).toFixed(2)}x`);
    }
    console.log(`  ${q.name.padEnd(30)}${cells.map((c) => c.padStart(10)).join('')}`);
  }
}

/** main prints sizes and decode speeds for both datasets, then the query comparison on the peer dataset. */
export async function main(): Promise<void> {
  console.log(`Generating ${HOURS} h of data...`);
  const peers = peerSeries();
  const demo = demoSeries();
  sizes('peer dataset', peers);
  sizes('demo world', demo);
  await decodeSpeed('peer dataset', peers);
  await decodeSpeed('demo world', demo);
  await queries(peers);
}

runWhenDirect(import.meta.url, main);
