/**
 * PromQL evaluator benchmarks: `rate(x[5m])` and `sum by (job) (rate(x[5m]))` over 10k series
 * scraped every 15s for a day, as 1h and 1d range queries at a 1m step. Each is timed against a
 * naive evaluator in the same run that rescans every window at every step, to show what the
 * single sliding pass per series is worth. Throughput is reported in samples read per second.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/eval.bench.js
 * Scale down with BENCH_SERIES=1000 for a quick run.
 */
import { Bench } from 'tinybench';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { evaluateRange, type RangeResult } from '../../engine/promql/eval/index.js';
import type { Labels } from '../../engine/storage/labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../../engine/storage/matchers.js';
import { lowerBound, upperBound, type MetricQuerier } from '../../engine/storage/metricHead.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { bitsOf, isStale } from '../../engine/storage/staleness.js';
import { runWhenDirect } from '../runDirect.js';
import { taskHz } from '../taskResult.js';
import { seededRandom } from '../seededRandom.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 10_000);
const SCRAPE_MS = 15_000;
const DAY_MS = 24 * 3600 * 1000;
const STEP_MS = 60_000;
const RANGE_MS = 5 * 60_000;
const JOBS = 10;

/**
 * SyntheticQuerier serves counters from one shared timestamp array and one value array, handing
 * out subarray views so that selecting a day of 10k series copies nothing.
 */
class SyntheticQuerier implements MetricQuerier {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly labels: Labels[];

  constructor(series: number, samplesPerSeries: number) {
    this.timestamps = Float64Array.from({ length: samplesPerSeries }, (_, i) => i * SCRAPE_MS);
    this.values = new Float64Array(series * samplesPerSeries);
    this.labels = [];
    const random = seededRandom(42);
    for (let s = 0; s < series; s++) {
      this.labels.push({ __name__: 'x', instance: `host-${String(s).padStart(5, '0')}`, job: `job-${s % JOBS}` });
      let v = 0;
      const base = s * samplesPerSeries;
      for (let i = 0; i < samplesPerSeries; i++) {
        v = random() < 0.0005 ? 0 : v + Math.floor(random() * 100);
        this.values[base + i] = v;
      }
    }
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const compiled = compileMatchers(matchers);
    const from = lowerBound(this.timestamps, minMs);
    const to = upperBound(this.timestamps, maxMs);
    const n = this.timestamps.length;
    const out: SeriesColumns[] = [];
    this.labels.forEach((labels, s) => {
      if (!matchesAll(labels, compiled) || to <= from) return;
      out.push({ labels, timestampsMs: this.timestamps.subarray(from, to), values: this.values.subarray(s * n + from, s * n + to) });
    });
    return out;
  }

  labelNames(): string[] {
    return ['__name__', 'instance', 'job'];
  }

  labelValues(name: string): string[] {
    return [...new Set(this.labels.map((l) => l[name] ?? ''))].sort();
  }
}

/**
 * naiveRate is the evaluator a first attempt would write: for every step and series, find the
 * window by binary search and rescan all its samples (skipping staleness markers, tracking
 * counter resets), then extrapolate as Prometheus does.
 */
function naiveRate(ts: Float64Array, vals: Float64Array, words: Uint32Array, endMs: number): number | null {
  const startMs = endMs - RANGE_MS;
  const lo = upperBound(ts, startMs);
  const hi = upperBound(ts, endMs);
  let first = -1;
  let last = -1;
  let count = 0;
  let result = 0;
  for (let j = lo; j < hi; j++) {
    if (isStale(words, j)) continue;
    if (first < 0) first = j;
    else if (vals[j] < vals[last]) result += vals[last];
    last = j;
    count++;
  }
  if (count < 2) return null;
  result += vals[last] - vals[first];
  const sampled = (ts[last] - ts[first]) / 1000;
  const average = sampled / (count - 1);
  let toStart = (ts[first] - startMs) / 1000;
  let toEnd = (endMs - ts[last]) / 1000;
  if (toStart >= average * 1.1) toStart = average / 2;
  if (result > 0 && vals[first] >= 0) toStart = Math.min(toStart, sampled * (vals[first] / result));
  if (toEnd >= average * 1.1) toEnd = average / 2;
  return (result * ((sampled + toStart + toEnd) / sampled)) / (RANGE_MS / 1000);
}

/** withoutName drops the metric name, as rate() does. */
function withoutName(labels: Labels): Labels {
  const out: Record<string, string> = {};
  for (const name in labels) if (name !== '__name__') out[name] = labels[name];
  return out;
}

/** toResult turns per-step values (NaN = no point) into result series sorted by labels, as the engine returns them. */
function toResult(rows: { labels: Labels; values: Float64Array }[], startMs: number): SeriesColumns[] {
  const out: { key: string; series: SeriesColumns }[] = [];
  for (const { labels, values } of rows) {
    let n = 0;
    for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) n++;
    if (n === 0) continue;
    const timestampsMs = new Float64Array(n);
    const kept = new Float64Array(n);
    let k = 0;
    for (let i = 0; i < values.length; i++) {
      if (Number.isNaN(values[i])) continue;
      timestampsMs[k] = startMs + i * STEP_MS;
      kept[k++] = values[i];
    }
    let key = '';
    for (const name in labels) key += name + '\x00' + labels[name] + '\x01';
    out.push({ key, series: { labels, timestampsMs, values: kept } });
  }
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out.map((o) => o.series);
}

/**
 * naiveRateQuery evaluates rate(x[5m]) step by step for every series, rescanning every window,
 * and returns the same result shape as the engine.
 */
function naiveRateQuery(querier: SyntheticQuerier, startMs: number, endMs: number): SeriesColumns[] {
  const steps = Math.floor((endMs - startMs) / STEP_MS) + 1;
  const rows: { labels: Labels; values: Float64Array }[] = [];
  for (const series of querier.select([{ name: '__name__', type: '=', value: 'x' }], startMs - RANGE_MS + 1, endMs)) {
    const values = new Float64Array(steps).fill(NaN);
    const words = bitsOf(series.values);
    for (let i = 0; i < steps; i++) {
      const r = naiveRate(series.timestampsMs, series.values, words, startMs + i * STEP_MS);
      if (r !== null) values[i] = r;
    }
    rows.push({ labels: withoutName(series.labels), values });
  }
  return toResult(rows, startMs);
}

/** naiveSumRateQuery evaluates sum by (job) (rate(x[5m])) step by step, rescanning every window. */
function naiveSumRateQuery(querier: SyntheticQuerier, startMs: number, endMs: number): SeriesColumns[] {
  const steps = Math.floor((endMs - startMs) / STEP_MS) + 1;
  const series = querier.select([{ name: '__name__', type: '=', value: 'x' }], startMs - RANGE_MS + 1, endMs);
  const words = series.map((s) => bitsOf(s.values));
  const sums = new Map<string, Float64Array>();
  for (let i = 0; i < steps; i++) {
    const t = startMs + i * STEP_MS;
    for (let k = 0; k < series.length; k++) {
      const s = series[k];
      const r = naiveRate(s.timestampsMs, s.values, words[k], t);
      if (r === null) continue;
      let row = sums.get(s.labels.job);
      if (row === undefined) sums.set(s.labels.job, (row = new Float64Array(steps).fill(NaN)));
      row[i] = Number.isNaN(row[i]) ? r : row[i] + r;
    }
  }
  return toResult([...sums].map(([job, values]) => ({ labels: { job }, values })), startMs);
}

/** checkAgreement makes sure both evaluators compute the same thing before timing them. */
function checkAgreement(engine: RangeResult, naive: SeriesColumns[]): void {
  if (engine.series.length !== naive.length) throw new Error(`engine returned ${engine.series.length} series, naive ${naive.length}`);
  engine.series.forEach((series, i) => {
    const other = naive[i];
    if (JSON.stringify(series.labels) !== JSON.stringify(other.labels) || series.values.length !== other.values.length) {
      throw new Error(`engine and naive evaluators disagree on series ${i}`);
    }
    series.values.forEach((v, k) => {
      const want = other.values[k];
      if (Math.abs(want - v) > 1e-9 * Math.max(1, Math.abs(want))) throw new Error(`engine and naive evaluators disagree at ${JSON.stringify(series.labels)}: ${v} vs ${want}`);
    });
  });
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(1);
}

/** main builds the data set, checks the evaluators agree, times them and prints samples/s. */
export async function main(): Promise<void> {
  const samplesPerSeries = DAY_MS / SCRAPE_MS + 1;
  console.log(`Generating ${SERIES} series x ${samplesPerSeries} samples (${fmt(SERIES * samplesPerSeries)} samples)...`);
  const querier = new SyntheticQuerier(SERIES, samplesPerSeries);
  const rate = parseAndCheckPromQL('rate(x[5m])');
  const sumRate = parseAndCheckPromQL('sum by (job) (rate(x[5m]))');
  const end = DAY_MS;
  const windows = [
    { name: '1h', start: end - 3600e3 },
    { name: '1d', start: RANGE_MS },
  ];
  checkAgreement(evaluateRange(rate, querier, end - 3600e3, end, STEP_MS), naiveRateQuery(querier, end - 3600e3, end));
  checkAgreement(evaluateRange(sumRate, querier, end - 3600e3, end, STEP_MS), naiveSumRateQuery(querier, end - 3600e3, end));

  const bench = new Bench({ time: 0, iterations: 3, warmup: true, warmupIterations: 1, warmupTime: 0 });
  for (const w of windows) {
    bench
      .add(`rate ${w.name}`, () => void evaluateRange(rate, querier, w.start, end, STEP_MS))
      .add(`rate ${w.name} naive`, () => void naiveRateQuery(querier, w.start, end))
      .add(`sum by job rate ${w.name}`, () => void evaluateRange(sumRate, querier, w.start, end, STEP_MS))
      .add(`sum by job rate ${w.name} naive`, () => void naiveSumRateQuery(querier, w.start, end));
  }
  await bench.run();

  console.log('\nPromQL range queries, 1m step (samples/s = samples read by the query per second)');
  for (const w of windows) {
    const samplesRead = SERIES * (upperBound(querier.timestamps, end) - lowerBound(querier.timestamps, w.start - RANGE_MS + 1));
    for (const query of ['rate', 'sum by job rate']) {
      const ours = taskHz(bench, `${query} ${w.name}`);
      const naive = taskHz(bench, `${query} ${w.name} naive`);
      console.log(
        `  ${`${query} ${w.name}`.padEnd(20)} ${`${fmt(ours * samplesRead)} samples/s`.padStart(20)}` +
          `   naive ${`${fmt(naive * samplesRead)} samples/s`.padStart(20)}   sliding/naive = ${(ours / naive).toFixed(2)}x`,
      );
    }
  }
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
